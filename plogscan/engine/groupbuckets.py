"""``GroupBuckets``: thin candidate columns on disk, split by group, read back one part at a time.

A sequence rule's thinning (``seqstore``) sorts every candidate of a group, but it never
compares records of two groups. So when the thin columns of the candidates grow past what
memory should hold, they go to ``BUCKETS`` private temporary files, each record to the file
its group's key hashes to, with its arrival number and role bits; at the end each file is
thinned on its own, and memory holds one file's records at a time instead of all of them.
The split is by group, so the records of one group stay together however many there are.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import zlib
from collections.abc import Iterator, Sequence

import numpy as np
import pyarrow as pa

from plogscan.engine.arrowrows import group_numbers
from plogscan.parse.arrays import distinct

BUCKETS = 16


class GroupBuckets:
    """Thin tables (the thinning's columns) of one rule's candidates, by group, on disk."""

    def __init__(self, by: Sequence[str]) -> None:
        self.by = tuple(by)
        self.directory = tempfile.mkdtemp(prefix="plogscan-groups-")  # 0700: log text
        self._numbers: set[int] = set()  # the files written
        self._writers: dict[int, pa.ipc.RecordBatchStreamWriter] = {}
        self._files: dict[int, pa.OSFile] = {}

    def add(self, thin: pa.Table, rows: np.ndarray, bits: np.ndarray) -> None:
        """Candidates: their thin columns, their arrival numbers and their role bits."""
        if thin.num_rows == 0:
            return
        group, _ = group_numbers(thin, self.by)
        _, first = np.unique(group, return_index=True)
        keys = thin.select(list(self.by)).take(pa.array(first)).to_pylist()
        bucket_of = np.array([zlib.crc32(repr(tuple(key.values())).encode()) % BUCKETS
                              for key in keys], np.int64)
        bucket = bucket_of[group]
        table = thin.append_column("row", pa.array(rows, pa.int64())).append_column(
            "bits", pa.array(bits, pa.int64()))
        for number in distinct(bucket):
            part = table.filter(pa.array(bucket == number))
            self._writer(int(number), part.schema).write_table(part)

    def _writer(self, number: int, schema: pa.Schema) -> pa.ipc.RecordBatchStreamWriter:
        writer = self._writers.get(number)
        if writer is None:
            sink = self._files[number] = pa.OSFile(self._path(number), "wb")
            writer = self._writers[number] = pa.ipc.new_stream(sink, schema)
            self._numbers.add(number)
        return writer

    def _path(self, number: int) -> str:
        return os.path.join(self.directory, f"{number}.arrows")

    def parts(self) -> Iterator[pa.Table]:
        """Each file's records (thin columns, ``row``, ``bits``), one file at a time; the files
        are gone once read."""
        self._close()
        try:
            for number in sorted(self._numbers):
                with pa.OSFile(self._path(number)) as source:
                    table = pa.ipc.open_stream(source).read_all()
                os.unlink(self._path(number))
                yield table
        finally:
            self.discard()

    def _close(self) -> None:
        writers, self._writers = self._writers, {}
        files, self._files = self._files, {}
        for writer in writers.values():
            writer.close()
        for sink in files.values():
            sink.close()

    def discard(self) -> None:
        """Remove the files (a scan that stopped early, or after ``parts``)."""
        self._close()
        numbers, self._numbers = self._numbers, set()
        for number in numbers:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path(number))
        with contextlib.suppress(OSError):
            os.rmdir(self.directory)
