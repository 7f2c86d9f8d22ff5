"""A rule without ``by`` makes a finding of every record it matches: ``--max-findings`` keeps
its earliest records (in time order, whatever order the files come in) and counts the rest,
and the report says so in ``inputs.limits``."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

import pyarrow as pa
from jsonschema import Draft202012Validator

from plogscan.catalog import RuleSet
from plogscan.catalog.ruleset import rule_from_text
from plogscan.engine import scan
from plogscan.schema import EVENT_SCHEMA
from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
T0 = datetime(2026, 3, 14, 10, 0, 0)
RULE = """\
id: USR001
name: user.every-storm-line
title: Every storm line
category: ccu-exception
level: error
description: 'A storm line.'
remediation: [Nothing to do.]
match: {message|contains: 'storm'}
"""


def _events(n: int, seed: int) -> pa.Table:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        second = rnd.choice([None, rnd.randrange(100), rnd.randrange(100)])  # ties, no times
        rows.append({**{f.name: None for f in EVENT_SCHEMA},
                     "path": rnd.choice(["a.log", "b.log"]), "line": i + 1, "line_count": 1,
                     "codes": [], "kind": "plog-debug", "level": "ERROR", "host": "h",
                     "pid": 1, "message": rnd.choice(["storm", "calm"]),
                     "ts": None if second is None else T0 + timedelta(seconds=second)})
    return pa.Table.from_pylist(rows, schema=EVENT_SCHEMA)


def _where(findings) -> list[tuple[str, int]]:
    return [(f.evidence[0].path, f.evidence[0].line) for f in findings]


def heard_of(heard: list) -> object:
    return lambda *args: heard.append(args)


def test_the_earliest_records_are_kept_and_the_rest_counted() -> None:
    rule = rule_from_text(RULE)
    for seed in range(5):
        batches = _events(300, seed).to_batches(max_chunksize=23)
        every = scan(batches, RuleSet((rule,)))
        heard: list[tuple[str, int, int]] = []
        capped = scan(batches, RuleSet((rule,)), max_findings=9, on_capped=heard_of(heard))
        earliest = sorted(every, key=lambda f: (f.evidence[0].ts is None,
                                                f.evidence[0].ts or T0,
                                                f.evidence[0].path, f.evidence[0].line))[:9]
        assert sorted(_where(capped)) == sorted(_where(earliest))
        assert heard == [("USR001", len(every), 9)]
        assert scan(batches, RuleSet((rule,)), max_findings=len(every),
                    on_capped=heard_of(heard)) and len(heard) == 1  # not past the cap


def test_the_report_names_the_cap(diagnose_cli, tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "storm.yaml").write_text(RULE)
    logs = tmp_path / "logs" / "debug" / "plog"
    logs.mkdir(parents=True)
    lines = [f"[ERROR] HCCL(7,python3):2026-03-14-10:00:{i:02d}.000.000 [x.cc:1] storm {i}"
             for i in range(30)]
    (logs / "plog-7_20260314100000000.log").write_text("\n".join(lines) + "\n")
    out = tmp_path / "report.json"
    result = diagnose_cli(tmp_path / "logs", "--rules", rules, "--max-findings", "4",
                          "--no-cache", "--format", "json", "-o", out)
    assert result.exit_code == 1, result.output
    report = json.loads(out.read_text())
    schema = json.loads((ROOT / "plogscan/schema/report.schema.json").read_text())
    Draft202012Validator(schema).validate(report)
    storm = [f for f in report["findings"] if f["rule"] == "USR001"]
    assert len(storm) == 4
    assert sorted(e["line"] for f in storm for e in f["evidence"]) == [1, 2, 3, 4]
    (hit,) = [h for h in report["inputs"]["limits"] if h["limit"] == "findings"]
    assert hit["option"] == "--max-findings" and hit["value"] == 4 and hit["path"] == "USR001"
    assert "matched 30 records" in hit["detail"] and "the other 26 were counted" in hit["detail"]


def test_sorting_before_a_key_agrees_with_sort_key() -> None:
    from plogscan.engine.arrowrows import as_rows, sorting_before
    from plogscan.engine.correlate import sort_key

    rnd = random.Random(7)
    table = _events(400, 3)
    table = table.set_column(table.schema.get_field_index("path"), "path", pa.array(
        [rnd.choice(["a.log", "b.log", None]) for _ in range(table.num_rows)]))
    keys = [sort_key(row) for row in as_rows(table, [], {})]
    for cut in rnd.sample(keys, 40):
        assert sorting_before(table, cut).tolist() == [k < cut for k in keys]
