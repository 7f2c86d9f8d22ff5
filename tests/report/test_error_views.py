"""The views that list errors never show a table's structure or a record a rule explains.

On every bundled sample and every corpus beside the checkout (``tests/corpus_path.py``: each
is skipped, and says so, when absent): no unexplained-error template, and no timeline "first
error", is a table's ruler or column header; no unexplained template's example lies inside a
record that a finding holds as evidence. A corpus directory is diagnosed in one run (its
unexplained templates are then all listed, under the reports' cap), each multi-rank tree in
its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pytest

from plogscan.headline import STRUCTURE, headline, headlines, naming_line, structure
from plogscan.model import Diagnosis
from plogscan.report.timeline import key_events
from tests.corpus_path import corpus_dir, pasted_corpus_dir, trees_dir
from tests.helpers import SAMPLES_DIR, diagnosed

SAMPLES = SAMPLES_DIR
STRUCTURE_RE = re.compile(STRUCTURE)


def _corpora() -> list:
    """(id, paths to diagnose in one run) of every corpus present; a marked skip otherwise."""
    out = []
    issues = pasted_corpus_dir()
    for name, where in (("real", corpus_dir()), ("issues", issues),
                        ("issues2", issues.parent / "issues2" if issues else None)):
        if where is not None and where.is_dir():
            out.append(pytest.param([str(where)], id=name))
        else:
            out.append(pytest.param([], id=name, marks=pytest.mark.skip(
                reason=f"corpus {name} not beside the checkout")))
    trees = trees_dir()
    for tree in sorted(p for p in trees.iterdir() if p.is_dir()) if trees else []:
        out.append(pytest.param([str(tree)], id=f"trees/{tree.name}"))
    if trees is None:
        out.append(pytest.param([], id="trees", marks=pytest.mark.skip(
            reason="corpus trees not beside the checkout")))
    return out


def problems(diagnosis: Diagnosis) -> list[str]:
    """What an error view of ``diagnosis`` shows that it must not."""
    found = []
    # an evidence record's lines, and its text: records glued on one line (a flattened paste)
    # share their line, so a record there is held only when its text is the evidence's
    held = [(ev.path, ev.line, ev.line + ev.line_count, ev.message) for f in diagnosis.findings
            for ev in f.evidence]
    for t in diagnosis.unexplained:
        example = t.example
        if STRUCTURE_RE.search(example.message):  # the template's numbers are masked
            found.append(f"unexplained structure: {t.template!r}")
        text = example.message.split("\n", 1)[0][:60]
        if any(path == example.path and first <= example.line < end and text in message
               for path, first, end, message in held):
            found.append(f"unexplained but explained: {example.path}:{example.line} "
                         f"{t.template!r}")
    for lane in key_events(diagnosis):
        for event in lane.events:
            if event.kind == "first-error" and STRUCTURE_RE.search(headline(event.message)):
                found.append(f"first error of {lane.name} is structure: {event.message!r:.120}")
    return found


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir()
                                          if (p / "README.md").is_file()))
def test_no_bundled_sample_lists_structure_or_an_explained_record_as_an_error(
        sample: str) -> None:
    assert problems(diagnosed([str(SAMPLES / sample)], context_lines=0)) == []


@pytest.mark.parametrize("paths", _corpora())
def test_no_corpus_lists_structure_or_an_explained_record_as_an_error(paths: list[str]) -> None:
    assert problems(diagnosed(paths, context_lines=0)) == []


def test_the_check_sees_a_table_left_in_pieces(tmp_path: Path) -> None:
    """Rows of a table printed without its title stay records of their own: the ruler and the
    column header are left out of the error views, a data row stays."""
    rows = ["   |  dest_ip(user_rank)  |  src_ip(user_rank)  |  MyRole  |  Status  |",
            "   |--------------------|--------------------|----------|----------|",
            "   |  10.1.0.7(5)  |  10.1.0.3(1)  |  leader  | refused |",
            "   ___________________________________________"]
    log = tmp_path / "plog-4100_20260203100000000.log"
    log.write_text("".join(f"[ERROR] HCCL(4100,python3):2026-02-03-10:00:05.{i:03d}.100 "
                           f"[comm_base.cc:90{i}][4107]{row}\n" for i, row in enumerate(rows)))
    diagnosis = diagnosed([str(log)], context_lines=0)
    assert problems(diagnosis) == []
    (template,) = [t.template for t in diagnosis.unexplained]
    assert "leader" in template
    (lane,) = key_events(diagnosis)
    assert [e.line for e in lane.events if e.kind == "first-error"] == [3]


TABLE = ("  ____LINK_ERROR_INFO____\n  |  comm error, device[0] num[1]\n"
         "  |  dest_ip(rank_id)  |  src_ip(rank_id)  |  Role  |  Status  |\n"
         "  |-------------|-------------|--------|----------|\n"
         "  |  10.1.0.7(5)  |  10.1.0.3(1)  |  client  | time out |\n  ___________")


@pytest.mark.parametrize(("message", "line"), [
    ("one line", "one line"),
    ("first\n  second", "first"),
    (TABLE, "LINK_ERROR_INFO |  10.1.0.7(5)  |  10.1.0.3(1)  |  client  | time out |"),
    (TABLE.split("\n  |  dest_ip")[0], "LINK_ERROR_INFO |  comm error, device[0] num[1]"),
    ("  ____LINK_ERROR_INFO____\n  ______", "LINK_ERROR_INFO"),
    ('Traceback (most recent call last):\n  File "t.py", line 3, in <module>\n    f()\n'
     "torch.OutOfMemoryError: NPU out of memory.", "torch.OutOfMemoryError: NPU out of memory."),
    ('Traceback (most recent call last):\n  File "t.py", line 3, in <module>',
     "Traceback (most recent call last):"),
    ("Traceback (most recent call last):\n  File \"t.py\", line 3\nRuntimeError: call aclnnAdd "
     "failed, detail:EZ9999: Inner Error!\nEZ9999: 2026-02-03-10:00:05.631.066  Tiling failed.",
     "RuntimeError: call aclnnAdd failed, detail:EZ9999: Inner Error! EZ9999: "
     "2026-02-03-10:00:05.631.066  Tiling failed."),
    ("EZ9999: Inner Error!\nThe error from device(chipId:1, dieId:0)\n        TraceBack (most",
     "EZ9999: Inner Error! The error from device(chipId:1, dieId:0)"),
    # a code with a whole sentence, or with the block's own time stamp, is not a title
    ("EE1002: 2026-02-03-10:00:05.565.510 Stream synchronize timeout.\n  rtDevice failed",
     "EE1002: 2026-02-03-10:00:05.565.510 Stream synchronize timeout."),
    ("EI0002: The wait execution of the Notify register times out.\n  detail",
     "EI0002: The wait execution of the Notify register times out."),
])
def test_the_line_that_names_a_record(message: str, line: str) -> None:
    assert headline(message) == line
    assert headlines(pa.array([message, None], pa.string())).to_pylist() == [line, None]


@pytest.mark.parametrize(("line", "is_structure"), [
    ("  ___________", True), ("|-----|-----|", True), ("+=====+", True),
    ("|  dest_ip(user_rank)  |  src_ip(user_rank)  |  MyRole  |", True),
    ("|  comm error, device[0] num[1]", False), ("|  10.1.0.7(5)  |  client  |", False),
    ("LINK_ERROR_INFO |  10.1.0.7(5)  |", False), ("", False), ("---> retry", False),
])
def test_structure_is_rulers_and_column_headers(line: str, is_structure: bool) -> None:
    assert structure(pa.array([line])).to_pylist() == [is_structure]
    assert bool(STRUCTURE_RE.search(line)) is is_structure


@pytest.mark.parametrize(("message", "index"), [
    ("one line", 0), ("first\nsecond", 0), (TABLE, 4),
    ('Traceback (most recent call last):\n  File "t.py", line 3\n    f()\nValueError: bad', 3),
    ("EZ9999: Inner Error!\nThe error from device(chipId:1, dieId:0)", 0),
])
def test_the_naming_line_is_where_the_headline_comes_from(message: str, index: int) -> None:
    assert naming_line(message) == index
