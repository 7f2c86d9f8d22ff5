"""What the rule catalog covers, for ``plogscan rules coverage``: each rule with its cases, the
rows of the error-signature catalogue (formats.md §7) and the rules declaring them (``covers``),
the codes of the code tables (``plogscan.codes``) that no rule's conditions mention, and the
categories of the taxonomy that no rule uses.

A code is "mentioned" when its text (or its symbolic name, e.g. ``HCCL_E_TIMEOUT``; for an AI
Core errcode, its first value or its ``errorStr``) occurs in a predicate value of some rule:
a ``contains`` text, a regex (escapes such as ``\\b`` are read as separators) or a ``codes``
value. Descriptions and remediation do not count: naming a code is not matching it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from plogscan.catalog.categories import CATEGORIES
from plogscan.catalog.checks import case_counts, case_problems
from plogscan.catalog.rule import RuleSet
from plogscan.catalog.ruletext import CATALOGUE_ROWS
from plogscan.catalog.testing import Case

# Short names of the formats.md §7 rows, for people reading the report.
ROWS: dict[int, str] = {
    1: "AI Core / AI Vector / ffts+ exception", 2: "MTE / DDR / UB out of range (operator OOB)",
    3: "AI Core / vector / ffts+ timeout or trap", 4: "fault kernel_name (failing kernel)",
    5: "multi-bit ECC / UCE hardware memory error", 6: "SDMA error (cqeStatus, EI0012)",
    7: "HCCL notify wait timeout (EI0002)", 8: "HCCL cluster heartbeat (crimer / informer rank)",
    9: "RoCE error CQE (EI0013)", 10: "HCCL link / socket timeout (EI0006)",
    11: "communicator init / root-info failure (EI0015, EI0019)",
    12: "HCCL config, rank table, parameter mismatch (EI0001/0004/0005/0014)",
    13: "device busy / stale process (EJ0001, E30003, 507033)",
    14: "device out of memory (EL0004, 207018)", 15: "stream / event sync timeout (EE1002)",
    16: "Task run failed (first RUNTIME failure record)", 17: "ACL/runtime wrapper codes 5070NN",
    18: "CCU exception / timeout (507916, 507915)", 19: "torch_npu device-error tags",
    20: "device / TS heartbeat lost (507010)", 21: "network link down",
    22: "AI CPU exception / timeout", 23: "HCCL context reuse (DEBUG evidence)",
    24: "exception dump failed", 25: "HDC channel broken / NPU down (ra hdc)",
}
NOT_FOR_RULES = ("unexplained",)  # categories the engine produces itself, never a rule
_ESCAPE = re.compile(r"\\[A-Za-z]")
_WORD = "0-9A-Za-z_"


@dataclass(frozen=True)
class RuleCoverage:
    """One rule: its cases and whether they are enough for its status."""

    id: str
    name: str
    category: str
    status: str
    role: str
    cases: int
    positive: int
    negative: int
    rows: tuple[int, ...]
    problems: tuple[str, ...]


@dataclass(frozen=True)
class CodeGap:
    """A code of the tables that no rule mentions."""

    table: str
    code: str
    meaning: str


@dataclass(frozen=True)
class Coverage:
    """The whole coverage report."""

    rules: tuple[RuleCoverage, ...]
    rows: tuple[tuple[int, str, tuple[str, ...]], ...]  # (row, name, ids of covering rules)
    codes: tuple[CodeGap, ...] | None  # None when no code tables were given
    codes_total: int
    categories: tuple[str, ...]  # categories no rule uses
    tables: tuple[Any, ...] = ()  # plogscan.codes TableCoverage: source codes vs table codes

    @property
    def uncovered_rows(self) -> tuple[int, ...]:
        return tuple(row for row, _, ids in self.rows if not ids)

    @property
    def problems(self) -> tuple[str, ...]:
        return tuple(p for r in self.rules for p in r.problems)


def coverage(rules: RuleSet, cases: Sequence[Case], codes: Any = None) -> Coverage:
    """The coverage of ``rules`` and their ``cases``; with ``codes`` (``plogscan.codes.tables()``,
    passed in: the catalogue sits below the code tables), the codes no rule mentions and the
    tables' own coverage of their sources."""
    counts = case_counts(rules, cases)
    per_rule = tuple(
        RuleCoverage(r.id, r.name, r.category, r.status, r.role, counts[r.id].total,
                     counts[r.id].positive, counts[r.id].negative, r.covers,
                     tuple(case_problems(r, counts[r.id])))
        for r in rules)
    rows = tuple((row, ROWS[row], tuple(r.id for r in rules if row in r.covers))
                 for row in range(1, CATALOGUE_ROWS + 1))
    used = {r.category for r in rules}
    categories = tuple(c for c in CATEGORIES if c not in used and c not in NOT_FOR_RULES)
    gaps, total = _code_gaps(rules, codes)
    return Coverage(per_rule, rows, gaps, total, categories,
                    tuple(codes.coverage()) if codes is not None else ())


def _code_gaps(rules: RuleSet, codes: Any) -> tuple[tuple[CodeGap, ...] | None, int]:
    if codes is None:
        return None, 0
    entries = codes.entries
    text = "\n".join(_values(rules))
    gaps, total = [], 0
    for table in sorted(entries):
        for entry in entries[table].values():
            if entry.name and entry.name.endswith("_SUCCESS"):
                continue
            total += 1
            if not any(_mentioned(needle, text) for needle in _needles(entry)):
                gaps.append(CodeGap(table, entry.code, entry.meaning))
    return tuple(gaps), total


def _values(rules: RuleSet) -> Iterator[str]:
    """Every predicate value of every condition of every rule, escapes read as separators."""
    for rule in rules:
        for _, cond in rule.roles():
            for alt in cond.alternatives:
                for pred in alt:
                    for value in pred.values:
                        yield _ESCAPE.sub(" ", str(value))


def _needles(entry: Any) -> list[str]:
    """The texts whose presence in a rule's conditions mentions this code."""
    out = [entry.name] if entry.name else []
    if entry.table == "hccl_result":  # small numbers: only the symbolic name is telling
        return out
    if entry.table == "aicore_errcode":
        first = entry.code.strip("()").split(",")[0].strip()
        out += [first] if first not in ("0", "0x0") else []
        out += [entry.get("error_str")] if entry.get("error_str") else []
        return out
    return [*out, entry.code]


def _mentioned(needle: str, text: str) -> bool:
    pattern = rf"(?<![{_WORD}]){re.escape(needle)}(?![{_WORD}])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def to_dict(cov: Coverage) -> dict:
    """The coverage as JSON-ready data (``rules coverage --format json``)."""
    return {
        "rules": [{"id": r.id, "name": r.name, "category": r.category, "status": r.status,
                   "role": r.role, "cases": r.cases, "positive": r.positive,
                   "negative": r.negative, "covers": [f"row-{n}" for n in r.rows],
                   "problems": list(r.problems)} for r in cov.rules],
        "rows": [{"row": row, "name": name, "rules": list(ids)} for row, name, ids in cov.rows],
        "uncovered_rows": list(cov.uncovered_rows),
        "codes_available": cov.codes is not None,
        "codes_total": cov.codes_total,
        "codes_unmentioned": [{"table": g.table, "code": g.code, "meaning": g.meaning}
                              for g in cov.codes or ()],
        "code_tables": [{"table": t.table, "prefix": t.prefix, "in_source": t.in_source,
                         "in_table": t.in_table} for t in cov.tables],
        "categories_unused": list(cov.categories),
        "problems": list(cov.problems),
    }


def render_text(cov: Coverage) -> str:
    """The coverage as aligned plain text, section by section."""
    out = [f"RULES ({len(cov.rules)})"]
    table = [("ID", "STATUS", "ROLE", "CASES", "POS", "NEG", "CATEGORY", "COVERS", "CHECK")]
    table += [(r.id, r.status, r.role, str(r.cases), str(r.positive), str(r.negative),
               r.category, ",".join(str(n) for n in r.rows) or "-",
               "ok" if not r.problems else "MISSING " + "/".join(
                   w for w, p in (("positive", r.positive), ("negative", r.negative)) if not p))
              for r in cov.rules]
    out += _aligned(table, right={3, 4, 5})
    covered = len(cov.rows) - len(cov.uncovered_rows)
    out += ["", f"CATALOGUE ROWS (formats.md §7): {covered} of {len(cov.rows)} covered"]
    out += _aligned([(f"{row:>2}", ", ".join(ids) if ids else "NONE", name)
                     for row, name, ids in cov.rows])
    out.append("")
    if cov.tables:
        out.append("CODE TABLES: codes their public source defines, codes the table holds")
        out += _aligned([("TABLE", "PREFIX", "SOURCE", "TABLE", "")]
                        + [(t.table, t.prefix or "-", str(t.in_source), str(t.in_table), "")
                           for t in cov.tables], right={2, 3})
        out.append("")
    if cov.codes is None:
        out.append("CODES: the code tables (plogscan.codes) are not available; none listed")
    else:
        out.append(f"CODES NO RULE MENTIONS: {len(cov.codes)} of {cov.codes_total}")
        out += _aligned([(g.table, g.code, g.meaning) for g in cov.codes])
    out += ["", f"CATEGORIES NO RULE USES: {len(cov.categories)}"]
    out += [f"  {c}" for c in cov.categories]
    return "\n".join(out) + "\n"


def _aligned(rows: list[tuple[str, ...]], right: set[int] | None = None) -> list[str]:
    """Rows as columns two spaces apart; the last column is left ragged."""
    if not rows:
        return []
    right = right or set()
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row[:-1], widths, strict=True))]
        lines.append(("  " + "  ".join([*cells, row[-1]])).rstrip())
    return lines
