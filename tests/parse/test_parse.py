"""Record parsing: header variants, bodies, multi-line records, glued lines, flags, codes."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.ingest.textinput import parse_text
from plogscan.schema import EVENT_SCHEMA, STORED_SCHEMA
from tests import plog_lines as L


def rows(text: str, path: str = "debug/plog/plog-4100_20260203100000000.log", **kw):
    table = parse_text(text, path, **kw)
    assert table.schema.equals(EVENT_SCHEMA, check_metadata=False)
    return table.to_pylist()


def test_header_fields_are_typed() -> None:
    (row,) = rows(L.RUNTIME_ERROR + "\n")
    assert row["ts"] == datetime(2026, 2, 3, 10, 0, 2, 500000)
    assert (row["level"], row["module"], row["pid"], row["proc"]) == ("ERROR", "RUNTIME", 4100,
                                                                       "python3")
    assert (row["src_file"], row["src_line"], row["tid"]) == ("stream.cc", 812, 4100)
    assert row["message"].startswith("GetError:[EXEC][EXEC]Stream Synchronize failed")
    assert row["codes"] == ["507916", "0x7150227"]
    assert (row["line"], row["line_count"], row["fmt"]) == (1, 1, "cann")
    assert row["kind"] == "plog-debug"


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ("[ERROR] RUNTIME(7,):2026-01-01-00:00:00.000.001 [a.cc:3]9 x", "proc", ""),
        ("[EVENT] LPM(-1,null):2026-01-01-00:00:00.000.001 (dieid:0) [acg.c 21] v", "pid", -1),
        ("[ERROR]HCCL(7,p):2026-01-01-00:00:00.000.001 [a.cc:3] [9]x", "tid", 9),
        ("[INFO] HCCL(7,p): 2026-01-01-00:00:00.000.001 [a.cc:3] [9]x", "src_line", 3),
        ("[INFO] HCCL(7,p):2026-01-01 00:00:00.000.001 [a.cc:3] [9]x", "ts",
         datetime(2026, 1, 1, 0, 0, 0, 1)),
        ("[2] GE(7,p):2026-01-01-00:00:00.000.001 [a.cc:3]7 numeric", "level", "2"),
        ("[INFO] ATRACE(7,p):2026-01-01-00:00:00.000.001 [t.c:19](tid:8) ok", "tid", 8),
        ("[INFO] TDT(7,p):2026-01-01-00:00:00.000.001 [c.cpp:4][Fn][tid:8] ok", "message", "ok"),
        ("[ERROR] HCCP(7,p):2026-01-01-00:00:00.000.001 [r.c:48]tid:8,fn(48) : bad", "tid", 8),
        ("[ERROR] TSCH(-1,null):2026-01-01-00:00:00.000.001 21 (dieid:0,cpuid:0) [s.c:39] f: x",
         "src_file", "s.c"),
        ("[ERROR] TSCH(-1,null):1970-01-01-00:00:18.148.578 21 (dieid:0,cpuid:0) [s.c:39] f: x",
         "clock_epoch", True),
        ("[ERROR] GE(7,p):2026-13-01-00:00:00.000.001 [a.cc:3]7 bad month", "ts_invalid", True),
        ("[ERROR] GE(7,p):2026-13-01-00:00:00.000.001 [a.cc:3]7 bad month", "ts", None),
    ],
)
def test_anomalies_parse(line: str, field: str, value: object) -> None:
    (row,) = rows(line + "\n")
    assert row["fmt"] == "cann"
    assert row[field] == value


def test_continuation_lines_join_the_record_before_them() -> None:
    text = "\n".join([L.INFO_GE, L.CONTINUATION, "", L.CONTINUATION, "", "", L.HCCL_DEBUG]) + "\n"
    first, second = rows(text)
    assert first["line_count"] == 4  # lines 1-4; the blank line 3 is inside the record
    assert first["message"] == "BuildGraph: graph 3 built\n" + L.CONTINUATION + "\n\n" + \
        L.CONTINUATION
    assert second["line"] == 7


def test_orphan_lines_at_file_start_are_an_unparsed_record() -> None:
    first, second = rows("some text\n  more\n" + L.INFO_GE + "\n")
    assert first["fmt"] == "unparsed" and first["level"] is None
    assert first["message"] == "some text\n  more" and first["line_count"] == 2
    assert second["fmt"] == "cann"


def test_two_records_glued_on_one_line_are_split() -> None:
    glued = L.INFO_GE + " ret[9]" + L.RUNTIME_ERROR
    first, second = rows(glued + "\n" + L.HCCL_DEBUG + "\n")[:2]
    assert first["message"].endswith("ret[9]")
    assert second["module"] == "RUNTIME" and second["line"] == 1 == first["line"]


def test_long_lines_are_flagged_as_possibly_truncated() -> None:
    long_line = L.INFO_GE + " " + "x" * (1022 - len(L.INFO_GE) - 1)
    assert len(long_line) == 1022
    a, b = rows(long_line + "\n" + L.INFO_GE + "\n")
    assert a["truncated"] is True and b["truncated"] is False


def test_stdout_shapes_and_framework_prefixes() -> None:
    text = "\n".join([
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "train.py", line 40, in <module>',
        "[rank1]:     torch.npu.synchronize()",
        "[rank1]: " + L.STDOUT_EXC,
        L.STDOUT_PTA,
        "EZ9999: Inner Error!",
        "        TraceBack (most recent call last):",
        "(train pid=4100) EI0002: [PID: 4100] 2026-02-03-10:00:04.000.001 The wait execution of "
        "the Notify register times out.",
        "epoch 3 loss 0.25",
    ]) + "\n"
    tb, pta, ezz, ei, plain = rows(text, "job/train_rank1.log")
    # the exception line ends the traceback: one record
    assert tb["fmt"] == "py-traceback" and tb["line_count"] == 4 and tb["rank"] == 1
    assert tb["codes"] == ["507916"] and tb["module"] == "PYTHON"
    assert tb["message"].endswith("\n" + L.STDOUT_EXC)
    assert (pta["pid"], pta["device"], pta["rank"], pta["codes"]) == (4100, 0, 1, ["ERR00100"])
    assert ezz["codes"] == ["EZ9999"] and ezz["line_count"] == 2
    assert (ei["pid"], ei["module"]) == (4100, "ERRMGR")
    assert ei["ts"] == datetime(2026, 2, 3, 10, 0, 4, 1)
    assert ei["codes"] == ["EI0002"]
    assert plain["fmt"] == "text" and plain["level"] is None
    assert {r["kind"] for r in (tb, plain)} == {"stdout"}


def test_rank_and_device_hints_come_from_the_path() -> None:
    (row,) = rows(L.INFO_GE + "\n", "job/rank_3/debug/device-2/device-4100_20260203100000000.log")
    assert (row["rank"], row["device"], row["kind"]) == (3, 2, "device-app")


def test_content_rank_wins_over_the_path() -> None:
    (row,) = rows(L.STDOUT_PTA + "\n", "job/rank_0/train.log")
    assert row["rank"] == 1


_MESSAGE_LINES = [*L.VALID_LINES, L.STDOUT_PTA, L.STDOUT_EXC, "\t", "  ", "[rank0]:   detail",
                  "[rank1]: Traceback (most recent call last):", "    at x.py:3",
                  L.HCCL_DEBUG + L.RUNTIME_ERROR]


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.sampled_from(_MESSAGE_LINES), max_size=30),
       kind=st.sampled_from(["plog-debug", "stdout"]))
def test_record_messages_cut_from_the_chunk_equal_the_joined_line_messages(
        lines: list[str], kind: str) -> None:
    """The one-pass cut of record messages gives what joining line messages gives."""
    from plogscan.parse import chunk as parse
    from plogscan.parse.messages import joined_messages, line_messages, unwrap

    text = "\n".join(lines)
    path = "job/train.log" if kind == "stdout" else "debug/plog/plog-1_20260203100000000.log"
    fast = parse_text(text, path)
    def line_by_line(buf, lines_, msg_start, blank, starts, last, glued, wrapped):
        every = line_messages(lines_, msg_start, blank, 0, len(lines_))
        if wrapped.any():
            return joined_messages(*unwrap(every, wrapped, starts, last))
        return joined_messages(every, starts, last)

    original = parse.record_messages
    try:
        parse.record_messages = line_by_line
        joined = parse_text(text, path)
    finally:
        parse.record_messages = original
    assert fast.column("message").to_pylist() == joined.column("message").to_pylist()


_GLUE_PARTS = [L.HCCL_DEBUG, L.RUNTIME_ERROR, L.INFO_GE, L.TDT_INFO, L.CONTINUATION, "", "   ",
               L.STDOUT_PTA, "[rank1]:" + L.RUNTIME_ERROR, "[DEBUG] GE(1,p[INFO] X(2,q):",
               "[ERROR] X(3,y):", "text [WARNING] HCCL(-1,):", "  [INFO]Y(4,z):"]


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.lists(st.sampled_from(_GLUE_PARTS), min_size=1, max_size=3),
                       max_size=12),
       kind=st.sampled_from(["plog-debug", "stdout"]), open_record=st.booleans())
def test_chunks_parsed_without_a_glue_scan_equal_the_scanned_parse(
        pieces: list[list[str]], kind: str, open_record: bool) -> None:
    """Parsing first as if no line held two records, and again only when a record's text
    shows a second header, gives what splitting glued lines up front gives. Lines are built
    from pieces run together, so second headers land in messages, procs, prefixes and
    continuation lines."""
    from plogscan.parse import chunk as parse
    from plogscan.parse.formatcheck import builtin_formats
    from plogscan.parse.results import FileContext

    text = "\n".join("".join(parts) for parts in pieces).encode()
    ctx = FileContext(path="x.log", kind=kind)
    fset = builtin_formats()
    optimistic = parse.parse_chunk(text, 1, ctx, fset, open_record)
    scanned = parse._parse_lines(text, 1, ctx, fset, open_record, split_glued=True)
    assert scanned is not None
    assert optimistic.records.to_pylist() == scanned.records.to_pylist()
    assert optimistic.head == scanned.head
    # The encoded records (for Parquet) look for glued lines in their own way: same result.
    stored = parse.parse_chunk(text, 1, ctx, fset, open_record, encoded=True)
    assert stored.records.schema == STORED_SCHEMA
    assert stored.records.to_pylist() == optimistic.records.to_pylist()
    assert stored.head == optimistic.head
    for name in ("lines", "blank_lines", "trailing_blank", "unparsed_lines", "shared_lines",
                 "truncated_lines", "invalid_timestamps", "epoch_records"):
        assert getattr(optimistic, name) == getattr(scanned, name), name
