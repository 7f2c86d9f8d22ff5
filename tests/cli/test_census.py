"""``plogscan rules coverage --corpus``: the census of diagnose over labelled log excerpts, and
the label files it reads (``plogscan.cli.census``, ``plogscan.cli.census_labels``).

The excerpts here are written for these tests in the shapes users paste: a torch_npu
out-of-memory line, a device exception under a wrapper code, a plog INFO line, a binary file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.cli import cli
from plogscan.cli.census import Outcome, Row, counts_of, row_lines
from plogscan.cli.census_labels import Label, read_labels
from plogscan.errors import ErrorGroup

OOM = ("[rank1]: torch.OutOfMemoryError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 1; "
       "60.96 GiB total capacity; 58.00 GiB already allocated; 58.00 GiB current active; "
       "100.00 MiB free; 59.00 GiB reserved in total by PyTorch)\n")
EXCEPTION_UNDER_WRAPPER = (
    "[rank3]: RuntimeError: call aclnnAdd failed, detail:EZ9999: Inner Error!\n"
    "[rank3]: EZ9999: [PID: 5120] 2026-05-11-09:30:01.100.200 The error from device(chipId:2, "
    "dieId:0), serial number is 5, there is an aicore error exception, core id is 3, error code "
    "= 0, dump info: pc start: 0x12c100020000\n"
    "[rank3]:         Kernel task happen error, retCode=0x26, [aicore exception].\n")
QUIET = ("[INFO] RUNTIME(7702,python3):2026-04-02-18:40:11.526.761 [stream.cc:61]7702 "
         "Init: stream created, stream_id=2\n")
BINARY = bytes(range(256)) * 8

LABELS = {
    "A01": ["device-oom", "device-busy"],  # the id a name starts with
    "A02_wrong": "hccl-link-timeout",  # the stem
    "A03_quiet.log": ["aicore-exception"],  # the whole file name
    "A04": ["env-config"],
    "A05": None,
    "A06": ["runtime-error"],
    "A07": ["rendezvous-timeout"],
}
MANIFEST = """\
# Excerpts written for the census tests

## B01_other.log
- **Shows**: an out-of-memory line.
- **Expected diagnosis**: `other: a failure no category names`. Not scored.

## B02_manifest.log
**Expected diagnosis:** `device-oom` (the manifest's form).

## A01_oom.log
- **Expected diagnosis**: `aicore-exception` (the JSON label wins)

## Shortfall
Sections that name no excerpt are not labels.
"""


def _corpus(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    texts: dict[str, str | bytes] = {
        "A01_oom.log": OOM, "A02_wrong.log": OOM, "A03_quiet.log": QUIET,
        "A04_binary.log": BINARY, "A05_null.log": OOM, "A06_wrapper.log": EXCEPTION_UNDER_WRAPPER,
        "A07_python.log": QUIET, "B01_other.log": OOM, "B02_manifest.log": OOM,
        "C01_unlabelled.log": OOM, "notes.txt": "not an excerpt: no label names it\n",
    }
    for name, text in texts.items():
        if isinstance(text, bytes):
            (root / name).write_bytes(text)
        else:
            (root / name).write_text(text, encoding="utf-8")
    (root / "labels-a.json").write_text(json.dumps(LABELS, indent=1), encoding="utf-8")
    (root / "MANIFEST-b.md").write_text(MANIFEST, encoding="utf-8")
    return root


def _census(*args: str):
    return CliRunner().invoke(cli, ["rules", "coverage", *args])


# -- labels --------------------------------------------------------------------------------


def test_labels_come_from_json_and_manifests_and_json_wins(tmp_path: Path) -> None:
    labels, problems = read_labels(_corpus(tmp_path))
    assert problems == []
    assert labels["A01_oom.log"].classes == ("device-oom", "device-busy")
    assert labels["A01_oom.log"].where == f"labels-a.json:{_line(tmp_path, 'A01')}"
    assert labels["A02_wrong.log"].classes == ("hccl-link-timeout",)
    assert labels["A03_quiet.log"].classes == ("aicore-exception",)
    assert labels["A05_null.log"].classes is None
    assert labels["B01_other.log"].classes == ("other: a failure no category names",)
    assert labels["B01_other.log"].accepted == frozenset()
    assert labels["B02_manifest.log"] == Label(("device-oom",), "MANIFEST-b.md:8")
    assert "C01_unlabelled.log" not in labels and "notes.txt" not in labels


def _line(root: Path, key: str) -> int:
    lines = (root / "labels-a.json").read_text("utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if f'"{key}"' in line)


def test_a_bare_null_in_a_manifest_is_a_label(tmp_path: Path) -> None:
    (tmp_path / "x.log").write_text(OOM, encoding="utf-8")
    (tmp_path / "MANIFEST.md").write_text("## x.log\n**Expected diagnosis:** null (unsure)\n",
                                          encoding="utf-8")
    assert read_labels(tmp_path)[0]["x.log"] == Label(None, "MANIFEST.md:2")


def test_a_key_that_names_no_excerpt_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "x.log").write_text(OOM, encoding="utf-8")
    (tmp_path / "labels.json").write_text('{"x": "device-oom", "gone": "env-config"}',
                                          encoding="utf-8")
    labels, problems = read_labels(tmp_path)
    assert list(labels) == ["x.log"]
    assert problems == [f"{tmp_path / 'labels.json'}:1: 'gone' names no excerpt file"]


@pytest.mark.parametrize(("files", "text", "message", "line"), [
    (["x.log"], '{\n "x": "device-oom",\n}', "not valid JSON", 3),
    (["x.log"], '{\n "x": 7\n}', "the label of 'x' is not a class", 2),
    (["x.log"], '{\n "x": []\n}', "the label of 'x' is not a class", 2),
    (["x.log"], '{"x": "a", "x": "b"}', "the key 'x' appears twice", 0),
    (["x.log"], '["x"]', "one JSON object", 1),
    (["A1_a.log", "A1-b.log"], '{\n "A1": "env-config"\n}', "'A1' names 2 files", 2),
    (["x.log"], '{"x": "a", "x.log": "b"}', "'x.log' is labelled twice", 1),
])
def test_a_bad_json_label_file_is_a_located_error(tmp_path: Path, files: list[str], text: str,
                                                  message: str, line: int) -> None:
    for name in files:
        (tmp_path / name).write_text(OOM, encoding="utf-8")
    (tmp_path / "labels.json").write_text(text, encoding="utf-8")
    with pytest.raises(ErrorGroup) as caught:
        read_labels(tmp_path)
    [error] = caught.value.errors
    assert message in error.message
    assert error.where is not None and error.where.line == line
    assert error.where.path == str(tmp_path / "labels.json")


def test_a_manifest_section_without_a_class_is_a_located_error(tmp_path: Path) -> None:
    for name in ("x.log", "y.log"):
        (tmp_path / name).write_text(OOM, encoding="utf-8")
    (tmp_path / "MANIFEST.md").write_text(
        "## x.log\nShows an OOM.\n\n## y.log\n**Expected diagnosis:** device-oom\n",
        encoding="utf-8")
    with pytest.raises(ErrorGroup) as caught:
        read_labels(tmp_path)
    found = [(e.message, e.where.line if e.where else None) for e in caught.value.errors]
    assert found == [("the section of 'x.log' has no 'Expected diagnosis' line", 1),
                     ("the 'Expected diagnosis' line names no class", 5)]


# -- scoring -------------------------------------------------------------------------------


def _row(label: tuple[str, ...] | None, outcome: Outcome, *, labelled: bool = True) -> Row:
    return Row("x.log", Label(label, "labels.json:1") if labelled else None, outcome)


READ_OOM = Outcome(True, (("MEM001", "device-oom"), ("RT003", "runtime-error")))


@pytest.mark.parametrize(("label", "outcome", "result", "scored", "top", "among"), [
    (("device-oom",), READ_OOM, "top", True, True, True),
    (("device-busy", "device-oom"), READ_OOM, "top", True, True, True),  # any accepted class
    (("runtime-error",), READ_OOM, "among", True, False, True),
    (("env-config",), READ_OOM, "missed", True, False, False),
    (("env-config",), Outcome(True), "silent", True, False, False),
    (("env-config",), Outcome(False, refusal="binary file"), "refused", True, False, False),
    (("env-config",), Outcome(False, refusal="KeyError: 'x'", crashed=True), "crashed", True,
     False, False),
    (("other: no class", "device-oom"), READ_OOM, "top", True, True, True),
    (("other: no class",), READ_OOM, "read", False, False, False),
    (None, READ_OOM, "read", False, False, False),
])
def test_a_row_is_right_when_a_class_of_its_label_is_on_top_or_among(
        label: tuple[str, ...] | None, outcome: Outcome, result: str, scored: bool, top: bool,
        among: bool) -> None:
    row = _row(label, outcome)
    assert (row.result, row.scored, row.top, row.among) == (result, scored, top, among)


def test_the_counts_say_why_an_excerpt_is_not_scored() -> None:
    rows = [_row(("device-oom",), READ_OOM), _row(("runtime-error",), READ_OOM),
            _row(("env-config",), Outcome(True)), _row(("env-config",), Outcome(False)),
            _row(("env-config",), Outcome(False, crashed=True)),
            _row(None, Outcome(False)), _row(("other: x",), READ_OOM),
            _row(None, READ_OOM, labelled=False)]
    assert counts_of(rows) == {
        "excerpts": 8, "read": 5, "refused": 2, "crashed": 1, "silent": 1, "scored": 5,
        "top": 1, "among": 2, "null": 1, "other": 1, "unlabelled": 1}


def test_a_row_line_shows_control_characters_as_escapes() -> None:
    row = Row("evil\x1b[2J.log", Label(("device-oom",), "l:1"),
              Outcome(False, refusal="cannot read \x1b]0;title\x07"))
    text = "\n".join(row_lines(row))
    assert "\x1b" not in text and "\x07" not in text
    assert "evil\\x1b[2J.log" in text


# -- the command ---------------------------------------------------------------------------


def test_the_census_of_a_labelled_directory(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "pasted")
    run = _census("--corpus", str(corpus), "--format", "json")
    assert run.exit_code == 0, run.output
    report = json.loads(run.stdout)
    [census] = report["corpora"]
    results = {e["file"]: e["result"] for e in census["excerpts"]}
    assert results == {
        "A01_oom.log": "top", "A02_wrong.log": "missed", "A03_quiet.log": "silent",
        "A04_binary.log": "refused", "A05_null.log": "read", "A06_wrapper.log": "among",
        "A07_python.log": "silent", "B01_other.log": "read", "B02_manifest.log": "top",
        "C01_unlabelled.log": "read"}
    assert census["counts"] == {
        "excerpts": 10, "read": 9, "refused": 1, "crashed": 0, "silent": 2, "scored": 7,
        "top": 2, "among": 3, "null": 1, "other": 1, "unlabelled": 1}
    assert report["together"] == census["counts"]
    refused = next(e for e in census["excerpts"] if e["file"] == "A04_binary.log")
    assert refused["refusal"].startswith("not read as a log: ") and refused["findings"] == []
    wrapper = next(e for e in census["excerpts"] if e["file"] == "A06_wrapper.log")
    # The exception is the root; the code's reading, the traceback and the wrapper fold under it.
    assert [f["category"] for f in wrapper["findings"]] == [
        "aicore-exception", "aicore-exception", "python-error", "runtime-error"]
    assert report["classes_not_in_taxonomy"] == {"rendezvous-timeout": ["A07_python.log"]}


def test_the_text_census_lists_every_miss_with_its_top_finding(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "pasted")
    run = _census("--corpus", str(corpus))
    assert run.exit_code == 0, run.output
    text = run.stdout
    assert "read 9/10, refused 1, silent 2" in text
    assert "scored 7 (not scored: 1 other, 1 null, 1 unlabelled): right on top 2/7 (29%), " \
           "among the findings 3/7 (43%)" in text
    misses = text.split("misses (5):\n")[1].split("  not scored")[0]
    assert misses.splitlines() == [
        "    missed   A02_wrong.log",
        "             expected hccl-link-timeout; top MEM001 device-oom (+1 more)",
        "    silent   A03_quiet.log",
        "             expected aicore-exception; no finding",
        "    refused  A04_binary.log",
        "             expected env-config; not read as a log: Log files that could not be read",
        "    among    A06_wrapper.log",
        "             expected runtime-error; top AIC001 aicore-exception (+3 more); "
        "found RT003 runtime-error",
        "    silent   A07_python.log",
        "             expected rendezvous-timeout; no finding",
    ]
    assert "rendezvous-timeout: 1 excerpt(s)" in text
    assert "A01_oom.log" not in text
    assert "A01_oom.log" in _census("--corpus", str(corpus), "-v").stdout


def test_several_corpora_give_each_census_and_the_totals(tmp_path: Path) -> None:
    one = _corpus(tmp_path / "one")
    two = tmp_path / "two"
    two.mkdir()
    (two / "x.log").write_text(OOM, encoding="utf-8")
    (two / "labels.json").write_text('{"x": "device-oom"}', encoding="utf-8")
    run = _census("--corpus", str(one), "--corpus", str(two), "--format", "json")
    assert run.exit_code == 0, run.output
    report = json.loads(run.stdout)
    assert [c["counts"]["top"] for c in report["corpora"]] == [2, 1]
    assert report["together"]["top"] == 3 and report["together"]["excerpts"] == 11
    text = _census("--corpus", str(one), "--corpus", str(two)).stdout
    assert "together: 11 excerpts" in text and "right on top 3/8 (38%)" in text


def test_the_json_census_is_byte_identical_across_runs(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "pasted")
    first = _census("--corpus", str(corpus), "--format", "json").stdout
    assert first == _census("--corpus", str(corpus), "--format", "json").stdout


def test_an_invalid_label_file_exits_2_with_its_location(tmp_path: Path) -> None:
    (tmp_path / "x.log").write_text(OOM, encoding="utf-8")
    (tmp_path / "labels.json").write_text('{\n "x": 3\n}', encoding="utf-8")
    run = _census("--corpus", str(tmp_path))
    assert run.exit_code == 2
    assert "the label of 'x' is not a class" in run.stderr
    assert f"{tmp_path / 'labels.json'}:2" in run.stderr


def test_a_directory_without_excerpts_exits_2(tmp_path: Path) -> None:
    run = _census("--corpus", str(tmp_path))
    assert run.exit_code == 2 and "no excerpts in" in run.stderr


def test_the_help_documents_the_label_formats() -> None:
    text = _census("--help").stdout
    for words in ("labels*.json", "MANIFEST*.md", "Expected diagnosis", "null", "other:"):
        assert words in text
