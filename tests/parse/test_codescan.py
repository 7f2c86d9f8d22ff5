"""The code extractor: every family of the code tables in the wordings CANN, torch_npu and the
frameworks print, and no number that is not said to be a code (line numbers, pids, times,
sizes). The lines are written for these tests in the shapes of formats.md §3 and §8."""

from __future__ import annotations

import re

import pytest

from plogscan.codes.tables import NUMERIC_TABLES, load_tables
from plogscan.parse.codescan import NUMERIC, codes_in, may_hold_codes


@pytest.mark.parametrize(("text", "codes"), [
    # runtime and aclError codes
    ("aclrtSynchronizeStream: synchronize stream failed, runtime result = 507035", ["507035"]),
    ("NPU function error: AclrtSynchronizeDevice, error code is 507048", ["507048"]),
    ("aclInit failed, errorCode = 100002", ["100002"]),
    ("open device 3 failed, ret:507033", ["507033"]),
    ("aclmdlLoadFromFile failed, ret = 148046", ["148046"]),
    ("rtDeviceSynchronize failed, ret=300000", ["300000"]),
    ("Call aclrtSetDevice(3) failed : 507899 at file runtime.cc line 210", ["507899"]),
    # GE codes, also after GE's "ErrorNo:"
    ("graph run failed, ErrorNo: 145021(param invalid)", ["145021"]),
    ("aclmdlExecute failed, error code is 545000", ["545000"]),
    ("BuildGraph failed, errno: 245000", ["245000"]),
    # aclnn codes
    ("call aclnnAddRmsNorm failed, error code is 561002", ["561002"]),
    ("aclnnMatmul returned error code: 161001", ["161001"]),
    ("aclnnGroupedMatmul check failed, ret = 361001", ["361001"]),
    # error-manager and torch_npu codes
    ("EH9999: [PID: 12] rtSetStreamFailureMode failed, runtime result = 207000.",
     ["EH9999", "207000"]),
    ("Memory_Allocation_Failure(EL0004): Failed to allocate memory.", ["EL0004"]),
    ("[ERROR] 2026-01-02-03:04:05 (PID:88, Device:0, RankID:0) ERR00100 PTA call acl api failed",
     ["ERR00100"]),
    # hex codes
    ("ErrCode=507015, desc=[aicore exception], InnerCode=0x7150026", ["507015", "0x7150026"]),
    ("Kernel task happen error, retCode=0x26, [aicore exception].", ["0x26"]),
    ("Other info[0]:time=2026-01-02-03:04:05.006.007, line=970, error code=0x2a", ["0x2a"]),
    ("errNo[0x0000000005010009] wait socket timeout", ["0x0000000005010009"]),
    ("[fault_manager] event_id: [0x80E01809] device 2", ["0x80E01809"]),
    ("event_id=0x80cb8009; device_id=1", ["0x80cb8009"]),
    # an inner code printed in decimal is the hex code the tables know
    ("Create stream failed, stream_id=17, event_id=-1, error=117571619.", ["0x7020023"]),
    ("capture failed, innerCode=117637158", ["0x7030026"]),
])
def test_codes_in_the_words_they_are_printed_with(text: str, codes: list[str]) -> None:
    assert codes_in(text) == codes
    assert may_hold_codes(text)


@pytest.mark.parametrize("text", [
    "[ascend_direct_transport.cpp:507015] connect",  # a line number
    "process pid=507035 exited",  # a pid
    "line 145000 of the data file",  # a line number in words
    "2026-05-07 14:50:07.100002 start",  # a time
    "allocated size=507000 bytes, total_size=148000",  # sizes
    "DeregisterMem: ErrorNo: 103900",  # a status of no code table
    "ret=103900 retry",  # a number outside the tables' ranges
    "result = 1 at line 507015",  # the code word before another number
    "failed : -1",  # a return value that is not a code
    "error=99 error=7000",  # small numbers after error=
    "error=134217728",  # past the inner codes' range
    "secret=507015 offset_ret=507011",  # the words inside other words
    "E20260106 06:43:02.966156  5793 transport.cpp:820] connect failed",  # a glog date
])
def test_numbers_not_said_to_be_codes_are_not_codes(text: str) -> None:
    assert codes_in(text) == []


def test_the_numeric_pattern_covers_each_table_and_nothing_between() -> None:
    """Every code of the numeric tables is found after "error code is"; the prefixes between
    the tables' ranges are not."""
    prefixes = {p for ranges in NUMERIC_TABLES.values() for p in ranges}
    for prefix in prefixes:
        assert re.fullmatch(NUMERIC, prefix + "001"), prefix
    for prefix in ("101", "103", "106", "108", "146", "201", "301", "501", "508", "160", "560"):
        assert not re.fullmatch(NUMERIC, prefix + "001"), prefix
    tables = load_tables(lazy=True)
    codes = [str(code) for name in NUMERIC_TABLES for code in tables.table(name)]
    assert codes
    for code in codes:
        assert codes_in(f"call failed, error code is {code}") == [code]
