"""Fold findings into incidents: each root cause with the findings that follow from it.

A finding follows from another (its *cause*) when, in the same attempt of the job:

1. the cause's rule explains its rule (``explains`` in the rule data, or the ``links`` of a
   symptom rule), in the same process; failing that, anywhere in the attempt;
2. it could not be checked (``not_evaluable``) for a fault another finding reports: they share
   an evidence record, or the unchecked rule explains the fault's rule in that process;
3. the cross-rank analysis localized the attempt's root cause on another rank (verdict
   ``localized``: its first suspect): what happened on every other rank, timeouts and later
   real errors alike, follows from that rank's first finding; without a localized suspect, a
   finding of a rank that only waited (``rank_role`` victim) follows from the first finding
   of a rank the analysis calls a root cause. An ``ambiguous`` or ``undetermined`` verdict
   folds nothing across ranks: independent failures stay incidents of their own;
4. failing all these, its role and category say so (``_General``): a fallback reading of a
   record follows from the root cause that explains the record, or the first root cause of
   its process; a symptom from the first root cause or fallback of its process; a timeout
   from an earlier fault of its process.

Findings with no cause are roots. Roots of one rule (and category) in one attempt make one
incident; every other finding joins the incident of the root its causes lead to, so every
finding belongs to exactly one incident. In an incident, the findings of the root's rule on
other processes or ranks are ``same_rule``, all others ``symptoms``.

Incidents come in the order to fix them: a root that is itself a symptom (a wrapper whose
cause the logs do not show) comes after the other roots, a root that says what the logs lack
(category ``evidence-gap``: files that could not be read, an incomplete dump) after every
fault they show, and one that could not be checked last; then level (a fallback after a root
cause, a wrapper code's category after the others), then time (``model.finding_order``). A
finding about no rank, process or record (the inputs as a whole) is never folded into another
rank's incident. A rank that only waited is folded into its root's incident when the logs show
one; when they do not, its finding is the best account of the failure there is, and ranks by
level and time like any root. Findings come incident by incident: root, same rule, symptoms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from plogscan.catalog.categories import WAITING
from plogscan.model import (
    CrossRank,
    Diagnosis,
    Finding,
    Incident,
    Party,
    RootCause,
    Scope,
    Suspect,
    Verdict,
    explainers,
    finding_order,
)


def _processes(finding: Finding) -> set[tuple[str | None, int]]:
    """The (host, pid) pairs a finding is about; its evidence fills in where the scope is
    empty."""
    hosts = finding.scope.hosts or (None,)
    pairs = {(host, pid) for pid in finding.scope.pids for host in hosts}
    pairs |= {(ev.host, ev.pid) for ev in finding.evidence if ev.pid is not None}
    return pairs


def _paths(finding: Finding) -> frozenset[str]:
    return frozenset(ev.path for ev in finding.evidence)


def _same_place(pa: set[tuple[str | None, int]], pb: set[tuple[str | None, int]],
                paths_a: frozenset[str], paths_b: frozenset[str]) -> bool:
    """Two findings are in the same process when they share a pid on one host (a finding
    with no host matches any), or, when either names no process, share a file."""
    if pa and pb:
        return any(pid == qid and (host == other or host is None or other is None)
                   for host, pid in pa for other, qid in pb)
    return bool(paths_a & paths_b)


class _Places:
    """The findings that matched, by attempt, rule, process and file, so a finding's causes
    in its own process are looked up, not compared with every finding of a rule (1,024 ranks
    make thousands of findings of a few rules)."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.findings = findings
        self.processes = [_processes(f) for f in findings]
        self.paths = [_paths(f) for f in findings]
        self.matches: dict[tuple[int | None, str], list[int]] = {}  # MATCH findings by rule
        self.by_pid: dict[tuple[int | None, str, int], list[int]] = {}
        self.by_path: dict[tuple[int | None, str, str], list[int]] = {}
        self.by_path_placeless: dict[tuple[int | None, str, str], list[int]] = {}
        for j, g in enumerate(findings):
            if g.verdict is not Verdict.MATCH:
                continue
            self.matches.setdefault((g.attempt, g.rule), []).append(j)
            for pid in {pid for _, pid in self.processes[j]}:
                self.by_pid.setdefault((g.attempt, g.rule, pid), []).append(j)
            for path in self.paths[j]:
                self.by_path.setdefault((g.attempt, g.rule, path), []).append(j)
                if not self.processes[j]:
                    self.by_path_placeless.setdefault((g.attempt, g.rule, path), []).append(j)

    def first_match(self, index: int, rules: Iterable[str]) -> int | None:
        """The first MATCH finding of ``rules`` (not the finding's own) in its attempt."""
        f = self.findings[index]
        return min((found[0] for rule in rules if rule != f.rule
                    if (found := self.matches.get((f.attempt, rule)))), default=None)

    def first_in_process(self, index: int, rules: Iterable[str],
                         accept: Callable[[int], bool] | None = None) -> int | None:
        """The first MATCH finding of ``rules`` (not the finding's own) in its attempt and in
        its process (``_same_place``), of those ``accept`` takes when it is given."""
        f = self.findings[index]
        mine = self.processes[index]
        pids = {pid for _, pid in mine}
        best: int | None = None
        for rule in rules:
            if rule == f.rule:
                continue
            if mine:
                near = [j for pid in pids for j in self.by_pid.get((f.attempt, rule, pid), ())]
                near += [j for path in self.paths[index]
                         for j in self.by_path_placeless.get((f.attempt, rule, path), ())]
            else:
                near = [j for path in self.paths[index]
                        for j in self.by_path.get((f.attempt, rule, path), ())]
            for j in sorted(set(near)):
                if best is not None and j >= best:
                    break
                if accept is not None and not accept(j):
                    continue
                if _same_place(mine, self.processes[j], self.paths[index], self.paths[j]):
                    best = j
                    break
        return best


def _on_same_rank(places: _Places, i: int, j: int) -> bool:
    """Whether findings ``i`` and ``j`` are about the same rank (or, without ranks, the same
    process)."""
    a, b = places.findings[i], places.findings[j]
    if a.scope.ranks and b.scope.ranks:
        return bool(set(a.scope.ranks) & set(b.scope.ranks)) and (
            not a.scope.hosts or not b.scope.hosts or bool(set(a.scope.hosts) & set(b.scope.hosts)))
    return _same_place(places.processes[i], places.processes[j], places.paths[i],
                       places.paths[j])


def _root_cause(crossrank: CrossRank | None, attempt: int | None) -> RootCause | None:
    """The cross-rank verdict of an attempt (the whole run's when there are no attempts)."""
    if crossrank is None:
        return None
    for report in crossrank.attempts:
        if report.id == attempt:
            return report.root_cause
    return crossrank.root_cause if attempt is None or not crossrank.attempts else None


def _on(suspect: Suspect, finding: Finding) -> bool:
    """Whether a finding is about the suspect's process (its pid, else its rank on its host);
    never for a peer the input does not contain."""
    if not suspect.present:
        return False
    if suspect.pid is not None and suspect.pid in finding.scope.pids:
        return True
    if suspect.rank is None or suspect.rank not in finding.scope.ranks:
        return False
    return (not finding.scope.hosts or suspect.host in finding.scope.hosts
            or suspect.host_ip in finding.scope.hosts)


def _causes(findings: Sequence[Finding], crossrank: CrossRank | None = None
            ) -> list[int | None]:
    """For each finding (by index), the index of the finding it follows from, or None.

    Candidates are looked up by attempt and rule, and by shared evidence record, so a run of
    thousands of findings is not compared pair by pair."""
    explained_by = explainers(findings)  # rule -> rules that explain it
    explaining: dict[str, set[str]] = {}  # rule -> rules it explains
    for rule, causes in explained_by.items():
        for cause in causes:
            explaining.setdefault(cause, set()).add(rule)
    # The first finding on the first suspect of each attempt the analysis localized.
    localized: dict[int | None, int] = {}
    for attempt in sorted({f.attempt for f in findings}, key=lambda a: (a is None, a or 0)):
        verdict = _root_cause(crossrank, attempt)
        if verdict is None or verdict.verdict != "localized" or not verdict.suspects:
            continue
        suspect = verdict.suspects[0]
        first = next((j for j, g in enumerate(findings) if g.attempt == attempt
                      and g.verdict is Verdict.MATCH and _on(suspect, g)), None)
        if first is not None:
            localized[attempt] = first
    places = _Places(findings)
    by_record: dict[tuple[str, int], list[int]] = {}
    general = _General(places, by_record)
    first_root_rank: dict[int | None, int] = {}
    for j, g in enumerate(findings):
        if g.verdict is Verdict.MATCH:
            for ev in g.evidence:
                by_record.setdefault((ev.path, ev.line), []).append(j)
            if g.rank_role == "root-cause":
                first_root_rank.setdefault(g.attempt, j)

    parents: list[int | None] = []
    for index, f in enumerate(findings):
        found: int | None = None
        if f.verdict is Verdict.NOT_EVALUABLE:
            found = min((j for ev in f.evidence for j in by_record.get((ev.path, ev.line), ())
                         if j != index and findings[j].attempt == f.attempt), default=None)
            if found is None:
                found = places.first_in_process(index, explaining.get(f.rule, ()))
        if found is None:  # a check that could not run establishes nothing: never a cause
            causes = explained_by.get(f.rule, ())
            found = places.first_in_process(index, causes)
            if found is None:
                found = places.first_match(index, causes)
        root = localized.get(f.attempt)
        if (found is None and root is not None and _has_place(f)
                and not _on_same_rank(places, index, root)):
            found = root
        if found is None and root is None and f.rank_role == "victim":
            root = first_root_rank.get(f.attempt)
            found = root if root != index else None
        if found is None and f.verdict is Verdict.MATCH:
            found = general.cause(index)
        parents.append(found)
    return parents


class _General:
    """The causes the rules' roles and categories give (point 4 above, rules/README.md "The
    root first"): a fallback follows from a root cause that holds one of its records, else
    from the first root cause of its process; a symptom from the first root cause or fallback
    of its process; a root cause of a ``WAITING`` category from the first root cause of
    another category of its process that began no later. Only matched findings that report a
    fault (not ``evidence-gap``) are causes."""

    def __init__(self, places: _Places, by_record: dict[tuple[str, int], list[int]]) -> None:
        self.places = places
        self.by_record = by_record
        self.rules = sorted({f.rule for f in places.findings})

    def _fault(self, j: int, *roles: str) -> bool:
        g = self.places.findings[j]
        return g.verdict is Verdict.MATCH and g.category != EVIDENCE_GAP and g.role in roles

    def _shared(self, index: int) -> set[int]:
        f = self.places.findings[index]
        return {j for ev in f.evidence for j in self.by_record.get((ev.path, ev.line), ())
                if j != index and self.places.findings[j].attempt == f.attempt
                and self.places.findings[j].rule != f.rule}

    def cause(self, index: int) -> int | None:
        f = self.places.findings[index]
        findings = self.places.findings
        first = self.places.first_in_process
        if f.role == "fallback":
            shared = [j for j in self._shared(index) if self._fault(j, "root-cause")]
            if shared:
                return min(shared)
            return first(index, self.rules, lambda j: self._fault(j, "root-cause"))
        if f.role == "symptom":
            return first(index, self.rules, lambda j: self._fault(j, "root-cause", "fallback"))
        if f.category in WAITING:
            return first(index, self.rules, lambda j: self._fault(j, "root-cause")
                         and findings[j].category not in WAITING and _began_by(findings[j], f))
        return None


def _began_by(a: Finding, b: Finding) -> bool:
    """Whether ``a`` began no later than ``b``: by time when both have one, else by line in a
    file they share (a pasted excerpt has no times)."""
    if a.first_ts is not None and b.first_ts is not None:
        return a.first_ts <= b.first_ts
    first_a: dict[str, int] = {}
    for ev in a.evidence:
        first_a[ev.path] = min(ev.line, first_a.get(ev.path, ev.line))
    first_b: dict[str, int] = {}
    for ev in b.evidence:
        first_b[ev.path] = min(ev.line, first_b.get(ev.path, ev.line))
    return any(line <= first_b[path] for path, line in first_a.items() if path in first_b)


def _root_of(index: int, parents: list[int | None]) -> int:
    """Follow causes up to a finding that has none; a circle stops at its first member."""
    seen = [index]
    while (parent := parents[seen[-1]]) is not None and parent not in seen:
        seen.append(parent)
    if parents[seen[-1]] is None:
        return seen[-1]
    return min(seen)  # a circle (rules check rejects them in rule data): its first finding


EVIDENCE_GAP = "evidence-gap"  # what the logs lack: never the answer over what they show
# A wrapper code with no more specific record: after the other roots of its standing.
WRAPPER_CATEGORY = "runtime-error"


def _incident_key(root: Finding) -> tuple:
    """Faults the logs show first (root causes and fallback readings of records no rule
    explains, then symptoms whose cause they lack; in each, by level, a fallback after a root
    cause, a wrapper code's category after the others), then what they lack
    (``evidence-gap``: files that could not be read...), then checks that could not run;
    within each, ``finding_order``."""
    return (root.verdict is not Verdict.MATCH, root.category == EVIDENCE_GAP,
            root.role == "symptom", -root.level.rank, root.role == "fallback",
            root.category == WRAPPER_CATEGORY, *finding_order(root))


def _has_place(finding: Finding) -> bool:
    """Whether a finding is about a rank, a process or a file's records (one about the inputs
    as a whole is on no rank, so no rank's root explains it)."""
    return bool(finding.scope.ranks or finding.scope.pids or finding.evidence)


def _union_scope(members: Iterable[Finding]) -> Scope:
    members = list(members)
    return Scope(hosts=tuple(sorted({h for f in members for h in f.scope.hosts})),
                 ranks=tuple(sorted({r for f in members for r in f.scope.ranks})),
                 pids=tuple(sorted({p for f in members for p in f.scope.pids})),
                 devices=tuple(sorted({d for f in members for d in f.scope.devices})))


def _victims(crossrank: CrossRank | None, attempt: int | None) -> tuple[Party, ...]:
    verdict = _root_cause(crossrank, attempt)
    return verdict.victims if verdict is not None else ()


def build(findings: Iterable[Finding], crossrank: CrossRank | None = None
          ) -> tuple[tuple[Finding, ...], tuple[Incident, ...]]:
    """The findings with their ids, in report order, and the incidents they make."""
    base = sorted(findings, key=finding_order)
    parents = _causes(base, crossrank)
    roots = [_root_of(i, parents) for i in range(len(base))]
    # (attempt, rule, category) -> its first root: a rule whose findings take their category
    # from what they read (``category_from``) makes one incident per category.
    heads: dict[tuple[int | None, str, str], int] = {}
    for i in range(len(base)):
        if roots[i] == i:
            heads.setdefault((base[i].attempt, base[i].rule, base[i].category), i)
    head_of = [heads[(base[roots[i]].attempt, base[roots[i]].rule, base[roots[i]].category)]
               for i in range(len(base))]
    groups: dict[int, list[int]] = {}
    for i in range(len(base)):
        groups.setdefault(head_of[i], []).append(i)
    order = sorted(groups, key=lambda h: _incident_key(base[h]))
    ordered: list[int] = []
    same_rule: dict[int, list[int]] = {}  # head -> its incident's other findings of its rule
    symptoms: dict[int, list[int]] = {}  # head -> its incident's findings of other rules
    for head in order:
        members = groups[head]
        same = same_rule[head] = [i for i in members
                                  if i != head and base[i].rule == base[head].rule]
        rest = symptoms[head] = [i for i in members
                                 if i != head and base[i].rule != base[head].rule]
        ordered += [head, *same, *rest]
    counts: dict[str, int] = {}
    ids: dict[int, str] = {}
    for i in ordered:
        counts[base[i].rule] = counts.get(base[i].rule, 0) + 1
        ids[i] = f"{base[i].rule}-{counts[base[i].rule]}"
    out = tuple(replace(base[i], id=ids[i]) for i in ordered)
    incidents: list[Incident] = []
    given_victims: set[int | None] = set()
    for number, head in enumerate(order, 1):
        members = groups[head]
        root = base[head]
        member_findings = [base[i] for i in members]
        stamps = [t for f in member_findings for t in (f.first_ts, f.last_ts) if t is not None]
        # The victims of an attempt go to its first incident that holds a root-cause rank.
        victims: tuple[Party, ...] = ()
        if root.attempt not in given_victims and (
                any(f.rank_role == "root-cause" for f in member_findings)
                or any(f.rank_role == "victim" for f in member_findings)):
            victims = _victims(crossrank, root.attempt)
            given_victims.add(root.attempt)
        incidents.append(Incident(
            id=f"I{number}", root=ids[head],
            same_rule=tuple(ids[i] for i in same_rule[head]),
            symptoms=tuple(ids[i] for i in symptoms[head]),
            rule=root.rule, title=root.title, category=root.category, level=root.level,
            scope=_union_scope(member_findings), victims=victims,
            first_ts=min(stamps) if stamps else None, last_ts=max(stamps) if stamps else None,
            attempt=root.attempt))
    return out, tuple(incidents)


def with_incidents(diagnosis: Diagnosis) -> Diagnosis:
    """``diagnosis`` with its findings in report order, each with its id, and its incidents."""
    findings, incidents = build(diagnosis.findings, diagnosis.crossrank)
    return replace(diagnosis, findings=findings, incidents=incidents)
