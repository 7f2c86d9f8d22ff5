"""The rule-case harness: ``<stem>.test.yaml`` files next to rules, run without pytest.

A case file names its rule and holds named cases; each case is one log excerpt (``log:`` and
an optional ``path:``) or several files (``files: [{path, log}]``) and the findings the rule
must produce (``expect:``; ``[]`` for none). ``engine.cases.run_case`` parses the excerpt
with the real parser, scans it with that one rule and hands the findings to ``compare``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from plogscan.catalog.ruleset import CASE_SUFFIX, rule_files
from plogscan.datafile.fields import Doc
from plogscan.datafile.located import DataFileError, LList, LMap, load_yaml, read_data_file
from plogscan.errors import Location, RuleError
from plogscan.model import Finding, Verdict

DEFAULT_PATH = "case.log"
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_CASE_KEYS = ("description", "path", "log", "files", "expect", "todo")
_EXPECT_KEYS = ("verdict", "lines", "captures", "missing", "pids", "hosts")


@dataclass(frozen=True)
class Expect:
    """One expected finding: its verdict and, optionally, evidence lines, captures, missing
    text (substrings), pids and hosts."""

    verdict: Verdict = Verdict.MATCH
    lines: tuple[int | str, ...] | None = None  # ints: line numbers; texts: "path:line"
    captures: tuple[tuple[str, str], ...] = ()
    missing: tuple[str, ...] = ()
    pids: tuple[int, ...] | None = None
    hosts: tuple[str, ...] | None = None

    def problems(self, f: Finding) -> list[str]:
        """Why finding ``f`` does not fit this expectation (empty when it does)."""
        out = []
        if f.verdict != self.verdict:
            out.append(f"verdict {f.verdict.value}, expected {self.verdict.value}")
        if self.lines is not None:
            got = _lines(f, all(isinstance(x, int) for x in self.lines))
            want = sorted({str(x) for x in self.lines}, key=_natural)
            if got != want:
                out.append(f"evidence lines {got}, expected {want}")
        caps = dict(f.captures)
        for name, value in self.captures:
            if caps.get(name) != value:
                out.append(f"capture {name}={caps.get(name)!r}, expected {value!r}")
        text = "\n".join(f.missing)
        out.extend(f"missing text lacks {s!r}" for s in self.missing if s not in text)
        if self.pids is not None and tuple(sorted(self.pids)) != f.scope.pids:
            out.append(f"pids {list(f.scope.pids)}, expected {sorted(self.pids)}")
        if self.hosts is not None and tuple(sorted(self.hosts)) != f.scope.hosts:
            out.append(f"hosts {list(f.scope.hosts)}, expected {sorted(self.hosts)}")
        return out


@dataclass(frozen=True)
class Case:
    """One named case of one rule."""

    rule: str
    name: str
    files: tuple[tuple[str, str], ...]
    expect: tuple[Expect, ...]
    where: Location
    todo: str | None = None

    @property
    def id(self) -> str:
        return f"{self.rule}::{self.name}"

    @property
    def positive(self) -> bool:
        return any(e.verdict == Verdict.MATCH for e in self.expect)

    @property
    def negative(self) -> bool:
        return not self.expect


@dataclass(frozen=True)
class CaseResult:
    case: Case
    passed: bool
    problems: tuple[str, ...]
    findings: tuple[Finding, ...] = ()


def case_files(paths: Iterable[str | Path]) -> list[Path]:
    """Case files for the given rule files/directories (a case file may also be named)."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_file() and path.name.endswith(CASE_SUFFIX):
            out.append(path)
        elif path.is_file():
            sibling = path.with_name(path.name.rsplit(".", 1)[0] + CASE_SUFFIX)
            out.extend([sibling] if sibling.is_file() else [])
        elif path.is_dir():
            out.extend(sorted(p for p in path.rglob("*" + CASE_SUFFIX) if p.is_file()))
        else:
            rule_files([path])  # raises the located "no such file" error
    return sorted(set(out))


def load_cases(path: Path, display: str | None = None) -> tuple[list[Case], list[RuleError]]:
    """The cases of one case file and every error found in it."""
    doc = Doc(display or str(path))
    try:
        data = load_yaml(read_data_file(path), doc.path)
    except RuleError as err:
        return [], [err]
    except (OSError, DataFileError) as err:
        return [], [RuleError(f"cannot read case file: {err}", where=Location(doc.path))]
    top = doc.mapping(data, getattr(data, "line", 1), "a case file")
    if top is None:
        return [], doc.errors
    doc.keys(top, "case file", ("rule", "cases"), ("rule", "cases"))
    rule = doc.text(top, "rule", "case file")
    cases = None
    if "cases" in top:
        cases = doc.mapping(top["cases"], top.value_lines["cases"], "'cases'")
    out: list[Case] = []
    if cases is not None and not cases:
        doc.error("'cases' is empty", top.value_lines["cases"], help="add named cases, each "
                  "with 'log' (or 'files') and 'expect'")
    for name, value in (cases or {}).items():
        case = _case(doc, str(rule), name, value, cases.key_lines[name])  # type: ignore[union-attr]
        if case is not None:
            out.append(case)
    return (out if rule else []), doc.errors


def _case(doc: Doc, rule: str, name: str, value: object, line: int) -> Case | None:
    m = doc.mapping(value, line, f"case '{name}'")
    if m is None:
        return None
    before = len(doc.errors)
    if not _NAME.fullmatch(name):
        doc.error(f"invalid case name '{name}'", line,
                  help="letters, digits, '_', '-' and '.', e.g. fires_when_fault_follows_reuse")
    doc.keys(m, f"case '{name}'", _CASE_KEYS, ("expect",))
    files: list[tuple[str, str]] = []
    if ("log" in m) == ("files" in m):
        doc.error(f"case '{name}' needs exactly one of 'log' and 'files'", m.line)
    elif "log" in m:
        files.append((doc.text(m, "path", "case") or DEFAULT_PATH, _log(doc, m, "log")))
    else:
        items = m["files"]
        pairs = zip(items, items.item_lines, strict=True) if isinstance(items, LList) else ()
        for item, ln in pairs:
            f = doc.mapping(item, ln, "an entry of 'files'")
            if f is not None:
                doc.keys(f, "an entry of 'files'", ("path", "log"), ("path", "log"))
                files.append((doc.text(f, "path", "file") or DEFAULT_PATH, _log(doc, f, "log")))
        if not isinstance(items, LList) or not items:
            doc.error("'files' must be a non-empty list of {path, log}", m.value_lines["files"])
    expect = _expects(doc, m)
    todo = doc.text(m, "todo", "case")
    if len(doc.errors) > before or expect is None:
        return None
    return Case(rule, name, tuple(files), expect, Location(doc.path, line), todo)


def _log(doc: Doc, m: LMap, key: str) -> str:
    value = m.get(key)
    if not isinstance(value, str):
        doc.error(f"'{key}' must be log text (use 'log: |')", m.value_lines.get(key, m.line))
        return ""
    return value


def _expects(doc: Doc, m: LMap) -> tuple[Expect, ...] | None:
    items = m.get("expect")
    if not isinstance(items, LList):
        doc.error("'expect' must be a list of expected findings ([] for none)",
                  m.value_lines.get("expect", m.line))
        return None
    out = []
    for item, line in zip(items, items.item_lines, strict=True):
        e = doc.mapping(item, line, "an expected finding")
        if e is None:
            continue
        doc.keys(e, "an expected finding", _EXPECT_KEYS)
        verdict = doc.choice(e, "verdict", "expected finding", [v.value for v in Verdict])
        lines = e.get("lines")
        if lines is not None and not (isinstance(lines, LList) and all(
                isinstance(x, int | str) and not isinstance(x, bool) for x in lines)):
            doc.error("'lines' must be a list of line numbers or 'path:line' texts", line)
            lines = None
        caps = doc.mapping(e["captures"], e.value_lines["captures"], "'captures'") \
            if "captures" in e else LMap()
        pids = e.get("pids")
        out.append(Expect(
            Verdict(verdict or "match"), tuple(lines) if lines is not None else None,
            tuple(sorted((str(k), str(v)) for k, v in (caps or {}).items())),
            doc.text_list(e, "missing", "expected finding") or (),
            tuple(pids) if isinstance(pids, LList) else None,
            doc.text_list(e, "hosts", "expected finding"),
        ))
    return tuple(out)


def compare(case: Case, findings: Iterable[Finding]) -> CaseResult:
    """``findings`` (the case's rule alone, scanned over its excerpt) against ``expect``: each
    expected finding takes the first finding that fits it, and none may be left over."""
    findings = tuple(findings)
    left = list(findings)
    problems: list[str] = []
    for i, expect in enumerate(case.expect, 1):
        fit = next((f for f in left if not expect.problems(f)), None)
        if fit is not None:
            left.remove(fit)
        else:
            why = expect.problems(left[0]) if left else ["no finding left"]
            problems.append(f"expected finding {i} not found: " + "; ".join(why))
    problems.extend(f"unexpected finding: {describe(f)}" for f in left)
    return CaseResult(case, not problems, tuple(problems), findings)


def describe(f: Finding) -> str:
    """A one-line summary of a finding, for test output."""
    return f"{f.rule} {f.verdict.value} lines {_lines(f, False)}"


def _lines(f: Finding, bare: bool) -> list[str]:
    got = {str(e.line) if bare else f"{e.path}:{e.line}" for e in f.evidence}
    return sorted(got, key=_natural)


def _natural(text: str) -> tuple:
    head, _, tail = text.rpartition(":")
    return (head, int(tail)) if tail.isdigit() else (text, 0)
