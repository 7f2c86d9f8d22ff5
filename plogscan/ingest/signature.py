"""What a rerun compares to know that its inputs are the ones an earlier run read.

``listing`` goes over the paths a user named the way the walk (``walk``) reaches files:
arguments in order, globs expanded and sorted, directories depth first in name order, noise
names left out. It records the name, type, size and modification time of every entry, and the
text of every symlink, without reading a file, and hashes them into ``InputListing.stat_hash``.
``InputListing.content_hash`` then hashes each regular file's content digest
(``reuse.file_digest``, the same sampled digest the extraction cache checks), read on two
threads when there are many bytes to read. An earlier run's result is reused only when both
hashes are equal.

The listing is more cautious than the walk: a file the walk would skip, or a directory it would
not enter, still changes the listing when it changes. A run that reads what cannot be listed
this way (standard input, a pipe or device, an unreadable directory, more than
``MAX_ENTRIES`` entries) gets no listing (None), and so no reuse.
"""

from __future__ import annotations

import glob
import hashlib
import os
import stat
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from plogscan.cache.digest import file_digests, sampled_bytes
from plogscan.ingest.sources import NOISE_DIRS, is_noise

MAX_ENTRIES = 250_000  # past this many entries a run is not memoized: the listing holds every
# file's path for the run's length (about 45 MB at this bound, paths of 100 bytes)
TASK_BYTES = 8 << 20  # file bytes hashed per task
THREADS = 2  # hashlib and large reads release the GIL; opening small files side by side does
# not pay (20,000 files of 160 bytes: 0.31 s on one thread, 0.57 s on two)
_GLOB_CHARS = frozenset("*?[")


class NotListable(Exception):
    """An input that a listing cannot describe (the run is then not memoized)."""


@dataclass(frozen=True)
class InputListing:
    """The stat-level hash of everything below the named paths, and the regular files in it."""

    stat_hash: str
    files: tuple[str, ...]  # paths to open, in listing order
    sizes: tuple[int, ...]  # their sizes, as listed

    def content_hash(self) -> str | None:
        """A hash of the content digests of ``files`` (None when one cannot be read).

        Files are hashed in tasks of about ``TASK_BYTES`` read (a large file counts for the
        bytes its sampled digest reads); a single task runs on the calling thread."""
        tasks: list[list[str]] = [[]]
        weight = 0
        for path, size in zip(self.files, self.sizes, strict=True):
            if weight >= TASK_BYTES:
                tasks.append([])
                weight = 0
            tasks[-1].append(path)
            weight += sampled_bytes(size)
        if len(tasks) == 1:
            digests = file_digests(tasks[0])
        else:
            with ThreadPoolExecutor(THREADS) as pool:
                digests = [d for part in pool.map(file_digests, tasks) for d in part]
        if any(digest is None for digest in digests):
            return None
        return hashlib.sha256("\n".join(digests).encode()).hexdigest()  # type: ignore[arg-type]


def listing(paths: Sequence[str], cwd: str | None = None) -> InputListing | None:
    """The listing of ``paths`` (relative ones against ``cwd``), or None when one of them
    cannot be listed (see the module's docstring)."""
    cwd = cwd or os.getcwd()
    digest = hashlib.sha256(f"cwd {cwd}\n".encode())
    files: list[str] = []
    sizes: list[int] = []
    entries = 0
    try:
        for arg in paths:
            digest.update(f"arg {arg}\n".encode())
            for line, regular in _entries(arg):
                entries += 1
                if entries > MAX_ENTRIES:
                    return None
                digest.update(line.encode("utf-8", "surrogateescape"))
                if regular is not None:
                    files.append(regular[0])
                    sizes.append(regular[1])
    except (NotListable, OSError):
        return None
    return InputListing(digest.hexdigest(), tuple(files), tuple(sizes))


def _entries(arg: str) -> Iterator[tuple[str, tuple[str, int] | None]]:
    """(a line describing one entry, (path, size) when it is a regular file to hash)."""
    if arg == "-":
        raise NotListable(arg)
    if not os.path.lexists(arg) and _GLOB_CHARS.intersection(arg):
        for match in sorted(glob.glob(arg, recursive=True)):
            yield f"match {match}\n", None
            yield from _named(match)
        return
    yield from _named(arg)


def _named(path: str) -> Iterator[tuple[str, tuple[str, int] | None]]:
    """A path as named: followed when it is a symlink, as the walk reads it."""
    try:
        st = os.stat(path)
    except OSError as exc:
        yield f"missing {path} {exc.errno}\n", None  # the walk reports it; no content
        return
    if stat.S_ISDIR(st.st_mode):
        yield from _directory(path, st)
    elif stat.S_ISREG(st.st_mode):
        yield _file_line(path, st), (path, st.st_size)
    else:
        raise NotListable(path)  # a pipe or device: read once, never the same twice


def _directory(top: str, top_stat: os.stat_result) -> Iterator[tuple[str, tuple[str, int] | None]]:
    yield f"dir {top} {top_stat.st_dev} {top_stat.st_ino}\n", None
    stack = [top]
    seen = {(top_stat.st_dev, top_stat.st_ino)}
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as it:
            names = sorted(entry.name for entry in it)
        subdirs = []
        for name in names:
            if is_noise(name) or name.lower() in NOISE_DIRS:
                continue
            child = os.path.join(directory, name)
            st = os.lstat(child)
            if stat.S_ISLNK(st.st_mode):
                # The walk follows a link only to a target inside ``top``, which this listing
                # covers under the target's own name; the link's text says where it points.
                yield f"link {child} {os.readlink(child)}\n", None
            elif stat.S_ISDIR(st.st_mode):
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    yield f"dir {child} {st.st_mode:o}\n", None
                    subdirs.append(child)
            elif stat.S_ISREG(st.st_mode):
                yield _file_line(child, st), (child, st.st_size)
            else:
                yield f"other {child} {stat.S_IFMT(st.st_mode)}\n", None  # skipped unopened
        stack.extend(reversed(subdirs))


def _file_line(path: str, st: os.stat_result) -> str:
    return f"file {path} {st.st_size} {st.st_mtime_ns} {st.st_ino} {st.st_mode:o}\n"
