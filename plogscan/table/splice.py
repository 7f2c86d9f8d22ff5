"""One Parquet file from row groups whose columns were encoded apart, at other times or on
other threads.

Arrow's Parquet writer encodes a file's row groups one after another, each whole. The event
table's columns are not all known at once (``split``: the identity columns wait for the end
of the input), so each part of a row group is written as a Parquet file of its own, and
``Splicer`` copies their column chunks into the target one after another. What makes them one
valid file is its footer: each row group's metadata made from its parts' (sizes summed, the
column chunks in the table's order, every file offset moved to where the bytes now lie),
under the footer the same writer gives a file without rows (``Splicer.close``). A row group
of one part comes out as the writer itself writes it, byte for byte
(``tests/table/test_splice.py``).

The footer is Thrift's compact protocol (parquet-format's ``parquet.thrift``). It is read
field by field and copied as it is, but for the offsets, the row groups and the row count.
"""

from __future__ import annotations

import struct
from collections.abc import Generator, Sequence
from typing import BinaryIO

MAGIC = b"PAR1"
# Thrift compact protocol types
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)
# Field ids (parquet.thrift), by struct
_FILE_ROWS, _FILE_ROW_GROUPS = 3, 4
_GROUP_COLUMNS, _GROUP_BYTES, _GROUP_ROWS, _GROUP_OFFSET, _GROUP_COMPRESSED = 1, 2, 3, 5, 6
_CHUNK_OFFSETS = {4, 6}  # offset_index_offset, column_index_offset (Arrow leaves file_offset 0)
_CHUNK_META = 3
_META_OFFSETS = {9, 10, 11, 14}  # data, index, dictionary page; bloom filter
_META_PATH = 3  # path_in_schema


class Splicer:
    """Writes ``MAGIC``, then row groups made of the column chunks of Parquet files
    (``add_columns``), then the footer of an empty file of the same writer with those row
    groups in it (``close``)."""

    def __init__(self, sink: BinaryIO) -> None:
        self._sink = sink
        self._sink.write(MAGIC)
        self._at = len(MAGIC)
        self._groups: list[bytes] = []
        self._rows = 0

    def add_columns(self, files: Sequence[bytes | memoryview], order: Sequence[str]) -> None:
        """One row group of the column chunks of ``files``: Parquet files of one row group
        each, over the same rows, whose columns together are ``order`` (the target's
        columns, each one leaf); the chunks are listed in that order."""
        chunks: list[tuple[int, bytes]] = []
        sizes = [0, 0]  # total byte size, total compressed size
        starts: list[int] = []
        rows = 0
        for data in files:
            body, footer = _parts(data)
            shift = self._at - len(MAGIC)
            groups = _list_items(footer, _top_fields(footer)[_FILE_ROW_GROUPS])
            if len(groups) != 1:
                raise ValueError("Parquet files of one row group each expected")
            fields = {fid: value for fid, _, _, value in _fields(footer, groups[0])}
            rows = _read_i64(footer, fields[_GROUP_ROWS])
            sizes[0] += _read_i64(footer, fields[_GROUP_BYTES])
            sizes[1] += _read_i64(footer, fields[_GROUP_COMPRESSED])
            starts.append(_read_i64(footer, fields[_GROUP_OFFSET]) + shift)
            for item in _list_items(footer, fields[_GROUP_COLUMNS]):
                chunks.append((order.index(_chunk_name(footer, item)),
                               _moved_chunk(footer, item, shift)))
            self._sink.write(body)
            self._at += len(body)
        if len(chunks) != len(order):
            raise ValueError("the files' columns are not the target's")
        chunks.sort()
        self._rows += rows
        self._groups.append(b"".join((
            _header(_GROUP_COLUMNS, 0, _LIST), _list_header(len(chunks), _STRUCT),
            *(chunk for _, chunk in chunks),
            _header(_GROUP_BYTES, _GROUP_COLUMNS, _I64), _varint(_zigzag(sizes[0])),
            _header(_GROUP_ROWS, _GROUP_BYTES, _I64), _varint(_zigzag(rows)),
            _header(_GROUP_OFFSET, _GROUP_ROWS, _I64), _varint(_zigzag(min(starts))),
            _header(_GROUP_COMPRESSED, _GROUP_OFFSET, _I64), _varint(_zigzag(sizes[1])),
            b"\x00")))  # the fields Arrow writes (no ordinal)

    def close(self, empty: bytes | memoryview) -> None:
        """The footer: that of ``empty`` (a file of the same writer, schema and key-value
        metadata, without rows) with the row groups added and their rows counted."""
        _, footer = _parts(empty)
        out = bytearray()
        pos = 0
        for fid, value in _top_fields(footer).items():
            if fid == _FILE_ROWS:
                out += footer[pos:value]
                out += _varint(_zigzag(self._rows))
                pos = _skip(footer, value, _I64)
            elif fid == _FILE_ROW_GROUPS:
                out += footer[pos:value]
                out += _list_header(len(self._groups), _STRUCT)
                out += b"".join(self._groups)
                pos = _skip(footer, value, _LIST)
        out += footer[pos:]
        self._sink.write(bytes(out) + struct.pack("<I", len(out)) + MAGIC)


def _parts(data: bytes | memoryview) -> tuple[memoryview, memoryview]:
    """The row groups' bytes (after the leading magic) and the footer of a Parquet file."""
    view = memoryview(data).cast("B")  # Arrow's buffers are signed chars
    if len(view) < 12 or bytes(view[:4]) != MAGIC or bytes(view[-4:]) != MAGIC:
        raise ValueError("not a Parquet file")
    (length,) = struct.unpack("<I", view[-8:-4])
    return view[4:len(view) - 8 - length], view[len(view) - 8 - length:len(view) - 8]


def _top_fields(buf: memoryview) -> dict[int, int]:
    """Field id -> value start, of the fields of the struct at 0 (in their order)."""
    return {fid: value for fid, _, _, value in _fields(buf, 0)}


def _fields(buf: memoryview, pos: int) -> Generator[tuple[int, int, int, int], None, int]:
    """(field id, type, header start, value start) of each field of the struct at ``pos``;
    ends past its stop byte (the generator's return value is that position)."""
    last = 0
    while True:
        start = pos
        byte = buf[pos]
        pos += 1
        if byte == 0:
            return pos
        ftype, delta = byte & 0x0F, byte >> 4
        if delta:
            fid = last + delta
        else:
            raw, pos = _read_varint(buf, pos)
            fid = _unzigzag(raw)
        last = fid
        yield fid, ftype, start, pos
        pos = _skip(buf, pos, ftype)


def _moved_chunk(buf: memoryview, pos: int, shift: int) -> bytes:
    edits = {fid: (lambda p: _shifted(buf, p, shift)) for fid in _CHUNK_OFFSETS}
    edits[_CHUNK_META] = lambda p: _rewrite(
        buf, p, {fid: (lambda q: _shifted(buf, q, shift)) for fid in _META_OFFSETS})
    return _rewrite(buf, pos, edits)


def _chunk_name(buf: memoryview, pos: int) -> str:
    """The top-level column of the ColumnChunk struct at ``pos``."""
    meta = next(value for fid, _, _, value in _fields(buf, pos) if fid == _CHUNK_META)
    path = next(value for fid, _, _, value in _fields(buf, meta) if fid == _META_PATH)
    _, _, pos = _list_start(buf, path)
    length, pos = _read_varint(buf, pos)
    return bytes(buf[pos:pos + length]).decode()


def _header(fid: int, last: int, ftype: int) -> bytes:
    """A struct field's header (the field before it ``last``)."""
    delta = fid - last
    if 0 < delta <= 15:
        return bytes([(delta << 4) | ftype])
    return bytes([ftype]) + _varint(_zigzag(fid))


def _rewrite(buf: memoryview, pos: int, edits: dict) -> bytes:
    """The struct at ``pos`` with the value of each field in ``edits`` replaced by what its
    function makes of the value's position; every other byte as it is."""
    out = bytearray()
    copied = pos
    fields = _fields(buf, pos)
    while True:
        try:
            fid, ftype, _, value = next(fields)
        except StopIteration as stop:
            end = stop.value
            break
        edit = edits.get(fid)
        if edit is not None:
            out += buf[copied:value]
            out += edit(value)
            copied = _skip(buf, value, ftype)
    out += buf[copied:end]
    return bytes(out)


def _shifted(buf: memoryview, pos: int, shift: int) -> bytes:
    """The i64 at ``pos`` plus ``shift``, encoded."""
    return _varint(_zigzag(_read_i64(buf, pos) + shift))


def _list_items(buf: memoryview, pos: int) -> list[int]:
    """Positions of the struct elements of the list at ``pos``."""
    size, elem, pos = _list_start(buf, pos)
    if size and elem != _STRUCT:
        raise ValueError("Parquet footer: a list of structs expected")
    items = []
    for _ in range(size):
        items.append(pos)
        pos = _skip(buf, pos, _STRUCT)
    return items


def _list_start(buf: memoryview, pos: int) -> tuple[int, int, int]:
    byte = buf[pos]
    pos += 1
    size, elem = byte >> 4, byte & 0x0F
    if size == 15:
        size, pos = _read_varint(buf, pos)
    return size, elem, pos


def _list_header(size: int, elem: int) -> bytes:
    return bytes([(size << 4) | elem]) if size < 15 else bytes([0xF0 | elem]) + _varint(size)


def _skip(buf: memoryview, pos: int, ftype: int) -> int:
    """The position after the value of type ``ftype`` at ``pos``."""
    if ftype in (_TRUE, _FALSE):
        return pos  # a field's boolean is in its header
    if ftype == _BYTE:
        return pos + 1
    if ftype in (_I16, _I32, _I64):
        return _read_varint(buf, pos)[1]
    if ftype == _DOUBLE:
        return pos + 8
    if ftype == _BINARY:
        length, pos = _read_varint(buf, pos)
        return pos + length
    if ftype in (_LIST, _SET):
        size, elem, pos = _list_start(buf, pos)
        for _ in range(size):
            pos = pos + 1 if elem in (_TRUE, _FALSE) else _skip(buf, pos, elem)
        return pos
    if ftype == _MAP:
        size, pos = _read_varint(buf, pos)
        if size == 0:
            return pos
        kinds = buf[pos]
        pos += 1
        for _ in range(size):
            for kind in (kinds >> 4, kinds & 0x0F):
                pos = pos + 1 if kind in (_TRUE, _FALSE) else _skip(buf, pos, kind)
        return pos
    if ftype == _STRUCT:
        fields = _fields(buf, pos)
        while True:
            try:
                next(fields)
            except StopIteration as stop:
                return stop.value
    raise ValueError(f"Parquet footer: unknown Thrift type {ftype}")


def _read_varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _read_i64(buf: memoryview, pos: int) -> int:
    return _unzigzag(_read_varint(buf, pos)[0])


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _zigzag(value: int) -> int:
    return (value << 1) ^ (value >> 63)


def _unzigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)
