"""``plogscan diagnose`` on log excerpts as users paste them into public bug reports: every one
is read, and the failure class its MANIFEST names is found, and found on top, on most of them.

The excerpts live outside the repository (``shared/corpus/issues`` beside the checkout, or
``$PLOGSCAN_PASTED_CORPUS``, see ``tests/corpus_path.py``); they are never copied in. Without
them these tests are reported as skipped. Each excerpt is labelled in ``MANIFEST-*.md`` with one
class of the taxonomy, or with ``other: <description>`` where the taxonomy had none; for those
``OTHER`` below names the categories that fit.

The figures: ``python -m tests.test_corpus_pastes`` prints one line per excerpt and the totals.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.categories import CATEGORIES
from plogscan.cli import cli
from tests.corpus_path import pasted_corpus_dir

CORPUS = pasted_corpus_dir()
SKIP = pytest.mark.skipif(CORPUS is None,
                          reason="pasted-log corpus (shared/corpus/issues) not beside the checkout")
FILES = sorted(CORPUS.glob("*.log")) if CORPUS else []

# Targets: every excerpt read; of those labelled with a class of the taxonomy, the class is
# among the findings on FOUND and is the top finding on TOP of them.
FOUND = 33
TOP = 31
# Excerpt number -> the categories that fit an excerpt labelled "other: ...".
OTHER: dict[str, frozenset[str]] = {
    "07": frozenset({"driver-error"}),  # peer-to-peer enable refused by the driver
    "15": frozenset({"job-config"}),  # serving configuration rejected at start-up
    "19": frozenset({"acl-graph"}),  # captured graph replay failed
    "23": frozenset({"acl-graph"}),  # synchronize inside a captured stream
}


@dataclass(frozen=True)
class Result:
    """What ``diagnose`` made of one excerpt."""

    name: str
    label: str  # the MANIFEST class, or "other: ..."
    read: bool
    categories: tuple[str, ...]  # of the findings, in report order
    rules: tuple[str, ...]
    error: str = ""

    @property
    def wanted(self) -> frozenset[str]:
        if self.label.startswith("other:"):
            return OTHER.get(self.name[1:3], frozenset())
        return frozenset({self.label})

    @property
    def found(self) -> bool:
        return bool(self.wanted & set(self.categories))

    @property
    def top(self) -> bool:
        return bool(self.categories) and self.categories[0] in self.wanted

    def line(self) -> str:
        verdict = ("top" if self.top else "found" if self.found else "MISS") if self.read \
            else "NOT READ"
        pairs = zip(self.rules, self.categories, strict=True)
        shown = ", ".join(f"{r}:{c}" for r, c in pairs)[:150]
        return f"{self.name[:3]} {self.label[:30]:30} {verdict:8} {shown or self.error}"


def labels() -> dict[str, str]:
    """Excerpt file name -> the class its MANIFEST entry names (first code span of the
    "Expected diagnosis" line)."""
    assert CORPUS is not None
    out: dict[str, str] = {}
    for manifest in sorted(CORPUS.glob("MANIFEST*.md")):
        parts = re.split(r"(?m)^## (\S+\.log)\s*$", manifest.read_text(encoding="utf-8"))
        for name, entry in zip(parts[1::2], parts[2::2], strict=True):
            line = next(ln for ln in entry.splitlines() if "Expected diagnosis" in ln)
            out[name] = re.search(r"`([^`]+)`", line).group(1)  # type: ignore[union-attr]
    return out


def _diagnose(path: Path, label: str) -> Result:
    run = CliRunner().invoke(cli, ["diagnose", str(path), "--format", "json", "--quiet",
                                   "--lang", "en", "--fail-on", "never"])
    if run.exit_code != 0:
        return Result(path.name, label, False, (), (), (run.stderr or run.output).strip()[:200])
    findings = json.loads(run.stdout)["findings"]
    return Result(path.name, label, True, tuple(f["category"] for f in findings),
                  tuple(f["rule"] for f in findings))


@cache
def results() -> tuple[Result, ...]:
    names = labels()
    return tuple(_diagnose(path, names[path.name]) for path in FILES)


def _classed() -> list[Result]:
    return [r for r in results() if not r.label.startswith("other:")]


def _table(rows: list[Result]) -> str:
    return "\n".join(r.line() for r in rows)


@SKIP
def test_every_excerpt_has_a_label_of_the_taxonomy_or_other() -> None:
    names = labels()
    assert sorted(names) == [p.name for p in FILES]
    for name, label in names.items():
        if label.startswith("other:"):
            assert name[1:3] in OTHER, f"{name}: no fitting categories named for '{label}'"
        else:
            assert label in CATEGORIES, f"{name}: '{label}' is not a category"
    assert all(c in CATEGORIES for fit in OTHER.values() for c in fit)


@SKIP
def test_every_excerpt_is_read() -> None:
    refused = [r for r in results() if not r.read]
    assert not refused, _table(refused)


@SKIP
def test_the_labelled_class_is_found() -> None:
    rows = _classed()
    found = sum(r.found for r in rows)
    assert found >= FOUND, f"class found on {found} of {len(rows)}:\n" + _table(
        [r for r in rows if not r.found])


@SKIP
def test_the_labelled_class_is_the_top_finding() -> None:
    rows = _classed()
    top = sum(r.top for r in rows)
    assert top >= TOP, f"class on top on {top} of {len(rows)}:\n" + _table(
        [r for r in rows if not r.top])


@SKIP
@pytest.mark.parametrize("number", sorted(OTHER))
def test_an_excerpt_labelled_other_gets_a_fitting_finding(number: str) -> None:
    row = next(r for r in results() if r.name[1:3] == number)
    assert row.found, row.line()


def main() -> int:
    """Print one line per excerpt and the figures (the tests assert the targets)."""
    if CORPUS is None:
        print("pasted-log corpus not found (shared/corpus/issues beside the checkout)")
        return 2
    rows = list(results())
    print(_table(rows))
    classed = _classed()
    other = [r for r in rows if r.label.startswith("other:")]
    print(f"read {sum(r.read for r in rows)}/{len(rows)}; of {len(classed)} labelled with a "
          f"class: found {sum(r.found for r in classed)}, top {sum(r.top for r in classed)}; "
          f"'other' with a fitting finding: {sum(r.found for r in other)}/{len(other)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
