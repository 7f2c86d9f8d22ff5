"""The walk of the paths a user names: one listing of every entry, without opening a file.

``Lister`` goes over the arguments in the order given, globs expanded and sorted, directories
depth first in sorted name order (so the whole walk is sorted by path), noise names left out.
Each entry is a ``ListedInput`` (``plogscan.model.listing``): a regular file to read with its
size, modification time and (device, inode), or a name the run does not read with the reason
(``stat`` alone tells it: a symlink leading outside, a loop, a duplicate, a FIFO in a tree, a
name that cannot be looked at, a directory past ``--max-depth``, an empty directory). The
read of the inputs (``sniff``) takes the entries as they come, so the walk overlaps the parse;
a consumer that needs them all before the run (the progress total, the redaction's names, the
cache's key to a whole result) asks for ``complete()``, and the read then replays them: the
paths are walked once per run, whoever asks.

Containment: inside a directory walk a symlink is followed only when its target stays inside
the directory named. What is named on the command line is taken as named: a regular file
(through a symlink too), a directory, ``-`` (standard input), or a FIFO or character device
(``<(zcat run.log.gz)`` arrives as ``/dev/fd/N``), read once as a stream.
"""

from __future__ import annotations

import errno
import glob
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence

from plogscan.ingest.limits import Limits
from plogscan.ingest.sources import NOISE_DIRS, PARQUET_REASON, is_noise, printable
from plogscan.ingest.streams import describe
from plogscan.model.listing import EntryKind, InputListing, ListedInput

MAX_ENTRIES = 250_000  # entries kept when the whole listing is asked for (about 50 MB);
# past this the listing is incomplete: the read goes on walking, but no whole result is kept
_GLOB_CHARS = re.compile(r"[*?\[]")
OUTSIDE_REASON = "symlink leads outside the directory given: not followed"
NO_MATCH_REASON = "no file matches this pattern"
EMPTY_DIR_REASON = "empty directory"

K = EntryKind


class Lister:
    """The walk of ``paths``, as entries; ``complete()`` keeps them (up to ``MAX_ENTRIES``).

    ``tables`` tells the event tables named on the command line (read as tables, not walked).
    ``digests`` gathers the content digest of each regular file the run computes (by absolute
    path), for the cache."""

    def __init__(self, paths: Sequence[str], limits: Limits | None = None,
                 tables: Callable[[str], bool] | None = None, cwd: str | None = None) -> None:
        self.args = tuple(os.fspath(p) for p in paths)
        self.limits = limits or Limits()
        self.cwd = cwd or os.getcwd()
        self.digests: dict[str, str] = {}
        self._tables = tables
        self._walk = self._entries()
        self._kept: list[ListedInput] | None = None
        self._listing: InputListing | None = None
        self.files: dict[tuple[int, int], str] = {}  # (device, inode) -> path shown
        self.dirs: dict[tuple[int, int], str] = {}

    def complete(self) -> InputListing:
        """The whole listing (walked now, the first time it is asked for)."""
        if self._listing is None:
            kept = self._kept = []
            whole = True
            for entry in self._walk:
                kept.append(entry)
                if len(kept) >= MAX_ENTRIES:
                    whole = False
                    break
            self._listing = InputListing(self.args, self.cwd, tuple(kept), whole, self.digests)
        return self._listing

    def __iter__(self) -> Iterator[ListedInput]:
        """Every entry in walk order: the kept ones again, then the rest of the walk."""
        if self._kept is not None:
            yield from self._kept
        yield from self._walk

    # -- the walk ----------------------------------------------------------------------------

    def _entries(self) -> Iterator[ListedInput]:
        for arg in self.args:
            if self._tables is not None and self._tables(arg):
                yield self._table(arg)
            elif arg == "-" and not os.path.lexists(arg):
                yield ListedInput(arg, K.STREAM, named=True)
            elif is_pattern(arg):
                yield from self._pattern(arg)
            else:
                yield from self._named(arg)

    def _table(self, arg: str) -> ListedInput:
        try:
            st = os.stat(arg)
        except OSError:
            return ListedInput(arg, K.TABLE, named=True)
        return ListedInput(arg, K.TABLE, st.st_size, st.st_mtime_ns, (st.st_dev, st.st_ino),
                           st.st_mode, named=True)

    def _pattern(self, arg: str) -> Iterator[ListedInput]:
        matches = sorted(glob.glob(arg, recursive=True))
        if not matches:
            yield ListedInput(arg, K.PATTERN, skipped=NO_MATCH_REASON, named=True)
            return
        yield ListedInput(arg, K.PATTERN, named=True)
        walked: set[str] = set()
        for match in matches:
            if _inside(match, walked):
                continue  # covered by the walk of a matched directory
            if os.path.isdir(match):
                walked.add(os.path.normpath(match))
            yield from self._named(match)

    def _named(self, path: str) -> Iterator[ListedInput]:
        """A path the user named: taken as named (a symlink is followed)."""
        try:
            st = os.stat(path)
        except OSError as exc:
            yield ListedInput(path, K.MISSING, skipped=_named_failure(path, exc), named=True)
            return
        if stat.S_ISDIR(st.st_mode):
            yield from self._directory(path, st)
        elif stat.S_ISREG(st.st_mode):
            yield self._file(path, st, follow=True, named=True)
        elif stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode):
            yield ListedInput(path, K.STREAM, mode=st.st_mode, named=True)
        else:
            yield ListedInput(path, K.OTHER, mode=st.st_mode, skipped="not a regular file",
                              named=True)

    def _file(self, path: str, st: os.stat_result, *, follow: bool, named: bool = False,
              link: str | None = None) -> ListedInput:
        key = (st.st_dev, st.st_ino)
        skipped = None
        if key in self.files:
            skipped = f"duplicate: same file as {self.files[key]}"
        else:
            self.files[key] = printable(path)
            if path.lower().endswith(".parquet"):
                skipped = PARQUET_REASON
        return ListedInput(path, K.FILE, st.st_size, st.st_mtime_ns, key, st.st_mode,
                           follow=follow, named=named, link=link, skipped=skipped)

    def _directory(self, top: str, top_stat: os.stat_result) -> Iterator[ListedInput]:
        """Depth first, entries sorted by name; a directory already on the path is a loop.
        Symlinks are followed only to targets inside ``top``; depth is bounded."""
        root = os.path.realpath(top)
        ancestors: list[tuple[int, int]] = []
        stack: list[tuple[Iterator[str], str]] = []
        found = False  # whether the walk below ``top`` gave anything to read or report

        def enter(path: str, st: os.stat_result, link: str | None = None) -> ListedInput:
            top_named = not stack  # the directory named itself, not one found in it
            key = (st.st_dev, st.st_ino)
            entry = ListedInput(path, K.DIRECTORY, None, st.st_mtime_ns, key, st.st_mode,
                                named=top_named, link=link)
            if key in ancestors:
                return _skipped(entry, "symlink loop")
            if key in self.dirs:
                return _skipped(entry, f"duplicate: same directory as {self.dirs[key]}")
            if len(stack) > self.limits.depth:
                detail = (f"more than {self.limits.depth} directory levels below "
                          f"{printable(top)}: this directory was not read")
                return _skipped(entry, f"not read: {detail} (--max-depth)",
                                self.limits.hit("depth", printable(path), detail))
            try:
                with os.scandir(path) as it:
                    names = sorted(e.name for e in it)
            except OSError as exc:
                if top_named:
                    return _skipped(entry, describe(exc), named=True)
                return _skipped(entry, f"unreadable: {describe(exc)}")
            self.dirs[key] = printable(path)
            ancestors.append(key)
            stack.append((iter(names), path))
            return entry

        entry = enter(top, top_stat)
        yield entry
        if entry.skipped is not None:
            return
        while stack:
            names, directory = stack[-1]
            name = next(names, None)
            if name is None:
                stack.pop()
                ancestors.pop()
                continue
            child = os.path.join(directory, name)
            if is_noise(name) or name.lower() in NOISE_DIRS:
                yield ListedInput(child, K.NOISE)
                continue
            entry = self._child(child, root, enter)
            found = found or entry.kind is not K.DIRECTORY or entry.skipped is not None
            yield entry
        if not found:  # said, so that it is not taken for read
            yield ListedInput(top, K.DIRECTORY, skipped=EMPTY_DIR_REASON)

    def _child(self, child: str, root: str,
               enter: Callable[..., ListedInput]) -> ListedInput:
        """One name found in a directory."""
        link = None
        try:
            st = os.lstat(child)
            if stat.S_ISLNK(st.st_mode):
                link = os.readlink(child)
                if not _within(os.path.realpath(child), root):
                    return ListedInput(child, K.LINK, link=link, skipped=OUTSIDE_REASON)
                st = os.stat(child)
        except OSError as exc:
            return ListedInput(child, K.MISSING, link=link, skipped=_stat_failure(child, exc))
        if stat.S_ISDIR(st.st_mode):
            return enter(child, st, link)
        if stat.S_ISREG(st.st_mode):
            return self._file(child, st, follow=link is not None, link=link)
        return ListedInput(child, K.OTHER, mode=st.st_mode, link=link,
                           skipped="not a regular file")


def unchanged(listing: InputListing) -> bool:
    """Whether every entry of ``listing`` is still as listed (one ``stat`` each, no directory
    read: a name added to or removed from a directory changes its modification time)."""
    for entry in listing.entries:
        if entry.file_id is None or entry.kind not in (K.FILE, K.DIRECTORY, K.TABLE):
            continue
        try:
            st = os.stat(entry.path)
        except OSError:
            return False
        if ((st.st_dev, st.st_ino) != entry.file_id or st.st_mtime_ns != entry.mtime_ns
                or (entry.size is not None and st.st_size != entry.size)):
            return False
    return True


def is_pattern(arg: str) -> bool:
    """Whether an argument is a glob pattern: no such path, and ``*``, ``?`` or ``[`` in it."""
    return not os.path.lexists(arg) and _GLOB_CHARS.search(arg) is not None


def _skipped(entry: ListedInput, reason: str, limit: object = None, named: bool = False
             ) -> ListedInput:
    from dataclasses import replace

    return replace(entry, skipped=reason, limit=limit, named=named)


def _within(target: str, root: str) -> bool:
    """Whether the resolved ``target`` is ``root`` or inside it."""
    try:
        return os.path.commonpath([target, root]) == root
    except ValueError:
        return False


def _named_failure(path: str, exc: OSError) -> str:
    """Why a path named on the command line cannot be read, in the system's words."""
    reason = describe(exc)
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return f"{reason} (broken symlink)"
    return reason


def _stat_failure(path: str, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno == errno.ENOENT:
        return "broken symlink" if os.path.islink(path) else "not found"
    return f"unreadable: {describe(exc)}"


def _inside(path: str, directories: set[str]) -> bool:
    parent = os.path.dirname(os.path.normpath(path))
    while parent and parent not in directories:
        up = os.path.dirname(parent)
        if up == parent:
            return False
        parent = up
    return bool(parent)
