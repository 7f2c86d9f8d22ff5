"""The cross-rank stage: summary + findings -> ``CrossRank`` (``plogscan.model``).

``Context`` is built once the pass over the records is over. It resolves identities and
clocks first, so the engine can fill each finding's scope (``identify``); ``conclude`` then
takes the engine's findings, splits the input into attempts, localizes each attempt's root
cause, aligns the collectives, compares the settings, and says who is missing. Nothing here
reads a log: all of it comes from the ``Summary`` and the findings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.crossrank import clock as clk
from plogscan.crossrank import config as cfg
from plogscan.crossrank.attempts import Attempt, Attempts
from plogscan.crossrank.build import Builder, comm_index
from plogscan.crossrank.collectives import align
from plogscan.crossrank.decide import Decider
from plogscan.crossrank.facts import Facts, Problem
from plogscan.crossrank.gather import Gatherer
from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.crossrank.missing import find, present_ips
from plogscan.crossrank.partition import QUIET, ByAttempt, Conclusion, listed
from plogscan.crossrank.processes import identified, to_datetime
from plogscan.crossrank.rootcause import root_cause
from plogscan.crossrank.summary import Summary
from plogscan.crossrank.words import say
from plogscan.errors import InputError
from plogscan.model import (
    AttemptReport,
    ClockReport,
    ConfigReport,
    CrossRank,
    Finding,
    Level,
    ProcessInfo,
    RootCause,
)
from plogscan.model import (
    Verdict as FindingVerdict,
)

# Finding categories whose records mark a rank that waited (a victim), not one that failed.
TIMEOUT_CATEGORIES = frozenset({"hccl-notify-timeout", "hccl-link-timeout",
                                "stream-sync-timeout"})
_EPOCH = datetime(1970, 1, 1)
_ERROR_LEVELS = frozenset({"ERROR", "CRITICAL", "FATAL"})


@dataclass(frozen=True)
class Options:
    clock_offsets: tuple[tuple[str, float], ...] = ()  # --clock-offset HOST=SECONDS
    clock_reference: str | None = None  # --clock-reference HOST
    lang: str = "en"  # the language of the sentences in the results (``plogscan.lang``)


def to_us(ts: datetime | None) -> int | None:
    if ts is None:
        return None
    if ts.tzinfo is not None:
        ts = ts.replace(tzinfo=None) - (ts.utcoffset() or timedelta(0))
    delta = ts - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


class Context:
    """Identities and clocks of one input, then the conclusions over its findings."""

    def __init__(self, summary: Summary, options: Options = Options()) -> None:
        self.summary = summary
        self.lang = options.lang
        self.ids = Identities(summary)
        hosts = sorted({i.clock_host for i in self.ids.processes.values()} - {""})
        wanted = [("--clock-reference", options.clock_reference)] if options.clock_reference \
            else []
        wanted += [("--clock-offset", host) for host, _ in options.clock_offsets]
        for option, host in wanted:
            if host not in hosts:
                raise InputError(f"{option}: no host {host!r} in the input",
                                 help="hosts are: " + (", ".join(hosts) or "(none named)"))
        reference = options.clock_reference
        self.settings = cfg.settings_by_process(summary, self.ids,
                                                frozenset(self.ids.processes))
        self.timeouts = cfg.in_force(self.settings)
        estimate = clk.estimate(summary, self.ids, reference, dict(options.clock_offsets))
        self.clock = clk.with_flags(estimate, summary, self.ids, self.timeouts, self.lang)
        self.attempts = Attempts(summary, self.ids, self.clock)
        self._by_pid: dict[int, set[ProcessKey]] | None = None
        self._aliases: dict[ProcessKey, list[tuple[str, int]]] | None = None
        self._drivers: dict[tuple[str, int | None], list[ProcessKey]] | None = None
        self._rows: Any = None  # ``rows.RowIdentity``, made on the first ``annotate``
        self._heartbeat_rows = {(h.stream.path, h.line) for h in summary.heartbeats}
        self._heartbeat_rows |= {(f.stream.path, f.line) for f in summary.faults if f.remote}

    # ------------------------------------------------------------------ per record

    def identity(self, path: str | None, line: int | None, pid: int | None,
                 rank: int | None = None) -> Identity | None:
        return self.ids.of_record(path or "", line or 0, pid, rank)

    def process_of(self, host: str | None, pid: int) -> Identity | None:
        """The identity of the process whose records carry ``pid`` on ``host`` (the table's)."""
        key = self.ids.by_record_pid.get((host or "", pid))
        if key is None:
            if self._by_pid is None:
                self._by_pid = {}
                for (_host, p), k in self.ids.by_record_pid.items():
                    self._by_pid.setdefault(p, set()).add(k)
            found = self._by_pid.get(pid, set())
            key = next(iter(found)) if len(found) == 1 else None
        return self.ids.processes.get(key) if key is not None else None

    def processes(self, seen: Sequence[ProcessInfo]) -> tuple[ProcessInfo, ...]:
        """The overview's processes as the identities see them (``processes.identified``)."""
        return identified(self.ids, self.summary, seen, self.process_of)

    def identify(self, cols: Mapping[str, Any]) -> dict[str, Any] | None:
        """The identity columns of one record (host, rank, device, identity source), for the
        engine to put in findings; None when the record belongs to no known process."""
        ident = self.identity(cols.get("path"), cols.get("line"), cols.get("pid"),
                              cols.get("rank"))
        if ident is None:
            return None
        return {"host": ident.host or cols.get("host"), "rank": ident.rank,
                "device": ident.device, "pid": ident.pid, "identity": ident.source,
                "file": ident.key.file or None}

    __call__ = identify  # the engine's ``Identify``

    def aliases(self, host: str | None, pid: int) -> list[tuple[str | None, int]]:
        """The other (host, pid) pairs whose records belong to the same host process as the
        records of ``pid`` on ``host`` (as the table names them): a device log written for it
        by a device-side process, its plogs."""
        if self._aliases is None:
            self._aliases = {}
            for pair, key in self.ids.by_record_pid.items():
                self._aliases.setdefault(key, []).append(pair)
        key = self.ids.by_record_pid.get((host or "", pid))
        return [(h or None, p) for h, p in self._aliases.get(key, [])] if key else []

    def aligned(self, path: str | None, line: int | None, pid: int | None,
                ts: datetime | None) -> datetime | None:
        """``ts`` on the reference host's clock."""
        if ts is None:
            return None
        ident = self.identity(path, line, pid)
        offset = self.clock.offset_of(ident.clock_host if ident else None)
        return ts - timedelta(microseconds=offset) if offset else ts

    def offset_by_host(self) -> dict[str, int]:
        """host -> clock offset in µs (the ones applied to ``ts_aligned``)."""
        return {o.host: o.offset_us for o in self.clock.offsets if o.offset_us and o.applied}

    def aligned_column(self, table: pa.Table) -> pa.Array:
        """``ts_aligned`` of every row of an event table: ``ts`` minus its host's offset. A
        file lives on one host, so the offset is looked up once per file (per section of a
        pasted concatenation)."""
        ts = pc.cast(table.column("ts"), pa.timestamp("us")).combine_chunks()
        if not self.offset_by_host():
            return ts
        paths = table.column("path").combine_chunks()
        if not pa.types.is_dictionary(paths.type):
            paths = pc.dictionary_encode(paths)
        index = pc.fill_null(paths.indices, -1).to_numpy(zero_copy_only=False)
        names = paths.dictionary.to_pylist()
        per_file = np.array([self._file_offset(n, 0) for n in names] + [0], np.int64)
        offsets = per_file[index]
        lines = None
        for k, name in enumerate(names):
            if name in self.ids.segmented:
                if lines is None:
                    lines = table.column("line").combine_chunks().to_numpy(zero_copy_only=False)
                rows = np.flatnonzero(index == k)
                cuts = np.asarray(self.ids.segmented[name])
                segment = np.searchsorted(cuts, lines[rows], side="right")
                by_segment = np.array([self._file_offset(name, s) for s in range(len(cuts) + 1)],
                                      np.int64)
                offsets[rows] = by_segment[segment]
        return pc.subtract(ts, pa.array(offsets, pa.duration("us")))

    def annotate(self, table: pa.Table) -> pa.Table:
        """``table`` (event table columns) with each row's identity and aligned time
        (``rows.RowIdentity``)."""
        if self._rows is None:
            from plogscan.crossrank.rows import RowIdentity

            self._rows = RowIdentity(self.ids, self.attempts, self.aligned_column)
        return self._rows.annotate(table)

    def _file_offset(self, path: str | None, segment: int) -> int:
        host = self.ids.file_host.get((path or "", segment))
        return self.clock.offset_of(host) if host is not None else 0

    # ------------------------------------------------------------------ conclusions

    def conclude(self, findings: Sequence[Finding]) -> tuple[CrossRank, list[Finding]]:
        """The report and the findings with their ``rank_role`` and ``attempt``."""
        facts = {a.id: Facts(members=a.keys) for a in self.attempts.list}
        self._from_findings(findings, facts)
        self._from_summary(facts)
        results: dict[int, Conclusion] = {}
        parts = ByAttempt(self.summary, self.ids, self.attempts, self.settings)
        index = comm_index(self.summary)
        present = present_ips(self.ids)
        for attempt in self.attempts.list:
            f = facts[attempt.id]
            if not (parts.has_records(attempt.id) or f.failed or f.waits or f.tasks
                    or f.heartbeats):
                results[attempt.id] = QUIET  # no anchor record, nothing reported
                continue
            results[attempt.id] = self._conclude(attempt, f, parts, index, present)
        failed = [a for a in self.attempts.list if results[a.id].failed]
        chosen = (failed[-1] if failed else self.attempts.list[-1]) if self.attempts.list \
            else None
        clock = ClockReport(self.clock.reference or None,
                            tuple(o for o in self.clock.offsets if o.host), self.clock.flags)
        if chosen is None:
            return CrossRank(root_cause=RootCause("undetermined"), clock=clock), list(findings)
        roled = self._roles(findings, results)
        failed_ids = {a.id for a in failed}
        shown = listed(self.attempts.list, failed_ids,
                       {chosen.id, *(f.attempt for f in roled if f.attempt is not None)})
        picked = results[chosen.id]
        crossrank = CrossRank(
            root_cause=picked.root_cause, clock=clock,
            attempts=tuple(self._attempt_report(a, results[a.id]) for a in shown),
            collectives=picked.collectives, config=picked.config, missing=picked.missing,
            attempts_omitted=len(self.attempts.list) - len(shown),
            failed_attempts_omitted=len(failed) - sum(a.id in failed_ids for a in shown))
        return crossrank, roled

    def _conclude(self, attempt: Attempt, f: Facts, parts: ByAttempt, index: dict,
                  present: frozenset[str]) -> Conclusion:
        """The conclusions of one attempt: its wait graph and verdict, what it lacks, its
        collectives and its settings."""
        view = parts.summary(attempt.id)
        alignment = align(view, self.ids, attempt.keys)
        f.divergence = alignment.first
        f.settings = parts.settings(attempt.id)
        decider = Decider(self.ids, f, self.clock, Builder(self.ids, f, self.clock, index,
                                                            self.lang), self.lang)
        decision = decider.decide()
        short = cfg.too_short(view, self.ids, self.clock, attempt.keys, cfg.in_force(f.settings),
                              self.lang)
        suspects = frozenset(n.key for g in decision.groups for n in g.nodes
                             if n.key is not None)
        return Conclusion(
            root_cause(self.ids, decider, decision, attempt.id), decision.failed, suspects,
            frozenset(decision.victims),
            find(self.ids, attempt.keys, decision, self.lang, present), alignment.report,
            ConfigReport(cfg.mismatches(f.settings, self.ids), short))

    def _attempt_report(self, attempt: Attempt, result: Conclusion) -> AttemptReport:
        idents = [self.ids.processes[k] for k in sorted(attempt.keys)]
        return AttemptReport(
            id=attempt.id, first_ts=to_datetime(attempt.first_ts),
            last_ts=to_datetime(attempt.last_ts),
            pids=tuple(sorted({i.pid for i in idents if i.pid is not None})),
            hosts=tuple(sorted({i.host for i in idents if i.host})),
            ranks=tuple(sorted({i.rank for i in idents if i.rank is not None})),
            root_cause=result.root_cause, failed=result.failed)

    def _processes_of(self, finding: Finding) -> list[tuple[ProcessKey, int | None]]:
        out = []
        for ev in finding.evidence:
            ident = self.identity(ev.path, ev.line, ev.pid, ev.rank)
            if ident is not None:
                out.append((self._owner(ident), self.clock.align(ident, to_us(ev.ts))))
        return out

    def _owner(self, ident: Identity) -> ProcessKey:
        """A firmware or device-OS record (pid below 1) speaks for the host process that
        drives its device, when there is exactly one."""
        if ident.pid is None or ident.pid >= 1 or ident.device is None:
            return ident.key
        if self._drivers is None:  # (clock host, device) -> its host processes, built once
            self._drivers = {}
            for k, i in self.ids.processes.items():
                if i.pid and i.pid >= 1:
                    self._drivers.setdefault((i.clock_host, i.device), []).append(k)
        owners = self._drivers.get((ident.clock_host, ident.device), [])
        return owners[0] if len(owners) == 1 else ident.key

    def _from_findings(self, findings: Sequence[Finding], facts: dict[int, Facts]) -> None:
        for finding in findings:
            if finding.verdict is not FindingVerdict.MATCH:
                continue
            timeout = finding.category in TIMEOUT_CATEGORIES
            error = (not timeout and finding.role == "root-cause"
                     and finding.level in (Level.ERROR, Level.CRITICAL))
            if not (timeout or error):
                continue
            per: dict[ProcessKey, list] = {}
            for ev, (key, ts) in zip(finding.evidence, self._processes_of(finding), strict=False):
                per.setdefault(key, []).append((ts, ev))
            for key, items in per.items():
                if error and all((ev.path, ev.line) in self._heartbeat_rows for _, ev in items):
                    continue  # it reports another rank's failure
                # the failure itself: its ERROR records (a sequence's earlier steps are context)
                failing = [(t, ev) for t, ev in items
                           if (ev.level or "").upper() in _ERROR_LEVELS] or items
                times = [t for t, _ in failing if t is not None]
                attempt = self.attempts.of(key, min(times) if times else None)
                if attempt not in facts or key not in facts[attempt].members:
                    continue
                problem = Problem(min(times) if times else None,
                                  f"{finding.rule} {finding.title}",
                                  tuple((ev.path, ev.line) for _, ev in failing[:3]))
                target = facts[attempt].timeouts if timeout else facts[attempt].errors
                target.setdefault(key, []).append(problem)

    def _place(self, stream: Any, ts: int | None) -> tuple[ProcessKey, int, int | None] | None:
        key = self.ids.of_stream.get(stream)
        if key is None:
            return None
        ident = self.ids.processes[key]
        owner = self._owner(ident)
        aligned = self.clock.align(ident, ts)
        attempt = self.attempts.of(owner, aligned)
        return (owner, attempt, aligned) if attempt is not None else None

    def _from_summary(self, facts: dict[int, Facts]) -> None:
        s = self.summary
        for w in sorted(s.waits, key=lambda w: (w.stream.order(), w.line)):
            placed = self._place(w.stream, w.ts)
            if placed and placed[0] in facts[placed[1]].members:
                f = facts[placed[1]]
                f.waits.setdefault(placed[0], []).append(w)
                text = say(self.lang, "Notify Wait timeout" if w.kind == "notify"
                           else "link set-up wait" if w.kind in ("socket", "p2p")
                           else "{kind} wait", kind=say(self.lang, w.kind))
                f.timeouts.setdefault(placed[0], []).append(
                    Problem(placed[2], text, ((w.stream.path, w.line),)))
        for fault in s.faults:
            placed = self._place(fault.stream, fault.ts)
            if placed and not fault.remote and placed[0] in facts[placed[1]].members:
                facts[placed[1]].errors.setdefault(placed[0], []).append(
                    Problem(placed[2], say(self.lang, "{task} task exception", task=fault.text),
                            ((fault.stream.path, fault.line),)))
        for t in s.tasks:
            placed = self._place(t.stream, t.ts)
            if placed and placed[0] in facts[placed[1]].members:
                facts[placed[1]].tasks.setdefault(placed[0], []).append(t)
        for h in s.heartbeats:
            placed = self._place(h.stream, h.ts)
            if placed:
                facts[placed[1]].heartbeats.append((placed[0], h))
        for r in s.rosters:
            placed = self._place(r.stream, r.ts)
            if placed:
                facts[placed[1]].rosters.setdefault(placed[0], []).append(r)

    def _roles(self, findings: Sequence[Finding], results: dict[int, Conclusion]
               ) -> list[Finding]:
        out = []
        for finding in findings:
            role = None
            attempt = None
            for key, ts in self._processes_of(finding):
                number = self.attempts.of(key, ts)
                attempt = attempt if attempt is not None else number
                result = results.get(number or 0)
                if result is None:
                    continue
                if key in result.suspects:
                    role = "root-cause"
                    break
                if key in result.victims:
                    role = "victim"
            out.append(replace(finding, rank_role=role, attempt=attempt))
        return out


def identities(table: pa.Table) -> Callable[[], Context]:
    """What ``diagnose`` tells the engine of each record's process (``Context``), for a small
    table read whole: the rule cases (``engine.cases.run_case``)."""
    gatherer = Gatherer()
    for batch in table.to_batches():
        gatherer.consume(batch)
    return lambda: Context(gatherer.summary(), Options())
