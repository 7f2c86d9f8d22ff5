"""The inputs a user names, turned into readable logs and skipped files, in a fixed order.

``iter_inputs`` turns the paths a user typed (files, directories, globs, ``.gz``/``.bz2``/``.xz``
files, ``.tar``/``.tar.gz``/``.tgz``/``.zip`` archives, in any mix and nesting) into one
deterministic sequence of readable logs and skipped files: the entries of the walk
(``walk.Lister``), each regular file opened once and sniffed. Every log comes with its
``Source`` (display path, kind, path hints, size, encoding) and a stream of its
*decompressed*, UTF-8 bytes from the start.

Containment
    Nothing outside what the user named is read (the walk says what is inside). FIFOs,
    sockets and devices found in a directory are skipped as ``not a regular file`` without
    being opened (opening one could block, or read for ever). Files are opened without
    following a link swapped in after the check and without blocking, and must still be the
    regular file that was checked. Archive members are read in place and never written
    anywhere.

Nothing lost
    A file named or placed like a log (``pathhints.placed_like_a_log``) is read whatever its
    lines look like (a line of no known shape is a record of its own) and even when its first
    bytes are junk (NUL runs, binary garbage, a huge first line): the junk becomes unparsed or
    truncated lines and the records after it are found. UTF-16 and GBK files are decoded
    (``encodings``).

Limits
    Archive nesting, directory depth, the number of files and decompressed sizes are bounded
    (``limits.Limits``); each limit that bites is recorded as a ``LimitHit`` and what it left
    unread is a ``Skipped`` entry or a problem of the file.

Order
    The walk's (``walk``); archive members in archive order.

What each file is comes from ``classify``, what its path says from ``pathhints``, how
compressed streams and archives are read from ``streams`` and ``archives``, and the skip
reasons from ``sources``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import BinaryIO

from plogscan.ingest.archives import Member, tar_members, zip_members
from plogscan.ingest.classify import (
    BINARY_RATIO,
    SUSPECT_RATIO,
    KindMemo,
    classify,
    non_text_ratio,
    remembered_kind,
)
from plogscan.ingest.encodings import UTF8, Decoded, decode_head, detect
from plogscan.ingest.limits import LimitHit, Limits
from plogscan.ingest.sources import (
    NOT_A_LOG_REASON,
    NOT_LOG_SUFFIXES,
    PARQUET_REASON,
    STDIN_PATH,
    UNKNOWN_REASON,
    Skipped,
    Source,
    printable,
)
from plogscan.ingest.streams import (
    DECOMPRESSORS,
    Bounded,
    Counted,
    PlainFile,
    Replay,
    container,
    describe,
    failure,
    open_checked,
    read_head,
)
from plogscan.ingest.walk import Lister
from plogscan.model.listing import EntryKind, ListedInput
from plogscan.pathhints import (
    TAR_NAME,
    log_kind_by_place,
    named_like_output,
    path_hints,
    placed_like_a_log,
    text_kind_by_place,
)
from plogscan.schema import SourceKind

HEAD_BYTES = 64 * 1024  # bytes sniffed for container type and content
EXTENDED_HEAD_BYTES = 1024 * 1024  # non-seekable text whose head matched nothing: look this far
TAIL_BYTES = 64 * 1024  # seekable text whose head matched nothing: also sniff its tail

WalkItem = tuple[Source, BinaryIO] | Skipped  # what a walk yields


@dataclass
class Walker:
    """State of one read of the inputs: the limits and the number of files read so far.
    ``on_limit`` and ``kinds`` are looked up each time they are used, so that they can be
    swapped mid-walk (``walkchild`` does, in the process it forks to go on with the walk)."""

    limits: Limits = field(default_factory=Limits)
    on_limit: Callable[[LimitHit], None] | None = None
    kinds: KindMemo | None = None  # kinds found by earlier runs (``classify.remembered_kind``)
    count: int = 0
    stopped: bool = False

    def _classify(self, path: str, head: bytes) -> SourceKind | None:
        if self.kinds is None:
            return classify(path, head)
        return remembered_kind(self.kinds, path, head)

    def inputs(self, listing: Iterable[ListedInput]) -> Iterator[WalkItem]:
        """What ``iter_inputs`` yields for the entries of a walk: each regular file opened
        and sniffed, each entry the walk skipped as it is, the rest left to the walk."""
        for entry in listing:
            if self.stopped:
                return
            if entry.skipped is not None:
                if entry.limit is not None:
                    self.relay(entry.limit)
                yield Skipped(printable(entry.path), entry.skipped, named=entry.named)
            elif entry.kind is EntryKind.FILE:
                yield from self.file(entry)
            elif entry.kind is EntryKind.STREAM:
                yield from self.stdin() if entry.path == "-" else self.pipe(entry.path)

    def relay(self, hit: LimitHit) -> None:
        """Hand a limit hit to ``on_limit`` as it is at the time of the hit."""
        if self.on_limit is not None:
            self.on_limit(hit)

    def _hit(self, name: str, path: str, detail: str) -> None:
        self.relay(self.limits.hit(name, path, detail))

    def _count(self, shown: str) -> Skipped | None:
        """Count one more file read; past ``--max-files`` the run stops reading."""
        self.count += 1
        if self.count <= self.limits.files:
            return None
        self.stopped = True
        detail = (f"more than {self.limits.files:,} files: this file and every input after it "
                  "were not read")
        self._hit("files", shown, detail)
        return Skipped(shown, f"not read: {detail} (--max-files)")

    # -- what a walk found ---------------------------------------------------------------------

    def stdin(self) -> Iterator[WalkItem]:
        """``-``: the standard input, read once as a stream."""
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            yield Skipped(STDIN_PATH, "unreadable: no standard input")
            return
        skipped = self._count(STDIN_PATH)
        if skipped is not None:
            yield skipped
            return
        yield from self.stream(STDIN_PATH, stream, None, seekable=False, depth=0, named=True)

    def pipe(self, path: str) -> Iterator[WalkItem]:
        """A FIFO or character device named on the command line, read once as a stream (a
        directory walk skips them: reading one could block forever)."""
        skipped = self._count(printable(path))
        if skipped is not None:
            yield skipped
            return
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed by the with below, after the yield
        except OSError as exc:
            yield Skipped(printable(path), describe(exc), named=True)
            return
        with f:
            yield from self.stream(printable(path), f, None, seekable=False, depth=0,
                                   named=True)

    def file(self, entry: ListedInput) -> Iterator[WalkItem]:
        """A regular file of the walk, opened (still the file listed) and sniffed."""
        shown = printable(entry.path)
        skipped = self._count(shown)
        if skipped is not None:
            yield skipped
            return
        assert entry.file_id is not None
        try:
            f = open_checked(entry.path, entry.file_id, follow=entry.follow)
        except OSError as exc:
            reason = describe(exc)
            yield Skipped(shown, reason if entry.named else f"unreadable: {reason}",
                          named=entry.named)
            return
        except ValueError as exc:
            yield Skipped(shown, str(exc))
            return
        with f:
            yield from self.stream(shown, f, entry.size, seekable=True, depth=0,
                                   named=entry.named)

    # -- streams -----------------------------------------------------------------------------

    def stream(
        self, shown: str, stream: BinaryIO, size: int | None, *, seekable: bool, depth: int,
        named: bool = False,
    ) -> Iterator[WalkItem]:
        """Sniff ``stream`` and yield what it holds: a log, archive members, or a skip.
        ``named``: the stream is a file named on the command line, not one found in a walk or
        an archive."""
        head, err = read_head(stream, HEAD_BYTES)
        if err is not None and not head:
            os_error = isinstance(err, OSError) and err.errno is not None
            if named and depth == 0 and os_error:  # a named file the system will not read
                yield Skipped(shown, describe(err), named=True)
            else:
                yield Skipped(shown, failure(err))
            return
        fmt = container(head)
        if fmt == "parquet" or shown.lower().endswith(".parquet"):
            yield Skipped(shown, PARQUET_REASON)
            return
        if fmt in ("zstd", "7z", "rar"):
            yield Skipped(shown, f"unsupported compression: {fmt} (unpack it first)")
            return
        if fmt is not None and depth >= self.limits.nesting:
            detail = f"more than {self.limits.nesting} archive or compression levels"
            self._hit("nesting", shown, f"{detail}: not read")
            yield Skipped(shown, f"archive nested too deeply ({detail}; --max-nesting)")
            return
        if fmt in DECOMPRESSORS:
            packed = Counted(Replay(head, stream, err))
            inner = Bounded(DECOMPRESSORS[fmt](packed), lambda: packed.count, self.limits,
                            shown, self.relay)
            with contextlib.closing(inner):
                yield from self.stream(shown, inner, size, seekable=False, depth=depth + 1,
                                       named=named)
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
        yield from self.text(shown, stream, head, err, size, seekable=seekable, named=named)

    def text(
        self,
        shown: str,
        stream: BinaryIO,
        head: bytes,
        err: BaseException | None,
        size: int | None,
        *,
        seekable: bool,
        named: bool = False,
    ) -> Iterator[WalkItem]:
        """A text log (in any encoding), or the reason it is skipped.

        A file named on the command line (or standard input) or named or placed like a log
        (``*.log``, ``plog-*``, under ``debug/``...) is read whatever its lines look like:
        lines of no known shape are records of their own (``fmt`` ``text``); and whatever its
        bytes: a binary-looking head (NUL runs, control bytes) is read as unparsed lines and
        the records after it as records, and what is not text in it is counted
        (``FileStats.nul_bytes``, ``control_bytes``, ``decode_errors``), so that a log that
        turned into binary garbage is reported as unreadable (``analysis.unreadable``),
        never silently dropped. A file in a tree named like captured output (``*.txt``,
        ``*.out``, not ``README.txt``) is read whatever its lines look like when it is text.
        Other files need a line of a known shape. Only an all-NUL file named like a tar is an
        empty archive.
        """
        log_like = named or placed_like_a_log(shown, NOT_LOG_SUFFIXES)
        encoding, bom = detect(head)
        seen = decode_head(head, encoding, bom)
        ratio = non_text_ratio(seen)
        nul_only = not seen.strip(b"\x00")
        binary = nul_only or ratio > BINARY_RATIO
        if binary and not log_like:
            yield Skipped(shown, _binary_reason(shown, nul_only))
            return
        kind = self._classify(shown, seen)
        content = self._classify("", seen) if binary else kind
        unseen = False
        more = err is None and len(head) >= HEAD_BYTES
        if content is None and more and seekable and size is not None and size > HEAD_BYTES:
            start = max(size - TAIL_BYTES, HEAD_BYTES)
            start -= start % 2 if encoding.startswith("utf-16") else 0
            try:
                stream.seek(start)
                tail, _ = read_head(stream, TAIL_BYTES)
            except OSError:
                tail = b""
            seen += b"\n" + decode_head(tail, encoding, 0).partition(b"\n")[2]
            unseen = size > HEAD_BYTES + TAIL_BYTES
        elif content is None and more and not seekable:
            extra, err = read_head(stream, EXTENDED_HEAD_BYTES - len(head))
            head += extra
            seen = decode_head(head, encoding, bom)
            unseen = err is None and len(head) >= EXTENDED_HEAD_BYTES
        if content is None and more:
            kind = self._classify(shown, seen)
            content = self._classify("", seen) if binary else kind
        if binary and content is None and not unseen and (
                not log_like or (nul_only and TAR_NAME.search(shown) is not None)):
            yield Skipped(shown, _binary_reason(shown, nul_only))
            return
        is_text = not binary and ratio <= SUSPECT_RATIO
        if kind is None and (log_like or (is_text and named_like_output(shown))):
            # read: its lines as records of text, or its junk counted
            kind = text_kind_by_place(shown) if is_text else log_kind_by_place(shown)
        if kind is None and err is not None:  # its read failed before it could be told
            yield Skipped(shown, failure(err))
            return
        if kind is None:
            suffix = PurePosixPath(shown).suffix.lower()
            if suffix in NOT_LOG_SUFFIXES:
                yield Skipped(shown, f"{NOT_A_LOG_REASON} ({suffix})")
            else:
                yield Skipped(shown, "binary file" if ratio > SUSPECT_RATIO else UNKNOWN_REASON)
            return
        source = Source(shown, kind, *path_hints(shown), size, encoding)
        if seekable:
            try:
                stream.seek(0)
            except OSError as exc:
                yield Skipped(shown, f"unreadable: {describe(exc)}")
                return
            out: BinaryIO = stream
            if (isinstance(stream, PlainFile) and err is None and len(head) < HEAD_BYTES
                    and encoding == UTF8 and not bom):
                stream.whole = head  # all of it: a small file is not read a second time
        else:
            out = Replay(head, stream, err)
        if encoding != UTF8 or bom:
            out = Decoded(out, encoding, bom)  # type: ignore[assignment]
        yield source, out

    def members(self, items: Iterator[Member | Skipped], depth: int) -> Iterator[WalkItem]:
        """Each archive member, sniffed and read like a file one nesting level deeper."""
        for item in items:
            if self.stopped:
                return
            if isinstance(item, Skipped):
                yield item
                continue
            skipped = self._count(item.path)
            if skipped is not None:
                yield skipped
                return
            stream: BinaryIO = item.stream
            if item.packed is not None:  # a compressed zip member: bound what it expands to
                packed = item.packed
                stream = Bounded(stream, lambda p=packed: p, self.limits, item.path,  # type: ignore[misc]
                                 self.relay)
            yield from self.stream(item.path, stream, item.size, seekable=False,
                                   depth=depth + 1)


def _binary_reason(shown: str, nul_only: bool) -> str:
    if not nul_only:
        return "binary file"
    empty_tar = TAR_NAME.search(shown) is not None  # a tar of no member is all zeros
    return "empty archive" if empty_tar else "binary file (only NUL bytes)"


def iter_inputs(paths: Sequence[str], limits: Limits | None = None,
                on_limit: Callable[[LimitHit], None] | None = None,
                kinds: KindMemo | None = None) -> Iterator[WalkItem]:
    """Expand files, directories (recursive), globs, .gz, .tar, .tar.gz/.tgz, .zip into a
    deterministic sequence. For each readable log yields (Source, stream) where stream yields
    the DECOMPRESSED bytes from the start of the file; the stream is only valid until the
    generator advances (the consumer reads it fully before asking for the next item). Skipped
    items are yielded in order too.

    A path that does not exist but contains ``*``, ``?`` or ``[`` is a glob pattern
    (``glob.glob(recursive=True)``, matches sorted; a matched directory is walked and the
    matches inside it are not repeated). The same file or directory reached twice (named twice,
    or through a symlink) is read once and reported as a duplicate after that. ``limits``
    bound the run; ``on_limit`` hears of every limit that bites; ``kinds`` keeps the kinds
    sniffed (``classify.remembered_kind``). Never raises on bad input; see the module
    docstring for the reasons a file is skipped.
    """
    limits = limits or Limits()
    yield from Walker(limits, on_limit, kinds).inputs(Lister(paths, limits))
