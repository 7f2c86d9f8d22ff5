"""A literal that only alternatives with a pattern beside it ask for keeps a record only with
that pattern (``engine.narrowing``): the selector still keeps every record a rule's condition
accepts, on parsed records and in the skim, and drops the records that hold the word alone."""

from __future__ import annotations

from functools import cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from plogscan.catalog import load_rules
from plogscan.catalog.rule import RuleSet
from plogscan.catalog.ruleset import builtin_rules_dir, rule_from_text
from plogscan.catalog.testing import case_files, load_cases
from plogscan.crossrank.patterns import PREFILTER
from plogscan.engine import selector
from plogscan.engine.cases import parse_case
from plogscan.engine.predicates import evaluate
from plogscan.engine.selector import Selector
from plogscan.ingest.chunks import Chunk, parse_task
from plogscan.ingest.textinput import parse_text
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.literals import DistinctTexts
from plogscan.parse.results import FileContext

RULES = load_rules([])
SELECTOR = Selector(RULES, extra_regexes=(PREFILTER,))
FSET = builtin_formats()
CTX = FileContext(path="/logs/worker-0/plog/plog-4127_1.log", kind="plog", host="worker-0",
                  rank=0)
HEAD = "[DEBUG] {module}(4127,python3):2026-03-14-10:21:{s:02d}.478.330 [x.cc:1] [4127]"
PLAIN = HEAD.format(module="GE", s=1) + "UpdateTensorDesc: tensor desc updated"


@cache
def _cases() -> list:
    found = []
    for path in case_files([builtin_rules_dir()]):
        cases, errors = load_cases(path)
        assert not errors
        found.extend(cases)
    return found


def test_the_built_in_rules_have_narrowed_alternatives() -> None:
    words = {text for alt in SELECTOR.narrowed for text in alt.literals}
    assert {"heartbeat", "page fault"} <= words


@pytest.mark.parametrize("index", range(len(_cases())))
def test_every_record_a_rule_condition_accepts_is_kept(index: int) -> None:
    """Over the log of every rule case: the rows each condition of each built-in rule
    accepts are among the rows the selector keeps."""
    table = parse_case(_cases()[index])
    if table.num_rows == 0:
        return
    batch = table.combine_chunks().to_batches()[0]
    kept = SELECTOR.keep(table)
    for rule in RULES:
        for role, cond in rule.roles():
            missed = np.flatnonzero(evaluate(cond, batch) & ~kept)
            assert len(missed) == 0, (rule.id, role, batch.column("message")[missed[0]])


def _kept_messages(lines: list[str], rules: RuleSet = RULES) -> list[str]:
    """The messages the selector of ``rules`` keeps of ``lines``, the same skimmed and parsed
    whole."""
    chunk = Chunk("\n".join(lines).encode(), 1, False)
    skimmed = parse_task(chunk, CTX, FSET, reducer=Selector(rules, extra_regexes=(PREFILTER,)))
    whole = parse_task(chunk, CTX, FSET,
                       reducer=Selector(rules, extra_regexes=(PREFILTER,), skim=False))
    assert skimmed.result.records.equals(whole.result.records)
    assert skimmed.facts.equals(whole.facts)
    return skimmed.result.records.column("message").to_pylist()


@pytest.mark.parametrize(("message", "kept"), [
    ("heartbeat frame sent to rank[7], seq[80256]", False),  # the word alone
    ("tsdclient heartbeat lost for 3 s", True),  # with the heartbeat-lost pattern
    ("svm page fault at 0x1000", True),
    ("page fault at 0x1000", False),
])
def test_a_narrowed_literal_keeps_its_record_only_with_the_pattern(message: str,
                                                                    kept: bool) -> None:
    lines = [PLAIN] * 5 + [HEAD.format(module="HCCL", s=2) + message] + [PLAIN] * 5
    assert (message in _kept_messages(lines)) == kept


RULE = """\
id: TST902
name: test.narrowed
title: Test rule
category: ccu-exception
level: error
description: 'Test.'
remediation: [Nothing to do.]
match:
  message|contains: 'trap'
  message|re: '(?s)^core \\d+ fault.*\\btrap\\b'
"""


@pytest.mark.parametrize(("message", "kept"), [
    ("core 3 fault\n    then a trap", True),  # the pattern spans the record's two lines
    ("core 3 fault\n    then a trapdoor", False),  # its loosened form matches: parsed, dropped
    ("a trap\n    core 3 fault", False),
    ("core 3 fault", False),
])
def test_the_skim_tests_a_narrowed_pattern_on_the_whole_record(message: str,
                                                               kept: bool) -> None:
    rules = RuleSet((rule_from_text(RULE),))
    assert Selector(rules).narrowed
    lines = [PLAIN] * 5 + [HEAD.format(module="HCCL", s=2) + message] + [PLAIN] * 5
    assert (message in _kept_messages(lines, rules)) == kept


def test_a_record_with_a_plain_literal_too_is_kept_by_it() -> None:
    """A literal some alternative asks for alone keeps the record whatever else it holds."""
    message = "heartbeat frame sent, Already have context, skip create"
    lines = [PLAIN] * 3 + [HEAD.format(module="HCCL", s=2) + message] + [PLAIN] * 3
    assert message in _kept_messages(lines)


def test_rows_of_non_ascii_text_are_decided_by_the_literal() -> None:
    """Hyperscan folds ASCII case only, so non-ASCII rows are decided by RE2 on the
    literals: a superset of the narrowed test."""
    lines = [HEAD.format(module="HCCL", s=2) + text
             for text in ("心跳 heartbeat frame", "heartbeat frame")]
    table = parse_text("\n".join(lines), path=CTX.path)
    assert SELECTOR.candidates(table).tolist() == [True, False]


def test_repeated_messages_are_decided_once_each_as_row_by_row() -> None:
    """The selector tests each distinct message once when messages repeat (log lines do):
    its candidates and kept records are those of a test of every row, over the messages of
    every rule case repeated, non-ASCII and narrowed ones among them."""
    tables = [parse_case(case) for case in _cases()]
    table = pa.concat_tables([t.select(tables[0].column_names) for t in tables
                              if t.num_rows and t.schema.equals(tables[0].schema)])
    rows = np.concatenate([np.arange(table.num_rows)] * 3)
    repeated = table.take(pa.array(rows))
    assert 2 * len(pc.unique(repeated.column("message"))) <= repeated.num_rows
    keep, candidates = SELECTOR.keep_and_candidates(repeated)
    with pytest.MonkeyPatch.context() as patch:  # every row is its own value
        patch.setattr(selector, "distinct_texts", DistinctTexts)
        row_keep, row_candidates = SELECTOR.keep_and_candidates(repeated)
    assert candidates is not None and candidates.any() and not candidates.all()
    assert np.array_equal(candidates, row_candidates)
    assert np.array_equal(keep, row_keep)
