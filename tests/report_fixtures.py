"""Canonical ``Diagnosis`` values every reporter test renders (text, Markdown, JSON, SARIF,
JUnit and HTML).

Each public function builds one fresh, fully deterministic value (fixed timestamps, pids,
fingerprints); ``FIXTURES`` maps a short name to its builder, and goldens are named after it
(``tests/golden/reports/<name>.<ext>``). The log lines are written for these tests in the shapes
of real CANN/HCCL output; none is copied from a real log. Keep the values stable: changing one
changes every golden of every format.

* ``flagship_diagnosis``: order A on two ranks. The flagship rule CCU001 matches on both ranks
  (eager ``Entry-HcclAlltoAllV`` -> ``Already have context`` reuse -> fused-kernel fault ->
  torch_npu sync error without a timestamp), plus a plain CCU fault (CCU002) on rank 0 and an
  aicore exception (AIC001) on rank 1. Evidence carries context lines for ``--verbose``. One
  skipped file, some unparsed lines. Exit code 1.
* ``not_evaluable_diagnosis``: the same fault without HCCL DEBUG records: CCU001 is
  ``not_evaluable`` (with the "how to get the evidence" advice); CCU002 still matches.
* ``clean_diagnosis``: order B: every rule evaluated, no finding, exit code 0.
* ``hostile_diagnosis``: log text built to break reports: ``<script>``, an ``<img onerror>``
  attribute break-out, backtick runs longer than a Markdown fence, table pipes, ANSI escapes,
  NUL, CR, a right-to-left override, ``]]>`` and ``@mentions``, in messages, paths, hosts,
  captures and the description. Levels warning and info; one finding is not_evaluable.
* ``baselined_diagnosis``: ``flagship_diagnosis`` after a baseline suppressed CCU002 (with a
  reason); the baseline's entry for AIC001 had expired on the fixed "today", so AIC001 stays.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime

from plogscan.baseline import Baseline, BaselineEntry, apply_baseline
from plogscan.model import (
    Diagnosis,
    EventRow,
    Evidence,
    FileStats,
    Finding,
    IngestSummary,
    Level,
    ProcessInfo,
    RuleInfo,
    Scope,
    SkippedFile,
    Verdict,
)

HOST = "node-a"
DEBUG0 = "logs/node-a/rank_0/debug/plog/plog-31207_20260318103340117.log"
RUN0 = "logs/node-a/rank_0/run/plog/plog-31207_20260318103338902.log"
DEBUG1 = "logs/node-a/rank_1/debug/plog/plog-31208_20260318103340121.log"
RUN1 = "logs/node-a/rank_1/run/plog/plog-31208_20260318103338911.log"
OUT0 = "logs/node-a/train_rank0.out"
OUT1 = "logs/node-a/train_rank1.out"

REMEDIATION = (
    "Workaround: run the MC2 fused operator before the first eager all_to_all_single on this "
    "communicator, or give the eager collectives their own process group (dist.new_group over "
    "the same ranks) so their cached CCU resources are not shared with the fused operator.",
    "Confirm: rerun once with each order, with HCCL DEBUG logs enabled "
    "(export ASCEND_MODULE_LOG_LEVEL=HCCL=0).",
    "Escalate: report to the HCCL/CANN maintainers with the evidence bundle and ask whether a "
    "build that resets or refreshes reused CCU contexts is available.",
)
MISSING_DEBUG = (
    "HCCL DEBUG records from process {pid}: its debug plog holds only ERROR records, so the "
    "log cannot show whether a cached CCU context was reused.",
    "export ASCEND_GLOBAL_LOG_LEVEL=0 (or ASCEND_MODULE_LOG_LEVEL=HCCL=0 for HCCL alone) and "
    "rerun the job.",
)

RULES = (
    RuleInfo("AIC001", "aicore.exception", "AI Core exception", "aicore-exception", Level.ERROR,
             "An AI Core kernel raised an exception ({errorstr}).",
             ("Run msaicerr on the exception dump named in the log.",
              "Check the failing kernel's tiling and inputs.")),
    RuleInfo("CCU001", "ccu.context-reuse-then-mc2-fault",
             "Cached CCU context reused, then an MC2 fused-kernel fault", "ccu-context-reuse",
             Level.CRITICAL,
             "An eager collective's cached CCU context was reused and an MC2 fused kernel "
             "faulted afterwards in the same process.", REMEDIATION,
             ("docs/flagship.md",)),
    RuleInfo("CCU002", "ccu.fused-kernel-fault", "CCU / fused-kernel fault", "ccu-exception",
             Level.ERROR, "A CCU task or an MC2 fused kernel faulted.",
             ("Find the first failing rank and its peers.",)),
    RuleInfo("HCCL010", "hccl.notify-wait-timeout", "HCCL notify wait timeout",
             "hccl-notify-timeout", Level.ERROR,
             "A collective did not receive its peer's notify within HCCL_EXEC_TIMEOUT.",
             ("Find the rank that failed or exited first.",)),
)


def _ts(hms: str) -> datetime:
    return datetime.fromisoformat(f"2026-03-18T{hms}")


def _ev(path: str, line: int, ts: str | None, msg: str, step: str, level: str, module: str,
        pid: int, rank: int, device: int, **extra) -> Evidence:
    return Evidence(path=path, line=line, ts=_ts(ts) if ts else None, message=msg, step=step,
                    level=level, module=module, pid=pid, rank=rank, host=HOST, device=device,
                    **extra)


def _row(e: Evidence, kind: str, codes: tuple[str, ...] = ()) -> EventRow:
    return EventRow(ts=e.ts, level=e.level, module=e.module, pid=e.pid, rank=e.rank, host=e.host,
                    device=e.device, kind=kind, path=e.path, line=e.line, message=e.message,
                    codes=codes)


def _rank_evidence(rank: int, pid: int, debug: str, run: str, out: str, t0: int) -> dict:
    """The records of one rank's order-A failure; ``t0`` shifts the rank's clock (ms)."""
    def at(ms: int) -> str:
        total = 51 * 1000 + t0 + ms
        return f"10:33:{total // 1000:02d}.{total % 1000:03d}{(pid * 7 + ms) % 1000:03d}"

    return {
        "entry": _ev(run, 3180 + rank, at(0),
                     "Entry-HcclAlltoAllV:sendBuf[0x12c0c0000000], recvBuf[0x12c0e0000000], "
                     f"group[hccl_world_group], localRank[{rank}], streamId[3], "
                     f"deviceLogicId[{rank}]", "eager_entry", "INFO", "HCCL", pid, rank, rank),
        "reuse": _ev(debug, 4410 + rank, at(2),
                     "Already have context, skip create, ctxSize is 3", "reuse", "DEBUG", "HCCL",
                     pid, rank, rank,
                     context_before=((4408 + rank, "[DEBUG] HCCL: TryReuseResource algTag "
                                      "AlltoAllV_hccl_world_group_ccu"),
                                     (4409 + rank, "[DEBUG] HCCL: resource map size 1")),
                     context_after=((4411 + rank, "[DEBUG] HCCL: launch ccu kernel, "
                                     "opType AlltoAllV"),)),
        "fault": _ev(debug, 5012 + rank, at(1236),
                     f"ProcessStarsCoreErrorInfo: The error from device(chipId={rank}, dieId=0), "
                     "serial number is 7, exception occurred during fusion kernel task "
                     "execution, streamId=58, taskId=112, subtasksSubType=20, sqeLength=4, "
                     "cqeStatus=262144.", "fault", "ERROR", "RUNTIME", pid, rank, rank),
        "ccu_print": _ev(debug, 5013 + rank, at(1237),
                         "PrintCcuTaskInfo: ccu task print, coreNum=1, streamId=58, taskId=112.",
                         "fault", "ERROR", "RUNTIME", pid, rank, rank),
        "aicore": _ev(debug, 5020 + rank, at(1241),
                      "PrintCoreErrorInfo: there is an aicore error exception, core id is 0, "
                      "error code = 0, errcode:(0) errorstr: timeout or trap error. "
                      "subErrType: 0x4.", "match", "ERROR", "RUNTIME", pid, rank, rank),
        "sync": _ev(out, 412 + rank, None,
                    "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/"
                    "compiler_depend.ts:467 NPU function error: "
                    "AclrtSynchronizeDeviceWithTimeout, error code is 507916",
                    "sync_error", "ERROR", "PTA", pid, rank, rank, line_count=3),
    }


def _flagship_finding(ev: dict, fingerprint: str, rank: int, pid: int) -> Finding:
    steps = (ev["entry"], ev["reuse"], ev["fault"], ev["ccu_print"], ev["sync"])
    return Finding(
        fingerprint=fingerprint, rule="CCU001", name="ccu.context-reuse-then-mc2-fault",
        title=RULES[1].title, category="ccu-context-reuse", level=Level.CRITICAL,
        verdict=Verdict.MATCH,
        description=f"Process {pid} (rank {rank}) reused a cached CCU context (ctxSize 3) that "
                    "an eager collective created; 1.234 s later the MC2 fused kernel "
                    "AlltoAllvQuantGroupedMatMul faulted on stream 58, task 112.",
        scope=Scope(hosts=(HOST,), ranks=(rank,), pids=(pid,), devices=(rank,)),
        first_ts=ev["entry"].ts, last_ts=ev["ccu_print"].ts, evidence=steps,
        remediation=REMEDIATION, references=("docs/flagship.md",),
        captures=(("ctx_size", "3"), ("kernel_name", "AlltoAllvQuantGroupedMatMul"),
                  ("stream_id", "58"), ("task_id", "112")))


def _files(debug_records: int, unparsed: int) -> tuple[FileStats, ...]:
    return (
        FileStats(DEBUG0, "plog-debug", 1_482_113, 5_210, debug_records, 5_204, 2, unparsed),
        FileStats(RUN0, "plog-run", 402_877, 3_305, 3_305, 3_305),
        FileStats(DEBUG1, "plog-debug", 1_479_020, 5_198, debug_records, 5_198),
        FileStats(RUN1, "plog-run", 401_112, 3_301, 3_301, 3_301),
        FileStats(OUT0, "stdout", 18_220, 431, 402, 431, 0, 0, truncated_lines=1),
        FileStats(OUT1, "stdout", 18_090, 429, 400, 429),
    )


def _processes(levels: tuple[str, ...]) -> tuple[ProcessInfo, ...]:
    return (
        ProcessInfo(HOST, 31207, 0, 0, levels, _ts("10:33:38.902113"), _ts("10:33:52.402001")),
        ProcessInfo(HOST, 31208, 1, 1, levels, _ts("10:33:38.911540"), _ts("10:33:52.455320")),
    )


def _events(evidence: list[Evidence], kind_of: dict[str, str]) -> tuple[EventRow, ...]:
    rows = [_row(e, kind_of[e.path]) for e in evidence]
    rows.sort(key=lambda r: (r.ts or datetime.max, r.path, r.line))
    return tuple(rows)


_KINDS = {DEBUG0: "plog-debug", DEBUG1: "plog-debug", RUN0: "plog-run", RUN1: "plog-run",
          OUT0: "stdout", OUT1: "stdout"}


def flagship_diagnosis() -> Diagnosis:
    """Order A on two ranks: CCU001 on both, CCU002 on rank 0, AIC001 on rank 1 (exit 1)."""
    r0 = _rank_evidence(0, 31207, DEBUG0, RUN0, OUT0, 0)
    r1 = _rank_evidence(1, 31208, DEBUG1, RUN1, OUT1, 48)
    ccu002 = Finding(
        fingerprint="5b0e9d41c7a2f386", rule="CCU002", name="ccu.fused-kernel-fault",
        title=RULES[2].title, category="ccu-exception", level=Level.ERROR, verdict=Verdict.MATCH,
        description="A fused kernel faulted on stream 58, task 112 (device 0).",
        scope=Scope(hosts=(HOST,), ranks=(0,), pids=(31207,), devices=(0,)),
        first_ts=r0["fault"].ts, last_ts=r0["ccu_print"].ts,
        evidence=(r0["fault"], r0["ccu_print"]), remediation=RULES[2].remediation,
        captures=(("stream_id", "58"), ("task_id", "112")))
    aic001 = Finding(
        fingerprint="9e14a07b3d52c6f8", rule="AIC001", name="aicore.exception",
        title=RULES[0].title, category="aicore-exception", level=Level.ERROR,
        verdict=Verdict.MATCH,
        description="An AI Core kernel raised an exception (timeout or trap error).",
        scope=Scope(hosts=(HOST,), ranks=(1,), pids=(31208,), devices=(1,)),
        first_ts=r1["aicore"].ts, last_ts=r1["aicore"].ts, evidence=(r1["aicore"],),
        remediation=RULES[0].remediation, captures=(("errorstr", "timeout or trap error"),))
    findings = (
        _flagship_finding(r0, "c3a81f0d92e4b715", 0, 31207),
        _flagship_finding(r1, "47d2b9e0a1c68f53", 1, 31208),
        ccu002, aic001,
    )
    evidence = [e for r in (r0, r1) for e in r.values()]
    return Diagnosis(
        inputs=IngestSummary(paths=("logs",), files=_files(5_180, 3),
                             skipped=(SkippedFile("logs/node-a/core.31207",
                                                  "binary file (no text lines)"),)),
        findings=findings, rules_evaluated=RULES,
        processes=_processes(("DEBUG", "INFO", "WARNING", "ERROR", "EVENT")),
        events=_events(evidence, _KINDS), exit_code=1, fail_on="error")


def not_evaluable_diagnosis() -> Diagnosis:
    """The order-A fault with default log levels: CCU001 not_evaluable, CCU002 matches."""
    r0 = _rank_evidence(0, 31207, DEBUG0, RUN0, OUT0, 0)
    flagship = Finding(
        fingerprint="e1f07c3a5d9b2846", rule="CCU001", name="ccu.context-reuse-then-mc2-fault",
        title=RULES[1].title, category="ccu-context-reuse", level=Level.CRITICAL,
        verdict=Verdict.NOT_EVALUABLE,
        description="A fused-kernel fault occurred in process 31207 (rank 0), but its logs "
                    "cannot show whether a cached CCU context was reused before it.",
        scope=Scope(hosts=(HOST,), ranks=(0,), pids=(31207,), devices=(0,)),
        first_ts=r0["fault"].ts, last_ts=r0["fault"].ts, evidence=(r0["fault"],),
        remediation=REMEDIATION, missing=tuple(m.format(pid=31207) for m in MISSING_DEBUG))
    ccu002 = Finding(
        fingerprint="5b0e9d41c7a2f386", rule="CCU002", name="ccu.fused-kernel-fault",
        title=RULES[2].title, category="ccu-exception", level=Level.ERROR, verdict=Verdict.MATCH,
        description="A fused kernel faulted on stream 58, task 112 (device 0).",
        scope=Scope(hosts=(HOST,), ranks=(0,), pids=(31207,), devices=(0,)),
        first_ts=r0["fault"].ts, last_ts=r0["ccu_print"].ts,
        evidence=(r0["fault"], r0["ccu_print"]), remediation=RULES[2].remediation)
    evidence = [r0["fault"], r0["ccu_print"], r0["sync"]]
    return Diagnosis(
        inputs=IngestSummary(paths=("logs/node-a/rank_0", OUT0), files=_files(61, 0)[:2] +
                             _files(61, 0)[4:5], skipped=()),
        findings=(flagship, ccu002), rules_evaluated=RULES,
        processes=_processes(("ERROR", "INFO", "EVENT"))[:1],
        events=_events(evidence, _KINDS), exit_code=1, fail_on="error")


def clean_diagnosis() -> Diagnosis:
    """Order B: every rule evaluated, nothing found (exit 0)."""
    return Diagnosis(
        inputs=IngestSummary(paths=("logs",), files=_files(5_180, 0)[:4], skipped=()),
        findings=(), rules_evaluated=RULES,
        processes=_processes(("DEBUG", "INFO", "EVENT")), events=(), exit_code=0,
        fail_on="error")


HOSTILE_MESSAGES = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "fence ```` breaker ``` and `tick` | a | b |",
    "\x1b[2J\x1b[31mscreen cleared\x1b[0m and \x00NUL\x07bell",
    "progress 10%\roverwritten line \u202eevil.txt\u202c",
    "]]></failure><x/> & &amp; @channel # not a heading [click](javascript:alert(1))",
)
HOSTILE_PATH = "logs/we ird|dir/<b>plog</b>-666_`x`.log"
HOSTILE_HOST = "node-<i>x</i>"


def hostile_diagnosis() -> Diagnosis:
    """Log text crafted to escape every output format; see ``HOSTILE_MESSAGES``."""
    def ev(i: int, msg: str, step: str) -> Evidence:
        return Evidence(path=HOSTILE_PATH, line=10 + i, ts=_ts(f"11:00:0{i}.00000{i}"),
                        message=msg, step=step, level="WARNING", module="APP", pid=666, rank=0,
                        host=HOSTILE_HOST, device=0,
                        context_before=((9 + i, "<!-- before --> \x1b]0;title\x07"),))

    evidence = tuple(ev(i, m, "first" if i == 0 else "then") for i, m in
                     enumerate(HOSTILE_MESSAGES))
    hostile_rule = RuleInfo(
        "XSS001", "test.hostile-text", "Hostile <b>text</b> | in a title", "evidence-gap",
        Level.WARNING, "Captured {value}.", ("Do not <script>run</script> this.",))
    info_rule = RuleInfo("XSS002", "test.hostile-info", "Informational note", "evidence-gap",
                         Level.INFO, "Informational.", ())
    warning = Finding(
        fingerprint="0badc0de0badc0de", rule="XSS001", name="test.hostile-text",
        title=hostile_rule.title, category="evidence-gap", level=Level.WARNING,
        verdict=Verdict.MATCH,
        description="Captured <script>alert(1)</script> from `` ` `` | x\n# heading\x1b[2J.",
        scope=Scope(hosts=(HOSTILE_HOST,), ranks=(0,), pids=(666,), devices=(0,)),
        first_ts=evidence[0].ts, last_ts=evidence[-1].ts, evidence=evidence,
        remediation=("Do not <script>run</script> this | ``` fence.",),
        references=("javascript:alert(1)",),
        captures=(("value", '"><img src=x onerror=alert(1)>'), ("zero", "\x00")))
    info = Finding(
        fingerprint="1dea1dea1dea1dea", rule="XSS002", name="test.hostile-info",
        title=info_rule.title, category="evidence-gap", level=Level.INFO,
        verdict=Verdict.NOT_EVALUABLE, description="Informational.",
        scope=Scope(hosts=(HOSTILE_HOST,)), first_ts=None, last_ts=None, evidence=(),
        remediation=(), missing=("records from <host> `x` | y",))
    return Diagnosis(
        inputs=IngestSummary(
            paths=("logs/we ird|dir",),
            files=(FileStats(HOSTILE_PATH, "plog", 4_096, 16, 6, 16, 0, 10, decode_errors=2,
                             nul_bytes=1, problems=("odd <bytes> \x1b[31m",)),),
            skipped=(SkippedFile("logs/we ird|dir/\x1b[2Jx.gz", "gzip <stream> truncated"),)),
        findings=(warning, info), rules_evaluated=(hostile_rule, info_rule),
        processes=(ProcessInfo(HOSTILE_HOST, 666, 0, 0, ("WARNING",), evidence[0].ts,
                               evidence[-1].ts),),
        events=tuple(_row(e, "plog") for e in evidence), exit_code=0, fail_on="error")


BASELINE_TODAY = date(2026, 3, 20)


def baseline_for_flagship() -> Baseline:
    """Suppress CCU002 until 2026-12-31; an AIC001 entry that expired on 2026-03-01."""
    return Baseline(entries=(
        BaselineEntry("5b0e9d41c7a2f386", "CCU002", RULES[2].title,
                      "known CCU fault, tracked in ASC-1234", date(2026, 12, 31)),
        BaselineEntry("9e14a07b3d52c6f8", "AIC001", RULES[0].title, "old workaround",
                      date(2026, 3, 1)),
    ))


def baselined_diagnosis() -> Diagnosis:
    """``flagship_diagnosis`` with ``baseline_for_flagship`` applied on ``BASELINE_TODAY``."""
    diagnosis, _, _ = apply_baseline(flagship_diagnosis(), baseline_for_flagship(),
                                     today=BASELINE_TODAY)
    return diagnosis


FIXTURES: dict[str, Callable[[], Diagnosis]] = {
    "flagship": flagship_diagnosis,
    "not_evaluable": not_evaluable_diagnosis,
    "clean": clean_diagnosis,
    "hostile": hostile_diagnosis,
    "baselined": baselined_diagnosis,
}
