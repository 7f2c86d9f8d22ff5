"""The inputs a user names, turned into readable logs and skipped files, in a fixed order.

``iter_inputs`` turns the paths a user typed (files, directories, globs, ``.gz``/``.bz2``/``.xz``
files, ``.tar``/``.tar.gz``/``.tgz``/``.zip`` archives, in any mix and nesting) into one
deterministic sequence of readable logs and skipped files. Every log comes with its ``Source``
(display path, kind, path hints, size) and a stream of its *decompressed* bytes from the start.

Standard input and pipes
    ``-`` reads the standard input (shown as ``<stdin>``); a FIFO or character device named as
    an argument (``<(zcat run.log.gz)``, ``/dev/stdin``) is read as a stream too. Inside a
    directory walk such files are skipped as ``not a regular file``: reading one could block.

Order
    Arguments in the order given; a directory walk in sorted name order, depth first (so the
    whole walk is sorted by path); glob matches sorted; archive members in archive order.

What each file is comes from ``classify``, what its path says from ``pathhints``, how
compressed streams and archives are read from ``streams`` and ``archives``, and the skip
reasons from ``sources``.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import BinaryIO

from plogscan.ingest.archives import Member, tar_members, zip_members
from plogscan.ingest.classify import BINARY_RATIO, SUSPECT_RATIO, classify, non_text_ratio
from plogscan.ingest.pathhints import TAR_NAME, path_hints
from plogscan.ingest.sources import (
    NOISE_DIRS,
    NOT_A_LOG_REASON,
    NOT_LOG_SUFFIXES,
    PARQUET_REASON,
    STDIN_PATH,
    UNKNOWN_REASON,
    Skipped,
    Source,
    is_noise,
    printable,
)
from plogscan.ingest.streams import (
    DECOMPRESSORS,
    MAX_NESTING,
    Replay,
    container,
    describe,
    failure,
    read_head,
)

HEAD_BYTES = 64 * 1024  # bytes sniffed for container type and content
EXTENDED_HEAD_BYTES = 1024 * 1024  # non-seekable text whose head matched nothing: look this far
TAIL_BYTES = 64 * 1024  # seekable text whose head matched nothing: also sniff its tail
_GLOB_CHARS = re.compile(r"[*?\[]")

_Item = tuple[Source, BinaryIO] | Skipped


@dataclass
class _Walker:
    """State of one ``iter_inputs`` run: what was already read, to report duplicates."""

    files: dict[tuple[int, int], str] = field(default_factory=dict)
    dirs: dict[tuple[int, int], str] = field(default_factory=dict)

    # -- file system -------------------------------------------------------------------------

    def argument(self, arg: str) -> Iterator[_Item]:
        if arg == "-" and not os.path.lexists(arg):
            yield from self.stdin()
            return
        if not os.path.lexists(arg) and _GLOB_CHARS.search(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                yield Skipped(printable(arg), "not found: the pattern matches nothing")
                return
            walked: set[str] = set()
            for match in matches:
                if _inside(match, walked):
                    continue  # covered by the walk of a matched directory
                if os.path.isdir(match):
                    walked.add(os.path.normpath(match))
                yield from self.path(match)
            return
        yield from self.path(arg)

    def path(self, path: str) -> Iterator[_Item]:
        shown = printable(path)
        try:
            st = os.stat(path)
        except OSError as exc:
            yield Skipped(shown, _stat_failure(path, exc))
            return
        if stat.S_ISDIR(st.st_mode):
            yield from self.walk(path, st)
        elif stat.S_ISREG(st.st_mode):
            yield from self.file(path, st)
        elif stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode):
            yield from self.pipe(path)  # named by the user: <(zcat x.gz), /dev/stdin
        else:
            yield Skipped(shown, "not a regular file")

    def stdin(self) -> Iterator[_Item]:
        """``-``: the standard input, read once as a stream."""
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            yield Skipped(STDIN_PATH, "unreadable: no standard input")
            return
        yield from self.stream(STDIN_PATH, stream, None, seekable=False, depth=0)

    def pipe(self, path: str) -> Iterator[_Item]:
        """A FIFO or character device named on the command line, read once as a stream (a
        directory walk skips them: reading one could block forever)."""
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed by the with below, after the yield
        except OSError as exc:
            yield Skipped(printable(path), f"unreadable: {describe(exc)}")
            return
        with f:
            yield from self.stream(printable(path), f, None, seekable=False, depth=0)

    def walk(self, top: str, top_stat: os.stat_result) -> Iterator[_Item]:
        """Depth first, entries sorted by name; a directory already on the path is a loop."""
        ancestors: list[tuple[int, int]] = []
        stack: list[tuple[Iterator[str], tuple[int, int], str]] = []

        def enter(path: str, st: os.stat_result) -> Skipped | None:
            key = (st.st_dev, st.st_ino)
            if key in ancestors:
                return Skipped(printable(path), "symlink loop")
            if key in self.dirs:
                return Skipped(printable(path), f"duplicate: same directory as {self.dirs[key]}")
            try:
                with os.scandir(path) as it:
                    names = sorted(e.name for e in it)
            except OSError as exc:
                return Skipped(printable(path), f"unreadable: {describe(exc)}")
            self.dirs[key] = printable(path)
            ancestors.append(key)
            stack.append((iter(names), key, path))
            return None

        skipped = enter(top, top_stat)
        if skipped is not None:
            yield skipped
            return
        while stack:
            names, _, directory = stack[-1]
            name = next(names, None)
            if name is None:
                stack.pop()
                ancestors.pop()
                continue
            if is_noise(name) or name.lower() in NOISE_DIRS:
                continue
            child = os.path.join(directory, name)
            try:
                st = os.stat(child)
            except OSError as exc:
                yield Skipped(printable(child), _stat_failure(child, exc))
                continue
            if stat.S_ISDIR(st.st_mode):
                skipped = enter(child, st)
                if skipped is not None:
                    yield skipped
            elif stat.S_ISREG(st.st_mode):
                yield from self.file(child, st)
            else:
                yield Skipped(printable(child), "not a regular file")

    def file(self, path: str, st: os.stat_result) -> Iterator[_Item]:
        shown = printable(path)
        key = (st.st_dev, st.st_ino)
        if key in self.files:
            yield Skipped(shown, f"duplicate: same file as {self.files[key]}")
            return
        self.files[key] = shown
        if path.lower().endswith(".parquet"):
            yield Skipped(shown, PARQUET_REASON)
            return
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed by the with below, after the yield
        except OSError as exc:
            yield Skipped(shown, f"unreadable: {describe(exc)}")
            return
        with f:
            yield from self.stream(shown, f, st.st_size, seekable=True, depth=0)

    # -- streams -----------------------------------------------------------------------------

    def stream(
        self, shown: str, stream: BinaryIO, size: int | None, *, seekable: bool, depth: int
    ) -> Iterator[_Item]:
        """Sniff ``stream`` and yield what it holds: a log, archive members, or a skip."""
        head, err = read_head(stream, HEAD_BYTES)
        if err is not None and not head:
            yield Skipped(shown, failure(err))
            return
        fmt = container(head)
        if fmt == "parquet" or shown.lower().endswith(".parquet"):
            yield Skipped(shown, PARQUET_REASON)
            return
        if fmt in ("zstd", "7z", "rar"):
            yield Skipped(shown, f"unsupported compression: {fmt} (unpack it first)")
            return
        if fmt is not None and depth >= MAX_NESTING:
            yield Skipped(shown, f"archive nested too deeply (more than {MAX_NESTING} levels)")
            return
        if fmt in DECOMPRESSORS:
            inner = DECOMPRESSORS[fmt](Replay(head, stream, err))
            with contextlib.closing(inner):
                yield from self.stream(shown, inner, size, seekable=False, depth=depth + 1)
            return
        if fmt == "zip":
            yield from self.members(
                zip_members(shown, stream, head, err, seekable=seekable), depth)
            return
        if fmt == "tar":
            yield from self.members(tar_members(shown, Replay(head, stream, err)), depth)
            return
        if not head:
            yield Skipped(shown, "empty file")
            return
        if not head.strip(b"\x00"):
            empty_tar = TAR_NAME.search(shown) is not None  # a tar of no member is all zeros
            yield Skipped(shown, "empty archive" if empty_tar else "binary file (only NUL bytes)")
            return
        yield from self.text(shown, stream, head, err, size, seekable=seekable)

    def text(
        self,
        shown: str,
        stream: BinaryIO,
        head: bytes,
        err: BaseException | None,
        size: int | None,
        *,
        seekable: bool,
    ) -> Iterator[_Item]:
        ratio = non_text_ratio(head)
        if ratio > BINARY_RATIO:
            yield Skipped(shown, "binary file")
            return
        kind = classify(shown, head)
        more = err is None and len(head) >= HEAD_BYTES
        if kind is None and more and seekable and size is not None and size > HEAD_BYTES:
            try:
                stream.seek(max(size - TAIL_BYTES, HEAD_BYTES))
                tail, _ = read_head(stream, TAIL_BYTES)
            except OSError:
                tail = b""
            kind = classify(shown, head + b"\n" + tail.partition(b"\n")[2])
        elif kind is None and more and not seekable:
            extra, err = read_head(stream, EXTENDED_HEAD_BYTES - len(head))
            head += extra
            kind = classify(shown, head)
        if kind is None:
            suffix = PurePosixPath(shown).suffix.lower()
            if suffix in NOT_LOG_SUFFIXES:
                yield Skipped(shown, f"{NOT_A_LOG_REASON} ({suffix})")
            else:
                yield Skipped(shown, "binary file" if ratio > SUSPECT_RATIO else UNKNOWN_REASON)
            return
        source = Source(shown, kind, *path_hints(shown), size)
        if seekable:
            try:
                stream.seek(0)
            except OSError as exc:
                yield Skipped(shown, f"unreadable: {describe(exc)}")
                return
            yield source, stream
        else:
            yield source, Replay(head, stream, err)

    def members(self, items: Iterator[Member | Skipped], depth: int) -> Iterator[_Item]:
        """Each archive member, sniffed and read like a file one nesting level deeper."""
        for item in items:
            if isinstance(item, Skipped):
                yield item
            else:
                yield from self.stream(item.path, item.stream, item.size, seekable=False,
                                       depth=depth + 1)


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


def iter_inputs(paths: Sequence[str]) -> Iterator[tuple[Source, BinaryIO] | Skipped]:
    """Expand files, directories (recursive), globs, .gz, .tar, .tar.gz/.tgz, .zip into a
    deterministic sequence. For each readable log yields (Source, stream) where stream yields
    the DECOMPRESSED bytes from the start of the file; the stream is only valid until the
    generator advances (the consumer reads it fully before asking for the next item). Skipped
    items are yielded in order too.

    A path that does not exist but contains ``*``, ``?`` or ``[`` is a glob pattern
    (``glob.glob(recursive=True)``, matches sorted; a matched directory is walked and the
    matches inside it are not repeated). The same file or directory reached twice (named twice,
    or through a symlink) is read once and reported as a duplicate after that. Never raises on
    bad input; see the module docstring for the reasons a file is skipped.
    """
    walker = _Walker()
    for arg in paths:
        yield from walker.argument(os.fspath(arg))
