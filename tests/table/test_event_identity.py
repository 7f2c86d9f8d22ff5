"""Every record of the event table carries its process's identity, as the diagnosis resolves
it: rank, device, phy_device, host, host_ip, attempt, communicator and identity_source, in
``ingest -o``, ``ingest --dataset``, ``events`` and ``sql``; older tables still read."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plogscan.schema import IDENTITY_SOURCES, RECORD_COLUMNS, TABLE_SCHEMA, table_decoded
from tests.helpers import SAMPLES_DIR, run_cli

SAMPLES = SAMPLES_DIR
CASCADE = SAMPLES / "notify-wait-cascade"
IDENTITY = ("rank", "device", "phy_device", "host", "host_ip", "attempt", "communicator",
            "identity_source")


def _diagnosis(sample: Path) -> dict:
    result = run_cli("diagnose", sample, "--format", "json", "-q", "--no-cache")
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def _multi_rank(sample: Path) -> bool:
    ranks = {p["rank"] for p in _diagnosis(sample)["processes"] if p["rank"] is not None}
    return len(ranks) > 1


MULTI_RANK = [p.name for p in sorted(SAMPLES.iterdir()) if p.is_dir() and _multi_rank(p)]


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[pa.Table, dict]]:
    out = {}
    for name in MULTI_RANK:
        table = tmp_path_factory.mktemp("t") / f"{name}.parquet"
        assert run_cli("ingest", SAMPLES / name, "-o", table, "-q").exit_code == 0
        out[name] = (pq.read_table(table), _diagnosis(SAMPLES / name))
    return out


def test_the_samples_hold_several_multi_rank_jobs() -> None:
    assert {"notify-wait-cascade", "restart-two-attempts", "link-chain-silent-rank",
            "clock-skew-earliest-error", "op-index-mismatch"} <= set(MULTI_RANK)


@pytest.mark.parametrize("sample", MULTI_RANK)
def test_ranks_devices_and_hosts_are_the_diagnosis_processes(ingested: dict, sample: str) -> None:
    table, diagnosis = ingested[sample]
    rows = table.select(["host", "pid", "rank", "device"]).to_pylist()
    known = {(p["host"], p["rank"], p["device"]) for p in diagnosis["processes"]
             if p["rank"] is not None}
    assert {(r["host"], r["rank"], r["device"]) for r in rows if r["rank"] is not None} == known
    # a record of a process the diagnosis knows the rank of never has a null rank
    by_pid: dict[tuple, list[dict]] = {}
    for p in diagnosis["processes"]:
        by_pid.setdefault((p["host"], p["pid"]), []).append(p)
    checked = 0
    for r in rows:
        owners = by_pid.get((r["host"], r["pid"]), [])
        if len(owners) == 1 and owners[0]["rank"] is not None:
            assert (r["rank"], r["device"]) == (owners[0]["rank"], owners[0]["device"]), r
            checked += 1
    assert checked


@pytest.mark.parametrize("sample", MULTI_RANK)
def test_attempts_hold_the_ranks_the_diagnosis_gives_them(ingested: dict, sample: str) -> None:
    table, diagnosis = ingested[sample]
    attempts = table.column("attempt").to_pylist()
    ranks = table.column("rank").to_pylist()
    assert None not in attempts
    assert set(attempts) == {a["id"] for a in diagnosis["attempts"]}
    for attempt in diagnosis["attempts"]:
        held = {r for a, r in zip(attempts, ranks, strict=True)
                if a == attempt["id"] and r is not None}
        assert held == set(attempt["ranks"]), attempt["id"]


def test_a_restarted_job_has_two_attempts(ingested: dict) -> None:
    table, _ = ingested["restart-two-attempts"]
    assert set(table.column("attempt").to_pylist()) == {1, 2}


@pytest.mark.parametrize("sample", MULTI_RANK)
def test_the_root_cause_chain_names_the_rows_devices(ingested: dict, sample: str) -> None:
    """A chain hop's device is its physical device when logged (the label's), else the
    logical one: the rows of that rank on that host say the same."""
    table, diagnosis = ingested[sample]
    rows = table.select(["host", "rank", "device", "phy_device"]).to_pylist()
    hops = [h for h in diagnosis["root_cause"]["chain"] if h.get("rank") is not None]
    for hop in hops:
        mine = {r["phy_device"] if r["phy_device"] is not None else r["device"]
                for r in rows if r["host"] == hop["host"] and r["rank"] == hop["rank"]}
        assert mine == {hop["device"]}, hop


@pytest.mark.parametrize("sample", MULTI_RANK)
def test_identity_source_host_ip_and_communicator(ingested: dict, sample: str) -> None:
    table, _ = ingested[sample]
    sources = set(table.column("identity_source").to_pylist())
    assert sources and sources <= set(IDENTITY_SOURCES)
    for ip in set(table.column("host_ip").to_pylist()) - {None}:
        ipaddress.ip_address(ip)
    # one host IP per host, one world communicator per process
    pairs = set(zip(table.column("host").to_pylist(), table.column("host_ip").to_pylist(),
                    strict=True))
    hosts = [h for h, ip in pairs if ip is not None]
    assert len(hosts) == len(set(hosts))


def test_the_cascade_in_full(ingested: dict) -> None:
    table, _ = ingested["notify-wait-cascade"]
    rows = table.select(list(IDENTITY)).to_pylist()
    assert {r["identity_source"] for r in rows} == {"content"}
    assert {(r["host"], r["host_ip"]) for r in rows} == {("node-a", "10.20.0.11"),
                                                         ("node-b", "10.20.0.12")}
    assert {r["rank"]: r["device"] for r in rows} == {0: 0, 1: 1, 2: 2, 3: 3, 4: 0, 5: 1,
                                                       6: 2, 7: 3}
    assert len({r["communicator"] for r in rows}) == 1 and rows[0]["communicator"]


def test_the_table_says_its_version_and_keeps_what_each_record_named(ingested: dict) -> None:
    table, _ = ingested["notify-wait-cascade"]
    assert table.schema.metadata[b"plogscan.schema_version"] == b"3"
    assert table.schema.names == TABLE_SCHEMA.names
    for name, record in RECORD_COLUMNS.items():
        assert record in table.schema.names, name
    # the plogs of this tree name no rank in their lines or paths: only the identity does
    assert table.column("record_rank").null_count == table.num_rows
    assert table.column("rank").null_count == 0


# ---------------------------------------------------------------------- events and sql


@pytest.mark.parametrize(("flags", "count"), [
    (("--rank", "5"), 15), (("--rank", "5", "--rank", "6"), 29), (("--device", "1"), 29),
    (("--host", "node-b"), 57), (("--host", "node-b", "--device", "1"), 15),
    (("--attempt", "1"), 113), (("--attempt", "2"), 0), (("--host", "NODE-B"), 0),
])
def test_events_filters_by_identity(flags: tuple[str, ...], count: int) -> None:
    result = run_cli("events", CASCADE, "--format", "jsonl", "-q", *flags)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == count
    wanted: dict[str, set[str]] = {}
    for name, value in zip(flags[::2], flags[1::2], strict=True):
        wanted.setdefault(name.lstrip("-"), set()).add(value)
    for row in rows:
        for column, values in wanted.items():
            assert str(row[column]) in values, (column, row[column])


def test_events_from_logs_and_from_the_table_are_the_same_rows(tmp_path: Path) -> None:
    table = tmp_path / "t.parquet"
    assert run_cli("ingest", CASCADE, "-o", table, "-q").exit_code == 0
    from_logs = run_cli("events", CASCADE, "--format", "jsonl", "-q").stdout
    from_table = run_cli("events", table, "--format", "jsonl", "-q").stdout
    assert from_logs == from_table and from_logs.count("\n") == 113


def test_sql_counts_real_ranks() -> None:
    pytest.importorskip("duckdb")
    result = run_cli("sql", "SELECT rank, count(*) AS n FROM events GROUP BY rank ORDER BY rank",
                     CASCADE, "--format", "jsonl", "-q")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["rank"] for r in rows] == list(range(8))
    assert sum(r["n"] for r in rows) == 113


def test_the_dataset_is_partitioned_by_real_host_and_rank(tmp_path: Path) -> None:
    target = tmp_path / "ds"
    assert run_cli("ingest", CASCADE, "--dataset", target, "-q").exit_code == 0
    parts = {p.parent.relative_to(target).as_posix() for p in target.rglob("*.parquet")}
    assert parts == {f"host=node-{h}/rank={r}" for h, ranks in (("a", range(4)),
                                                                 ("b", range(4, 8)))
                     for r in ranks}
    assert not list(target.glob(".*"))  # the staged rows are gone
    rows = run_cli("events", target, "--format", "jsonl", "-q", "--rank", "5").stdout
    assert rows.count("\n") == 15
    assert all(json.loads(r)["device"] == 1 for r in rows.splitlines())


# ---------------------------------------------------------------------- older tables


def _older(table: Path, older: Path) -> None:
    """``table`` as plogscan wrote it before the identity columns: schema version 2, the
    parser's own host, rank and device."""
    current = pq.read_table(table)
    columns = {name: current.column(RECORD_COLUMNS.get(name, name))
               for name in TABLE_SCHEMA.names[:TABLE_SCHEMA.names.index("phy_device")]}
    schema = pa.schema([current.schema.field(RECORD_COLUMNS.get(n, n)).with_name(n)
                        for n in columns], metadata={"plogscan.schema_version": "2"})
    pq.write_table(pa.Table.from_arrays(list(columns.values()), schema=schema), older)


def test_an_older_table_reads_with_the_new_columns_null(tmp_path: Path) -> None:
    table, older = tmp_path / "t.parquet", tmp_path / "v2.parquet"
    assert run_cli("ingest", SAMPLES / "restart-two-attempts", "-o", table, "-q").exit_code == 0
    _older(table, older)
    assert "attempt" not in pq.read_schema(older).names
    result = run_cli("events", older, "--format", "jsonl", "-q")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == pq.read_metadata(table).num_rows
    for name in ("phy_device", "host_ip", "attempt", "communicator", "identity_source"):
        assert {r[name] for r in rows} == {None}, name
    for name, record in RECORD_COLUMNS.items():
        assert all(r[name] == r[record] for r in rows)
    assert run_cli("events", older, "-q", "--attempt", "1").stdout == ""
    new = json.loads(run_cli("diagnose", table, "--format", "json", "-q", "--no-cache").stdout)
    old = json.loads(run_cli("diagnose", older, "--format", "json", "-q", "--no-cache").stdout)
    assert _without_context(old["findings"]) == _without_context(new["findings"])


def test_a_diagnosis_of_the_table_is_the_diagnosis_of_the_logs(tmp_path: Path) -> None:
    """The table's identity columns do not feed back: a diagnosis reads what each record
    itself named (the ``record_`` columns)."""
    sample = SAMPLES / "ccu-reuse-pasted"  # records without a pid: their rank keys streams
    table = tmp_path / "t.parquet"
    assert run_cli("ingest", sample, "-o", table, "-q").exit_code == 0
    logs = _diagnosis(sample)
    stored = json.loads(run_cli("diagnose", table, "--format", "json", "-q",
                                "--no-cache").stdout)
    assert _without_context(stored["findings"]) == _without_context(logs["findings"])
    assert stored["processes"] == logs["processes"]


def _without_context(findings: list[dict]) -> list[dict]:
    """Findings without the lines around their evidence (read from the logs, which a
    table does not hold)."""
    return [{**f, "evidence": [{k: v for k, v in e.items() if not k.startswith("context_")}
                               for e in f["evidence"]]} for f in findings]


def test_row_attempts_agree_with_the_attempt_of_each_record() -> None:
    """``Attempts.of_rows`` (in bulk) gives what ``Attempts.of`` gives record by record."""
    from plogscan.crossrank.analyze import Context
    from plogscan.crossrank.gather import Gatherer
    from plogscan.ingest.pipeline import Ingest

    batches = list(Ingest().batches([str(SAMPLES / "restart-two-attempts")]))
    gatherer = Gatherer()
    for batch in batches:
        gatherer.consume(batch)
    ctx = Context(gatherer.summary())
    table = pa.Table.from_batches([table_decoded(b) for b in batches])
    attempts = ctx.attempts
    keys = [*attempts._owned, None]
    rng = np.random.default_rng(7)
    ts = np.sort(rng.integers(ctx.attempts.list[0].first_ts - 10**7,
                              ctx.attempts.list[-1].last_ts + 10**7, 400))
    timed = rng.random(400) > 0.1
    for key in keys:
        bulk = attempts.of_rows(key, ts, timed)
        one = [attempts.of(key, int(t) if ok else None)
               for t, ok in zip(ts, timed, strict=True)]
        assert bulk.tolist() == one, key
    annotated = ctx.annotate(table)
    assert set(annotated.column("attempt").to_pylist()) == {1, 2}


def test_row_attempts_of_a_resumed_process_follow_its_pieces() -> None:
    """A process resumed in place takes part in two attempts: its records are placed by
    their time, in bulk as one by one."""
    from plogscan.crossrank.attempts import Attempt, Attempts, Piece
    from plogscan.crossrank.identity import ProcessKey

    resumed, other, firmware = ProcessKey("h", 10), ProcessKey("h", 11), ProcessKey("h", -1)
    attempts = Attempts.__new__(Attempts)
    attempts.list = (
        Attempt(1, (Piece(resumed, 100, 200), Piece(other, 120, 260)), 100, 260,
                frozenset({resumed, other})),
        Attempt(2, (Piece(resumed, 300, 0),), 300, None, frozenset({resumed})),
        Attempt(3, (Piece(other, 500, 600),), 500, 600, frozenset({other})),
    )
    attempts._index()
    ts = np.arange(0, 800, 7, dtype=np.int64)
    timed = ts % 3 != 0
    for key in (resumed, other, firmware, None):
        bulk = attempts.of_rows(key, ts, timed)
        one = [attempts.of(key, int(t) if ok else None)
               for t, ok in zip(ts, timed, strict=True)]
        assert bulk.tolist() == one, key
    assert set(attempts.of_rows(resumed, ts, timed).tolist()) == {1, 2}


def test_the_readme_sql_and_pandas_lines_give_the_eight_ranks(tmp_path: Path) -> None:
    """The README's dataset examples, run as written on the cascade's dataset."""
    import os
    import re
    import shlex
    import subprocess
    import sys

    pytest.importorskip("duckdb")
    readme = (SAMPLES.parent / "README.md").read_text("utf-8")
    block = readme.split("## Datasets and SQL", 1)[1].split("```bash", 1)[1].split("```")[0]
    sql = next(line for line in block.splitlines() if line.startswith("plogscan sql"))
    pandas_line = next(line for line in block.splitlines() if line.startswith("python -c"))
    assert run_cli("ingest", CASCADE, "--dataset", tmp_path / "events", "-q").exit_code == 0
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        out = run_cli(*shlex.split(sql)[1:], "--format", "jsonl").stdout
    finally:
        os.chdir(cwd)
    assert sorted(json.loads(line)["rank"] for line in out.splitlines()) == list(range(8))
    code = shlex.split(pandas_line)[2]
    printed = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                             text=True, check=True).stdout
    assert re.findall(r"^(\d+)\s+1[45]$", printed, re.M) == [str(r) for r in range(8)]


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir() if p.is_dir()))
def test_every_row_has_the_identity_the_findings_get(sample: str) -> None:
    """The bulk join gives each row what ``Context.identify`` (the findings' lookup) gives
    that record, one by one: on every sample, pasted and pidless records included."""
    from plogscan.crossrank.analyze import Context
    from plogscan.crossrank.gather import Gatherer
    from plogscan.ingest.pipeline import Ingest

    batches = list(Ingest().batches([str(SAMPLES / sample)]))
    gatherer = Gatherer()
    for batch in batches:
        gatherer.consume(batch)
    ctx = Context(gatherer.summary())
    table = pa.Table.from_batches([table_decoded(b) for b in batches])
    rows = ctx.annotate(table).to_pylist()
    originals = table.to_pylist()
    assert len(rows) == len(originals) > 0
    for row, original in zip(rows, originals, strict=True):
        found = ctx.identify(original)
        if found is None:
            assert row["identity_source"] is None
            assert (row["rank"], row["device"]) == (original["rank"], original["device"])
            continue
        assert row["identity_source"] == found["identity"]
        for name in ("rank", "device"):
            want = found[name] if found[name] is not None else original[name]
            assert row[name] == want, (name, original["path"], original["line"])
        assert row["host"] == (original["host"] or found["host"])
        assert (row["record_rank"], row["record_device"]) == (original["rank"],
                                                              original["device"])


def test_a_pidless_record_naming_a_rank_without_a_stream_joins_its_section() -> None:
    """As ``Identities.of_record``: a record without a pid whose rank makes no stream of its
    own belongs to its section's stream (the one without a rank)."""
    from plogscan.crossrank.analyze import Context
    from plogscan.crossrank.gather import Gatherer
    from plogscan.ingest.pipeline import Ingest

    batches = list(Ingest().batches([str(SAMPLES / "ccu-reuse-pasted")]))
    gatherer = Gatherer()
    for batch in batches:
        gatherer.consume(batch)
    ctx = Context(gatherer.summary())
    table = pa.Table.from_batches([table_decoded(b) for b in batches])
    assert table.column("pid").null_count == table.column("rank").null_count == table.num_rows
    plain = ctx.annotate(table)
    index = table.schema.get_field_index("rank")
    ranked = table.set_column(index, table.schema.field(index),
                              pa.array([3] * table.num_rows, pa.int32()))
    assert ctx.identify({**ranked.slice(0, 1).to_pylist()[0]}) is not None
    joined = ctx.annotate(ranked)
    assert joined.column("identity_source").to_pylist() == \
        plain.column("identity_source").to_pylist() == ["assumed"] * table.num_rows
