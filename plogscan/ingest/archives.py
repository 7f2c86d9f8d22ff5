"""Compressed files and archives, read in place: decompressing streams and archive members.

Archives
    Read in place, never extracted to disk, so no member name can escape anywhere. A tar is read
    in stream mode, member by member, in one pass: a big ``.tar.gz`` is decompressed once, not
    once per member. A zip on disk is read through ``zipfile``; a zip nested in another archive
    or in a gzip stream is held in memory up to ``SPOOL_LIMIT`` bytes. Compression and archive
    type come from magic bytes, not from the name, so ``run_plog.tar.gz`` containing
    ``plog/plog-1_2.log.gz`` works, and so does a gzip file without a ``.gz`` suffix.
    A member's display path is ``archive!member`` (``x.tgz!run/plog/plog-1_2.log``); nested
    archives chain the separator (``a.zip!b.tar!c.log``).

Streams
    Reading a stream handed out by this module can raise only ``OSError`` (which includes
    ``gzip.BadGzipFile``), ``EOFError`` or ``zlib.error``; every byte that could be decoded
    before such an error is returned first (a truncated ``.gz`` reads up to the cut, then
    raises). Other decoder errors (bad zip CRC, broken tar member, xz corruption) are turned
    into ``OSError("corrupt data: ...")``.

``zip_members`` and ``tar_members`` yield each member as a ``Member`` (its display path, an open
stream and its size) or a ``Skipped``; the caller sniffs and reads each member before asking
for the next one.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from plogscan.ingest.sources import Skipped, member_is_noise, printable

SPOOL_LIMIT = 256 * 1024 * 1024  # largest nested zip held in memory
MAX_NESTING = 8  # decompression + archive layers, against archive bombs and self-nesting
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


def _member_name(name: str) -> str:
    name = name.replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    return name.lstrip("/")


class _TarInfo(tarfile.TarInfo):
    """Records why a stream-mode tar stopped, which ``tarfile`` would otherwise hide.

    ``TarFile.next`` treats an invalid, truncated or missing header after the first member as
    the end of the archive. We want those reported as corruption.
    """

    @classmethod
    def fromtarfile(cls, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        try:
            return super().fromtarfile(tarfile_)
        except tarfile.EmptyHeaderError:
            if isinstance(tarfile_, _TarFile):
                tarfile_.header_error = "archive ends without an end-of-archive marker"
            raise
        except (tarfile.InvalidHeaderError, tarfile.TruncatedHeaderError) as exc:
            if isinstance(tarfile_, _TarFile):
                tarfile_.header_error = str(exc) or type(exc).__name__
            raise


class _TarMember(io.RawIOBase):
    """A regular tar member read straight from the archive stream, in order.

    ``tarfile.extractfile`` drops the bytes of a read that hits the end of a truncated archive;
    this reader returns every byte that is there, then raises, so a cut-off ``.tar.gz`` keeps
    the readable part of its last member (as a cut-off ``.gz`` does).
    """

    def __init__(self, fileobj: BinaryIO, offset: int, size: int) -> None:
        super().__init__()
        self._file, self._offset, self._size, self._pos = fileobj, offset, size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        want = min(len(buffer), self._size - self._pos)
        if want <= 0:
            return 0
        self._file.seek(self._offset + self._pos)
        data = self._file.read(want)
        if not data:
            raise tarfile.ReadError("unexpected end of data")
        buffer[: len(data)] = data
        self._pos += len(data)
        return len(data)


class _TarFile(tarfile.TarFile):
    header_error: str | None = None


@dataclass(frozen=True)
class Member:
    """One archive member to read: its display path (``archive!member``), stream and size."""

    path: str
    stream: BinaryIO
    size: int | None


def zip_members(shown: str, stream: BinaryIO, head: bytes, err: BaseException | None, *,
                seekable: bool) -> Iterator[Member | Skipped]:
    """Zip members in directory order; a non-seekable zip is held in memory first."""
    source: BinaryIO = stream
    if not seekable:
        if err is not None:
            yield Skipped(shown, f"corrupt archive: {describe(err)}")
            return
        rest, err = read_head(stream, SPOOL_LIMIT + 1 - len(head))
        if err is not None:
            yield Skipped(shown, f"corrupt archive: {describe(err)}")
            return
        if len(head) + len(rest) > SPOOL_LIMIT:
            yield Skipped(
                shown,
                f"nested zip archive larger than {SPOOL_LIMIT >> 20} MiB: unpack it first",
            )
            return
        source = io.BytesIO(head + rest)
    try:
        archive = zipfile.ZipFile(source)
        infos = archive.infolist()
    except DATA_ERRORS as exc:
        yield Skipped(shown, f"corrupt archive: {describe(exc)}")
        return
    with archive:
        files = [i for i in infos if not i.is_dir()]
        if not files:
            yield Skipped(shown, "empty archive")
            return
        for info in files:
            name = _member_name(info.filename)
            if member_is_noise(name):
                continue
            member = f"{shown}!{printable(name)}"
            if info.flag_bits & 0x1:
                yield Skipped(member, "encrypted archive member")
                continue
            try:
                opened = archive.open(info)
            except DATA_ERRORS as exc:
                yield Skipped(member, f"corrupt archive member: {describe(exc)}")
                continue
            with opened:
                yield Member(member, opened, info.file_size)


def tar_members(shown: str, stream: BinaryIO) -> Iterator[Member | Skipped]:
        """Tar members in archive order, in one streaming pass over the (decompressed) bytes."""
        try:
            archive = _TarFile.open(fileobj=stream, mode="r|", tarinfo=_TarInfo, bufsize=CHUNK)
        except DATA_ERRORS as exc:
            yield Skipped(shown, f"corrupt archive: {describe(exc)}")
            return
        count = 0
        with archive:
            while True:
                try:
                    info = archive.next()
                except DATA_ERRORS as exc:
                    yield Skipped(shown, f"corrupt archive: {describe(exc)}{_after(count)}")
                    return
                if info is None:
                    break
                archive.members.clear()  # stream mode keeps every TarInfo otherwise
                count += 1
                if info.isdir():
                    continue
                name = _member_name(info.name)
                if member_is_noise(name):
                    continue
                member = f"{shown}!{printable(name)}"
                if info.issym() or info.islnk():
                    yield Skipped(member, "link inside archive: not followed")
                    continue
                if not info.isreg():
                    yield Skipped(member, "not a regular file")
                    continue
                try:
                    extracted = (archive.extractfile(info) if info.issparse()
                                 else _TarMember(archive.fileobj, info.offset_data, info.size))
                except DATA_ERRORS as exc:
                    yield Skipped(member, f"corrupt archive member: {describe(exc)}")
                    continue
                if extracted is None:
                    continue
                yield Member(member, extracted, info.size)
            if archive.header_error is not None:
                yield Skipped(shown, f"corrupt archive: {archive.header_error}{_after(count)}")
                return
            trailing = _drain(stream, getattr(archive.fileobj, "buf", b""))
        if trailing is not None:
            yield Skipped(shown, f"corrupt archive: {trailing}{_after(count)}")
        elif count == 0:
            yield Skipped(shown, "empty archive")


def _after(count: int) -> str:
    return f" (after {count} member{'s' if count != 1 else ''})" if count else ""


def _drain(stream: BinaryIO, buffered: object) -> str | None:
    """Read what follows the end-of-archive marker: padding is fine, data or errors are not."""
    if isinstance(buffered, bytes) and buffered.strip(b"\x00"):
        return "data after the end-of-archive marker was ignored"
    try:
        while True:
            chunk = stream.read(CHUNK)
            if not chunk:
                return None
            if chunk.strip(b"\x00"):
                return "data after the end-of-archive marker was ignored"
    except DATA_ERRORS as exc:
        return describe(exc)

