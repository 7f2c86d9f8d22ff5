"""Threshold candidates kept as Arrow and reduced to each group's densest window
(``engine.thresholdstore``) give the findings that ``correlate.threshold`` gives over every
record, in memory, spilled to a file and split by group on disk."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import numpy as np
import pyarrow as pa
import pytest

from plogscan.catalog import RuleSet
from plogscan.catalog.ruleset import rule_from_text
from plogscan.engine import candidatestore, groupbuckets, scan, thresholdstore
from plogscan.model import Finding
from plogscan.schema import EVENT_SCHEMA

T0 = datetime(2026, 3, 14, 10, 0, 0)
HEAD = """\
id: TST100
name: test.storm
title: Test storm rule
category: ccu-exception
level: error
description: 'A storm of {count} record(s).'
remediation: [Nothing to do.]
"""


def _rule(count: int, within: str | None, by: str = "[host, pid]",
          match: str = "{message|contains: 'storm'}"):
    window = f"  within: {within}\n" if within else ""
    return rule_from_text(HEAD + f"threshold:\n  match: {match}\n"
                          f"  by: {by}\n  count: {count}\n" + window)


CAPTURED = "{message|re: 'storm (?:of|again) ?(?P<comm>[a-z0-9]*)'}"


def _events(rnd: random.Random, n: int) -> pa.Table:
    """Storm and other records of a few processes, in several files, out of time order, with
    equal times, missing times and missing pids."""
    rows = []
    lines: dict[str, int] = {}
    for _ in range(n):
        path = rnd.choice(["a.log", "b.log", "c.log"])
        lines[path] = lines.get(path, 0) + 1
        second = rnd.choice([None] + [rnd.randrange(600) / rnd.choice([1, 4])] * 12)
        rows.append({
            **{f.name: None for f in EVENT_SCHEMA},
            "path": path, "line": lines[path], "line_count": 1, "codes": [],
            "kind": "plog-debug", "level": "ERROR", "module": "HCCL",
            "host": rnd.choice(["h1", "h2", None]),
            "pid": rnd.choice([1, 2, 3, 4, None] if rnd.random() < 0.2 else [1, 2, 3, 4]),
            "ts": None if second is None else T0 + timedelta(seconds=second),
            "message": rnd.choice(["storm of errors", "storm again", "calm line",
                                   "storm of c1", "storm again c2", "storm of "]),
        })
    return pa.Table.from_pylist(rows, schema=EVENT_SCHEMA)


def _shown(findings: list[Finding]) -> list[tuple]:
    return [(f.fingerprint, dict(f.captures)["count"],
             [(e.path, e.line) for e in f.evidence]) for f in findings]


def _both(rule, events: pa.Table, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list]:
    batches = events.to_batches(max_chunksize=37)  # candidates arrive batch by batch
    stored = scan(batches, RuleSet((rule,)))
    with monkeypatch.context() as plain:
        plain.setattr(thresholdstore, "eligible", lambda r: False)
        every = scan(batches, RuleSet((rule,)))
    return _shown(stored), _shown(every)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("count", "within"), [(3, "10s"), (8, "2m"), (30, "1h"), (4, None),
                                               (2, "1s")])
def test_densest_windows_are_those_of_every_record(
        seed: int, count: int, within: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    stored, every = _both(_rule(count, within), _events(random.Random(seed), 400),
                          monkeypatch)
    assert stored == every


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("by", ["[comm]", "[host, comm]", "[comm, pid]"])
def test_keys_the_match_captures_group_as_in_every_record(
        seed: int, by: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``by`` key taken from a capture (an empty capture is no key)."""
    events = _events(random.Random(seed), 400)
    rule = _rule(3, "5m", by=by, match=CAPTURED)
    assert thresholdstore.eligible(rule)
    stored, every = _both(rule, events, monkeypatch)
    assert stored == every
    assert every  # the case fires
    monkeypatch.setattr(candidatestore, "SPILL_ROWS", 20)
    monkeypatch.setattr(candidatestore, "THIN_ROWS", 50)
    bucketed, _ = _both(rule, events, monkeypatch)
    assert bucketed == every


@pytest.mark.parametrize("seed", range(3))
def test_spilled_and_bucketed_candidates_give_the_same_findings(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    events = _events(random.Random(seed), 600)
    rule = _rule(5, "1m")
    _, every = _both(rule, events, monkeypatch)
    monkeypatch.setattr(candidatestore, "SPILL_ROWS", 20)
    spilled, _ = _both(rule, events, monkeypatch)
    monkeypatch.setattr(candidatestore, "THIN_ROWS", 50)
    monkeypatch.setattr(groupbuckets, "BUCKETS", 2)  # groups share a file
    bucketed, _ = _both(rule, events, monkeypatch)
    assert spilled == every
    assert bucketed == every
    assert every  # the case fires


def test_a_storm_keeps_only_what_its_finding_shows() -> None:
    """200,000 records of one group: the finding counts them all and keeps 20 as evidence."""
    n = 200_000
    events = pa.table({
        **{f.name: pa.nulls(n, f.type) for f in EVENT_SCHEMA},
        "path": pa.array(["a.log"] * n), "line": pa.array(np.arange(1, n + 1)),
        "line_count": pa.array(np.ones(n, np.int64)),
        "ts": pa.array(np.datetime64("2026-03-14T10:00:00", "us")
                       + np.arange(n).astype("timedelta64[ms]")),
        "host": pa.array(["h"] * n), "pid": pa.array(np.ones(n, np.int64)),
        "message": pa.array(["storm"] * n), "level": pa.array(["ERROR"] * n),
    }).select([f.name for f in EVENT_SCHEMA]).cast(EVENT_SCHEMA)
    (finding,) = scan(events.to_batches(max_chunksize=8192), RuleSet((_rule(10, "1m"),)))
    assert dict(finding.captures)["count"] == "60001"  # 60 s of one record a millisecond
    assert [e.line for e in finding.evidence] == list(range(1, 21))


def test_groups_laid_end_to_end_or_one_by_one_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = np.random.default_rng(3)
    sizes = rnd.integers(1, 30, 50)
    times = np.concatenate([np.sort(rnd.integers(0, 10**6, s)) for s in sizes])
    starts = np.cumsum(sizes) - sizes
    laid = thresholdstore.window_starts(times, starts, 50_000)
    monkeypatch.setattr(thresholdstore, "_LAID_OUT_MAX", 0)  # group by group
    assert laid.tolist() == thresholdstore.window_starts(times, starts, 50_000).tolist()
    group = np.repeat(np.arange(len(sizes)), sizes)
    assert (group[laid] == group).all()
    assert all(times[i] - times[laid[i]] <= 50_000 for i in range(len(times)))
