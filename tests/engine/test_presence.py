"""``Presence`` keeps, per process, what a row-by-row reading of the same rows keeps, cap
included: the distinct rows and the cap are worked out in Arrow, and must not change which
processes are held or what is known of each host."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.catalog.rule import Requires
from plogscan.engine.presence import Presence

_ROW = st.tuples(st.sampled_from([None, "host-a", "host-b"]),
                 st.sampled_from([None, 1, 2, 3, 4, 5, 6]),
                 st.sampled_from(["DEBUG", "INFO", "ERROR", None]),
                 st.sampled_from(["HCCL", "GE", None]),
                 st.sampled_from(["plog-debug", "plog-run"]))
_SCHEMA = pa.schema([("host", pa.string()), ("pid", pa.int64()), ("level", pa.string()),
                     ("module", pa.string()), ("kind", pa.string())])


def _row_by_row(tables: list[list[tuple]], max_processes: int) -> tuple[dict, dict, set]:
    by_process: dict = {}
    by_host: dict = {}
    untracked: set = set()
    for rows in tables:
        for host, pid, level, module, kind in rows:
            by_host.setdefault(host, set()).add((level, module, kind))
            if (host, pid) not in by_process:
                if len(by_process) >= max_processes:
                    untracked.add(host)
                    continue
                by_process[(host, pid)] = set()
            by_process[(host, pid)].add((level, module, kind))
    return by_process, by_host, untracked


@settings(max_examples=150, deadline=None)
@given(tables=st.lists(st.lists(_ROW, max_size=30), max_size=4),
       max_processes=st.integers(0, 8), as_batches=st.booleans())
def test_presence_holds_what_a_row_by_row_reading_holds(tables, max_processes, as_batches):
    presence = Presence(max_processes)
    for rows in tables:
        table = pa.Table.from_pylist([dict(zip(_SCHEMA.names, r, strict=True)) for r in rows],
                                     schema=_SCHEMA)
        if as_batches:
            presence.consume(table.combine_chunks().to_batches()[0] if rows
                             else pa.RecordBatch.from_pylist([], schema=_SCHEMA))
        else:
            presence.consume_facts(table)
    by_process, by_host, untracked = _row_by_row(tables, max_processes)
    assert presence._by_process == by_process
    assert presence._by_host == by_host
    assert presence._untracked_hosts == untracked


def test_a_process_past_the_cap_is_checked_with_its_host():
    presence = Presence(max_processes=1)
    presence.consume_facts(pa.Table.from_pylist(
        [{"host": "h", "pid": 1, "level": "INFO", "module": "GE", "kind": "plog-run"},
         {"host": "h", "pid": 2, "level": "DEBUG", "module": "HCCL", "kind": "plog-debug"}],
        schema=_SCHEMA))
    assert set(presence._by_process) == {("h", 1)}
    assert presence._untracked_hosts == {"h"}
    debug = Requires(levels=("DEBUG",))
    held, held_scope = presence.check(debug, "h", 1)
    past, past_scope = presence.check(debug, "h", 2)
    assert not held and "more than" not in held_scope  # process 1 wrote no DEBUG record
    assert past and "more than 1 processes" in past_scope  # process 2: its host's records
