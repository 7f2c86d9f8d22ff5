"""Matching semantics of the engine, pinned as tables of tiny in-memory event lists.

Each row of ``SEQUENCE_CASES`` is (rule, events, expected findings); a finding is written as
the sorted ``path:line`` of its evidence. The rules are the ones in ``RULES`` below.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pyarrow as pa
import pytest

from plogscan.catalog import RuleSet
from plogscan.catalog.ruleset import rule_from_text
from plogscan.engine import scan
from plogscan.engine.correlate import MAX_PER_STEP, format_span
from plogscan.errors import InputError
from plogscan.model import Level, Verdict
from plogscan.schema import EVENT_SCHEMA

T0 = datetime(2026, 3, 14, 10, 0, 0)
HEAD = """\
id: {id}
name: test.{name}
title: Test rule {id}
category: {category}
level: {level}
description: '{description}'
remediation: [Nothing to do.]
"""


def rule(body: str, *, id: str = "TST001", level: str = "error",
         category: str = "ccu-exception", description: str = "Test.", extra: str = ""):
    text = HEAD.format(id=id, name=id.lower(), level=level, category=category,
                       description=description) + extra + body
    return rule_from_text(text)


STEPS_AB = """\
    - {id: a, match: {message|contains: 'step-a'}}
    - {id: b, match: {message|contains: 'step-b'}}
"""
RULES = {
    "seq": rule("sequence:\n  by: [host, pid]\n  within: 10s\n  steps:\n" + STEPS_AB),
    "nowindow": rule("sequence:\n  by: [host, pid]\n  steps:\n" + STEPS_AB),
    "absent": rule("""\
sequence:
  by: [host, pid]
  within: 10s
  steps:
    - {id: a, match: {message|contains: 'step-a'}}
    - {id: x, absent: true, match: {message|contains: 'step-x'}}
    - {id: b, match: {message|contains: 'step-b'}}
"""),
    "abxc": rule("""\
sequence:
  by: [host, pid]
  steps:
    - {id: a, match: {message|contains: 'step-a'}}
    - {id: b, match: {message|contains: 'step-b'}}
    - {id: x, absent: true, match: {message|contains: 'step-x'}}
    - {id: c, match: {message|contains: 'step-c'}}
"""),
    "until": rule("sequence:\n  by: [host, pid]\n  within: 10s\n  until: {message|contains: "
                  "'step-u'}\n  steps:\n" + STEPS_AB),
    "context": rule("""\
sequence:
  by: [host, pid]
  within: 10s
  context:
    - {id: c, limit: 1, match: {message|contains: 'step-c'}}
  steps:
""" + STEPS_AB),
    "comm": rule("""\
sequence:
  by: [comm]
  steps:
    - {id: a, match: {message|re: 'step-a comm=(?P<comm>\\w+)'}}
    - {id: b, match: {message|re: 'step-b comm=(?P<comm>\\w+)'}}
"""),
}


def E(t: float | None, what: str, **cols: object) -> dict:
    """One event ``t`` seconds after T0 (None: no timestamp) whose message names ``what``."""
    row = {"ts": None if t is None else T0 + timedelta(seconds=t), "message": f"{what} record",
           "pid": 1, "host": "h", "level": "ERROR", "module": "RUNTIME"}
    row.update(cols)
    return row


def make_events(rows: list[dict]) -> pa.Table:
    """EVENT_SCHEMA table; lines count per path in list order unless given."""
    full, lines = [], {}
    for row in rows:
        base = {f.name: None for f in EVENT_SCHEMA}
        base.update(path="a.log", line_count=1, codes=[], kind="plog-debug")
        base.update(row)
        lines[base["path"]] = lines.get(base["path"], 0) + 1
        base.setdefault("line", None)
        base["line"] = base["line"] or lines[base["path"]]
        full.append(base)
    return pa.Table.from_pylist(full, schema=EVENT_SCHEMA)


def found(rule_key: str | object, rows: list[dict]) -> list[list[str]]:
    r = RULES[rule_key] if isinstance(rule_key, str) else rule_key
    findings = scan(make_events(rows), RuleSet((r,)))
    return sorted(sorted(f"{e.path}:{e.line}" for e in f.evidence) for f in findings)


def L(*lines: int, path: str = "a.log") -> list[str]:
    return sorted(f"{path}:{n}" for n in lines)


SEQUENCE_CASES = [
    ("in_order", "seq", [E(0, "step-a"), E(5, "step-b")], [L(1, 2)]),
    ("exactly_at_window", "seq", [E(0, "step-a"), E(10, "step-b")], [L(1, 2)]),
    ("one_tick_past_window", "seq", [E(0, "step-a"), E(10.000001, "step-b")], []),
    ("equal_ts_ordered_by_line", "seq", [E(0, "step-a"), E(0, "step-b")], [L(1, 2)]),
    ("equal_ts_reversed_lines", "seq", [E(0, "step-b"), E(0, "step-a")], []),
    ("sub_millisecond_order", "seq", [E(0.000002, "step-b"), E(0.000001, "step-a")], [L(1, 2)]),
    ("reversed_order", "seq", [E(0, "step-b"), E(5, "step-a")], []),
    ("interleaved_groups", "seq",
     [E(0, "step-a"), E(1, "step-a", pid=2), E(2, "step-b"), E(3, "step-b", pid=2)],
     [L(1, 3), L(2, 4)]),
    ("other_process_does_not_complete", "seq", [E(0, "step-a"), E(1, "step-b", pid=2)], []),
    ("other_host_does_not_complete", "seq", [E(0, "step-a"), E(1, "step-b", host="g")], []),
    ("repeated_first_step_latest_fits", "seq",
     [E(0, "step-a"), E(8, "step-a"), E(15, "step-b")], [L(2, 3)]),
    ("second_completion_adds_evidence", "seq",
     [E(0, "step-a"), E(1, "step-b"), E(2, "step-a"), E(3, "step-b")], [L(1, 2, 4)]),
    ("missing_group_key_joins_no_group", "seq",
     [E(0, "step-a", pid=None), E(1, "step-b", pid=None)], []),
    ("missing_key_on_one_step", "seq", [E(0, "step-a"), E(1, "step-b", pid=None)], []),
    ("null_host_is_the_unnamed_host", "seq",
     [E(0, "step-a", host=None), E(1, "step-b", host=None)], [L(1, 2)]),
    ("null_host_differs_from_named_host", "seq", [E(0, "step-a", host=None), E(1, "step-b")],
     []),
    ("files_disagree_with_timestamps", "seq",
     [E(1, "step-b", path="a.log"), E(0, "step-a", path="z.log", line=50)],
     [sorted(["a.log:1", "z.log:50"])]),
    ("one_record_fills_one_step", "seq", [E(0, "step-a step-b")], []),
    ("two_dual_records_fill_two_steps", "seq", [E(0, "step-a step-b"), E(1, "step-a step-b")],
     [L(1, 2)]),
    ("no_timestamp_takes_no_part", "seq", [E(None, "step-a"), E(5, "step-b")], []),
    ("no_window_no_limit", "nowindow", [E(0, "step-a"), E(86_400, "step-b")], [L(1, 2)]),
    ("absent_between_cancels", "absent", [E(0, "step-a"), E(1, "step-x"), E(2, "step-b")], []),
    ("absent_after_is_fine", "absent", [E(0, "step-a"), E(2, "step-b"), E(3, "step-x")],
     [L(1, 2)]),
    ("absent_before_is_fine", "absent", [E(0, "step-x"), E(1, "step-a"), E(2, "step-b")],
     [L(2, 3)]),
    ("restart_after_absent", "absent",
     [E(0, "step-a"), E(1, "step-x"), E(2, "step-a"), E(3, "step-b")], [L(3, 4)]),
    ("absent_kills_only_the_later_stage", "abxc",
     [E(0, "step-a"), E(1, "step-b"), E(2, "step-x"), E(3, "step-b"), E(4, "step-c")],
     [L(1, 4, 5)]),
    ("until_ends_open_sequence", "until", [E(0, "step-a"), E(1, "step-u"), E(2, "step-b")], []),
    ("until_then_new_start", "until",
     [E(0, "step-a"), E(1, "step-u"), E(2, "step-a"), E(3, "step-b")], [L(3, 4)]),
    ("context_keeps_latest_before_first_step", "context",
     [E(0, "step-c"), E(1, "step-c"), E(2, "step-a"), E(3, "step-b"), E(4, "step-c")],
     [L(2, 3, 4)]),
    ("group_by_capture", "comm",
     [E(0, "step-a comm=w1"), E(1, "step-a comm=w2", pid=9), E(2, "step-b comm=w2", pid=7)],
     [L(2, 3)]),
]


@pytest.mark.parametrize(("rule_key", "events", "expected"), [c[1:] for c in SEQUENCE_CASES],
                         ids=[c[0] for c in SEQUENCE_CASES])
def test_sequence_semantics(rule_key: str, events: list[dict], expected: list) -> None:
    assert found(rule_key, events) == expected


def test_shuffled_input_order_gives_the_same_findings() -> None:
    rows = [E(0, "step-a", path="p1.log"), E(1, "noise", path="p2.log"),
            E(2, "step-b", path="p2.log"), E(3, "step-a", pid=2, path="p3.log"),
            E(4, "step-b", pid=2, path="p1.log")]
    table = make_events(rows)
    want = [(f.fingerprint, f.evidence) for f in scan(table, RuleSet((RULES["seq"],)))]
    assert len(want) == 2
    for seed in range(5):
        order = list(range(table.num_rows))
        random.Random(seed).shuffle(order)
        shuffled = table.take(pa.array(order))
        got = [(f.fingerprint, f.evidence) for f in scan(shuffled, RuleSet((RULES["seq"],)))]
        assert got == want


def test_removing_a_non_matching_line_keeps_the_fingerprint() -> None:
    noisy = [E(0, "step-a"), E(1, "unrelated 0x1f 42"), E(2, "step-b")]
    quiet = [noisy[0], noisy[2]]
    a = scan(make_events(noisy), RuleSet((RULES["seq"],)))
    b = scan(make_events(quiet), RuleSet((RULES["seq"],)))
    assert [f.fingerprint for f in a] == [f.fingerprint for f in b]
    assert [e.line for e in a[0].evidence] == [1, 3] and [e.line for e in b[0].evidence] == [1, 2]


def test_batches_of_one_record_give_the_same_findings() -> None:
    rows = [E(0, "step-c"), E(1, "step-a"), E(2, "step-b"), E(3, "step-b")]
    table = make_events(rows)
    whole = scan(table, RuleSet((RULES["context"],)))
    streamed = scan(iter(table.to_batches(max_chunksize=1)), RuleSet((RULES["context"],)))
    assert whole == streamed and len(whole) == 1


def test_rerun_with_other_pids_and_times_keeps_fingerprints() -> None:
    first = [E(0, "step-a ctx 4"), E(1, "step-b stream 61")]
    rerun = [E(500, "step-a ctx 7", pid=99), E(503, "step-b stream 58", pid=99)]
    fp1 = [f.fingerprint for f in scan(make_events(first), RuleSet((RULES["seq"],)))]
    fp2 = [f.fingerprint for f in scan(make_events(rerun), RuleSet((RULES["seq"],)))]
    assert fp1 == fp2
    other_host = [E(0, "step-a ctx 4", host="g"), E(1, "step-b stream 61", host="g")]
    assert [f.fingerprint for f in scan(make_events(other_host), RuleSet((RULES["seq"],)))] != fp1


def test_sequence_finding_fields_are_filled() -> None:
    r = rule("sequence:\n  by: [host, pid]\n  within: 10s\n  steps:\n"
             "    - {id: a, match: {message|re: 'step-a n=(?P<n>\\d+)'}}\n"
             "    - {id: b, match: {message|contains: step-b}}\n",
             description="n={n} after {elapsed} in {pid} on {host}, dev {device}, x={rank}")
    rows = [E(0, "step-a n=5", device=3, rank=1, line_count=2, module="HCCL", level="DEBUG"),
            E(1.5, "step-b", device=3, rank=1)]
    (f,) = scan(make_events(rows), RuleSet((r,)))
    assert f.verdict == Verdict.MATCH and f.rule == "TST001" and f.name == "test.tst001"
    assert f.description == "n=5 after 1.500s in 1 on h, dev 3, x=1"
    assert f.first_ts == T0 and f.last_ts == T0 + timedelta(seconds=1.5)
    assert (f.scope.hosts, f.scope.pids, f.scope.ranks, f.scope.devices) == (("h",), (1,), (1,),
                                                                              (3,))
    first = f.evidence[0]
    assert (first.step, first.level, first.module, first.pid, first.rank, first.host,
            first.device, first.line_count, first.ts) == ("a", "DEBUG", "HCCL", 1, 1, "h", 3, 2,
                                                          T0)
    assert dict(f.captures) == {"n": "5", "elapsed": "1.500s", "count": "1",
                                "scope": "process 1 on host h (rank 1)"}
    assert f.remediation == ("Nothing to do.",) and f.missing == ()


def test_unknown_placeholder_value_is_left_out_never_a_question_mark() -> None:
    r = rule("match: {message|re: 'step-a(?: n=(?P<n>\\d+))?'}\n",
             description="A step ran (n {n}, device {device}) on {device}.")
    (f,) = scan(make_events([E(0, "step-a")]), RuleSet((r,)))
    assert f.description == "A step ran on."  # the facts go; an unmarked value goes alone
    (f,) = scan(make_events([E(0, "step-a n=3")]), RuleSet((r,)))
    assert f.description == "A step ran (n 3) on."


REQ = """\
requires:
  levels: [DEBUG]
  modules: [HCCL]
  advice: [export ASCEND_MODULE_LOG_LEVEL=HCCL=0]
"""
FLAG = rule("sequence:\n  by: [host, pid]\n  within: 10s\n  steps:\n" + STEPS_AB, extra=REQ,
            level="critical")
DEBUG = {"level": "DEBUG", "module": "HCCL"}


@pytest.mark.parametrize(("events", "verdicts"), [
    ([E(0, "step-b")], ["not_evaluable"]),
    ([E(0, "other", **DEBUG), E(1, "step-b")], []),
    ([E(0, "step-a", **DEBUG), E(1, "step-b")], ["match"]),
    ([E(0, "other", level="DEBUG", module="GE"), E(1, "step-b")], ["not_evaluable"]),
    ([E(0, "other", level="INFO", module="HCCL"), E(1, "step-b")], ["not_evaluable"]),
    ([E(0, "other", pid=2, **DEBUG), E(1, "step-b")], ["not_evaluable"]),
    ([E(0, "other", **DEBUG), E(1, "step-b", pid=2), E(2, "step-b", pid=3)],
     ["not_evaluable", "not_evaluable"]),
    ([E(None, "other", **DEBUG), E(1, "step-b")], []),
    ([E(0, "other", path="debug.log", **DEBUG), E(1, "step-b", path="stdout.log", kind="stdout")],
     []),
    ([E(0, "step-a")], []),
], ids=["fault_no_debug", "fault_debug_no_reuse", "match", "debug_other_module",
        "hccl_info_only", "debug_other_pid", "one_per_process", "debug_without_ts",
        "debug_in_other_file_same_process", "reuse_only"])
def test_requires_gives_not_evaluable(events: list[dict], verdicts: list[str]) -> None:
    findings = scan(make_events(events), RuleSet((FLAG,)))
    assert [f.verdict.value for f in findings] == verdicts


def test_requires_is_met_by_a_record_of_an_earlier_step_whatever_its_header() -> None:
    """A pasted line of the first step (no level, no module) after the fault matches nothing,
    but it shows that the logs show that step: the answer is a real "no", not a gap."""
    pasted = {"level": None, "module": None}
    assert scan(make_events([E(0, "step-b"), E(1, "step-a", **pasted)]), RuleSet((FLAG,))) == []
    assert [f.verdict.value for f in scan(make_events([E(0, "step-b"), E(1, "other", **pasted)]),
                                          RuleSet((FLAG,)))] == ["not_evaluable"]


HEADER_STEP = rule("""\
sequence:
  by: [host, pid]
  within: 10s
  steps:
    - {id: a, match: {module: HCCL, level: DEBUG, message|contains: 'step-a'}}
    - {id: b, match: {message|contains: 'step-b'}}
""", extra=REQ, level="critical")


@pytest.mark.parametrize(("header", "verdicts"), [
    ({"level": None, "module": None}, ["match"]),  # pasted without its header
    ({"level": "DEBUG", "module": None}, ["match"]),
    ({"level": "DEBUG", "module": "HCCL"}, ["match"]),
    ({"level": "DEBUG", "module": "GE"}, ["not_evaluable"]),  # a header that says otherwise
    ({"level": "INFO", "module": "HCCL"}, ["not_evaluable"]),
], ids=["no_header", "no_module", "full_header", "other_module", "other_level"])
def test_a_step_accepts_a_record_without_the_header_it_tests(header: dict,
                                                              verdicts: list[str]) -> None:
    events = [E(0, "step-a", **header), E(1, "step-b")]
    assert [f.verdict.value for f in scan(make_events(events), RuleSet((HEADER_STEP,)))] == verdicts


def test_requires_when_limits_which_triggers_ask_for_evidence() -> None:
    when = REQ + "  when: {message|contains: 'special'}\n"
    r = rule("sequence:\n  by: [host, pid]\n  steps:\n" + STEPS_AB, extra=when)
    assert scan(make_events([E(0, "step-b plain")]), RuleSet((r,))) == []
    (f,) = scan(make_events([E(0, "step-b plain"), E(1, "step-b special")]), RuleSet((r,)))
    assert f.verdict == Verdict.NOT_EVALUABLE and [e.line for e in f.evidence] == [2]
    matched = scan(make_events([E(0, "step-a", **DEBUG), E(1, "step-b plain")]), RuleSet((r,)))
    assert [x.verdict for x in matched] == [Verdict.MATCH]


def test_not_evaluable_finding_says_what_is_missing() -> None:
    (f,) = scan(make_events([E(0, "step-b"), E(1, "step-b")]), RuleSet((FLAG,)))
    assert f.verdict == Verdict.NOT_EVALUABLE and f.level == Level.CRITICAL
    assert f.missing[0].startswith("no DEBUG records of module HCCL were found for process 1 "
                                   "on host h")
    assert f.missing[1] == "export ASCEND_MODULE_LOG_LEVEL=HCCL=0"
    assert [e.line for e in f.evidence] == [1, 2] and dict(f.captures)["count"] == "2"
    assert "cannot be decided whether step 'a' came before it" in f.description


@pytest.mark.parametrize(("events", "expected"), [
    ([E(None, "step-b", pid=None)], ["host h (the fault record carries no process id"]),
    ([E(None, "step-b", pid=None, host=None)], ["the whole input"]),
    ([E(0, "step-b"), E(None, "step-b", pid=None)], ["process 1 on host h"]),
    ([E(0, "step-a", **DEBUG), E(1, "step-b"), E(None, "step-b", pid=None)], []),
    ([E(0, "other", pid=5, **DEBUG), E(None, "step-b", pid=None)], []),
], ids=["no_pid_checks_host", "no_host_checks_input", "covered_host_reported_once",
        "covered_by_match", "host_has_debug"])
def test_triggers_outside_any_group_fall_back_to_host(events: list[dict], expected: list) -> None:
    findings = scan(make_events(events), RuleSet((FLAG,)))
    unknown = [f for f in findings if f.verdict == Verdict.NOT_EVALUABLE]
    assert len(unknown) == len(expected)
    for f, text in zip(unknown, expected, strict=True):
        assert text in f.missing[0]


def test_single_rule_one_finding_per_record_without_by() -> None:
    r = rule("match: {message|contains: 'step-a'}\n")
    assert found(r, [E(0, "step-a"), E(1, "noise"), E(2, "step-a", pid=2)]) == [L(1), L(3)]


def test_single_rule_by_groups_and_null_is_a_group() -> None:
    r = rule("match: {message|contains: 'step-a'}\nby: [host, pid]\n",
             description="{count} in {pid}")
    rows = [E(0, "step-a"), E(1, "step-a", pid=2), E(2, "step-a"), E(None, "step-a", pid=None),
            E(None, "step-a", pid=None)]
    findings = scan(make_events(rows), RuleSet((r,)))
    assert sorted(sorted(e.line for e in f.evidence) for f in findings) == [[1, 3], [2], [4, 5]]
    assert sorted(f.description for f in findings) == ["1 in 2", "2 in", "2 in 1"]


@pytest.mark.parametrize(("events", "expected"), [
    ([E(0, "step-a", rank=0), E(1, "step-a", rank=0, pid=None)], [[1, 2]]),
    ([E(0, "step-a", rank=0), E(1, "step-a", rank=1, pid=2), E(2, "step-a", rank=0, pid=None)],
     [[1, 3], [2]]),
    ([E(0, "step-a", rank=0), E(1, "step-a", rank=1, pid=2), E(2, "step-a", rank=None,
                                                               pid=None)], [[1], [2], [3]]),
    ([E(0, "step-a", rank=0), E(1, "step-a", rank=0, pid=None, host="g")], [[1], [2]]),
    ([E(0, "step-a", rank=None), E(1, "step-a", rank=None, pid=None)], [[1, 2]]),
], ids=["joins_only_group", "joins_agreeing_group", "ambiguous_stays_apart",
        "host_must_agree", "nulls_in_both"])
def test_single_rule_folds_partial_keys(events: list[dict], expected: list) -> None:
    r = rule("match: {message|contains: 'step-a'}\nby: [host, rank, pid]\n")
    findings = scan(make_events(events), RuleSet((r,)))
    assert sorted(sorted(e.line for e in f.evidence) for f in findings) == expected


def test_evidence_is_capped_per_step_but_counted() -> None:
    r = rule("match: {message|contains: 'step-a'}\nby: [host]\n")
    (f,) = scan(make_events([E(i, "step-a") for i in range(MAX_PER_STEP + 7)]), RuleSet((r,)))
    assert len(f.evidence) == MAX_PER_STEP
    assert dict(f.captures)["count"] == str(MAX_PER_STEP + 7)


THRESH = rule("threshold:\n  match: {message|contains: 'step-a'}\n  by: [host, pid]\n"
              "  count: 3\n  within: 10s\n")


@pytest.mark.parametrize(("events", "expected"), [
    ([E(0, "step-a"), E(5, "step-a"), E(10, "step-a")], [L(1, 2, 3)]),
    ([E(0, "step-a"), E(5, "step-a"), E(10.1, "step-a")], []),
    ([E(0, "step-a"), E(20, "step-a"), E(21, "step-a"), E(22, "step-a"), E(40, "step-a")],
     [L(2, 3, 4)]),
    ([E(0, "step-a"), E(1, "step-a"), E(2, "step-a", pid=2)], []),
    ([E(0, "step-a"), E(1, "step-a"), E(2, "step-a", pid=None)], []),
    ([E(0, "step-a"), E(1, "step-a"), E(None, "step-a")], []),
], ids=["at_window", "past_window", "densest_window", "split_groups", "missing_key", "no_ts"])
def test_threshold_semantics(events: list[dict], expected: list) -> None:
    assert found(THRESH, events) == expected


def test_threshold_without_window_counts_records_without_timestamp() -> None:
    r = rule("threshold:\n  match: {message|contains: 'step-a'}\n  count: 2\n")
    assert found(r, [E(None, "step-a"), E(None, "step-a", pid=3)]) == [L(1, 2)]


def test_findings_sorted_by_level_then_time_then_rule() -> None:
    crit = rule("match: {message|contains: 'late'}\n", id="ZZZ001", level="critical")
    err_b = rule("match: {message|contains: 'early'}\n", id="BBB001")
    err_a = rule("match: {message|contains: 'early'}\n", id="AAA001")
    info = rule("match: {message|contains: 'first'}\n", id="CCC001", level="info")
    rows = [E(0, "first"), E(1, "early"), E(9, "late")]
    findings = scan(make_events(rows), RuleSet((crit, err_b, err_a, info)))
    assert [f.rule for f in findings] == ["ZZZ001", "AAA001", "BBB001", "CCC001"]


def test_event_table_without_the_schema_columns_is_refused() -> None:
    with pytest.raises(InputError, match="lacks columns"):
        scan(pa.table({"message": ["x"]}), RuleSet((RULES["seq"],)))


def test_empty_input_gives_no_findings() -> None:
    assert scan(make_events([]), RuleSet(tuple(RULES.values()))) == []


@pytest.mark.parametrize(("us", "text"), [
    (0, "0.000s"), (1_521_191, "1.521s"), (59_999_000, "59.999s"), (185_000_000, "3m05.000s"),
    (3_723_000_000, "1h02m03s"),
])
def test_format_span(us: int, text: str) -> None:
    assert format_span(us) == text
