"""The ERROR and WARNING records the reports list (``Overview.events``): the earliest ones,
with the findings' evidence merged in, whatever the order the batches came in; only the
records that can be listed are turned into Python objects, and that changes nothing."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pyarrow as pa
import pytest

from plogscan.analysis import overview
from plogscan.analysis.overview import Overview, event_row, order_key
from plogscan.model import EventRow
from plogscan.schema import EVENT_SCHEMA

START = datetime(2026, 3, 17, 14, 2, 11)


def _batch(rng: random.Random, first_line: int, rows: int, path: str) -> pa.RecordBatch:
    out = []
    for i in range(rows):
        out.append({name: None for name in EVENT_SCHEMA.names} | {
            "ts": None if rng.random() < 0.1 else START + timedelta(seconds=rng.randrange(50)),
            "level": rng.choice(["ERROR", "WARNING", "INFO", "DEBUG", None]),
            "module": "HCCL", "pid": rng.randrange(3), "path": path, "line": first_line + i,
            "message": rng.choice(["short", "长" * (overview.MESSAGE_CHARS + rng.randrange(3)),
                                   None]),
            "codes": rng.choice([[], ["EI0002"], None]), "kind": "plog", "host": "h",
            "line_count": 1, "fmt": "cann", "truncated": False, "ts_invalid": False,
            "clock_epoch": False})
    return pa.RecordBatch.from_pylist(out, schema=EVENT_SCHEMA)


def _reference(batches: list[pa.RecordBatch], extra: list[EventRow]
               ) -> tuple[tuple[EventRow, ...], bool]:
    """Every notable record as a Python row, sorted and cut: what ``events`` must equal."""
    rows: list[EventRow] = []
    truncated = False
    for batch in batches:
        notable = [r for r in batch.to_pylist() if r["level"] in ("ERROR", "WARNING")]
        if notable and len(rows) >= overview._COLLECT_LIMIT:
            truncated = True
            continue
        room = overview._COLLECT_LIMIT - len(rows)
        truncated = truncated or len(notable) > room
        rows.extend(event_row(r) for r in notable[:room])
    seen: dict[tuple[str, int], EventRow] = {}
    for row in sorted([*rows, *extra], key=order_key):
        seen.setdefault((row.path, row.line), row)
    ordered = sorted(seen.values(), key=order_key)
    return tuple(ordered[:overview.KEEP_EVENTS]), truncated or len(ordered) > overview.KEEP_EVENTS


@pytest.mark.parametrize("seed", range(18))
def test_events_equal_those_of_every_record_sorted(seed: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(overview, "KEEP_EVENTS", rng.choice([3, 10, 200]))
    monkeypatch.setattr(overview, "_COLLECT_LIMIT", rng.choice([20, 60, 1000]))
    batches = [_batch(rng, 1000 * n, rng.randrange(0, 40), f"/logs/{rng.choice('ab')}/plog.log")
               for n in range(rng.randrange(1, 8))]
    watched = Overview()
    for batch in batches:
        watched.consume(batch, processes=False)
    evidence = [r for b in batches for r in b.to_pylist() if rng.random() < 0.05]
    extra = [event_row(r) for r in evidence] + [
        EventRow(ts=START, level="ERROR", module="X", pid=1, rank=None, host="h", device=None,
                 kind="", path="/logs/c.log", line=7, message="evidence only")]
    if seed % 3 == 0:  # no evidence at all
        extra = []
    assert watched.events(extra) == _reference(batches, extra)


def test_long_messages_are_cut_as_before() -> None:
    batch = _batch(random.Random(5), 1, 3, "/logs/a.log")
    messages = ["长" * overview.MESSAGE_CHARS, "长" * (overview.MESSAGE_CHARS + 1), "é" * 9000]
    batch = batch.set_column(batch.schema.get_field_index("message"), "message",
                             pa.array(messages, pa.large_string()))
    batch = batch.set_column(batch.schema.get_field_index("level"), "level",
                             pa.array(["ERROR"] * 3, pa.string()))
    watched = Overview()
    watched.consume(batch, processes=False)
    events, _ = watched.events([])
    assert sorted(e.message for e in events) == sorted(
        [messages[0], messages[1][:overview.MESSAGE_CHARS] + " …",
         messages[2][:overview.MESSAGE_CHARS] + " …"])
