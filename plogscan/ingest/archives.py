"""Archives read in place: the members of a tar or zip, one at a time, never extracted.

No member name can escape anywhere, because nothing is written to disk. A tar is read in stream
mode, member by member, in one pass: a big ``.tar.gz`` is decompressed once, not once per
member. A zip on disk is read through ``zipfile``; a zip nested in another archive or in a gzip
stream is held in memory up to ``SPOOL_LIMIT`` bytes. A member's display path is
``archive!member`` (``x.tgz!run/plog/plog-1_2.log``); nested archives chain the separator
(``a.zip!b.tar!c.log``).

``zip_members`` and ``tar_members`` yield each member as a ``Member`` (its display path, an open
stream and its size) or a ``Skipped``; the caller sniffs and reads each member before asking
for the next one.
"""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from plogscan.ingest.sources import Skipped, member_is_noise, printable
from plogscan.ingest.streams import CHUNK, DATA_ERRORS, LimitReached, describe, read_head

SPOOL_LIMIT = 256 * 1024 * 1024  # largest nested zip held in memory


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
    packed: int | None = None  # compressed size of a compressed zip member


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
                packed = info.compress_size if info.compress_type != zipfile.ZIP_STORED else None
                yield Member(member, opened, info.file_size, packed)


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
                except LimitReached as exc:
                    yield Skipped(shown, f"not read to its end: {exc}{_after(count)}")
                    return
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
    except LimitReached:
        return None  # padding past a limit: the limit was reported already
    except DATA_ERRORS as exc:
        return describe(exc)

