"""``ingest --dataset`` writes a hive-partitioned dataset that diagnose, events and sql read
back; ``plogscan sql`` queries the records and cannot touch other files."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from tests.helpers import SAMPLES_DIR, run_cli

SAMPLES = SAMPLES_DIR
SAMPLE = SAMPLES / "ccu-reuse-before-mc2"


HIVE = ds.partitioning(pa.schema([("host", pa.string()), ("rank", pa.int64())]), flavor="hive")


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    target = tmp_path / "events"
    result = run_cli("ingest", SAMPLES, "--dataset", target, "--quiet")
    assert result.exit_code == 0, result.output
    return target


def test_dataset_layout_and_accounting(dataset: Path) -> None:
    parts = sorted(p.relative_to(dataset).as_posix() for p in dataset.rglob("*.parquet"))
    assert parts and all(p.startswith("host=") and "/rank=" in p and "/part-" in p
                         for p in parts)
    assert any("rank=__HIVE_DEFAULT_PARTITION__" in p for p in parts)  # no rank known
    accounting = json.loads((dataset / "_plogscan_inputs.json").read_text())
    rows = ds.dataset(dataset, format="parquet", partitioning=HIVE).count_rows()
    assert rows == sum(f["records"] for f in accounting["files"])
    for f in accounting["files"]:
        assert f["lines"] == f["record_lines"] + f["blank_lines"]


def _without_context(findings: list[dict]) -> list[dict]:
    return [{**f, "evidence": [{k: v for k, v in ev.items()
                                if k not in ("context_before", "context_after")}
                               for ev in f["evidence"]]} for f in findings]


def test_diagnose_and_events_read_the_dataset(dataset: Path) -> None:
    from_logs = json.loads(run_cli("diagnose", SAMPLES, "--format", "json", "-q").stdout)
    from_dataset = json.loads(run_cli("diagnose", dataset, "--format", "json", "-q").stdout)
    # the same findings; the table holds records, not the lines around them (the logs it came
    # from are not inputs of the run: they are not read)
    assert _without_context(from_dataset["findings"]) == _without_context(from_logs["findings"])
    assert any(ev["context_before"] for f in from_logs["findings"] for ev in f["evidence"])
    assert not any(ev["context_before"] or ev["context_after"]
                   for f in from_dataset["findings"] for ev in f["evidence"])
    assert from_dataset["inputs"]["files"] == from_logs["inputs"]["files"]
    logs_rows = run_cli("events", SAMPLE, "--format", "jsonl", "-q").stdout.splitlines()
    data_rows = run_cli("events", dataset, "--format", "jsonl", "-q",
                        "--grep", "").stdout.splitlines()
    assert set(logs_rows) <= set(data_rows)


def test_readme_pandas_and_duckdb_one_liners(dataset: Path) -> None:
    frame = pd.read_parquet(dataset, partitioning=HIVE)
    accounting = json.loads((dataset / "_plogscan_inputs.json").read_text())
    assert len(frame) == sum(f["records"] for f in accounting["files"])
    ranks = set(frame["rank"].dropna().astype(int))
    assert {0, 1, 5, 13} <= ranks  # the ranks the logs' processes announce
    duckdb = pytest.importorskip("duckdb")
    counted = duckdb.sql(f"SELECT count(*) FROM read_parquet('{dataset}/**/*.parquet', "
                         "hive_partitioning = true)").fetchall()[0][0]
    assert counted == len(frame)


def test_dataset_refuses_a_non_empty_directory(dataset: Path) -> None:
    again = run_cli("ingest", SAMPLE, "--dataset", dataset, "--quiet")
    assert again.exit_code == 2 and "is not empty" in again.stderr
    replaced = run_cli("ingest", SAMPLE, "--dataset", dataset, "--quiet", "--overwrite")
    assert replaced.exit_code == 0
    accounting = json.loads((dataset / "_plogscan_inputs.json").read_text())
    rows = ds.dataset(dataset, format="parquet", partitioning=HIVE).count_rows()
    assert rows == sum(f["records"] for f in accounting["files"])
    assert all(str(SAMPLE) in f["path"] for f in accounting["files"])


def test_ingest_needs_exactly_one_target(tmp_path: Path) -> None:
    both = run_cli("ingest", SAMPLE, "-o", tmp_path / "e.parquet", "--dataset", tmp_path / "d")
    neither = run_cli("ingest", SAMPLE)
    assert both.exit_code == neither.exit_code == 2


duckdb = pytest.importorskip("duckdb", reason="needs plogscan[sql]")


@pytest.mark.parametrize("source", ["logs", "parquet", "dataset"])
def test_sql_over_every_input(source: str, dataset: Path, tmp_path: Path) -> None:
    if source == "logs":
        target = SAMPLES
    elif source == "parquet":
        target = tmp_path / "e.parquet"
        assert run_cli("ingest", SAMPLES, "-o", target, "-q").exit_code == 0
    else:
        target = dataset
    result = run_cli("sql", "SELECT level, count(*) AS n FROM events GROUP BY level "
                     "ORDER BY level NULLS LAST", target, "--format", "jsonl", "-q")
    assert result.exit_code == 0, result.output
    counts = {row["level"]: row["n"] for row in map(json.loads, result.stdout.splitlines())}
    accounting = json.loads((dataset / "_plogscan_inputs.json").read_text())
    assert sum(counts.values()) == sum(f["records"] for f in accounting["files"])
    assert counts["ERROR"] > 0


def test_sql_formats(tmp_path: Path) -> None:
    query = "SELECT '=cmd()' AS formula, 2 AS n, ['a', 'b'] AS codes"
    csv_out = run_cli("sql", query, SAMPLE, "--format", "csv", "-q").stdout
    assert csv_out.splitlines() == ["formula,n,codes", "'=cmd(),2,\"[\"\"a\"\", \"\"b\"\"]\""]
    table = run_cli("sql", query, SAMPLE, "-q").stdout
    assert table.splitlines()[0].split() == ["formula", "n", "codes"]
    assert table.rstrip().endswith("(1 row)")
    rows = [json.loads(x) for x in run_cli("sql", query, SAMPLE, "--format", "jsonl",
                                           "-q").stdout.splitlines()]
    assert rows == [{"formula": "=cmd()", "n": 2, "codes": ["a", "b"]}]


@pytest.mark.parametrize("query", [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/hostname')",
    "COPY events TO '{out}'",
    "SET enable_external_access = true",
    "ATTACH '{out}' AS other",
    "INSTALL httpfs",
])
def test_sql_cannot_reach_other_files(query: str, tmp_path: Path) -> None:
    out = tmp_path / "leak.csv"
    result = run_cli("sql", query.format(out=out), SAMPLE, "-q")
    assert result.exit_code == 2
    assert "query failed" in result.stderr and "Traceback" not in result.output
    assert not out.exists()


def test_sql_bad_query_is_a_clear_error() -> None:
    result = run_cli("sql", "SELEC nothing", SAMPLE, "-q")
    assert result.exit_code == 2 and "query failed" in result.stderr
