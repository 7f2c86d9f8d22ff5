"""Shape is an enrichment, never a gate: every file named on the command line, piped in, or
named or placed like a log is read whatever its lines look like; each line of no known shape
is a record (``fmt`` ``text``) whose level comes from its words, and lines that belong to a
multi-line message stay in it. Notes, scripts and configuration found in a tree stay skipped.

Every line below was written for these tests in the shapes users paste (formats.md §3);
pids, times, paths and names are made up.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.sniff import iter_inputs
from plogscan.ingest.sources import Skipped, Source
from plogscan.ingest.textinput import parse_text
from plogscan.parse.results import FileContext
from plogscan.schema import SourceKind
from tests.corpus_path import corpus_dir, pasted_corpus_dirs, trees_dir
from tests.fuzzing import PROFILE

PROSE = (
    "Hi, the server stops right after start-up on our cluster.\n"
    "We tried two images and both behave the same.\n"
    "Any idea what to check next?\n"
)


def rows(text: str, path: str = "paste/report.log") -> list[dict]:
    return parse_text(text, path).to_pylist()


def walked(paths: list[str]) -> dict[str, object]:
    """Each input's kind (read) or skip reason."""
    out: dict[str, object] = {}
    for item in iter_inputs(paths):
        if isinstance(item, Skipped):
            out[Path(item.path).name] = item.reason
        else:
            src, _stream = item
            assert isinstance(src, Source)
            out[Path(src.path).name] = src.kind
    return out


# ---------------------------------------------------------------------------------------------
# Which files are read.

def test_a_named_file_of_prose_is_read_as_text(tmp_path: Path) -> None:
    path = tmp_path / "notes-from-the-ticket"
    path.write_text(PROSE)
    assert walked([str(path)]) == {path.name: SourceKind.STDOUT}


def test_in_a_tree_files_named_or_placed_like_a_log_are_read_and_notes_are_not(
        tmp_path: Path) -> None:
    tree = tmp_path / "collected"
    (tree / "run").mkdir(parents=True)
    for name in ("serve.log", "train.txt", "job.out", "rank3.err", "run/launcher"):
        (tree / name).write_text(PROSE)
    for name in ("README.md", "README.txt", "requirements.txt", "setup.py", "config.json",
                 "settings.yaml", "data.dat"):
        (tree / name).write_text(PROSE)
    (tree / "image.txt").write_bytes(bytes(range(256)) * 16)  # not text
    found = walked([str(tree)])
    for name in ("serve.log", "train.txt", "job.out", "rank3.err", "launcher"):
        assert found[name] == SourceKind.STDOUT, name
    for name in ("README.md", "setup.py", "config.json", "settings.yaml"):
        assert str(found[name]).startswith("not a log file"), (name, found[name])
    assert str(found["README.txt"]).startswith("unknown format")  # a note, not output
    assert str(found["requirements.txt"]).startswith("unknown format")
    assert str(found["data.dat"]).startswith("unknown format")  # named like nothing
    assert found["image.txt"] == "binary file"


def test_a_plog_named_file_of_garbage_is_still_read_as_a_plog(tmp_path: Path) -> None:
    """Junk keeps the kind its name promises, so the evidence-gap check sees a plog."""
    path = tmp_path / "debug" / "plog" / "plog-4410_20260102030405123.log"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00\x07\x13" * 400)
    assert walked([str(path.parent.parent)]) == {path.name: SourceKind.PLOG_DEBUG}


def test_standard_input_of_prose_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(PROSE.encode())))
    (item,) = list(iter_inputs(["-"]))
    assert not isinstance(item, Skipped), item
    assert item[0].kind is SourceKind.STDOUT


def test_a_named_file_of_prose_gives_a_report_not_a_refusal(diagnose_cli, tmp_path: Path) -> None:
    path = tmp_path / "ticket.log"
    path.write_text(PROSE + "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n")
    run = diagnose_cli(path, "--format", "json")
    assert run.exit_code == 1, run.output  # a finding, not "could not run"
    report = json.loads(run.stdout)
    assert [f["category"] for f in report["findings"]][:1] == ["device-oom"]


# ---------------------------------------------------------------------------------------------
# Text records: their level from their words.

@pytest.mark.parametrize(("line", "level"), [
    ("the engine core died: ERROR 134 from the worker", "ERROR"),
    ("engine stopped: FATAL signal 6 received", "ERROR"),
    ("got Traceback (most recent call last): in the worker", "ERROR"),
    ("worker says ValueError: max_model_len is larger than the model allows", "ERROR"),
    ("Exception: graph capture failed for batch 8", "ERROR"),
    ("load failed [ERROR] cannot open libascend_hal.so", "ERROR"),
    ("CANN error: EE1001: [PID: 77] 2026-01-02-03:04:05.006.007 The argument is invalid.",
     "ERROR"),
    ("stream wait failed[FUNC:StreamWait][FILE:api_impl.cc][LINE:1200]", "ERROR"),
    ("Call aclrtSetDevice(0) failed : 507033 at file runtime.cc line 88", "ERROR"),
    ("2026-04-05 06:07:08.123456 error 77 pid[77] [MM ioctl.cpp:50] advise failed:-1", "ERROR"),
    ("2026-04-05 06:07:08 fatal: cannot map device memory", "ERROR"),
    ("model ERR00100 PTA call acl api failed", "ERROR"),
    ("[WARN] falling back to eager mode", "WARNING"),
    ("the driver reports WARNING: firmware older than the toolkit", "WARNING"),
    ("/srv/app/io.py:12: UserWarning: the tensor was copied to the host", "WARNING"),
    ("2026-04-05 06:07:08 warn retrying the connection", "WARNING"),
])
def test_a_line_of_no_known_shape_takes_the_level_its_words_say(line: str, level: str) -> None:
    _prose, record = rows(PROSE.splitlines()[0] + "\n" + line + "\n")
    assert record["level"] == level, record


@pytest.mark.parametrize("line", [
    "I got this error when I started the server",  # prose about an error
    "the errors went away after a restart",
    "Error handling is described in the docs at error.html",
    "warnings are printed below",
    "failed tests: none",
    "TERRORIST_MODE is not a level",
])
def test_prose_that_mentions_an_error_has_no_level(line: str) -> None:
    (record,) = rows(line + "\n")
    assert (record["fmt"], record["level"]) == ("text", None)


def test_a_text_record_keeps_the_kind_of_its_file() -> None:
    (record,) = rows("the engine died with ERROR 134\n", "logs/worker-1/messages")
    assert (record["kind"], record["fmt"], record["level"]) == ("syslog", "text", "ERROR")


def test_json_escapes_are_undone_in_a_text_record() -> None:
    line = ('500: {"detail":"Initialize failed\\n        Check param failed, ctx can not be '
            'NULL![FUNC:Retain][FILE:runtime.cc][LINE:90]\\n        \\"device 0\\" busy"}\n')
    (record,) = rows(line)
    assert record["message"].splitlines() == [
        '500: {"detail":"Initialize failed',
        "        Check param failed, ctx can not be NULL![FUNC:Retain][FILE:runtime.cc]"
        "[LINE:90]",
        '        "device 0" busy"}']
    assert record["level"] == "ERROR" and record["line_count"] == 1


def test_a_windows_path_is_not_taken_for_escapes() -> None:
    (record,) = rows(r"loaded C:\new\weights.bin" + "\n")
    assert record["message"] == r"loaded C:\new\weights.bin"


# ---------------------------------------------------------------------------------------------
# Prefixes and shapes of pasted text.

def test_pytest_gutter_lines_are_error_records() -> None:
    """pytest indents the traceback it prints behind ``E``: its frames are one error record,
    and its exception line, at the traceback's own left edge, a record of its own."""
    text = (
        "E             File \"/srv/app/dist.py\", line 47, in wrapper\n"
        "E               return func(*args, **kwargs)\n"
        "E\n"
        "E           RuntimeError: ProcessGroupHCCL does not support scatter\n"
    )
    frames, error = rows(text)
    assert (frames["level"], frames["line_count"]) == ("ERROR", 3)
    assert (error["fmt"], error["level"], error["message"]) == (
        "py-exception", "ERROR", "RuntimeError: ProcessGroupHCCL does not support scatter")


INDENTED = (
    "[ERROR] RUNTIME(4120,python):2026-03-12-09:10:11.120.340 [stream.cc:88]4121 sync failed\n"
    "ERROR 03-12 09:10:12 [engine.py:458] RuntimeError: ACL stream synchronize failed\n"
    "(EngineCore pid=118) ERROR 03-12 09:10:12 [core.py:77] Traceback (most recent call last):\n"
    "(EngineCore pid=118) ERROR 03-12 09:10:12 [core.py:77]   File \"/srv/app/run.py\", line 5\n"
    "(EngineCore pid=118) ERROR 03-12 09:10:12 [core.py:77] RuntimeError: NPU out of memory.\n"
    "Traceback (most recent call last):\n"
    "  File \"/srv/app/run.py\", line 9, in <module>\n"
    "    main()\n"
    "ValueError: the device is busy\n"
    "E20260312 09:10:13.120340  4120 transfer_engine.cpp:97] connect failed\n"
    "2026-03-12 09:10:14 [ERROR] the worker exited\n"
)


@pytest.mark.parametrize("indent", ["    ", "\t", "  > ", "   "])
def test_text_pasted_indented_reads_as_it_reads_unindented(indent: str) -> None:
    """An issue template or a quoted block indents a whole paste: its records keep their
    shape, fields and lines, and an indented traceback frame still continues its record."""
    def shape(text: str) -> list[tuple]:
        return [(r["fmt"], r["level"], r["pid"], r["line"], r["line_count"],
                 [line.strip() for line in r["message"].splitlines()]) for r in rows(text)]

    moved = "".join(indent + line for line in INDENTED.splitlines(True))
    assert shape(moved) == shape(INDENTED)


def test_captured_stream_and_line_number_gutters_are_peeled() -> None:
    text = (
        "stderr: Traceback (most recent call last):\n"
        "stderr:   File \"/srv/app/run.py\", line 5, in <module>\n"
        "stderr: RuntimeError: ProcessGroupHCCL does not support scatter\n"
        "  1207\t[rank3]: RuntimeError: OPS function error: Conv3D, error code is 500002\n"
    )
    traceback, gutter = rows(text)
    assert (traceback["fmt"], traceback["line_count"]) == ("py-traceback", 3)
    assert (gutter["fmt"], gutter["rank"], gutter["codes"]) == ("py-exception", 3, ["500002"])


def test_dated_glog_lines_carry_their_time() -> None:
    (record,) = rows("E20260312 09:10:11.120340  4120 transfer_engine.cpp:97] connect failed, "
                     "status: 103900\n")
    assert (record["fmt"], record["level"], str(record["ts"]), record["tid"]) == (
        "glog-cpp", "ERROR", "2026-03-12 09:10:11.120340", 4120)
    assert record["codes"] == []  # 103900 is in no code table


def test_a_bracketed_level_with_free_text_is_a_shape() -> None:
    warn, error = rows("[WARN]  query_topo: halGetDeviceInfo rc=65534\n[FATAL] no device left\n")
    assert (warn["fmt"], warn["level"]) == ("bracket-level", "WARNING")
    assert (error["fmt"], error["level"], error["message"]) == ("bracket-level", "ERROR",
                                                              "no device left")


# ---------------------------------------------------------------------------------------------
# Record boundaries.

DETAILS = (
    "(EngineCore pid=118)         rtGetDeviceCount execution failed, reason=driver error"
    "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:65]\n"
    "(EngineCore pid=118)         get device count failed, runtime result = 507899."
    "[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]\n"
)


def test_error_manager_details_behind_a_prefix_are_records_of_their_own() -> None:
    prose, first, second = rows("The worker printed:\n" + DETAILS)
    assert (prose["level"], prose["line_count"]) == (None, 1)
    assert (first["line"], first["level"], first["pid"]) == (2, "ERROR", 118)
    assert (second["line"], second["level"], second["codes"]) == (3, "ERROR", ["507899"])


def test_error_manager_details_behind_a_prefix_join_their_message() -> None:
    text = ("(EngineCore pid=118) EZ9999: Inner Error!\n"
            "(EngineCore pid=118) EZ9999[PID: 118] 2026-01-02-03:04:05.006.007 (EZ9999):  "
            "The error from device(chipId:0, dieId:0), serial number is 3.\n"
            "(EngineCore pid=118)         TraceBack (most recent call last):\n" + DETAILS)
    (record,) = rows(text)
    assert (record["fmt"], record["line_count"], record["codes"]) == (
        "errmgr", 5, ["EZ9999", "507899"])


def test_details_of_another_process_do_not_join_a_message() -> None:
    text = ("(EngineCore pid=7) EZ9999: Inner Error!\n" + DETAILS)
    assert [r["line_count"] for r in rows(text)] == [1, 1, 1]


def test_an_unindented_traceback_after_the_solution_line_stays_in_the_block() -> None:
    text = (
        "[PID: 610] 2026-09-16-11:00:43.191.752 Execution_Error(EZ1008): Failed to execute "
        "operator Dispatch_12. Reason: Failed to execute tiling function.\n"
        "        Solution: check whether the tiling function is registered.\n"
        "TraceBack (most recent call last):\n"
        "        Tiling check window size failed.[FUNC:CheckWin][FILE:dispatch_tiling.cpp]"
        "[LINE:165]\n"
        "Next paragraph of the report.\n"
    )
    block, prose = rows(text)
    assert (block["fmt"], block["line_count"]) == ("errmgr-pid", 4)
    assert (prose["line"], prose["level"]) == (5, None)


def test_a_traceback_heading_alone_stays_a_record_of_its_own() -> None:
    text = "Some prose first.\nTraceBack (most recent call last):\n"
    assert [(r["line"], r["level"]) for r in rows(text)] == [(1, None), (2, "ERROR")]


def test_a_device_exception_dump_is_one_record_from_its_head() -> None:
    text = (
        "On one card the error was: DEVICE[2] PID[4120]:\n"
        "EXCEPTION TASK:\n"
        "  Exception info:TGID=90, model id=65535, stream id=21, task type=aicpu kernel\n"
        "    Other info[0]:time=2026-06-19-23:19:23.004.854, function=proc_done, line=970, "
        "error code=0x2a\n"
        "Traceback (most recent call last):\n"
    )
    dump, traceback = rows(text)
    assert (dump["line"], dump["line_count"], dump["level"], dump["codes"]) == (
        1, 4, "ERROR", ["0x2a"])
    assert traceback["line"] == 5


def test_exception_task_without_a_head_is_a_record_of_its_own() -> None:
    _prose, dump = rows("Nothing before it.\nEXCEPTION TASK:\n  Exception info:TGID=90\n")
    assert (dump["line"], dump["line_count"], dump["fmt"]) == (2, 2, "device-dump")


def test_records_glued_on_one_line_behind_process_prefixes_are_split() -> None:
    line = ('/site-packages/torch/nn/modules/module.py", line 1747, in _call_impl '
            "(Worker pid=2709) ERROR 07-03 19:33:28 [utils.py:238] return forward(*args) "
            "(Worker pid=2709) ERROR 07-03 19:33:28 [utils.py:238] RuntimeError: NPU out of "
            "memory. Tried to allocate 1.00 GiB\n")
    cut, call, exc = rows(line)
    assert [r["line"] for r in (cut, call, exc)] == [1, 1, 1]
    assert (cut["pid"], call["pid"], exc["pid"]) == (None, 2709, 2709)
    assert (exc["fmt"], exc["message"]) == ("py-exception",
                                            "RuntimeError: NPU out of memory. Tried to "
                                            "allocate 1.00 GiB")


def test_nested_process_prefixes_are_not_glued_records() -> None:
    text = ("(HttpServer pid=70) (Worker_TP3 pid=71) ERROR 04-20 21:27:00 [executor.py:932] "
            "worker failed\n"
            "[RAW SERVER] (Worker_TP3 pid=71) ERROR 04-20 21:27:01 [executor.py:932] relayed\n")
    nested, relayed = rows(text)
    assert (nested["pid"], nested["message"]) == (71, "worker failed")
    assert (relayed["pid"], relayed["message"]) == (71, "relayed")


def test_a_relayed_record_glued_mid_line_is_split_before_its_relay_mark() -> None:
    text = ("cut here [RAW SERVER] (Worker_TP3 pid=71) ERROR 04-20 21:27:01 [executor.py:932] "
            "relayed\n")
    cut, relayed = rows(text)
    assert (cut["message"], relayed["pid"], relayed["message"]) == ("cut here ", 71, "relayed")


PROSE_LINE = PROSE.splitlines()[0]
# Pieces of pasted text, each a few lines in their order (none starts as a line a terminal
# re-wrapped would: that heuristic judges the widest lines of a chunk).
PASTED = [
    *PROSE.splitlines(), *DETAILS.splitlines(), "", "   ",
    "(EngineCore pid=118) EZ9999: Inner Error!",
    "(EngineCore pid=118)         TraceBack (most recent call last):",
    "TraceBack (most recent call last):",
    "[PID: 610] 2026-09-16-11:00:43.191.752 Execution_Error(EZ1008): Failed to execute.\n"
    "        Solution: check the tiling function.",
    "On one card: DEVICE[2] PID[4120]:\nEXCEPTION TASK:\n  Exception info:TGID=90",
    "E   RuntimeError: boom", "E", "E           ProcessGroupHCCL.cpp:412 timed out",
    "stderr: Traceback (most recent call last):", "stderr:   File \"a.py\", line 1",
    "A (W pid=1) ERROR 01-02 03:04:05 [a.py:1] b (W pid=1) ERROR 01-02 03:04:05 [a.py:1] c",
    "[WARN]  query rc=65534", "E20260312 09:10:11.120340  4120 t.cpp:97] connect failed",
    '500: {"detail":"a\\n  b[FUNC:f][FILE:g.cc][LINE:1]\\n  c"}',
]


# The same examples every run in the test suite (as the fuzz tests, ``tests.fuzzing``);
# ``PLOGSCAN_FUZZ=long`` draws new ones.
@settings(max_examples=150, deadline=None, derandomize=PROFILE == "ci")
@given(lines=st.lists(st.sampled_from(PASTED), max_size=30),
       chunk=st.integers(1, 3000), kind=st.sampled_from(["stdout", "syslog", "plog"]))
# A line that follows nothing but blank lines starts a record, in whichever chunk it falls.
@example(lines=["", "E", "Hi, the server stops right after start-up on our cluster."],
         chunk=1, kind="stdout")
# A detail line of another writer, after a heading that names none, stays apart from the
# message in whichever chunk it falls (the heading carries the message's writer on).
@example(lines=["[PID: 610] 2026-09-16-11:00:43.191.752 Execution_Error(EZ1008): Failed to "
                "execute.\n        Solution: check the tiling function.",
                "TraceBack (most recent call last):", DETAILS.splitlines()[0], PROSE_LINE],
         chunk=1, kind="stdout")
def test_pasted_shapes_are_counted_and_cut_anywhere_alike(lines: list[str], chunk: int,
                                                          kind: str) -> None:
    """Every physical line is counted once, and records come out the same whatever the chunk
    boundaries (a message that spans chunks is joined as in one chunk)."""
    data = "\n".join(lines).encode()

    def parse(size: int) -> tuple[list[dict], object]:
        ingest = Ingest(workers=1, chunk_bytes=size)
        ctx = FileContext("paste.log", kind)
        got = [r for b in ingest.batches_from([(ctx, io.BytesIO(data))]) for r in b.to_pylist()]
        (stats,) = ingest.summary.files
        physical = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        assert stats.lines == physical == stats.record_lines + stats.blank_lines
        return got, stats

    assert parse(chunk) == parse(1 << 20)


# ---------------------------------------------------------------------------------------------
# The corpora: no log of them is refused.

def _corpus_logs() -> list[Path]:
    roots = [corpus_dir(), trees_dir(), *pasted_corpus_dirs().values()]
    return sorted(p for root in roots if root is not None for p in root.rglob("*.log"))


@pytest.mark.skipif(not _corpus_logs(), reason="shared/corpus not beside the checkout")
def test_every_log_of_the_corpora_gives_a_report() -> None:
    from plogscan.catalog import load_rules
    from plogscan.cli.census import diagnose_excerpt

    rules = load_rules()
    refused = []
    for path in _corpus_logs():
        outcome = diagnose_excerpt(path, rules)
        if not outcome.read or outcome.crashed:
            refused.append(f"{path}: {outcome.refusal}")
    assert not refused, "\n".join(refused)


@pytest.mark.skipif(not _corpus_logs(), reason="shared/corpus not beside the checkout")
def test_no_log_of_the_corpora_is_skipped_in_a_walk() -> None:
    roots = [corpus_dir(), trees_dir(), *pasted_corpus_dirs().values()]
    found = [str(root) for root in roots if root is not None]
    skipped = [f"{item.path}: {item.reason}" for item in iter_inputs(found)
               if isinstance(item, Skipped) and item.path.endswith(".log")]
    assert not skipped, "\n".join(skipped)
