"""The sniff's whole-text count of CANN header lines gives the counts of judging each line.

``_Sniff.of`` counts the header lines of a head in one regex pass when no prefix may start a
line, and judges the rest one by one; ``line_by_line=True`` judges every line alone. Heads
are built from header lines of every kind the sniff tells apart (firmware pids, event bodies,
klogd bodies, device daemons, aicpu processes), near misses, prefixed lines, stdout, syslog,
lines with error codes, long lines, CRLF, NULs and invalid UTF-8.
"""

from __future__ import annotations

from dataclasses import astuple

from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.ingest.classify import SNIFF_LINE_CHARS, _Sniff
from plogscan.parse.codescan import codes_in, may_hold_codes

_TS = "2025-03-14-08:01:26.604.614"
_HEADERS = st.builds(
    lambda level, module, pid, pname, sep, body: f"[{level}]{sep}{module}({pid},{pname}):{_TS}"
    + body,
    st.sampled_from(["ERROR", "DEBUG", "EVENT", "3"]),
    st.sampled_from(["HCCL", "KERNEL", "TSCH", "RUNTIME", "GE"]),
    st.sampled_from(["465449", "-1", "0"]),
    st.sampled_from(["python3", "sklogd", "klogd", "slogd", "aicpu_sche", "hccp_service.bin",
                     "", "null", "a\tb"]),
    st.sampled_from([" ", "", "\t"]),
    st.sampled_from([" [stream.cc:798] StreamCreate ok", " [klogd.c:12] oops",
                     "[klogd.c:3] x", " event_id=0x1 raised", " Event id=7",
                     " [fault_manager] vent", " [fault_manager] only", " vent nothing",
                     " error code is 507015", "", " " + "x" * (SNIFF_LINE_CHARS + 40)
                     + " event_id=3"]),
)
_OTHERS = st.sampled_from([
    "    node[0] name=LayerNorm_963 type=Conv2D stream=930",
    "[ERROR] HCCL(12,python):2025-03-14 08:01:26.604",  # near miss: no microseconds
    "[ERROR] HCCL(12\n,python):" + _TS,  # newlines inside a header
    "[ERROR] HCCL(12,pyth\non):" + _TS,
    "[ERROR]\nHCCL(12,python):" + _TS,
    "[ERROR] HCCL(12,python):\n" + _TS,
    "[rank3]: [ERROR] HCCL(1,python):" + _TS + " prefixed",
    "> [ERROR] HCCL(1,python):" + _TS + " quoted",
    ">",
    "worker-1: [ERROR] HCCL(1,python):" + _TS,
    "Traceback (most recent call last):",
    "RuntimeError: npu failed",
    "[2025-05-07-19:54:27.371626] host kernel line",
    "Aug  1 08:38:31 host kernel: x",
    "retcode: 507015 in a pasted line",
    "EZ9999 something",
    "   ",
    "",
    "\r",
    "\x00\x00",
    "y" * (SNIFF_LINE_CHARS + 100),
])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(_HEADERS, _HEADERS, _OTHERS), max_size=30),
       newline=st.sampled_from(["\n", "\r\n"]), tail=st.sampled_from([b"", b"\xff\xfe"]),
       signatures=st.booleans())
def test_whole_text_counts_equal_line_by_line(lines: list[str], newline: str, tail: bytes,
                                              signatures: bool) -> None:
    head = newline.join(lines).encode() + tail
    whole = _Sniff.of(head, signatures)
    alone = _Sniff.of(head, signatures, line_by_line=True)
    assert astuple(whole) == astuple(alone)


def test_header_lines_are_counted_by_the_whole_text_pass() -> None:
    head = "\n".join([
        f"[ERROR] KERNEL(1,sklogd):{_TS} [klogd.c:1] x",
        f"[INFO] TSCH(-1,null):{_TS} fw",
        f"[EVENT] HCCL(5,python3):{_TS} event_id=0x2",
        f"[DEBUG] RUNTIME(7,aicpu_sche):{_TS} y",
        "    a continuation line",
    ]).encode()
    s = _Sniff.of(head)
    assert (s.cann, s.firmware, s.event, s.device_os, s.device_app, s.klogd) == (
        4, 1, 1, 1, 1, True)


_MARKERS = st.sampled_from([
    "error code is ", "error code =", "ErrCode=", "runtime result = ", "result =", "ret =",
    "ret=", "retCode=", "error_code=", "errorCode :", "retcode: ", "ret:", "errno:",
    "failed : ", "InnerCode=", "errNo[", "excep_code=", "exception_code=", "event_id=",
    "errcode:(", "ErrorNo: ", "error code=", "event_id: [", "error=", "innerCode=", "", " "])
_VALUES = st.sampled_from(["507015", "161002", "0x7150227", "EZ9999", "EI0002:", "ERR00100",
                           "W1234 ", "12", "145021", "300000", "117571619", ""])
_FILLER = st.sampled_from([" ", "(", ":", "\n", "x", "code", "ret", "Ret", "_", "\n\n"])
_CODE_TEXT = st.lists(st.one_of(st.tuples(_MARKERS, _VALUES).map("".join), _FILLER),
                      max_size=8).map("".join)


@settings(max_examples=500, deadline=None)
@given(_CODE_TEXT)
def test_the_code_mask_misses_no_line_with_a_code(text: str) -> None:
    if any(codes_in(line) for line in text.split("\n")):
        assert may_hold_codes(text)
