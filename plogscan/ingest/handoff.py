"""Hand parsed chunks from worker processes to the main process through shared memory.

Pickling a chunk's table through the pool's pipe copies it four times and costs the main
process as much CPU as writing the Parquet file. Instead a worker writes the table once, as an
Arrow IPC file, into a private directory on a memory-backed file system (``/dev/shm``), and the
main process maps it without copying: the pages are read straight from memory by the Parquet
writer. The file is unlinked as soon as it is mapped, and the directory is removed when the
run ends, whatever happens. Where there is no such file system, tables go through the pipe.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from types import TracebackType

import pyarrow as pa

SHM_ROOT = "/dev/shm"


class Handoff:
    """A private directory for chunk files, removed on exit (``directory`` is None when
    shared memory is not available)."""

    def __init__(self, enabled: bool = True) -> None:
        self.directory: str | None = None
        if enabled and os.path.isdir(SHM_ROOT) and os.access(SHM_ROOT, os.W_OK):
            try:
                self.directory = tempfile.mkdtemp(prefix="plogscan-", dir=SHM_ROOT)
            except OSError:
                self.directory = None

    def __enter__(self) -> Handoff:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


def put(table: pa.Table, directory: str | None) -> str | None:
    """Write ``table`` into ``directory`` (in a worker); None if it must go through the pipe."""
    if directory is None:
        return None
    path = None
    try:
        handle, path = tempfile.mkstemp(suffix=".arrow", dir=directory)
        os.close(handle)  # the name is ours; Arrow reopens it for writing
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    except OSError:  # shared memory full (a small /dev/shm in a container) or gone
        if path is not None:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return None  # the table goes through the pipe
    return path


def take(path: str) -> pa.Table:
    """Map a chunk file written by ``put`` (in the main process) and unlink it."""
    source = pa.memory_map(path)
    try:
        return pa.ipc.open_file(source).read_all()
    finally:
        os.unlink(path)
