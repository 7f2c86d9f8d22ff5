"""``CacheStore``: one SQLite database of per-file extractions, capped, least recently used
out first.

One row per (namespace, path): the file's size, modification time and content digest, when
it was last used, and the entry itself as Arrow IPC record batches (kept records, facts;
zstd-compressed; the records with their context lines when the run takes them) plus the
file's accounting as JSON. Two more tables keep the kind sniffed from each file's name and
head (``ingest.classify.remembered_kind``) and whole results of earlier runs over unchanged
inputs (``cache.memo``), under the same cap. SQLite keeps
thousands of small entries in one file (20,000 small logs cost 20,000 rows, not 20,000
files) and lets two runs share the cache safely.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from plogscan.cache.entries import FileKey, Stored
from plogscan.cache.fingerprint import code_fingerprint
from plogscan.errors import InputError
from plogscan.model import FileStats
from plogscan.schema import EVENT_SCHEMA
from plogscan.schema.facts import FACTS_SCHEMA

__all__ = ["CacheInfo", "CacheStore", "clear", "code_fingerprint", "evict", "info"]

DATABASE = "extracts.sqlite"
RESULT_SHARE = 4  # one kept result may take at most this share of the cap
USED_GRAIN = 3600.0  # seconds: entries used within one hour of each other are evicted alike
# An entry's first byte says how its tables were stored (see ``_pack``).
_RAW, _ZSTD = b"R", b"Z"
_CODEC = pa.Codec("zstd", compression_level=1) if pa.Codec.is_available("zstd") else None
SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    namespace TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, digest TEXT NOT NULL, used REAL NOT NULL,
    nbytes INTEGER NOT NULL, stats TEXT NOT NULL, payload BLOB NOT NULL,
    PRIMARY KEY (namespace, path))
"""
KINDS_SCHEMA = """
CREATE TABLE IF NOT EXISTS kinds (
    namespace TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL, used REAL NOT NULL,
    nbytes INTEGER NOT NULL, PRIMARY KEY (namespace, path))
"""
RESULTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    namespace TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, used REAL NOT NULL,
    nbytes INTEGER NOT NULL, payload BLOB NOT NULL, PRIMARY KEY (namespace, path))
"""


@dataclass(frozen=True)
class CacheInfo:
    directory: str
    entries: int
    bytes: int
    max_bytes: int
    namespaces: int
    results: int = 0  # whole results of earlier runs (``cache.memo``)


class CacheStore:
    """The ``cache.digest.FileStore`` of one namespace in one cache directory."""

    def __init__(self, directory: Path, namespace: str, max_bytes: int,
                 schema: pa.Schema = EVENT_SCHEMA) -> None:
        self.directory = directory
        self.schema = schema  # of the stored records
        self.namespace = namespace
        self.max_bytes = max_bytes
        self._db = _open(directory)
        self._saved = 0

    def find(self, key: FileKey) -> Stored | None:
        row = self._db.execute(
            "SELECT digest, stats, payload, used FROM entries WHERE namespace=? AND path=? "
            "AND size=? AND mtime_ns=?",
            (self.namespace, _name(key), key.size, key.mtime_ns)).fetchone()
        if row is None:
            return None
        try:
            records, facts = _unpack(row[2], self.schema)
            fields = json.loads(row[1])
            stats = FileStats(**{**fields, "problems": tuple(fields.get("problems", ()))})
        except (pa.ArrowException, ValueError, TypeError, IndexError):
            return None  # a damaged entry is a miss; it is replaced after the parse
        self._used("entries", _name(key), row[3])
        return Stored(row[0], stats, records, facts)

    def _used(self, table: str, name: str, last: float) -> None:
        """Note that an entry was used, unless that was noted less than ``USED_GRAIN`` ago:
        SQLite rewrites a whole row to change one field, so updating an entry reads its
        payload again (megabytes for a large log)."""
        now = time.time()
        if 0 <= now - last < USED_GRAIN:
            return
        with contextlib.suppress(sqlite3.Error):
            self._db.execute(f"UPDATE {table} SET used=? WHERE namespace=? AND path=?",
                             (now, self.namespace, name))

    def save(self, key: FileKey, entry: Stored) -> None:
        if not entry.records.schema.equals(self.schema):
            return  # only records in the schema the entries are read back in
        payload = _pack(entry.records, entry.facts)
        # The fields as they are (numbers, strings, a tuple of strings): no deep copy.
        stats = json.dumps({f.name: getattr(entry.stats, f.name)
                            for f in dataclasses.fields(entry.stats)}, sort_keys=True)
        if len(payload) > self.max_bytes:
            return
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (self.namespace, _name(key), key.size, key.mtime_ns, entry.digest, time.time(),
                 len(payload), stats, payload))
            self._saved += len(payload)
        except sqlite3.Error:
            return  # a full disk or a locked database: the run goes on without caching

    def find_kind(self, key: str) -> str | None:
        """The kind sniffed before for ``key`` (``classify.kind_key``); "" for none."""
        try:
            row = self._db.execute("SELECT kind, used FROM kinds WHERE namespace=? AND path=?",
                                   (self.namespace, key)).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        self._used("kinds", key, row[1])
        return row[0]

    def kinds_found(self, limit: int) -> dict[str, tuple[str, float]] | None:
        """Every kind kept in this namespace by its key, with when it was last used, for a
        process forked to walk the inputs (an SQLite connection cannot cross a fork); None
        when there are more than ``limit``, or they cannot be read."""
        try:
            rows = self._db.execute("SELECT path, kind, used FROM kinds WHERE namespace=? "
                                    "LIMIT ?", (self.namespace, limit + 1)).fetchall()
        except sqlite3.Error:
            return None
        return None if len(rows) > limit else {key: (kind, used) for key, kind, used in rows}

    def kind_used(self, key: str, last: float) -> None:
        """Note that the kind kept for ``key`` (last used at ``last``) was used again."""
        self._used("kinds", key, last)

    def save_kind(self, key: str, kind: str) -> None:
        size = len(key) + len(kind)
        try:
            self._db.execute("INSERT OR REPLACE INTO kinds VALUES (?, ?, ?, ?, ?)",
                             (self.namespace, key, kind, time.time(), size))
            self._saved += size
        except sqlite3.Error:
            return

    def find_result(self, listing: str, content: Callable[[], str | None]) -> bytes | None:
        """The result kept for the inputs whose listing hashes to ``listing``
        (``model.listing``), when ``content()`` (called only if there is one) gives the
        content hash it was kept with."""
        try:
            row = self._db.execute(
                "SELECT content, payload, used FROM results WHERE namespace=? AND path=?",
                (self.namespace, listing)).fetchone()
        except sqlite3.Error:
            return None
        if row is None or content() != row[0]:
            return None
        self._used("results", listing, row[2])
        return bytes(row[1])

    def save_result(self, listing: str, content: str, payload: bytes) -> None:
        if len(payload) > self.max_bytes // RESULT_SHARE:
            return
        try:
            self._db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?)",
                             (self.namespace, listing, content, time.time(), len(payload),
                              payload))
            self._saved += len(payload)
        except sqlite3.Error:
            return

    def close(self) -> None:
        """Commit, evict least recently used entries past the cap, close."""
        with contextlib.suppress(sqlite3.Error):
            self._db.commit()
            if self._saved:
                evict(self._db, self.max_bytes)
                self._db.commit()
        self._db.close()


def _name(key: FileKey) -> str:
    return f"{key.path}\n{key.context}"


def evict(db: sqlite3.Connection, limit: int) -> int:
    """Delete the least recently used entries, kinds and results until their total is at most
    ``limit``; returns how many entries were deleted."""
    total = _total_bytes(db)
    removed = 0
    if total <= limit:
        return 0
    for table, namespace, path, nbytes, _used in db.execute(
            "SELECT 'entries', namespace, path, nbytes, used FROM entries UNION ALL "
            "SELECT 'kinds', namespace, path, nbytes, used FROM kinds UNION ALL "
            "SELECT 'results', namespace, path, nbytes, used FROM results ORDER BY used"
    ).fetchall():
        if total <= limit:
            break
        db.execute(f"DELETE FROM {table} WHERE namespace=? AND path=?", (namespace, path))
        total -= nbytes
        removed += table == "entries"
    return removed


def _total_bytes(db: sqlite3.Connection) -> int:
    return sum(db.execute(f"SELECT coalesce(sum(nbytes), 0) FROM {table}").fetchone()[0]
               for table in ("entries", "kinds", "results"))


def info(directory: Path, limit: int) -> CacheInfo:
    """What the cache in ``directory`` holds (nothing, when there is none yet)."""
    if not (directory / DATABASE).exists():
        return CacheInfo(str(directory), 0, 0, limit, 0)
    db = _open(directory)
    try:
        entries, spaces = db.execute(
            "SELECT count(*), count(DISTINCT namespace) FROM entries").fetchone()
        results = db.execute("SELECT count(*) FROM results").fetchone()[0]
        size = _total_bytes(db)
    finally:
        db.close()
    return CacheInfo(str(directory), entries, size, limit, spaces, results)


def clear(directory: Path) -> int:
    """Remove every entry; returns how many there were."""
    if not (directory / DATABASE).exists():
        return 0
    db = _open(directory)
    try:
        count = db.execute("SELECT count(*) FROM entries").fetchone()[0]
        db.execute("DELETE FROM entries")
        db.execute("DELETE FROM kinds")
        db.execute("DELETE FROM results")
        db.commit()
        db.execute("VACUUM")
    finally:
        db.close()
    return count


def _open(directory: Path) -> sqlite3.Connection:
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(directory, 0o700)
        path = directory / DATABASE
        if not path.exists():
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        # One thread at a time uses the store, not always the one that opened it: the
        # thread that reads the batches (``ingest.prefetch``).
        db = sqlite3.connect(path, timeout=30, isolation_level="DEFERRED",
                             check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(SCHEMA)
        db.execute("DROP TABLE IF EXISTS line_marks")  # kept by earlier versions
        db.execute(KINDS_SCHEMA)
        db.execute(RESULTS_SCHEMA)
        db.commit()
    except (OSError, sqlite3.Error) as err:
        raise InputError(f"cannot use the cache directory {directory}: {err}",
                         help="give another with --cache DIR, or turn it off with --no-cache"
                         ) from None
    return db


# The facts as stored: their file's path, host and kind spelled out, since a batch without
# its schema message carries no dictionary.
_STORED_FACTS_SCHEMA = pa.schema([
    field.with_type(field.type.value_type) if pa.types.is_dictionary(field.type) else field
    for field in FACTS_SCHEMA])


def _pack(records: pa.Table, facts: pa.Table) -> bytes:
    """The two tables as schema-less IPC record batches, each compressed apart and behind
    its sizes: reading an entry then costs no schema message (a few hundred microseconds
    each for thousands of small files). The schemas are fixed by the namespace (the code's
    hash).

    zstd at level 1, where this pyarrow has it: the kept records repeat their file's path,
    host and kind on every row and log lines repeat their shapes, so an entry shrinks about
    eightfold; writing a 2 GiB tree's 440 MB of entries into SQLite uncompressed cost more
    than compressing them. The batches are compressed as the parse handed them on, without
    joining them into one first (a copy of every kept byte)."""
    part = _frames(records)
    marker = _RAW if _CODEC is None else _ZSTD
    return (marker + len(part).to_bytes(8, "little") + part
            + _frames(facts.cast(_STORED_FACTS_SCHEMA)))


def _frames(table: pa.Table) -> bytes:
    """Each record batch of ``table``: its serialized size, its stored size, the bytes."""
    frames = []
    for batch in table.to_batches():
        if not batch.num_rows:
            continue
        raw = batch.serialize()
        data = raw.to_pybytes() if _CODEC is None else _CODEC.compress(raw, asbytes=True)
        frames.append(len(raw).to_bytes(8, "little") + len(data).to_bytes(8, "little") + data)
    return b"".join(frames)


def _unpack(payload: bytes, schema: pa.Schema) -> tuple[pa.Table, pa.Table]:
    """The tables ``_pack`` stored; ValueError for a payload this process cannot read (one
    compressed by a pyarrow with zstd, read by one without)."""
    view = memoryview(payload)
    marker = bytes(view[:1])
    if marker not in (_RAW, _ZSTD) or (marker == _ZSTD and _CODEC is None):
        raise ValueError("a cache entry in a form this process does not read")
    size = int.from_bytes(view[1:9], "little")
    return (_read_frames(view[9:9 + size], schema, marker),
            _read_frames(view[9 + size:], _STORED_FACTS_SCHEMA, marker).cast(FACTS_SCHEMA))


def _read_frames(view: memoryview, schema: pa.Schema, marker: bytes) -> pa.Table:
    """The table whose batches ``_frames`` wrote into ``view``."""
    batches = []
    at = 0
    while at < len(view):
        raw_size = int.from_bytes(view[at:at + 8], "little")
        size = int.from_bytes(view[at + 8:at + 16], "little")
        data = view[at + 16:at + 16 + size]
        if len(data) != size:
            raise ValueError("a cut cache entry")
        buffer = (pa.py_buffer(data) if marker == _RAW else
                  _CODEC.decompress(data, decompressed_size=raw_size))  # type: ignore[union-attr]
        batches.append(pa.ipc.read_record_batch(buffer, schema))
        at += 16 + size
    return pa.Table.from_batches(batches, schema=schema) if batches else _empty(schema)


_EMPTY: dict[int, tuple[pa.Schema, pa.Table]] = {}  # id of a schema -> it, its empty table


def _empty(schema: pa.Schema) -> pa.Table:
    """The empty table of ``schema``, made once per schema object: entries are read in the
    few fixed schemas of the namespace and the facts, and making one costs a quarter of a
    millisecond. Kept by the schema's identity, not its hash, which pyarrow computes anew on
    every call and before release 22 cannot compute for a schema with metadata."""
    kept = _EMPTY.get(id(schema))
    if kept is None or kept[0] is not schema:
        if len(_EMPTY) >= 16:
            _EMPTY.clear()
        kept = _EMPTY[id(schema)] = (schema, schema.empty_table())
    return kept[1]
