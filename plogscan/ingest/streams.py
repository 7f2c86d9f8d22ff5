"""Streams of decompressed bytes, and what the first bytes of a stream say it holds.

Compression and archive type come from magic bytes (``container``), not from the name, so
``run_plog.tar.gz`` containing ``plog/plog-1_2.log.gz`` works, and so does a gzip file without
a ``.gz`` suffix. ``Replay`` hands on a stream whose head was already read for sniffing;
``PlainFile`` is a file on disk that keeps its head when the head is all of it.

Reading a stream handed out by ingest can raise only ``OSError`` (which includes
``gzip.BadGzipFile``), ``EOFError`` or ``zlib.error``; every byte that could be decoded before
such an error is returned first (a truncated ``.gz`` reads up to the cut, then raises). Other
decoder errors (bad zip CRC, broken tar member, xz corruption) are turned into
``OSError("corrupt data: ...")``.

Decompressed output is bounded (``Bounded``): a stream that produces more than the
``--max-decompressed`` size, or past 256 MiB of non-text output more than ``--max-ratio`` times
its compressed size, raises ``LimitReached`` (an ``OSError``) after recording a ``LimitHit``.

A file found by the walk is opened by ``open_checked``: without blocking, without following a
symlink swapped in after the check, and only while it is still the regular file checked.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from typing import BinaryIO

from plogscan.ingest.limits import LimitHit, Limits, format_size

MAX_NESTING = Limits().nesting  # decompression + archive layers (``--max-nesting``)
CHUNK = 1024 * 1024


# Errors a decoder or archive reader raises on bad data. Caught everywhere we read input.
DATA_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    tarfile.TarError,
    zipfile.BadZipFile,
    struct.error,
    ValueError,
    RuntimeError,
    NotImplementedError,
)
# Errors a consumer of our streams is told to expect; anything else is turned into OSError.
_STREAM_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error)


class PlainFile(io.BufferedReader):
    """A regular file opened by the walk; ``whole`` holds its bytes when the sniff read all of
    them (a small file), so that its parse uses them instead of opening and reading the file a
    second time (on a tree of 20,000 small files that second read was about a tenth of the
    run: each open, stat and read hands the interpreter lock to a busy parse thread and waits
    to get it back)."""

    whole: bytes | None = None
    # Set by the walk's ``open_checked``: the (device, inode) it checked, and whether a
    # symlink was followed to it, so that the file can be opened again under the same check.
    key: tuple[int, int] | None = None
    follow: bool = True


class Replay(io.BufferedIOBase):
    """A read-only stream: ``head`` (already read for sniffing), then the rest of ``rest``.

    ``error`` is the exception that stopped the head read, raised once the head is replayed.
    A read that hits an error after some bytes returns those bytes and raises on the next
    call, so the consumer gets every decodable byte. Errors outside ``_STREAM_ERRORS`` are
    raised as ``OSError("corrupt data: ...")``.
    """

    def __init__(
        self, head: bytes, rest: BinaryIO | None, error: BaseException | None = None
    ) -> None:
        super().__init__()
        self._head = head
        self._pos = 0
        self._rest = rest
        self._read_rest: Callable[[int], bytes] | None = None
        if rest is not None:
            self._read_rest = getattr(rest, "read1", None) or rest.read
        self._error = error
        self._pending: BaseException | None = None

    def readable(self) -> bool:
        return True

    def _chunk(self, n: int) -> bytes:
        if self._head:
            out = self._head[self._pos : self._pos + n]
            self._pos += len(out)
            if self._pos >= len(self._head):
                self._head = b""  # replayed: let it go
            return out
        if self._error is not None:
            err, self._error, self._read_rest = self._error, None, None
            raise _as_stream_error(err)
        if self._read_rest is None:
            return b""
        try:
            return self._read_rest(n)
        except DATA_ERRORS as exc:
            self._read_rest = None
            raise _as_stream_error(exc) from exc

    def read1(self, size: int | None = -1) -> bytes:
        if self._pending is not None:
            err, self._pending = self._pending, None
            raise err
        if size == 0:
            return b""
        return self._chunk(size if size is not None and size > 0 else CHUNK)

    def read(self, size: int | None = -1) -> bytes:
        if self._pending is not None:
            err, self._pending = self._pending, None
            raise err
        if size == 0:
            return b""
        limit = size if size is not None and size > 0 else None
        parts: list[bytes] = []
        got = 0
        try:
            while limit is None or got < limit:
                chunk = self._chunk(CHUNK if limit is None else limit - got)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
        except _STREAM_ERRORS as exc:
            if not parts:
                raise
            self._pending = exc
        return b"".join(parts)


def _as_stream_error(exc: BaseException) -> BaseException:
    if isinstance(exc, _STREAM_ERRORS):
        return exc
    return OSError(f"corrupt data: {describe(exc)}")


def describe(exc: BaseException) -> str:
    """Short text for an exception: the OS reason, else the message, else the type."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc).strip()
    return text or type(exc).__name__


def failure(exc: BaseException) -> str:
    """Skip reason for an input that gave no byte at all."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"unreadable: {describe(exc)}"
    return f"corrupt data: {describe(exc)}"


def read_head(stream: BinaryIO, n: int) -> tuple[bytes, BaseException | None]:
    """Up to ``n`` bytes, and the error that stopped the read early (None at EOF or ``n``)."""
    buf = bytearray()
    read = getattr(stream, "read1", None) or stream.read
    try:
        while len(buf) < n:
            chunk = read(n - len(buf))
            if not chunk:
                break
            buf += chunk
    except DATA_ERRORS as exc:
        return bytes(buf), exc
    return bytes(buf), None


def _is_tar(head: bytes) -> bool:
    """A ustar/GNU header, or a v7 header whose checksum adds up."""
    if len(head) < 512:
        return False
    if head[257:262] == b"ustar":
        return True
    if not head[:1].strip(b"\x00"):
        return False
    try:
        stored = int(head[148:156].strip(b"\x00 ").decode("ascii"), 8)
    except (ValueError, UnicodeDecodeError):
        return False
    return stored == sum(head[:148]) + 8 * 32 + sum(head[156:512])


_BZ2_MAGIC = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")


def container(head: bytes) -> str | None:
    """The compression or archive format announced by the magic bytes, if any."""
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in _BZ2_MAGIC:
        return "bz2"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08"):
        return "zip"
    if head[:4] == b"PAR1":
        return "parquet"
    if head[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    if head[:6] == b"7z\xbc\xaf\x27\x1c":
        return "7z"
    if head[:6] == b"Rar!\x1a\x07":
        return "rar"
    if _is_tar(head):
        return "tar"
    return None


DECOMPRESSORS: dict[str, Callable[[BinaryIO], BinaryIO]] = {
    "gzip": lambda f: gzip.GzipFile(fileobj=f, mode="rb"),
    "bz2": lambda f: bz2.BZ2File(f),
    "xz": lambda f: lzma.LZMAFile(f),  # noqa: SIM115 - closed by the caller
}


class LimitReached(OSError):
    """A limit stopped a read; ``hit`` says which and what was not read."""

    def __init__(self, hit: LimitHit) -> None:
        super().__init__(hit.detail)
        self.hit = hit

    def __reduce__(self) -> tuple[type[LimitReached], tuple[LimitHit]]:
        return LimitReached, (self.hit,)  # pickled whole (``walkchild`` sends it on)


class Counted(io.RawIOBase):
    """A read-only view of ``source`` that counts the bytes read through it."""

    def __init__(self, source: BinaryIO) -> None:
        super().__init__()
        self._source = source
        self.count = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        data = self._source.read(size if size is not None else -1)
        self.count += len(data)
        return data

    def read1(self, size: int = -1) -> bytes:
        read1 = getattr(self._source, "read1", None) or self._source.read
        data = read1(size)
        self.count += len(data)
        return data

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        data = self.read1(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class Bounded(io.RawIOBase):
    """Decompressed bytes of ``source``, stopped by ``--max-decompressed`` and ``--max-ratio``.

    ``packed`` gives the compressed bytes consumed so far. When a limit bites, ``on_limit``
    gets the ``LimitHit`` once and every later read raises ``LimitReached``. The ratio limit
    stops only output that does not look like log text (no line break, or mostly NUL bytes,
    in what was just read): a genuine log, however compressible, is bounded by size alone.
    """

    def __init__(self, source: BinaryIO, packed: Callable[[], int], limits: Limits, shown: str,
                 on_limit: Callable[[LimitHit], None] | None = None) -> None:
        super().__init__()
        self._source = source
        self._packed = packed
        self._limits = limits
        self._shown = shown
        self._on_limit = on_limit
        self._hit: LimitHit | None = None
        self.produced = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:  # to the end, a chunk at a time, each one checked
            parts = []
            while part := self._take(self._source.read, CHUNK):
                parts.append(part)
            return b"".join(parts)
        return self._take(self._source.read, size)

    def read1(self, size: int = -1) -> bytes:
        return self._take(getattr(self._source, "read1", None) or self._source.read,
                          size if size is not None and size >= 0 else CHUNK)

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        data = self.read1(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def _take(self, read: Callable[[int], bytes], size: int | None) -> bytes:
        if self._hit is not None:
            raise LimitReached(self._hit)
        limits = self._limits
        room = limits.decompressed_bytes - self.produced
        if room <= 0:
            if not read(1):
                return b""  # the stream ends exactly at the limit
            self._stop("decompressed_bytes")
        data = read(min(size if size is not None and size >= 0 else CHUNK, room))
        self.produced += len(data)
        if (limits.ratio and self.produced > limits.ratio_floor
                and self.produced > limits.ratio * max(self._packed(), 1)
                and _not_text(data)):
            self._stop("ratio")
        return data

    def _stop(self, name: str) -> None:
        packed = self._packed()
        what = (f"more than {format_size(self._limits.decompressed_bytes)} decompressed"
                if name == "decompressed_bytes" else
                f"more than {self._limits.ratio} times its compressed size decompressed "
                "(a decompression bomb)")
        hit = self._limits.hit(name, self._shown,
                               f"{what}: stopped after {self.produced:,} bytes from "
                               f"{packed:,} compressed bytes; the rest was not read")
        self._hit = hit
        if self._on_limit is not None:
            self._on_limit(hit)
        raise LimitReached(hit)


def _not_text(data: bytes) -> bool:
    """Whether freshly decompressed bytes look like a bomb's filler rather than log lines."""
    if not data:
        return False
    return b"\n" not in data or data.count(b"\x00") * 2 > len(data)


# Opened without blocking (a FIFO swapped in cannot hang the run) and, in a walk, without
# following a symlink swapped in after the check.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_checked(path: str, key: tuple[int, int], *, follow: bool) -> BinaryIO:
    """``path`` opened for reading, still the regular file ``key`` (device, inode) that was
    checked: without blocking and, unless ``follow``, without following a symlink. Raises
    ``OSError`` or ``ValueError`` (with the skip reason)."""
    flags = _OPEN_FLAGS | (0 if follow else _NOFOLLOW)
    handle = PlainFile(io.FileIO(path, "r", opener=lambda p, _f: os.open(p, flags)))
    try:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if (st.st_dev, st.st_ino) != key:
            raise ValueError("changed while being read: replaced by another file")
        if flags & os.O_NONBLOCK:
            os.set_blocking(handle.fileno(), True)
        handle.key, handle.follow = key, follow
    except BaseException:
        handle.close()
        raise
    return handle  # type: ignore[return-value]
