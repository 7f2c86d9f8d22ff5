"""The identity of every record of an event table, from its process's (``Identities``).

The cross-rank stage resolves who each process is once the pass over the records is over
(``identity``); ``RowIdentity`` writes that back into rows of the table at rest: ``host``,
``rank`` and ``device`` (the process's, else the record's own), ``phy_device``, ``host_ip``,
``attempt``, ``communicator`` and ``identity_source``, with ``ts_aligned``; the parser's own
``host``, ``rank`` and ``device`` go to the ``record_`` columns.

It works on a whole table or row group at a time, without a Python step per row: the rows are
cut into their streams (path, section, pid, and for records without a pid the rank they name)
by hashing those keys with Arrow, the distinct streams are joined with the input's streams
(``Identities.of_stream``, the lookup ``Context.identify`` makes for the findings), and the
process's values are taken into the rows by index. The attempt of a record of a process that
took part in one attempt is that attempt; the others (a resumed or restarted process, device
firmware records) are placed by their aligned time, in bulk (``Attempts.of_rows``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.crossrank.attempts import Attempts
from plogscan.crossrank.identity import Identities, ProcessKey

_NONE = -(1 << 62)  # a missing pid or rank in a join key (a null matches nothing)


class RowIdentity:
    """Fills the identity columns of tables of one input: its processes (``ids``), attempts,
    and the aligned time of a table's rows (``Context.aligned_column``)."""

    def __init__(self, ids: Identities, attempts: Attempts,
                 aligned: Callable[[pa.Table], pa.Array]) -> None:
        self._aligned = aligned
        self._ids = ids
        self._attempts = attempts
        keys = sorted(self._ids.processes)
        self._index: dict[ProcessKey, int] = {k: i for i, k in enumerate(keys)}
        idents = [self._ids.processes[k] for k in keys]
        self._keys = keys
        none = len(keys)  # the index of "no process"
        self._none = none
        self._rank = _ints([i.rank for i in idents])
        self._device = _ints([i.device for i in idents])
        self._phy = _ints([i.phy_device for i in idents])
        self._host = pa.array([*(i.host for i in idents), None], pa.string())
        self._host_ip = _texts([i.host_ip for i in idents])
        self._comm = _texts([i.world for i in idents])
        self._source = _texts([i.source for i in idents])
        # The one attempt of each process that took part in one; -1: placed by time.
        single = np.full(none + 1, -1, np.int64)
        if self._attempts.list:
            for n, key in enumerate(keys):
                held = self._attempts.holding(key)
                if len(held) == 1:
                    single[n] = held[0]
        self._single = single
        self._streams: pa.Table | None = None  # the input's streams (``_known``)

    # ------------------------------------------------------------------ per table

    def annotate(self, table: pa.Table) -> pa.Table:
        """``table`` (the event table's columns, plain or dictionary-encoded) with its
        identity columns and ``ts_aligned`` set; the columns keep their types."""
        if table.num_rows == 0:
            return table
        table = table.unify_dictionaries()  # the columns read are combined, not the text
        process = self._process_of_rows(table)
        values: dict[str, pa.Array] = {
            # the parser's own values, kept for a diagnosis of the table (``as_recorded``)
            "record_host": _chunk(table.column("host")), "record_rank": _chunk(
                table.column("rank")), "record_device": _chunk(table.column("device")),
            "rank": pc.coalesce(self._rank.take(process), _plain(table.column("rank"))),
            "device": pc.coalesce(self._device.take(process), _plain(table.column("device"))),
            "phy_device": self._phy.take(process),
            "host_ip": self._host_ip.take(process),
            "communicator": self._comm.take(process),
            "identity_source": self._source.take(process),
        }
        host = table.column("host")
        if host.null_count:  # most records name their host (their path does)
            values["host"] = pc.coalesce(_plain(host), self._host.take(process))
        aligned = self._aligned(table)
        values["ts_aligned"] = aligned
        values["attempt"] = self._attempt_rows(process, aligned)
        for name, column in values.items():
            index = table.schema.get_field_index(name)
            if index < 0:
                continue
            field = table.schema.field(index)
            table = table.set_column(index, field, _as(column, field.type))
        return table

    def _process_of_rows(self, table: pa.Table) -> pa.Array:
        """The index of each row's process (``self._none`` for none), as an Arrow array."""
        n = table.num_rows
        paths = _chunk(table.column("path"))
        if not pa.types.is_dictionary(paths.type):
            paths = pc.dictionary_encode(paths)
        path_code = pc.fill_null(paths.indices, len(paths.dictionary)).to_numpy(
            zero_copy_only=False).astype(np.int64)
        names = paths.dictionary.to_pylist()
        segment = np.zeros(n, np.int64)
        lines = None
        for k, name in enumerate(names):
            cuts = self._ids.segmented.get(name)
            if cuts:
                if lines is None:
                    lines = _chunk(table.column("line")).to_numpy(zero_copy_only=False)
                rows = np.flatnonzero(path_code == k)
                segment[rows] = np.searchsorted(np.asarray(cuts), lines[rows], side="right")
        pid = _chunk(table.column("pid"))
        rank = _chunk(table.column("rank"))
        prank = pc.if_else(pc.is_null(pid), rank, pa.scalar(None, rank.type))
        pid_codes, _ = _codes(pid)
        rank_codes, _ = _codes(prank)
        key = path_code
        for part, size in ((segment, int(segment.max()) + 1), (pid_codes, int(pid_codes.max()) + 1),
                           (rank_codes, int(rank_codes.max()) + 1)):
            key, _ = _codes(pa.array(key * size + part))
        distinct = int(key.max()) + 1
        first = np.empty(distinct, np.int64)
        first[key[::-1]] = np.arange(n - 1, -1, -1)  # each stream's first row
        names.append("")  # a record without a path
        streams = pa.table({
            "code": pa.array(np.arange(distinct)),
            "path": pa.array(names, pa.string()).take(pa.array(path_code[first])),
            "segment": pa.array(segment[first]),
            "pid": pc.fill_null(pid.take(pa.array(first)).cast(pa.int64()), _NONE),
            "rank": pc.fill_null(prank.take(pa.array(first)).cast(pa.int64()), _NONE)})
        return pa.array(self._processes_of(streams)[key])

    def _processes_of(self, streams: pa.Table) -> np.ndarray:
        """The process index of each stream (``code``: path, section, pid, rank), by the
        lookup ``Identities.of_record`` makes, as two joins with the input's streams."""
        out = np.full(streams.num_rows, self._none, np.int64)
        keys = ["path", "segment", "pid", "rank"]
        found = streams.join(self._known(), keys=keys, join_type="inner", use_threads=False)
        out[found.column("code").to_numpy()] = found.column("process").to_numpy()
        # a record without a pid whose rank makes no stream of its own: its section's stream
        rest = streams.filter(pa.array((out == self._none)
                                       & (streams.column("pid").to_numpy() == _NONE)
                                       & (streams.column("rank").to_numpy() != _NONE)))
        if rest.num_rows:
            rest = rest.set_column(rest.schema.get_field_index("rank"), "rank",
                                   pa.array(np.full(rest.num_rows, _NONE)))
            found = rest.join(self._known(), keys=keys, join_type="inner", use_threads=False)
            out[found.column("code").to_numpy()] = found.column("process").to_numpy()
        return out

    def _known(self) -> pa.Table:
        """Every stream of the input with its process's index (made once; as many rows as
        the summary has streams, which it caps)."""
        if self._streams is None:
            items = list(self._ids.of_stream.items())
            self._streams = pa.table({
                "path": pa.array([k.path for k, _ in items], pa.string()),
                "segment": pa.array([k.segment for k, _ in items], pa.int64()),
                "pid": pa.array([_NONE if k.pid is None else k.pid for k, _ in items],
                                pa.int64()),
                "rank": pa.array([_NONE if k.rank is None else k.rank for k, _ in items],
                                 pa.int64()),
                "process": pa.array([self._index[p] for _, p in items], pa.int64())})
        return self._streams

    def _attempt_rows(self, process: pa.Array, aligned: pa.Array) -> pa.Array:
        """The attempt of each row: its process's one attempt, else by its aligned time."""
        if not self._attempts.list:
            return pa.nulls(len(process), pa.int32())
        proc = process.to_numpy(zero_copy_only=False)
        out = self._single[proc]
        later = np.flatnonzero(out < 0)
        if len(later):
            ts_col = pc.cast(aligned, pa.int64())
            timed = pc.is_valid(ts_col).to_numpy(zero_copy_only=False)
            ts = pc.fill_null(ts_col, 0).to_numpy(zero_copy_only=False)
            order = later[np.argsort(proc[later], kind="stable")]
            cuts = np.flatnonzero(np.diff(proc[order])) + 1
            for rows in np.split(order, cuts):
                p = int(proc[rows[0]])
                key = self._keys[p] if p < self._none else None
                found = self._attempts.of_rows(key, ts[rows], timed[rows])
                if found is not None:
                    out[rows] = found
        return pa.array(out, pa.int32())


def _chunk(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    return column


def _plain(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    column = _chunk(column)
    return column.dictionary_decode() if pa.types.is_dictionary(column.type) else column


def _codes(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Each row's index among the distinct values (a null is a value too), and those."""
    encoded = pc.dictionary_encode(values, null_encoding="encode")
    return (encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64),
            encoded.dictionary)


def _ints(values: Sequence[int | None]) -> pa.Array:
    """Per-process integers and a null for "no process" at the end."""
    return pa.array([*values, None], pa.int32())


def _texts(values: Sequence[str | None]) -> pa.Array:
    """Per-process texts, dictionary-encoded (few distinct), a null for "no process"."""
    return pc.dictionary_encode(pa.array([*values, None], pa.string()))


def _as(column: pa.Array, kind: pa.DataType) -> pa.Array:
    """``column`` in the table's type (a dictionary for an encoded text column)."""
    if column.type == kind:
        return column
    if pa.types.is_dictionary(kind):
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        return column.cast(kind)
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    return column.cast(kind)

