"""``plogscan diagnose`` on log excerpts as users paste them into public bug reports: every one
gives a report (or a clean refusal, never a crash), and the failure class its label accepts is
found, and found on top, on at least as many as the floors below.

The excerpts live outside the repository (``shared/corpus/issues`` and ``issues2`` beside the
checkout, or ``$PLOGSCAN_PASTED_CORPUS`` and ``$PLOGSCAN_PASTED_CORPUS2``, see
``tests/corpus_path.py``); they are never copied in. Without them these tests are reported as
skipped. The scoring is the census of ``plogscan rules coverage --corpus`` (``plogscan.cli.
census``): a label lists the accepted classes, first the expected one (``labels-*.json``), or
names one class in ``MANIFEST-*.md``; ``null`` and ``other: ...`` labels are not scored, but
their excerpts are diagnosed too. For the four ``other:`` excerpts of ``issues``, ``OTHER``
below names the categories that fit.

The figures: ``python -m tests.e2e.test_corpus_pastes`` prints each census and the totals.
"""

from __future__ import annotations

import json
import sys
from functools import cache

import pytest
from click.testing import CliRunner

from plogscan.catalog import load_rules
from plogscan.catalog.categories import CATEGORIES
from plogscan.cli import cli
from plogscan.cli.census import (
    Census,
    diagnose_excerpt,
    render_text,
    take_census,
    unknown_classes,
)
from tests.corpus_path import pasted_corpus_dirs

CORPORA = pasted_corpus_dirs()
SKIP = pytest.mark.skipif(not CORPORA, reason="pasted-log corpora (shared/corpus/issues, "
                          "issues2) not beside the checkout")

# Floors: excerpts read, and scored excerpts whose class is on top / among the findings. Raise
# them as diagnosis improves; never lower them to let a change through.
FLOORS: dict[str, dict[str, int]] = {
    "issues": {"read": 40, "top": 36, "among": 36},
    "issues2": {"read": 88, "top": 80, "among": 80},
}
# Excerpt of ``issues`` -> the categories that fit its "other: ..." label.
OTHER: dict[str, frozenset[str]] = {
    "I07": frozenset({"driver-error"}),  # peer-to-peer enable refused by the driver
    "I15": frozenset({"job-config"}),  # serving configuration rejected at start-up
    "I19": frozenset({"acl-graph"}),  # captured graph replay failed
    "I23": frozenset({"acl-graph"}),  # synchronize inside a captured stream
}


@cache
def census(name: str) -> Census:
    rules = load_rules()
    return take_census(CORPORA[name], lambda path: diagnose_excerpt(path, rules), name=name)


def _present() -> list[str]:
    return sorted(CORPORA) or ["issues"]  # a name to report as skipped when none is present


def _misses(result: Census, wanted: str) -> str:
    rows = [r for r in result.rows if r.scored and not getattr(r, wanted)]
    return render_text([Census(result.name, result.directory, tuple(rows))])


@SKIP
@pytest.mark.parametrize("name", _present())
def test_every_excerpt_is_labelled_with_categories(name: str) -> None:
    result = census(name)
    assert result.problems == ()
    assert all(r.label is not None for r in result.rows), [r.name for r in result.rows
                                                           if r.label is None]
    # Every class a label names is a category: a typo would otherwise never score.
    assert not unknown_classes([result]), sorted(unknown_classes([result]))


@SKIP
@pytest.mark.parametrize("name", _present())
def test_every_excerpt_gives_a_report_or_a_clean_refusal(name: str) -> None:
    result = census(name)
    crashed = [f"{r.name}: {r.outcome.refusal}" for r in result.rows if r.outcome.crashed]
    assert not crashed, "\n".join(crashed)
    refused = [f"{r.name}: {r.outcome.refusal}" for r in result.rows if not r.outcome.read]
    assert result.counts()["read"] >= FLOORS[name]["read"], "\n".join(refused)


@SKIP
@pytest.mark.parametrize("name", _present())
def test_the_labelled_class_is_found(name: str) -> None:
    result = census(name)
    assert result.counts()["among"] >= FLOORS[name]["among"], _misses(result, "among")


@SKIP
@pytest.mark.parametrize("name", _present())
def test_the_labelled_class_is_the_top_finding(name: str) -> None:
    result = census(name)
    assert result.counts()["top"] >= FLOORS[name]["top"], _misses(result, "top")


@pytest.mark.skipif("issues" not in CORPORA, reason="shared/corpus/issues not present")
@pytest.mark.parametrize("number", sorted(OTHER))
def test_an_excerpt_labelled_other_gets_a_fitting_finding(number: str) -> None:
    row = next(r for r in census("issues").rows if r.name.startswith(number + "_"))
    assert row.label is not None and row.label.accepted == frozenset()  # "other: ..." only
    assert set(row.outcome.categories) & OTHER[number], row.outcome


@SKIP
def test_the_census_command_gives_the_same_figures() -> None:
    names = sorted(CORPORA)
    args = [arg for name in names for arg in ("--corpus", str(CORPORA[name]))]
    run = CliRunner().invoke(cli, ["rules", "coverage", *args, "--format", "json"])
    assert run.exit_code == 0, run.output
    report = json.loads(run.stdout)
    assert [c["counts"] for c in report["corpora"]] == [census(n).counts() for n in names]


def test_the_fitting_categories_are_categories() -> None:
    assert all(c in CATEGORIES for fit in OTHER.values() for c in fit)


def main() -> int:
    """Print each census and the totals (the tests assert the floors)."""
    if not CORPORA:
        print("pasted-log corpora not found (shared/corpus/issues, issues2 beside the checkout)")
        return 2
    print(render_text([census(name) for name in sorted(CORPORA)]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
