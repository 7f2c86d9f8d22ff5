"""The cross-rank stage piece by piece, on small trees written here in the real shapes.

Identity propagation (a debug plog inherits its run plog's rank; a device log named after a
host pid belongs to that process; a pasted excerpt is one process of its own, assumed), the
clock estimator (median over many pairs, not the first; overrides; 1970 and timeout flags),
bounded state in the summary, the collective and configuration comparisons, a rule's
``requires`` met by the process's own device log, and ``ts_aligned`` in the event table.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from click.testing import CliRunner

from plogscan.cli import cli
from plogscan.crossrank import entries
from plogscan.crossrank.analyze import Context, Options
from plogscan.crossrank.clock import _estimate
from plogscan.crossrank.gather import Gatherer
from plogscan.ingest.textinput import parse_files

T0 = datetime(2026, 5, 1, 10, 0, 0)
IDENT = "10.9.0.1%eth0_60000_0_1777000000000001"


def ts(t: datetime) -> str:
    return f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def hccl(pid: int, t: datetime, body: str, level: str = "INFO") -> str:
    return f"[{level}] HCCL({pid},python3):{ts(t)} [src.cc:10][{pid}]{body}\n"


def setup(pid: int, rank: int, size: int, t: datetime, dev: int, ip: str = "10.9.0.1") -> str:
    return hccl(pid, t, f"[HCCL_TRACE]SetupAgent rankNum[{size}], rank[{rank}], rootInfo "
                f"identifier[{IDENT}], server[{ip}%eth0], logicDevId[{dev}], phydevId[{dev}], "
                f"deviceIp[192.168.0.{10 + rank}]")


def success(pid: int, rank: int, size: int, t: datetime) -> str:
    return hccl(pid, t, f"[HCCL_TRACE]HcclCommInitRootInfo success,take time [1900000]us, "
                f"rankNum[{size}], rank[{rank}],rootInfo identifier[{IDENT}], "
                "server[10.9.0.1%eth0], logicDevId[0]")


def entry(pid: int, t: datetime, count: int = 1024, dtype: str = "float32",
          op: str = "AllReduce") -> str:
    return hccl(pid, t, f"Entry-Hccl{op}: tag[{op}_{IDENT}], sendBuf[0x1], recvBuf[0x1], "
                f"count[{count}], dataType[{dtype}], op[sum], localRank[0], streamId[5],"
                "comm[0x1], deviceLogicId[0]")


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def context(files: dict[str, str], options: Options | None = None) -> Context:
    options = options or Options()
    g = Gatherer()
    table = parse_files(files)
    for batch in table.to_batches():
        g.consume(batch)
    return Context(g.summary(), options)


# ------------------------------------------------------------------------------- identity

def test_a_debug_plog_and_a_device_log_inherit_what_the_run_plog_announced(tmp_path) -> None:
    root = write(tmp_path, {
        "node-a/process_log/run/plog/plog-4242_20260501100000000.log":
            setup(4242, 5, 8, T0, dev=3),
        "node-a/process_log/debug/plog/plog-4242_20260501100500000.log":
            hccl(4242, T0 + timedelta(minutes=5), "some HCCL failure", "ERROR"),
        "node-a/process_log/debug/device-3/device-4242_20260501100500001.log":
            f"[ERROR] HCCL(777,aicpu_scheduler):{ts(T0 + timedelta(minutes=5))} [a.cc:1] "
            "[778]device side failure\n",
    })
    ctx = context({str(p): p.read_text() for p in root.rglob("*.log")})
    for path in root.rglob("*.log"):
        pid = 777 if "device-3" in str(path) else 4242
        ident = ctx.identity(str(path), 1, pid)
        assert ident is not None and ident.rank == 5 and ident.device == 3
        assert ident.pid == 4242 and ident.host == "node-a" and ident.source == "content"


def test_a_pasted_excerpt_without_pids_is_one_assumed_process(diagnose_cli, tmp_path) -> None:
    excerpt = tmp_path / "pasted.log"
    excerpt.write_text("EI0002: The wait execution of the Notify register times out.\n"
                       "RuntimeError: HCCL timeout\n")
    document = diagnose_cli.json(str(excerpt))
    assert document["findings"], "the excerpt gives findings"
    assert {f["scope"]["identity"] for f in document["findings"]} == {"assumed"}
    assert any(f"{excerpt} (taken as one process" in f["description"]
               for f in document["findings"])
    # one timeout and nothing else: the logs cannot tell whose fault it was
    assert document["root_cause"]["verdict"] == "undetermined"
    (attempt,) = document["attempts"]
    assert attempt["failed"] and attempt["root_cause"]["victims"][0]["label"] == str(excerpt)


# ------------------------------------------------------------------------------- clock

def test_the_offset_is_the_median_of_many_pairs_not_the_first() -> None:
    diffs = [9_000_000] + [2_000_000 + d for d in (-300, 120, 40, -80, 200, 10, -20, 60)]
    offset, spread = _estimate(diffs, None)
    assert abs(offset - 2_000_000) < 200 and spread < 500


def _two_hosts(skew: timedelta, entries: int = 12) -> dict[str, str]:
    files = {}
    for host, base in (("node-a", 100), ("node-b", 200)):
        shift = skew if host == "node-b" else timedelta(0)
        for k in range(2):
            pid, rank = base + k, (0 if host == "node-a" else 2) + k
            text = setup(pid, rank, 4, T0 + shift + timedelta(milliseconds=7 * k), dev=k)
            for n in range(entries):
                when = T0 + shift + timedelta(seconds=10 + n, milliseconds=3 * k + (n % 3))
                text += entry(pid, when)
            files[f"{host}/process_log/run/plog/plog-{pid}_20260501100000000.log"] = text
    return files


def test_offsets_come_from_collective_entries_and_an_override_replaces_them() -> None:
    ctx = context(_two_hosts(timedelta(seconds=-3.5)))
    (offset,) = ctx.clock.offsets
    assert ctx.clock.reference == "node-a"
    assert offset.host == "node-b" and abs(offset.offset_us + 3_500_000) < 5_000
    assert offset.pairs >= 1 and offset.uncertainty_us < 20_000
    fixed = context(_two_hosts(timedelta(seconds=-3.5)), Options((("node-b", -3.0),)))
    (given,) = fixed.clock.offsets
    assert (given.offset_us, given.basis, given.pairs) == (-3_000_000, "override", 0)
    flipped = context(_two_hosts(timedelta(seconds=-3.5)), Options((), "node-b"))
    assert flipped.clock.reference == "node-b"
    assert abs(flipped.clock.offsets[0].offset_us - 3_500_000) < 5_000


def test_an_offset_larger_than_a_timeout_in_force_is_flagged() -> None:
    ctx = context(_two_hosts(timedelta(seconds=400)))
    kinds = {(f.host, f.kind) for f in ctx.clock.flags}
    assert ("node-b", "offset-exceeds-timeout") in kinds
    assert "HCCL_CONNECT_TIMEOUT (120 s)" in ctx.clock.flags[0].detail


def test_device_clocks_in_1970_are_flagged() -> None:
    files = _two_hosts(timedelta(0), entries=1)
    files["node-a/device-0/device-0_20260501100000000.log"] = (
        "[EVENT] MCU(-1,null):1970-01-01-00:00:18.148.578 [mcu_agent.c:135] set log level=3\n")
    ctx = context(files)
    assert [f.kind for f in ctx.clock.flags if f.host == "node-a"] == ["epoch-1970"]


# ------------------------------------------------------------------------------- bounds

def test_the_summary_keeps_a_bounded_window_of_entries_per_stream() -> None:
    text = setup(9, 0, 1, T0, dev=0)
    text += "".join(entry(9, T0 + timedelta(milliseconds=n)) for n in range(1, 400))
    g = Gatherer()
    for batch in parse_files({"w/run/plog/plog-9_1.log": text}).to_batches(max_chunksize=50):
        g.consume(batch)
    summary = g.summary()
    assert len(summary.entries) == entries.FIRST_ENTRIES + entries.LAST_ENTRIES
    ((_key, _comm, count),) = summary.entry_counts
    assert count == 399
    seqs = [e.seq for e in summary.entries]
    assert seqs[:3] == [1, 2, 3] and seqs[-1] == 399


def test_a_flood_of_one_anchor_line_is_read_once() -> None:
    line = hccl(9, T0, "Task run failed, para information is notify id:[0x1], stage:[0], "
                "remote rank:[3].", "ERROR")
    g = Gatherer()
    for batch in parse_files({"w/debug/plog/plog-9_1.log": line * 5000}).to_batches():
        g.consume(batch)
    summary = g.summary()
    assert len(summary.waits) <= 2
    assert dict(summary.dropped)["repeated anchor rows"] >= 4998


# ------------------------------------------------------------------------------- comparisons

def test_collectives_diverge_on_count_and_settings_differ(diagnose_cli, tmp_path) -> None:
    files = {}
    for rank in range(3):
        pid = 300 + rank
        text = setup(pid, rank, 3, T0, dev=rank)
        value = "600" if rank == 2 else "1836"
        text += hccl(pid, T0, f"[HCCL_ENV] HCCL_EXEC_TIMEOUT set by environment to [{value}]s")
        for n in range(5):
            count = 2048 if (rank == 1 and n == 3) else 1024
            text += entry(pid, T0 + timedelta(seconds=n + 1), count=count)
        text += hccl(pid, T0 + timedelta(seconds=900), "[TaskExceptionHandler][Callback]Task "
                     "run failed, base information is streamID:[3], taskID[1], taskType[Notify "
                     f"Wait], tag[AllReduce_{IDENT}], index[5]", "ERROR")
        text += hccl(pid, T0 + timedelta(seconds=900), "[TaskExceptionHandler][Callback]Task "
                     "run failed, para information is notify id:[0x1], stage:[ffffffff], "
                     f"remote rank:[{(rank - 1) % 3}].", "ERROR")
        files[f"node-x/process_log/run/plog/plog-{pid}_20260501100000000.log"] = text
    document = diagnose_cli.json(str(write(tmp_path, files)))
    mismatch = document["collectives"]["first_mismatch"]
    assert (mismatch["seq"], mismatch["kind"], mismatch["odd_ranks"]) == (4, "count", [1])
    assert mismatch["by_rank"]["1"]["count"] == 2048
    (setting,) = document["config"]["mismatches"]
    assert setting["key"] == "HCCL_EXEC_TIMEOUT"
    assert setting["values"] == [{"value": "1836s", "ranks": [0, 1]},
                                 {"value": "600s", "ranks": [2]}]
    reasons = {r["signal"] for s in document["root_cause"]["suspects"] for r in s["reasons"]}
    assert "collective-mismatch" in reasons


def test_a_timeout_shorter_than_the_gap_between_ranks_is_reported(diagnose_cli, tmp_path) -> None:
    files = {}
    for rank, late in ((0, 0), (1, 0), (2, 200)):
        pid = 500 + rank
        text = setup(pid, rank, 3, T0 + timedelta(seconds=late), dev=rank)
        files[f"node-y/process_log/run/plog/plog-{pid}_20260501100000000.log"] = text
    files["node-y/process_log/debug/plog/plog-500_20260501101000000.log"] = hccl(
        500, T0 + timedelta(minutes=10), "|  192.168.0.12(2)   |   192.168.0.10(0)   |  "
        "server  | time out |", "ERROR")
    document = diagnose_cli.json(str(write(tmp_path, files)))
    (short,) = document["config"]["too_short"]
    assert short["key"] == "HCCL_CONNECT_TIMEOUT" and short["value_s"] == 120
    assert short["gap_s"] >= 200 and short["ranks"] == [2]


# ------------------------------------------------------------------------------- engine

def test_requires_is_met_by_the_process_own_device_log(diagnose_cli, tmp_path) -> None:
    """CCU001 needs HCCL DEBUG records; here they are only in the device log that the
    device-side process wrote for host process 600, so the rule can be evaluated."""
    fault = T0 + timedelta(seconds=30)
    root = write(tmp_path, {
        "rank_0/process_log/run/plog/plog-600_20260501100000000.log": setup(600, 0, 1, T0, 0),
        "rank_0/process_log/debug/plog/plog-600_20260501100030000.log":
            f"[ERROR] RUNTIME(600,python3):{ts(fault)} [stars_engine.cc:1] 600 Proc: The error "
            "from device(chipId=0, dieId=0), serial number is 1, exception occurred during "
            "fusion kernel task execution, streamId=61, taskId=90.\n",
        "rank_0/process_log/debug/device-0/device-600_20260501100000001.log":
            f"[DEBUG] HCCL(9120,aicpu_scheduler):{ts(T0 + timedelta(seconds=1))} [a.cc:2] "
            "[9121]aicpu kernel launched, devId 0\n",
    })
    document = diagnose_cli.json(str(root))
    verdicts = {f["verdict"] for f in document["findings"] if f["rule"] == "CCU001"}
    assert "not_evaluable" not in verdicts


# ------------------------------------------------------------------------------- event table

def test_the_event_table_holds_aligned_times(diagnose_cli, tmp_path) -> None:
    root = write(tmp_path / "logs", _two_hosts(timedelta(seconds=-3.5)))
    out = tmp_path / "events.parquet"
    result = CliRunner().invoke(cli, ["ingest", str(root), "-o", str(out), "--quiet"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    table = pq.read_table(out)
    shift = pa.compute.subtract(table.column("ts"), table.column("ts_aligned")).to_pylist()
    hosts = [str(h) for h in table.column("host").to_pylist()]
    by_host = {h: {s.total_seconds() for s, hh in zip(shift, hosts, strict=True) if hh == h}
               for h in set(hosts)}
    assert by_host["node-a"] == {0.0}
    (node_b,) = by_host["node-b"]
    assert abs(node_b + 3.5) < 0.005
    footer = pq.ParquetFile(out).metadata.metadata
    assert json.loads(footer[b"plogscan.clock"])["node-b"] == round(node_b * 1e6)
    # diagnose reads the aligned table back and gives the same offsets
    assert diagnose_cli.json(str(out))["clock"]["offsets"][0]["host"] == "node-b"


def test_an_event_table_written_before_ts_aligned_still_reads(tmp_path) -> None:
    root = write(tmp_path / "logs", _two_hosts(timedelta(0), entries=2))
    out = tmp_path / "events.parquet"
    CliRunner().invoke(cli, ["ingest", str(root), "-o", str(out), "--quiet"],
                       catch_exceptions=False)
    old = pq.read_table(out).drop_columns(["ts_aligned"])
    legacy = tmp_path / "old.parquet"
    pq.write_table(old, legacy)
    result = CliRunner().invoke(cli, ["events", str(legacy), "--format", "jsonl"],
                                catch_exceptions=False)
    assert result.exit_code == 0
    row = json.loads(result.stdout.splitlines()[0])
    assert row["ts_aligned"] == row["ts"]


def test_a_pasted_excerpt_is_matched_in_line_order(diagnose_cli, tmp_path) -> None:
    """No pid and no timestamp: the excerpt is one process, and a sequence rule follows its
    lines in order (here: an SVM page fault, then the APEI block it causes)."""
    excerpt = tmp_path / "dmesg-excerpt.txt"  # uptime stamps only: no wall-clock time
    excerpt.write_text(
        "[30561.388400] [ascend] [ERROR] [devmm] [devmm_svm_page_fault_handler 512] svm page "
        "fault, va=0x12c0ffe01000, host_pid=22410, devid=0\n"
        "[30561.396824] {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error "
        "Source: 0\n")
    document = diagnose_cli.json(str(excerpt))
    (found,) = [f for f in document["findings"] if f["rule"] == "HW004"]
    assert found["verdict"] == "match" and found["scope"]["identity"] == "assumed"
    assert [e["line"] for e in found["evidence"]] == [1, 2]
    reversed_excerpt = tmp_path / "reversed.txt"
    reversed_excerpt.write_text("\n".join(reversed(excerpt.read_text().splitlines())) + "\n")
    reversed_findings = diagnose_cli.json(str(reversed_excerpt))["findings"]
    assert not [f for f in reversed_findings if f["rule"] == "HW004"]


def test_every_setting_pattern_needs_one_of_the_literals_that_let_a_message_skip_them() -> None:
    """A message without any of ``SETTINGS_LITERALS`` is not searched for settings: each
    pattern must need one of them, and the settings lines still read with them."""
    import re

    from plogscan.crossrank import patterns as p
    from plogscan.crossrank.anchors import _settings

    for pattern in p.SETTINGS:
        plain = re.sub(r"\(\?P<\w+>|\(\?:|[()?*+\[\]\\]", "", pattern.pattern)
        assert any(text in plain for text in p.SETTINGS_LITERALS), pattern.pattern
    lines = ["HCCL_CONNECT_TIMEOUT set by environment to [240]s",
             "ExecTimeOut is set to timeOut[1836]", "HCCL_BUFFSIZE is not set"]
    found = [s.key for line in lines for s in _settings(None, 1, None, line)]  # type: ignore[arg-type]
    assert found == ["HCCL_CONNECT_TIMEOUT", "HCCL_EXEC_TIMEOUT", "HCCL_BUFFSIZE"]
    assert _settings(None, 1, None, "CONNECT_TIMEOUT set by environment to [240]s") == []  # type: ignore[arg-type]
