"""The causes ``incidents.build`` finds through its indexes are the ones the pairwise
definition gives.

``_causes`` looks a finding's candidate causes up by attempt, rule, pid and file instead of
comparing it with every finding of the rules that explain it. ``pairwise_causes`` below is the
definition, written as the plain comparison of every pair; random findings (rules that explain
each other, symptoms with links, unchecked findings, findings with and without pids and
hosts, shared and separate files, two attempts, ranks that only waited, fallbacks that share
a record, timeouts after a fault, evidence gaps) get the same causes from both.
"""

from __future__ import annotations

from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.catalog.categories import WAITING
from plogscan.incidents.build import _causes
from plogscan.model import Evidence, Finding, Level, Scope, Verdict, explainers, finding_order

_EXPLAINS = {"A": ("B", "C"), "B": ("D",), "C": (), "D": ()}
_LINKS = {"A": (), "B": (), "C": ("A",), "D": ("B", "A")}


def _processes(f: Finding) -> set[tuple[str | None, int]]:
    hosts = f.scope.hosts or (None,)
    pairs = {(host, pid) for pid in f.scope.pids for host in hosts}
    return pairs | {(ev.host, ev.pid) for ev in f.evidence if ev.pid is not None}


def _same_process(a: Finding, b: Finding) -> bool:
    pa, pb = _processes(a), _processes(b)
    if pa and pb:
        return any(pid == qid and (host == other or host is None or other is None)
                   for host, pid in pa for other, qid in pb)
    return bool({ev.path for ev in a.evidence} & {ev.path for ev in b.evidence})


def pairwise_causes(findings: list[Finding]) -> list[int | None]:
    """The causes with no cross-rank verdict, by comparing every pair of findings."""
    explained_by = explainers(findings)
    explaining: dict[str, set[str]] = {}
    for rule, causes in explained_by.items():
        for cause in causes:
            explaining.setdefault(cause, set()).add(rule)
    first_root_rank: dict[int | None, int] = {}
    for j, g in enumerate(findings):
        if g.verdict is Verdict.MATCH and g.rank_role == "root-cause":
            first_root_rank.setdefault(g.attempt, j)

    def of_rules(f: Finding, index: int, rules) -> list[int]:
        return sorted(j for j, g in enumerate(findings) if g.rule in rules and g.rule != f.rule
                      and g.attempt == f.attempt and j != index)

    parents: list[int | None] = []
    for index, f in enumerate(findings):
        found = None
        if f.verdict is Verdict.NOT_EVALUABLE:
            records = {(ev.path, ev.line) for ev in f.evidence}
            shared = [j for j, g in enumerate(findings) if j != index and g.attempt == f.attempt
                      and g.verdict is Verdict.MATCH
                      and records & {(ev.path, ev.line) for ev in g.evidence}]
            found = shared[0] if shared else None
            if found is None:
                found = next((j for j in of_rules(f, index, explaining.get(f.rule, ()))
                              if findings[j].verdict is Verdict.MATCH
                              and _same_process(f, findings[j])), None)
        if found is None:
            candidates = [j for j in of_rules(f, index, explained_by.get(f.rule, ()))
                          if findings[j].verdict is Verdict.MATCH]
            found = next((j for j in candidates if _same_process(f, findings[j])),
                         candidates[0] if candidates else None)
        if found is None and f.rank_role == "victim":
            root = first_root_rank.get(f.attempt)
            found = root if root != index else None
        if found is None and f.verdict is Verdict.MATCH:
            found = general_cause(findings, index)
        parents.append(found)
    return parents


def _began_by(a: Finding, b: Finding) -> bool:
    """By time when both have one, else by the first line in a shared file."""
    if a.first_ts is not None and b.first_ts is not None:
        return a.first_ts <= b.first_ts
    return any(ea.path == eb.path and ea.line <= eb.line
               and all(e.line >= ea.line for e in a.evidence if e.path == ea.path)
               and all(e.line >= eb.line for e in b.evidence if e.path == eb.path)
               for ea in a.evidence for eb in b.evidence)


def general_cause(findings: list[Finding], index: int) -> int | None:
    """The roles' and categories' causes (``incidents.build._General``), pair by pair."""
    f = findings[index]

    def fault(g: Finding, *roles: str) -> bool:
        return g.verdict is Verdict.MATCH and g.category != "evidence-gap" and g.role in roles

    others = [(j, g) for j, g in enumerate(findings)
              if j != index and g.rule != f.rule and g.attempt == f.attempt]
    records = {(ev.path, ev.line) for ev in f.evidence}
    shared = {j for j, g in others if records & {(ev.path, ev.line) for ev in g.evidence}}

    def first(accept) -> int | None:
        return next((j for j, g in others if accept(j, g) and _same_process(f, g)), None)

    if f.role == "fallback":
        on_record = [j for j, g in others if j in shared and fault(g, "root-cause")]
        return on_record[0] if on_record else first(lambda j, g: fault(g, "root-cause"))
    if f.role == "symptom":
        return first(lambda j, g: fault(g, "root-cause", "fallback"))
    if f.category in WAITING:
        return first(lambda j, g: fault(g, "root-cause") and g.category not in WAITING
                     and _began_by(g, f))
    return None


@st.composite
def _finding(draw, n: int) -> Finding:
    rule = draw(st.sampled_from(sorted(_EXPLAINS)))
    pid = draw(st.sampled_from([None, 1, 2, 3]))
    host = draw(st.sampled_from([None, "h1", "h2"]))
    path = draw(st.sampled_from(["a.log", "b.log", "c.log"]))
    line = draw(st.integers(1, 4))
    verdict = draw(st.sampled_from([Verdict.MATCH, Verdict.MATCH, Verdict.NOT_EVALUABLE]))
    ts = datetime(2026, 5, 1, 8, 0, n % 60)
    evidence = (Evidence(path=path, line=line, ts=ts, message="m", step="match",
                         pid=draw(st.sampled_from([None, pid])), host=host),)
    scope = Scope(hosts=(host,) if host and draw(st.booleans()) else (),
                  pids=(pid,) if pid is not None and draw(st.booleans()) else ())
    category = draw(st.sampled_from(["c", "c", "evidence-gap", *sorted(WAITING)[:2]]))
    return Finding(fingerprint=f"{rule}{n}", rule=rule, name=rule, title=rule, category=category,
                   level=draw(st.sampled_from([Level.ERROR, Level.CRITICAL])), verdict=verdict,
                   description="", scope=scope, first_ts=ts if draw(st.booleans()) else None,
                   last_ts=ts, evidence=evidence, remediation=(),
                   role=draw(st.sampled_from(["root-cause", "symptom", "fallback"])),
                   links=_LINKS[rule], explains=_EXPLAINS[rule],
                   rank_role=draw(st.sampled_from([None, None, "victim", "root-cause"])),
                   attempt=draw(st.sampled_from([None, 1])))


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 40).flatmap(lambda n: st.tuples(*(_finding(i) for i in range(n)))))
def test_indexed_causes_equal_the_pairwise_definition(findings: tuple[Finding, ...]) -> None:
    ordered = sorted(findings, key=finding_order)
    assert _causes(ordered) == pairwise_causes(ordered)
