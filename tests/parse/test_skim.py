"""Skimming a chunk before parsing gives what parsing it whole and reducing it gives: the same
kept records, facts, line accounting and head, on lines of every shape the skim must not
skip, and the same diagnosis end to end."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from plogscan.catalog import load_rules
from plogscan.catalog.rule import RuleSet
from plogscan.catalog.ruleset import rule_from_text
from plogscan.crossrank.patterns import PREFILTER
from plogscan.engine.selector import Selector
from plogscan.ingest.chunks import Chunk, clean, parse_task
from plogscan.ingest.skimming import picked_text, skimmed_parse
from plogscan.parse import compiled
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.results import FileContext
from plogscan.parse.skimtext import skim_text
from plogscan.parse.superset import superset_regex
from plogscan.report import render
from tests.helpers import SAMPLES_DIR, dense_plogs, diagnosed, generated_tree

SAMPLES = SAMPLES_DIR
FSET = builtin_formats()
CTX = FileContext(path="/logs/worker-3/plog/plog-4100_1.log", kind="plog", host="worker-3",
                  rank=3, device=None)
RULES = load_rules([])
SKIM = Selector(RULES, extra_regexes=(PREFILTER,))
WHOLE = Selector(RULES, extra_regexes=(PREFILTER,), skim=False)


def head(level: str = "DEBUG", module: str = "GE", pid: str = "4100", proc: str = "python3",
         ts: str = "2026-02-03-10:00:01.000.100", sep: str = "") -> str:
    return f"[{level}] {module}({pid},{proc}):{sep}{ts} [graph.cc:12]4101 "


PLAIN = head() + "UpdateTensorDesc: tensor desc updated, name=MatMul_1:0"
# Lines the skim must leave to the parser (each with plain lines around it).
SPECIAL = {
    "continuation": "    node[0] name=MatMul_1 type=MatMul stream=12",
    "continuation-with-literal": "    Already have context, skip create, ctxSize is 2",
    "blank": "",
    "spaces": "   \t",
    "rule literal": head(module="HCCL") + "Already have context, skip create, ctxSize is 6",
    "literal in other case": head(module="HCCL") + "already HAVE context, skip create",
    "regex rule": head() + "task failed with code 507916 on stream 3",
    "narrowed literal alone": head(module="HCCL") + "heartbeat frame sent to rank[7], seq[8]",
    "narrowed literal and pattern": head(module="HCCL") + "tsdclient heartbeat lost for 3 s",
    "cross-rank anchor": head(module="HCCL") + "HCCL_CONNECT_TIMEOUT set by environment to [50]s",
    "error": head("ERROR", "RUNTIME") + "GetError: Stream Synchronize failed, ErrCode=507916",
    "warning": head("WARNING") + "memory nearly full",
    "event": head("EVENT", "IMP") + "[IMP] present 1",
    "numeric level": head("1") + "numeric level record",
    "code at INFO": head("INFO") + "ret=507899 while loading",
    "glued": PLAIN + head("ERROR", "HCCL") + "glued record after a lost newline",
    "proc with bracket": head(proc="py[3]") + "proc holds a bracket",
    "long pid": head(pid="1234567890123456789012") + "pid too long for int64",
    "negative pid": head(pid="-2") + "negative pid",
    "space before time": head(sep=" ") + "a space after the colon",
    "space in time": head(ts="2026-02-03 10:00:01.000.100") + "a space inside the timestamp",
    "invalid date": head(ts="2026-13-45-10:00:01.000.100") + "month thirteen",
    "epoch clock": head(ts="1970-01-01-00:00:07.000.100") + "device clock never set",
    "bad time": head(ts="2026-02-03-10:00:01.000.10x") + "not a timestamp",
    "non-ascii": head() + "消息 with Unicode text",
    "kelvin": head() + "\u212aelvin sign folds to k",
    "long line": head() + "x" * 1200,
    "pta line": "[ERROR] 2026-02-03-10:00:03 (PID:4100, Device:0, RankID:1) ERR00100 PTA call",
    "traceback": "Traceback (most recent call last):",
    "exception": "RuntimeError: npuSynchronizeDevice failed, error code is 507916",
    "progress": "  45%|####      | 45/100 [00:10<00:12]",
    "unparsed text": "some text that no format matches",
    "torchrun prefix": "[rank3]: " + head() + "inside a rank prefix",
    # a table printed row by row, and one at a level the skim skips
    "table title": head("ERROR", "HCCL") + "  _______LINK_ERROR_INFO_______",
    "table row": head("ERROR", "HCCL") + "  |  10.0.0.2(1)  |  10.0.0.1(0)  |  client  | time out|",
    "table ruler": head("ERROR", "HCCL") + "  |------------|------------|",
    "table end": head("ERROR", "HCCL") + "  ____________________________",
    "quiet table title": head("INFO", "HCCL") + "  _______LINK_ERROR_INFO_______",
    "quiet table row": head("INFO", "HCCL") + "  |  10.0.0.2(1)  |  server  |",
    "error-manager title": "EZ9999: Inner Error!",
    "error-manager block": "EZ9999[PID: 4100] 2026-02-03-10:00:04.000.001 (EZ9999):  The error",
}


def _lines(special: str, count: int = 12) -> list[str]:
    lines = [PLAIN.replace("10:00:01", f"10:00:{i:02d}") for i in range(count)]
    lines[count // 2] = SPECIAL[special]
    return lines


def _both(text: str, first_line: int = 1, open_record: bool = False):
    chunk = Chunk(text.encode(), first_line, open_record)
    skimmed = parse_task(chunk, CTX, FSET, reducer=SKIM)
    whole = parse_task(chunk, CTX, FSET, reducer=WHOLE)
    return skimmed, whole


def assert_same(skimmed, whole) -> None:
    a, b = skimmed.result, whole.result
    assert a.records.equals(b.records)
    assert skimmed.facts.equals(whole.facts)
    assert (skimmed.dropped_records, skimmed.dropped_lines) == (whole.dropped_records,
                                                                whole.dropped_lines)
    for name in ("lines", "blank_lines", "trailing_blank", "unparsed_lines", "shared_lines",
                 "truncated_lines", "invalid_timestamps", "epoch_records"):
        assert getattr(a, name) == getattr(b, name), name
    assert a.head == b.head


def _skims(text: str) -> bool:
    return skimmed_parse(text.encode(), 1, CTX, FSET, False, False, SKIM) is not None


@pytest.mark.parametrize("special", sorted(SPECIAL))
def test_a_line_of_every_shape_among_plain_ones(special: str) -> None:
    text = "\n".join(_lines(special))
    assert _skims(text)  # the plain records around it are skipped
    assert_same(*_both(text))


@pytest.mark.parametrize("open_record", [False, True])
@pytest.mark.parametrize("top", ["continuation", "blank", "unparsed text"])
def test_chunks_that_start_inside_a_record(top: str, open_record: bool) -> None:
    text = "\n".join([SPECIAL[top], SPECIAL[top], *_lines("continuation")])
    assert_same(*_both(text, first_line=501, open_record=open_record))


def test_skipped_records_are_counted_and_summarized() -> None:
    text = "\n".join(_lines("rule literal", count=40))
    skimmed, whole = _both(text)
    assert skimmed.dropped_records == 38  # all but the rule's record and the last one
    assert sum(skimmed.facts.column("records").to_pylist()) == 40
    assert_same(skimmed, whole)


def test_a_section_header_keeps_the_chunk_whole() -> None:
    text = "\n".join(["==> worker-0/plog-1.log <==", *_lines("continuation")])
    assert not _skims(text)
    assert_same(*_both(text))


RULE = """\
id: TST901
name: test.by-number
title: Test rule
category: ccu-exception
level: error
description: 'Test.'
remediation: [Nothing to do.]
match: {match}
"""


@pytest.mark.parametrize(("match", "raw"), [
    ("{message|re: '\\bstep \\d+\\b'}", True),
    ("{module|eq: HCCL}", True),
    ("{level|eq: ERROR}", True),
    ("{codes|eq: '507916'}", True),
    ("{path|contains: 'worker-3'}", False),
    ("{src_line|gte: 10}", False),
])
def test_rules_the_raw_text_cannot_show_turn_the_skim_off(match: str, raw: bool) -> None:
    rules = RuleSet((rule_from_text(RULE.format(match=match)),))
    selector = Selector(rules)
    assert (selector._raw is not None) == raw
    text = "\n".join(_lines("continuation"))
    assert (skimmed_parse(text.encode(), 1, CTX, FSET, False, False, selector) is not None) == raw
    chunk = Chunk(text.encode(), 1, False)
    assert_same(parse_task(chunk, CTX, FSET, reducer=selector),
                parse_task(chunk, CTX, FSET, reducer=Selector(rules, skim=False)))


SHAPES = st.lists(st.sampled_from(sorted(SPECIAL) + ["plain"] * 8), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(shapes=SHAPES, open_record=st.booleans())
# Arrow's grouping gave these facts in another order than their lines (INFO GE, DEBUG GE,
# DEBUG HCCL) when the chunk was parsed whole, and in line order when it was skimmed.
@example(shapes=["code at INFO", "cross-rank anchor", "epoch clock"], open_record=False)
def test_any_mix_of_shapes(shapes: list[str], open_record: bool) -> None:
    lines = [PLAIN.replace("10:00:01", f"10:00:{i % 60:02d}") if s == "plain" else SPECIAL[s]
             for i, s in enumerate(shapes)]
    assert_same(*_both("\n".join(lines), first_line=7, open_record=open_record))


@pytest.mark.parametrize(("pattern", "kept"), [
    (r"\b50791[56]\b", "50791[56]"),
    (r"^Already have", "Already have"),
    (r"end of it$", "end of it"),
    (r"[^a-z]x\bq", "[^a-z]xq"),
    (r"[]^$]x", "[]^$]x"),
    (r"[\b]x", r"[\b]x"),
    (r"(?P<code>\d+) failed", r"(?:\d+) failed"),
    (r"(?i)^(?:timeout|trap)\b", "(?i)(?:timeout|trap)"),
    (r"[[:alpha:]^]+$", "[[:alpha:]^]+"),
])
def test_superset_regex_drops_only_assertions(pattern: str, kept: str) -> None:
    assert superset_regex(pattern) == kept


@pytest.mark.parametrize("pattern", [r"\Qa.b\E", "^$", r"\b", "[abc"])
def test_superset_regex_refuses_what_it_cannot_take_apart(pattern: str) -> None:
    assert superset_regex(pattern) is None


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="ab 5079\n", max_size=30),
       pattern=st.sampled_from([r"\ba\b", r"^ab", r"b$", r"\B5", r"^a.b$", r"(?m)^b"]))
def test_superset_regex_matches_wherever_the_original_does(text: str, pattern: str) -> None:
    loose = superset_regex(pattern)
    assert loose is not None
    if re.search(pattern, text):
        assert re.search(loose, text)


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir() if p.is_dir()))
def test_samples_give_the_same_diagnosis(sample: str) -> None:
    paths = [str(SAMPLES / sample)]
    assert render(diagnosed(paths), "json") == render(diagnosed(paths, skim=False), "json")


def test_a_generated_debug_heavy_tree_gives_the_same_diagnosis(tmp_path: Path) -> None:
    paths = [str(generated_tree(tmp_path / "tree", seed=3, size=6 << 20, reuse_share=0.06))]
    skimmed, whole = diagnosed(paths), diagnosed(paths, skim=False)
    assert skimmed.inputs.files and skimmed.findings
    assert render(skimmed, "json") == render(whole, "json")


def test_a_selector_sent_to_a_worker_reuses_the_compiled_database() -> None:
    import pickle

    from plogscan.parse.literals import LiteralScanner

    text = "\n".join(_lines("rule literal")).encode()
    selector = Selector(RULES, extra_regexes=(PREFILTER,))
    hits = list(selector.raw_hits(text).ends)
    copy = pickle.loads(pickle.dumps(selector))  # what a worker process receives with a task
    assert list(copy.raw_hits(text).ends) == hits
    assert copy._raw_scanner is selector._raw_scanner  # compiled once per process
    assert LiteralScanner.build(("abc",)) is LiteralScanner.build(("abc",))


@contextmanager
def _python_path() -> Iterator[None]:
    """Within it, the C module counts as not built (``compiled.native`` is None)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled, "native", None)
        yield


def assert_skimmed_alike(data: bytes, selector: Selector = SKIM, first_line: int = 7) -> bool:
    """The C module's skim of ``data`` (``native/skim.c``) and numpy's give the same line
    starts, parse mask, skipped records, prefixes, timestamps and facts; whether any record
    was skipped."""
    found = selector.raw_hits(data)
    assert compiled.native is not None  # built in CI: else this compares numpy with itself
    starts, by_c = skim_text(data, found.ends, found.narrowed, FSET)
    with _python_path():
        numpy_starts, by_numpy = skim_text(data, found.ends, found.narrowed, FSET)
    assert np.array_equal(starts, numpy_starts)
    assert (by_c is None) == (by_numpy is None)
    if by_c is None or by_numpy is None:
        return False
    for name in ("parse", "skipped_rows", "epoch", "invalid"):
        assert np.array_equal(getattr(by_c, name), getattr(by_numpy, name)), name
    assert by_c.ts.equals(by_numpy.ts)
    assert by_c.skipped_lines == by_numpy.skipped_lines
    # the prefixes are numbered among the lines each found shaped like a header (numpy's test
    # of the shape is looser): the same fields for each skipped record
    assert by_c.prefixes.keys() == by_numpy.prefixes.keys()
    for name, values in by_c.prefixes.items():
        assert values.take(by_c.prefix).equals(by_numpy.prefixes[name].take(by_numpy.prefix))
    assert by_c.sums is not None and by_numpy.sums is None
    assert by_numpy.picked is None
    assert by_c.picked == picked_text(data, starts, by_numpy.parse)
    keys = [(name, "ascending") for name in ("pid", "level", "module")]
    summed, grouped = by_c.counted(first_line), by_numpy.counted(first_line)
    assert summed.take(pc.sort_indices(summed, sort_keys=keys)).equals(
        grouped.take(pc.sort_indices(grouped, sort_keys=keys)))
    return True


@settings(max_examples=100, deadline=None)
@given(shapes=SHAPES)
# a continuation line left for the pattern of unknown first bytes (a progress bar) to decide
@example(shapes=["plain", "progress", "continuation", "plain", "plain"])
# an empty first line parsed, the records after it skipped: the empty run still ends in a newline
@example(shapes=["blank", "plain", "plain", "plain"])
def test_the_compiled_skim_marks_what_numpy_marks(shapes: list[str]) -> None:
    text = "\n".join(PLAIN.replace("10:00:01", f"10:00:{i % 60:02d}") if s == "plain"
                     else SPECIAL[s] for i, s in enumerate(shapes))
    assert_skimmed_alike(text.encode())


def _sample_files() -> list[Path]:
    return sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix in ("", ".log", ".txt"))


def test_the_compiled_skim_marks_what_numpy_marks_in_every_sample() -> None:
    skimmed = [assert_skimmed_alike(clean(path.read_bytes())[0]) for path in _sample_files()]
    assert sum(skimmed) >= 5  # the comparison covers files where records were skipped


def test_the_compiled_skim_marks_what_numpy_marks_on_hostile_and_generated_text(
        tmp_path: Path) -> None:
    import random

    from tests.parse.test_native_equal import _hostile_lines

    for seed in range(4):
        assert_skimmed_alike(clean(_hostile_lines(random.Random(seed)))[0])
    assert all(assert_skimmed_alike(path.read_bytes())
               for path in dense_plogs(tmp_path / "tree", seed=5))


def test_the_compiled_skim_numbers_thousands_of_distinct_prefixes_as_numpy_does() -> None:
    """One process a line, each process twice: the C module's table of prefixes grows several
    times and still finds each prefix it holds."""
    pids = [*range(3000), *range(2999, -1, -7)]
    text = "\n".join(head(pid=str(1000 + p), module=f"M{p % 7}") + "step" for p in pids)
    assert assert_skimmed_alike(text.encode())
    found = SKIM.raw_hits(text.encode())
    _starts, by_c = skim_text(text.encode(), found.ends, found.narrowed, FSET)
    assert by_c is not None and len(by_c.prefixes["pid"]) == 3000


@pytest.mark.parametrize("needle", [b"==> ", b">", b"==>", b"x==> "])
def test_holds_finds_what_numpy_finds(needle: bytes) -> None:
    from plogscan.parse.arrowtext import holds

    for text in (b"", b"==> a <==", b"a\n==> b", b"=> =>=", b"x" * 100 + b"==>", b"==>"):
        anchor = needle.index(b">") if b">" in needle else 0
        found = holds(text, needle, anchor)
        with _python_path():
            assert found == holds(text, needle, anchor) == (needle in text)


@settings(max_examples=60, deadline=None)
@given(shapes=SHAPES)
def test_headers_are_skimmed_alike_without_the_compiled_reader(shapes: list[str]) -> None:
    """The skim runs in the C module, or in numpy where it is not built: the same records,
    facts and counts either way."""
    text = "\n".join(PLAIN.replace("10:00:01", f"10:00:{i % 60:02d}") if s == "plain"
                     else SPECIAL[s] for i, s in enumerate(shapes))
    by_c = skimmed_parse(text.encode(), 1, CTX, FSET, False, False, SKIM)
    with _python_path():
        by_numpy = skimmed_parse(text.encode(), 1, CTX, FSET, False, False, SKIM)
    assert (by_c is None) == (by_numpy is None)
    if by_c is not None and by_numpy is not None:
        assert by_c[0].records.equals(by_numpy[0].records)
        assert by_c[1].equals(by_numpy[1])
        assert by_c[2:] == by_numpy[2:]
