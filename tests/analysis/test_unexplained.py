"""Unexplained ERROR records: masking, grouping over batches, ranking, explained removal,
bounded memory, and the keys they add to ``diagnose`` and its reports.

Log lines are written for these tests in the shapes of real CANN output.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pytest
from jsonschema import Draft202012Validator

from plogscan.analysis.unexplained import (
    MAX_MEMBERS,
    Unexplained,
    explained_templates,
    template_of,
)
from plogscan.catalog import load_rules
from plogscan.model import Evidence, Finding, Level, Scope, UnexplainedExample, Verdict
from plogscan.report import render
from plogscan.report.json_report import schema_path
from plogscan.schema import EVENT_SCHEMA
from tests.helpers import diagnosed

T0 = datetime(2026, 4, 2, 8, 15, 0)

MESSAGES = [
    "GetError:[EXEC][EXEC]Stream Synchronize failed, ErrCode=507035, "
    "desc=[vector core exception], InnerCode=0x715005e",
    "EI0006: [PID: 22871] 2026-04-02-08:15:03.441.201 Getting socket times out. "
    "Reason: link 10.20.3.4:16666 down",
    "HcclCommInitRootInfo failed, rank[12] tag[AllReduce_10.20.3.4%eth2_60000_0_1771] "
    "device-3 streamId 77",
    "open /usr/local/Ascend/ascend-toolkit/latest/opp/vendors/kernel.o failed, ret=-2, "
    "size 1.5 MB",
    "thread ffff9c3e21a0 at 08:15:03.441 reported hash 3fa9 and token e2e01",
    "EE1002: stream sync timeout E30003 first line only\nsecond line 12345 is ignored",
]
TEMPLATES = [
    "GetError:[EXEC][EXEC]Stream Synchronize failed, ErrCode=507035, "
    "desc=[vector core exception], InnerCode=<HEX>",
    "EI0006: [PID: <NUM>] <TS> Getting socket times out. Reason: link <IP> down",
    "HcclCommInitRootInfo failed, rank[<NUM>] tag[AllReduce_<IP>%eth2_<NUM>_<NUM>_<NUM>] "
    "device-<NUM> streamId <NUM>",
    "open <PATH> failed, ret=<NUM>, size <NUM> MB",
    "thread <HEX> at <TS> reported hash <HEX> and token <HEX>",
    "EE1002: stream sync timeout E30003 first line only",
]


def test_masking() -> None:
    # the last message is a two-line record: only its first line counts
    assert [template_of(m) for m in MESSAGES] == TEMPLATES


def test_masking_keeps_codes_but_not_numbers_around_them() -> None:
    assert template_of("error code is 507916, size 507916000") == \
        "error code is 507916, size <NUM>"
    assert template_of("EI0002 then EZ9999, ERR02200 and 12") == \
        "EI0002 then EZ9999, ERR02200 and <NUM>"
    assert template_of("  spaced   out\tline  ") == "spaced out line"
    assert template_of("took 100ms for 2.5GB on rank3 x86_64, ids a1,b2") == \
        "took <NUM>ms for <NUM>GB on rank3 x86_<NUM>, ids <HEX>,<HEX>"


def row(seconds: float | None, message: str, *, level: str = "ERROR", rank: int | None = 0,
        pid: int = 4100, path: str = "rank_0/plog.log", line: int = 1,
        module: str = "HCCL") -> dict:
    base = {f.name: None for f in EVENT_SCHEMA}
    base.update(ts=None if seconds is None else T0 + timedelta(seconds=seconds), level=level,
                module=module, pid=pid, message=message, kind="plog-debug", path=path,
                line=line, line_count=1, rank=rank, host="node-a", codes=[], fmt="cann",
                truncated=False, ts_invalid=False, clock_epoch=False)
    return base


def batch(rows: list[dict]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(rows, schema=EVENT_SCHEMA)


def finding(*messages: str) -> Finding:
    evidence = tuple(Evidence(path="x.log", line=i + 1, ts=None, message=m, step="match")
                     for i, m in enumerate(messages))
    return Finding(fingerprint="f", rule="TST001", name="t.t", title="t", category="unexplained",
                   level=Level.ERROR, verdict=Verdict.MATCH, description="d", scope=Scope(),
                   first_ts=None, last_ts=None, evidence=evidence, remediation=())


def test_grouping_across_batches() -> None:
    u = Unexplained()
    u.consume(batch([
        row(5, "link to 10.0.0.2 failed, ret 4", rank=1, pid=11, path="r1.log", line=9),
        row(3, "link to 10.0.0.3 failed, ret 5", rank=0, pid=10, path="r0.log", line=7),
        row(1, "progress 10%", level="INFO"),
        row(2, "stream 4 abort", level="WARNING"),
    ]))
    u.consume(batch([
        row(1, "link to 10.0.0.9 failed, ret 6", rank=3, pid=13, path="r3.log", line=2),
        row(9, "link to 10.0.0.9 failed, ret 6", rank=3, pid=13, path="r3.log", line=40),
    ]))
    (t,) = u.result()
    assert t.template == "link to <IP> failed, ret <NUM>"
    assert t.count == 4 and t.ranks == (0, 1, 3) and t.processes == 3
    assert t.first_ts == T0 + timedelta(seconds=1)
    assert t.last_ts == T0 + timedelta(seconds=9)
    assert t.example == UnexplainedExample(path="r3.log", line=2, ts=T0 + timedelta(seconds=1),
                                           message="link to 10.0.0.9 failed, ret 6")
    assert t.module == "HCCL"


def test_ranks_are_the_resolved_ranks_of_the_processes_where_known() -> None:
    """Records name no rank (device logs, plogs outside a rank_N folder); the cross-rank stage
    resolved their processes' ranks: those are the template's. Where one process has no
    resolved rank, the ranks its records named stay too."""
    u = Unexplained()
    u.consume(batch([row(1, "link down", rank=None, pid=pid, line=pid) for pid in (10, 11)]
                    + [row(2, "queue full", rank=5, pid=pid, line=pid) for pid in (10, 12)]))
    resolved = {("node-a", 10): 6, ("node-a", 11): 7}
    link, queue = u.result(rank_of=lambda host, pid: resolved.get((host, pid)))
    assert (link.template, link.ranks) == ("link down", (6, 7))
    assert (queue.template, queue.ranks) == ("queue full", (5, 6))


def test_ranking_earliest_first_then_fewest_ranks() -> None:
    u = Unexplained()
    u.consume(batch([
        row(10, "everyone times out waiting", rank=r, pid=100 + r, line=r) for r in range(4)
    ] + [
        row(2, "tie on many ranks", rank=r, pid=100 + r, line=10 + r) for r in range(3)
    ] + [
        row(2, "tie on one rank", rank=2, pid=102, line=20),
        row(1, "the odd rank fails first", rank=3, pid=103, line=30),
        row(None, "no timestamp at all", rank=0, pid=100, line=40),
    ]))
    assert [t.template for t in u.result()] == [
        "the odd rank fails first", "tie on one rank", "tie on many ranks",
        "everyone times out waiting", "no timestamp at all"]
    assert [t.template for t in u.result(keep=2)] == [
        "the odd rank fails first", "tie on one rank"]


def test_templates_of_finding_evidence_are_explained() -> None:
    u = Unexplained()
    u.consume(batch([
        row(1, "Notify wait timeout, stream 7 task 12"),
        row(2, "Notify wait timeout, stream 9 task 3", line=2),
        row(3, "something nobody has a rule for: 0x1f", line=3),
    ]))
    evidence = finding("Notify wait timeout, stream 1 task 1\n  continuation line 3")
    assert [t.template for t in u.result([evidence])] == [
        "something nobody has a rule for: <HEX>"]
    assert len(u.result()) == 2
    assert explained_templates([]) == set()


def test_template_count_is_bounded_and_overflow_counted() -> None:
    u = Unexplained(max_templates=3)
    words = ["alpha", "bravo", "charlie", "delta", "echo"]
    u.consume(batch([row(10 + i, f"{w} failed", line=i) for i, w in enumerate(words)]))
    u.consume(batch([row(5, "zulu failed", line=9), row(50, "echo failed", line=10)]))
    assert u.template_count == 3
    assert [t.template for t in u.result()] == ["zulu failed", "alpha failed",
                                                   "bravo failed"]
    # delta and echo were pushed out by the first batch; charlie and the returning echo by
    # the second, when the earlier zulu arrived
    assert u.overflow_records == 4 and u.overflow_templates == 4


def test_the_ranks_and_processes_of_a_template_are_bounded() -> None:
    """One error on more processes than a template keeps (a job of many thousands of pids):
    the template keeps MAX_MEMBERS of each and counts what it left out, in one batch or over
    several."""
    u = Unexplained()
    spread = MAX_MEMBERS + 300
    u.consume(batch([row(1, "link down", rank=k, pid=10_000 + k, line=k + 1)
                     for k in range(spread // 2)]))
    u.consume(batch([row(2, "link down", rank=k, pid=10_000 + k, line=k + 1)
                     for k in range(spread)]))
    (template,) = u.result()
    assert template.processes == MAX_MEMBERS and len(template.ranks) == MAX_MEMBERS
    assert template.count == spread // 2 + spread
    assert u.members_dropped == 2 * (spread - MAX_MEMBERS)


def test_non_error_levels_and_empty_batches_are_ignored() -> None:
    u = Unexplained()
    u.consume(batch([row(1, "fine", level="INFO"), row(2, "meh", level=None)]))
    u.consume(batch([]))
    assert u.result() == () and u.template_count == 0


# --- wired into diagnose and the reports ---------------------------------------------------

_HEAD = "[{level}] {module}(31877,python3):2026-04-02-08:15:{clock} [{src}]{tid}"
PLOG = "\n".join([
    _HEAD.format(level="INFO", module="HCCL", clock="00.100.000", src="hccl_comm.cc:120",
                 tid="[31890]") + "init start",
    _HEAD.format(level="ERROR", module="HCCL", clock="01.200.300", src="transport.cc:88",
                 tid="[31890]") + "QueryLinkState: peer 10.1.1.7 answered garbage 0x3c",
    _HEAD.format(level="ERROR", module="HCCL", clock="01.900.000", src="transport.cc:88",
                 tid="[31890]") + "QueryLinkState: peer 10.1.1.8 answered garbage 0x41",
    _HEAD.format(level="ERROR", module="RUNTIME", clock="02.000.000", src="stream.cc:812",
                 tid="31877 ") + "GetError:[EXEC][EXEC]Stream Synchronize failed, "
    "ErrCode=507916, desc=[ccu exception], InnerCode=0x7150227",
]) + "\n"


def test_diagnose_reports_unexplained_templates_and_codes(tmp_path: Path) -> None:
    log = tmp_path / "debug" / "plog" / "plog-31877_20260402081500000.log"
    log.parent.mkdir(parents=True)
    log.write_text(PLOG, encoding="utf-8")
    diagnosis = diagnosed([str(tmp_path)], rules=load_rules([], builtin=False), context_lines=0)
    unexplained = diagnosis.unexplained
    assert unexplained[0].template == \
        "QueryLinkState: peer <IP> answered garbage <HEX>"
    assert unexplained[0].count == 2 and unexplained[0].example.line == 2
    assert [t.template for t in unexplained][1:] == [
        "GetError:[EXEC][EXEC]Stream Synchronize failed, ErrCode=507916, desc=[ccu exception], "
        "InnerCode=<HEX>"]  # no rule loaded: nothing is explained
    assert diagnosis.codes == {}  # no findings, no evidence

    document = json.loads(render(diagnosis, "json"))
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    assert list(Draft202012Validator(schema).iter_errors(document)) == []
    assert document["unexplained"][0]["first_ts"] == "2026-04-02T08:15:01.200300"
    text = render(diagnosis, "text", width=100)
    assert "UNEXPLAINED ERRORS" in text
    assert "QueryLinkState: peer <IP> answered garbage <HEX>" in text
    assert "2× · 1 process · first 2026-04-02 08:15:01.200300 · HCCL" in text


def test_codes_of_evidence_are_decoded_in_the_reports(tmp_path: Path) -> None:
    rule = tmp_path / "rules" / "sync.yaml"
    rule.parent.mkdir()
    rule.write_text(
        "id: TST901\nname: test.sync-failure\ntitle: Stream sync failed\n"
        "category: runtime-error\nlevel: error\ndescription: A stream sync failed.\n"
        "remediation: [Read the records before it.]\nreferences: [formats.md §8]\n"
        "match:\n  message|contains: Stream Synchronize failed\n",
        encoding="utf-8")
    log = tmp_path / "logs" / "debug" / "plog" / "plog-31877_20260402081500000.log"
    log.parent.mkdir(parents=True)
    log.write_text(PLOG, encoding="utf-8")
    diagnosis = diagnosed([str(log.parent)], rules=load_rules([rule.parent], builtin=False),
                    context_lines=0)
    assert diagnosis.codes == {
        "0x7150227": None,
        "507916": "ACL_ERROR_RT_CCU_EXCEPTION: ccu exception "
                  "(the collective communication unit task failed)",
    }
    assert [t.template for t in diagnosis.unexplained] == [
        "QueryLinkState: peer <IP> answered garbage <HEX>"]  # the evidence record is explained
    document = json.loads(render(diagnosis, "json"))
    assert document["codes"]["507916"].startswith("ACL_ERROR_RT_CCU_EXCEPTION")
    text = render(diagnosis, "text", width=100, details=True)
    assert "CODES (2)" in text and "0x7150227  not in the code tables" in text
    folded = render(diagnosis, "text", width=100)  # one line, naming the codes
    assert "CODES (2)" not in folded and "0x7150227, 507916: their meanings with --details" in \
        folded


@pytest.mark.parametrize("key", ["codes", "unexplained"])
def test_report_keys_are_optional(key: str) -> None:
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    assert key in schema["properties"] and key not in schema["required"]
