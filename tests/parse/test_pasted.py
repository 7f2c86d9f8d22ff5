"""Text as people paste it and tools print it: prefixes peeled before the inner line is matched
(with the pid and rank they name), markdown fences that stand alone, terminal re-wrapping,
colour codes, and the sniff that decides such a file is read at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from plogscan.errors import ErrorGroup
from plogscan.ingest.classify import classify
from plogscan.ingest.sniff import iter_inputs
from plogscan.ingest.textinput import parse_text
from plogscan.parse.formatcheck import load_formats
from plogscan.parse.lineformats import MAX_PREFIXES
from plogscan.schema import SourceKind


def rows(text: str, path: str = "job/serve.log") -> list[dict]:
    return parse_text(text, path).to_pylist()


def test_quoted_process_and_logger_prefixes_are_peeled_and_name_the_record() -> None:
    text = (
        "> (ServeWorker rank=2 pid=6101) ERROR 04-05 06:07:08 [runner.py:77] "
        "RuntimeError: call aclnnMatmul failed\n"
        "> (ServeWorker rank=2 pid=6101) ERROR 04-05 06:07:08 [runner.py:77] "
        "[ERROR] 2026-04-05-06:07:08 (PID:6120, Device:1, RankID:-1) ERR00100 PTA call acl "
        "api failed\n"
        "> (ServeWorker rank=2 pid=6101) INFO 04-05 06:07:09 [runner.py:80] shutting down\n"
    )
    exc, pta, info = rows(text)
    assert (exc["fmt"], exc["pid"], exc["rank"], exc["level"]) == ("py-exception", 6101, 2,
                                                                   "ERROR")
    assert exc["message"] == "RuntimeError: call aclnnMatmul failed"
    # The inner line names its own pid and rank: they win over the prefix's; its rank -1 is
    # torch_npu's "no rank yet": no rank.
    assert (pta["fmt"], pta["pid"], pta["rank"], pta["codes"]) == ("pta", 6120, None,
                                                                   ["ERR00100"])
    assert (info["fmt"], info["level"], info["src_file"], info["message"]) == (
        "text", "INFO", "runner.py", "shutting down")


def test_indented_lines_behind_a_prefix_continue_the_record() -> None:
    text = (
        "(Engine_DP1 pid=312) ERROR 01-02 03:04:05 [core.py:10] EZ9999: Inner Error!\n"
        "(Engine_DP1 pid=312) ERROR 01-02 03:04:05 [core.py:10]         TraceBack (most recent "
        "call last):\n"
    )
    (record,) = rows(text)
    assert record["line_count"] == 2 and record["pid"] == 312
    assert record["message"] == "EZ9999: Inner Error!\n        TraceBack (most recent call last):"


@pytest.mark.parametrize(("line", "fields"), [
    ("trainer-2   | 2026-01-09 10:11:12.345 | ERROR    | __main__:run:88 - step failed",
     {"proc": "trainer-2", "fmt": "loguru", "level": "ERROR", "message": "step failed"}),
    ("[pod/infer-5c8d/server] EZ9999: Inner Error!",
     {"proc": "infer-5c8d", "fmt": "errmgr", "codes": ["EZ9999"]}),
    ("2026-06-07T08:09:10.123456Z stdout F INFO: job started",
     {"fmt": "python-logging-basic", "level": "INFO", "message": "job started"}),
    ("node4: [rank9]: RuntimeError: NPU out of memory.",
     {"proc": "node4", "rank": 9, "fmt": "py-exception"}),
])
def test_launcher_and_collector_prefixes(line: str, fields: dict) -> None:
    (record,) = rows(line + "\n")
    assert {k: record[k] for k in fields} == fields


def test_collector_timestamp_is_the_time_when_the_line_has_none() -> None:
    (record,) = rows("2026-06-07T08:09:10.500+08:00 model loaded\n")
    assert str(record["ts"]) == "2026-06-07 08:09:10.500000"


def test_prefixes_are_peeled_a_bounded_number_of_times() -> None:
    (record,) = rows("> " * (MAX_PREFIXES + 1) + "EZ9999: Inner Error!\n")
    assert record["fmt"] == "text"
    assert record["message"] == "> EZ9999: Inner Error!"


def test_a_fence_stands_alone_so_an_indented_block_after_it_is_a_record() -> None:
    text = ("```\n"
            "       there is an exception of aivec error, core id is 3, error code = 0\n"
            "       Kernel task happen error, retCode=0x31, [vector core exception].\n"
            "```\n")
    fence, block, closing = rows(text)
    assert (fence["fmt"], fence["line_count"]) == ("markdown", 1)
    assert (block["line"], block["line_count"], block["codes"]) == (2, 2, ["0x31"])
    assert closing["fmt"] == "markdown"


def test_a_fence_inside_a_plog_record_is_text_of_that_record() -> None:
    text = ("[ERROR] GE(7,p):2026-01-01-00:00:00.000.001 [a.cc:1]7 op failed, detail:\n"
            "```\n")
    (record,) = rows(text, "debug/plog/plog-7_20260101000000000.log")
    assert record["line_count"] == 2 and record["fmt"] == "cann"


WRAPPED = [
    "(Worker_TP4 pid=77) ERROR 02-03 04:05:06 [executor.py:930]        rtEventSynchronize exec"
    "ution failed, rea",
    "son=the model stream execute failed",
    "(Worker_TP4 pid=77) ERROR 02-03 04:05:06 [executor.py:930]        wait event to be comple"
    "te failed, runtim",
    "e result = 507011",
]


def test_lines_a_terminal_rewrapped_join_the_line_before_without_a_newline() -> None:
    assert len(WRAPPED[0]) == len(WRAPPED[2])
    (record,) = rows("\n".join(WRAPPED) + "\n")
    assert record["line_count"] == 4
    assert record["message"] == ("       rtEventSynchronize execution failed, reason=the model "
                                 "stream execute failed\n       wait event to be complete "
                                 "failed, runtime result = 507011")
    assert record["codes"] == ["507011"]


def test_a_plain_line_after_a_long_prefixed_line_is_its_own_record() -> None:
    # Only one line has the text's greatest width: nothing was cut at a terminal width.
    text = WRAPPED[0] + "\nepoch 3 loss 0.25\n"
    first, second = rows(text)
    assert first["line_count"] == 1
    assert (second["line"], second["message"]) == (2, "epoch 3 loss 0.25")


def test_colour_codes_are_stripped_from_stdout_but_a_plog_keeps_its_text() -> None:
    (out,) = rows("\x1b[1;31mEZ9999\x1b[0m: Inner Error!\n")
    assert (out["fmt"], out["message"]) == ("errmgr", "EZ9999: Inner Error!")
    (plog,) = rows("[ERROR] GE(7,p):2026-01-01-00:00:00.000.001 [a.cc:1]7 bad \x1b[2J\n",
                   "debug/plog/plog-7_20260101000000000.log")
    assert plog["message"] == "bad \x1b[2J"


@pytest.mark.parametrize(("name", "head", "kind"), [
    # an error code makes a pasted log readable whatever its shape
    ("issue.log", b"some prose\n        Kernel task happen error, retCode=0x31.\n",
     SourceKind.STDOUT),
    ("paste.txt", b"copied: launch failed for Pack, errno:561000.\n", SourceKind.STDOUT),
    ("paste", b"copied: launch failed for Pack, errno:561000.\n", SourceKind.STDOUT),
    # ...but notes and documents need a line of a known shape
    ("notes.md", b"we saw errno:561000 once\n", None),
    ("notes.md", b"name   | value\n---  | ---\n", None),
    ("issue.log", b"nothing to see here\njust words\n", None),
    # shapes behind prefixes
    ("ticket.md", b"> (VllmWorker rank=1 pid=9) ERROR 01-01 00:00:00 [w.py:1] hello\n",
     SourceKind.STDOUT),
    ("compose.txt", b"api-1  | 2026-01-09 10:11:12.345 | INFO     | app:main:3 - up\n",
     SourceKind.STDOUT),
    ("service.log", b"[2026-04-01 10:20:30.123456] [5] [6] [llm] [ERROR] [x.cpp:1] bad\n",
     SourceKind.STDOUT),
])
def test_the_sniff_reads_pasted_logs(name: str, head: bytes, kind: SourceKind | None) -> None:
    assert classify(f"bundle/{name}", head) == kind


def test_standard_input_with_only_an_error_code_is_read(tmp_path: Path, monkeypatch) -> None:
    import io
    import sys

    data = b"copied from the console:\n    rtStreamSynchronize failed, runtime result = 507035\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    (item,) = list(iter_inputs(["-"]))
    assert not hasattr(item, "reason"), item
    assert item[0].kind is SourceKind.STDOUT


def _fset(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "extra.yaml"
    path.write_text(extra, encoding="utf-8")
    return path


PRIMARY = """\
formats:
  - name: mini
    primary: true
    timestamp: cann
    pattern: '\\[(?P<level>[A-Z]+)\\] (?P<module>\\w+)\\((?P<pid>-?\\d+),(?P<proc>[^)]*)\\): '
    samples:
      - line: '[INFO] GE(1,p): built'
        fields: {level: INFO, message: built}
"""


@pytest.mark.parametrize(("extra", "expected"), [
    ("prefixes:\n  - name: empty\n    pattern: '(?:> )?'\n    samples:\n"
     "      - line: '> x'\n        fields: {message: x}\n", "matches an empty line"),
    ("prefixes:\n  - name: quote\n    pattern: '> '\n", "has no samples"),
    ("prefixes:\n  - name: quote\n    pattern: '> '\n    samples:\n"
     "      - line: '> x'\n        fields: {message: y}\n", "sample field 'message' is 'x'"),
    ("strip:\n  - name: newline\n    pattern: '\\n'\n    samples:\n"
     "      - line: 'a'\n        stripped: 'a'\n", "can match a newline"),
    ("strip:\n  - name: bell\n    pattern: '\\x07'\n    samples:\n"
     "      - line: \"a\\x07b\"\n        stripped: 'a b'\n", "strip sample gives 'ab'"),
    ("continuations:\n  - name: wrap\n    pattern: '[a-z]'\n    min_width: -3\n    samples:\n"
     "      - text: 'x'\n        message: 'x'\n", "min_width must be a number"),
])
def test_broken_pasted_shapes_are_located(tmp_path: Path, extra: str, expected: str) -> None:
    path = _fset(tmp_path, PRIMARY + extra)
    with pytest.raises(ErrorGroup) as err:
        load_formats([path])
    text = "\n".join(f"{e} {e.where}" for e in err.value.errors)
    assert expected in text and "extra.yaml" in text
