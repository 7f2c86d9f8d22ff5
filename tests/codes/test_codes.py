"""Code tables and ``plogscan explain``: strict loading, decoding of every form, the codes of
each public source, what the shipped tables promise (both languages, a taxonomy category, a
first remedy, a public source) and what ``explain`` says about a code no table defines.

The lists below were typed by hand from the public sources the tables cite (the header
comments of ``rt_error_codes.h``, ``hccl_types.h``, ``task_scheduler_error.h``, the
error-manager registrations, torch_npu's ``NPUErrorCodes.h``): code and the words its meaning
must contain. They are not read from the tables at test time, so an entry that drifts fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.catalog.categories import CATEGORIES
from plogscan.cli import cli
from plogscan.cli.explain import group_words
from plogscan.codes import (
    CodeTableError,
    decode,
    describe,
    known_codes,
    load_tables,
    tables,
)
from plogscan.codes.tables import NUMERIC_TABLES, SOURCE_RE, TABLES
from plogscan.errors import ErrorGroup, PlogscanError
from tests.helpers import REPO_ROOT

SHIPPED = REPO_ROOT / "plogscan" / "codes"
SRC = "github.com/hicann/runtime include/x.h"  # a well-formed public source for the fixtures

# rt_error_codes.h: code -> words of its meaning
ACL_8 = {
    "107002": "context null", "107019": "wait timeout", "107020": "task timeout",
    "107022": "device task abort", "207001": "memory allocation", "207018": "device oom",
    "207020": "driver timeout", "507000": "runtime internal", "507001": "ts",
    "507010": "ts lost heartbeat", "507011": "model execute failed", "507013": "sys dma error",
    "507014": "aicore timeout", "507015": "aicore exception", "507016": "aicore trap exception",
    "507017": "aicpu timeout", "507018": "aicpu exception", "507033": "device setup error",
    "507034": "vector core timeout", "507035": "vector core exception",
    "507036": "vector core trap", "507042": "aic trap read overflow",
    "507043": "aic trap write overflow", "507044": "aiv trap read overflow",
    "507045": "aiv trap write overflow", "507046": "stream sync timeout",
    "507047": "event sync timeout", "507048": "ffts+ timeout", "507049": "ffts+ exception",
    "507050": "ffts+ trap", "507051": "hdc send msg fail", "507052": "copy data fail",
    "507053": "device MEM ERROR", "507054": "hbm Multi-bit ECC error",
    "507055": "suspect device MEM ERROR", "507056": "link ERROR",
    "507057": "suspect remote ERROR", "507899": "drv internal", "507900": "aicpu internal",
    "507901": "hdc disconnect", "507904": "hccl operation retry failed",
    "507914": "l3 port error", "507915": "ccu timeout", "507916": "ccu exception",
}
# torch_npu's descriptions (NPUErrorCodes.h)
TORCH_NPU_8 = {
    "507001": "An internal error occurs in the task scheduler module on the device.",
    "507033": "Failed to start the device.",
    "507048": "The execution of the internal task times out.",
    "207018": "The memory on the device is exhausted.",
}
INNER_8 = {"0x715005e": "vector core exception", "0x7150026": "aicore exception",
           "0x7150050": "model stream execute failed", "0x7030010": "stream sync timeout"}
TS_8 = {
    "0x25": "aicore timeout", "0x26": "aicore exception", "0x2A": "aicpu exception",
    "0x30": "vector core timeout", "0x31": "vector core exception", "0x5D": "link error",
    "0x105": "task timeout", "0x10F": "ffts+ exception", "0x110": "ffts+ trap",
    "0x111": "ffts+ timeout", "0x20B": "sdma error", "0x225": "local mem error",
    "0x226": "remote mem error", "0x227": "ccu exception", "0x228": "ccu timeout",
}
HCCL_RESULT_8 = {
    0: "SUCCESS", 1: "E_PARA", 2: "E_PTR", 3: "E_MEMORY", 4: "E_INTERNAL", 5: "E_NOT_SUPPORT",
    6: "E_NOT_FOUND", 7: "E_UNAVAIL", 8: "E_SYSCALL", 9: "E_TIMEOUT", 10: "E_OPEN_FILE_FAILURE",
    11: "E_TCP_CONNECT", 12: "E_ROCE_CONNECT", 13: "E_TCP_TRANSFER", 14: "E_ROCE_TRANSFER",
    15: "E_RUNTIME", 16: "E_DRV", 17: "E_PROFILING", 18: "E_CCE", 19: "E_NETWORK",
    20: "E_AGAIN", 21: "E_REMOTE", 22: "E_SUSPENDING", 23: "E_OPRETRY_FAIL", 24: "E_OOM",
    1041: "E_IN_STATUS",
}
ERRNO_8 = {
    "0x0000000005000004": ("HCCL internal (4)", 4), "0x0000000005010009": ("HCOM timeout (9)", 9),
    "0x000000000500000b": ("HCCL TCP connect (11)", 11),
    "0x000000000500000d": ("HCCL TCP transfer (13)", 13),
    "0x0000000005000013": ("HCCL network (19)", 19),
}
EI_8 = {
    "EI0001": "environment variable", "EI0002": "execution timeout",
    "EI0003": "argument check failed", "EI0004": "rank table load failed",
    "EI0005": "inconsistent between ranks", "EI0006": "link setup timeout",
    "EI0007": "resource initialization failed", "EI0008": "version mismatch",
    "EI0011": "QP memory allocation failed", "EI0012": "SDMA task exception",
    "EI0013": "RoCE CQE error", "EI0014": "(cluster information) check failed",
    "EI0015": "cluster negotiation timeout", "EI0019": "port bind failed",
    "EI9999": "internal", "EJ0001": "failed to initialize the HCCP process",
}
# One or more codes of every other public source: code -> (table, words of its meaning)
SOURCES = {
    "100001": ("acl", "not initialized"), "148049": ("acl", "ASCEND_OPP_PATH"),
    "200000": ("acl", "memory allocation failed"), "300000": ("acl", "storage limit"),
    "500002": ("acl", "GE (graph engine) error"), "107024": ("rt", "capture dependency"),
    "145021": ("ge", "invalid shape"), "245002": ("ge", "device memory allocation failed"),
    "545601": ("ge", "model execution timed out"), "161002": ("aclnn", "parameter check failed"),
    "361001": ("aclnn", "runtime interface"), "561003": ("aclnn", "no NPU kernel found"),
    "EE1002": ("errmgr", "stream synchronize timeout"), "EH0002": ("errmgr", "must not be null"),
    "EI0020": ("errmgr", "NPU NIC socket"), "EJ0002": ("errmgr", "network port is down"),
    "EK0204": ("errmgr", "disk space"), "EL0015": ("errmgr", "device access is invalid"),
    "EM9001": ("errmgr", "queue_schedule"), "EP0001": ("errmgr", "dump configuration"),
    "EZ1001": ("errmgr", "aclnn parameter error"), "EZ0038": ("errmgr", "number of elements"),
    "EZ9999": ("errmgr", "Inner Error!"), "E30008": ("errmgr", "AI CPU operator execution"),
    "E20001": ("errmgr", "compilation failed"), "E40001": ("errmgr", "environment variable"),
    "W40010": ("errmgr", ""), "EB0000": ("errmgr", ""), "E70001": ("errmgr", "mandatory"),
    "E80001": ("errmgr", "OPP package"), "ERR99999": ("pta", "application exception"),
    "ERR01006": ("pta", "memory error"), "24": ("hccl_result", "out of memory"),
    "1041": ("hccl_result", ""), "0x7150050": ("innercode", "model stream execute failed"),
    "0x227": ("ts_retcode", "ccu exception"), "errcode 0x800000": ("aicore_errcode", "BIU"),
    "event_id=0x80E18400": ("device_event", "uncorrectable"),
}


def _meaning(code: str, table: str) -> str:
    readings = [r for r in decode(code) if r.table == table]
    assert readings, f"{code}: no {table} reading in {decode(code)}"
    return readings[0].meaning


# --- every §8 code is known -----------------------------------------------------------------

@pytest.mark.parametrize(("code", "words"), sorted(ACL_8.items()))
def test_every_runtime_code_of_the_header_is_known(code: str, words: str) -> None:
    assert words.lower() in _meaning(code, "rt").lower()


@pytest.mark.parametrize(("code", "text"), sorted(TORCH_NPU_8.items()))
def test_torch_npu_descriptions(code: str, text: str) -> None:
    assert dict(decode(code)[0].details)["torch npu"] == text


@pytest.mark.parametrize(("table", "mapping"), [
    ("innercode", INNER_8), ("ts_retcode", TS_8), ("errmgr", EI_8)])
def test_every_listed_code_is_known(table: str, mapping: dict[str, str]) -> None:
    for code, words in mapping.items():
        assert words.lower() in _meaning(code, table).lower(), code


@pytest.mark.parametrize(("code", "expected"), sorted(SOURCES.items()))
def test_codes_of_every_public_source_are_known(code: str, expected: tuple[str, str]) -> None:
    table, words = expected
    reading = decode(code)[0]
    assert reading.exact and reading.table == table, reading
    assert words.lower() in reading.meaning.lower(), reading.meaning
    assert reading.remedy or reading.name == "HCCL_SUCCESS", code


def test_six_digit_codes_live_in_the_table_of_their_range() -> None:
    t = tables()
    for table, prefixes in NUMERIC_TABLES.items():
        for code in t.table(table):
            assert str(code)[:3] in prefixes, (table, code)


@pytest.mark.parametrize(("value", "name"), sorted(HCCL_RESULT_8.items()))
def test_every_hccl_result_is_known(value: int, name: str) -> None:
    reading = decode(str(value))[0]
    assert reading.table == "hccl_result" and reading.name == f"HCCL_{name}"


@pytest.mark.parametrize(("code", "expected"), sorted(ERRNO_8.items()))
def test_hccl_errno_examples_of_section_8(code: str, expected: tuple[str, int]) -> None:
    label, error = expected
    reading = decode(code)[0]
    assert reading.table == "hccl_errno" and reading.name == label
    assert dict(reading.details)["error"].startswith(f"HCCL_{HCCL_RESULT_8[error]} ({error})")


def test_every_listed_code_is_known_to_explain() -> None:
    codes = [*ACL_8, *INNER_8, *TS_8, *ERRNO_8, *EI_8, *(str(v) for v in HCCL_RESULT_8),
             *(c for c in SOURCES if " " not in c and "=" not in c)]
    result = CliRunner().invoke(cli, ["explain", *codes])
    assert result.exit_code == 0, result.output
    for code in codes:
        assert f"\n{code}\n" in f"\n{result.stdout}"


# --- decoding forms -------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "table", "line"), [
    ("507916", "rt", "ACL_ERROR_RT_CCU_EXCEPTION: ccu exception"),
    ("error code is 507048", "rt", "ACL_ERROR_RT_FFTS_PLUS_TIMEOUT: ffts+ timeout"),
    ("ErrCode=507035", "rt", "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION: vector core exception"),
    ("EI0002", "errmgr", "Communication_Error_Timeout: communication operator execution timeout"),
    ("ei0013", "errmgr", "Execution_Error_ROCE_CQE: RoCE CQE error"),
    ("Memory_Allocation_Failure(EL0004)", "errmgr", "Memory_Allocation_Failure: failed to"),
    ("ERR02200", "pta", "torch_npu DIST: call hccl api failed"),
    ("ERR00100", "pta", "torch_npu PTA: call acl api failed"),
    ("ERR01100", "pta", "torch_npu OPS: call acl api failed"),
    ("ERR02005", "pta", "torch_npu DIST: internal error"),
    ("0x0000000005010009", "hccl_errno", "HCOM timeout (9): HCCL errNo = module HCCL (5)"),
    ("errNo[0x0000000005000004]", "hccl_errno", "HCCL internal (4):"),
    ("0x227", "ts_retcode", "TS retCode: ccu exception"),
    ("retCode=0x2a", "ts_retcode", "TS retCode: aicpu exception"),
    ("0X31", "ts_retcode", "TS retCode: vector core exception"),
    ("InnerCode=0x7150026", "innercode", "runtime InnerCode: aicore exception"),
    ("event_id=0x80E18400", "device_event", "device fault event id: new uncorrectable ECC"),
    ("hcclRet -> 9", "hccl_result", "HCCL_E_TIMEOUT: timeout"),
    ("errcode 0x200000000", "aicore_errcode",
     "AI Core errcode (0x200000000, 0, 0): DMA MOV instruction write out of bounds."),
    ("errcode:(0x200000000, 0, 0)", "aicore_errcode", "AI Core errcode (0x200000000, 0, 0)"),
    ("errcode:(0x800000, 0, 0)", "aicore_errcode",
     "AI Core errcode (0x800000, 0, 0): Reading or writing out data through the BIU failed"),
    ("errcode=0x4000000000000000", "aicore_errcode", "AI Core errcode (0x4000000000000000"),
    ("errcode:(0, 0, 0)", "aicore_errcode", "AI Core errcode (0, 0, 0): Generally, the cause"),
])
def test_decoding_forms(text: str, table: str, line: str) -> None:
    reading = decode(text)[0]
    assert reading.table == table
    assert reading.line().startswith(line), reading.line()


def test_unknown_error_manager_code_is_decoded_by_component_letter() -> None:
    (reading,) = decode("EI0099")
    assert reading.table == "errmgr_component" and not reading.exact
    assert reading.name == "HCCL error code"
    assert ("component", "I = HCCL") in reading.details
    assert decode("EL9998")[0].name == "Driver error code"
    assert decode("WE1234")[0].name == "Runtime (RTS) warning code"
    assert decode("EX0001") == []  # X is no component letter
    internal = decode("EL9998")[0]
    assert internal.meaning.startswith("an internal error of Driver")


def test_known_error_manager_code_names_its_component() -> None:
    (reading,) = decode("EZ9999")
    assert reading.exact and ("component", "Z = Public Operator or AclNN") in reading.details
    assert reading.category == "runtime-error"


def test_torch_npu_code_with_an_unknown_part_is_a_partial_reading() -> None:
    (reading,) = decode("ERR07100")
    assert not reading.exact and reading.meaning == "call acl api failed"
    assert ("module", "07 = not in the table") in reading.details
    assert decode("ERR08123") == []  # neither part is known


def test_a_code_with_several_readings_lists_all_most_specific_first() -> None:
    assert [r.table for r in decode("0")] == ["hccl_result", "aicore_errcode"]
    assert [r.table for r in decode("errcode 0")] == ["aicore_errcode"]


def test_a_prefix_restricts_the_reading_to_its_table() -> None:
    assert decode("0x25")[0].table == "ts_retcode"
    assert decode("errcode 0x25") == []  # no AI Core errcode 0x25
    assert decode("InnerCode=0x25") == []
    assert decode("errNo[0x0000000007150026]") == []  # module 7 is not HCCL


def test_errno_layout_rejects_other_modules_and_unknown_parts() -> None:
    assert decode("0x0000000005020009") == []  # submodule 2 unknown
    assert decode("0x0000000005000063") == []  # HcclResult 99 unknown
    assert [r.table for r in decode("0x7150227")] == []  # no such InnerCode in the tables


@pytest.mark.parametrize("text", ["", "   ", "hello", "5079160", "0xZZ", "errcode:(0x1,", "ERR1",
                                  "999999", "507917", "0xb4060006", "exception_code=0xa8028802"])
def test_unknown_or_malformed_input_has_no_reading(text: str) -> None:
    assert decode(text) == []


def test_describe_is_one_line_or_none() -> None:
    assert describe("507916") == ("ACL_ERROR_RT_CCU_EXCEPTION: ccu exception "
                                  "(the collective communication unit task failed)")
    assert describe("0x0000000005010009").startswith("HCOM timeout (9): ")
    assert describe("507999") is None
    for code in known_codes():
        text = describe(code)
        assert text and "\n" not in text, code


def test_every_known_code_decodes_to_an_exact_reading() -> None:
    codes = known_codes()
    assert len(codes) > 150
    for code in codes:
        readings = decode(code)
        assert readings and readings[0].exact, code


# --- the shipped tables ---------------------------------------------------------------------

def _fact_sheet_id(text: str) -> bool:
    return "formats.md" in text or "§" in text or re.search(r"\[H-\d+\]", text) is not None


def test_shipped_tables_cite_sources_and_use_taxonomy_categories() -> None:
    t = tables()
    assert set(t.names) == set(TABLES)
    successes = {"HCCL_SUCCESS"}
    for name in t.names:
        assert SOURCE_RE.match(t.source(name)) and not _fact_sheet_id(t.source(name)), name
        for entry in t.table(name).values():
            where = f"{entry.where} {entry.code}"
            assert SOURCE_RE.match(entry.source), (where, entry.source)
            assert not _fact_sheet_id(entry.source), where
            if entry.name in successes:
                continue
            assert entry.category in CATEGORIES, (where, entry.category)
            assert entry.remedy, where
            zh = dict(dict(entry.i18n).get("zh", ()))
            assert zh.get("meaning") and zh.get("remedy"), where
    for ident, pta in t.pta_types.items():
        assert pta.text("meaning", "zh") != pta.meaning, ident
        if ident:
            assert pta.category in CATEGORIES and pta.remedy, ident
            assert pta.text("remedy", "zh") != pta.remedy, ident
    assert t.components["I"] == "HCCL" and t.components["Z"] == "Public Operator or AclNN"
    assert len(t.components) == 22
    assert t.pta_modules == {0: "PTA", 1: "OPS", 2: "DIST", 3: "GRAPH", 4: "PROF",
                             99: "UNKNOWN"}
    assert t.errno is not None and t.errno.module_id == 5
    assert t.errno.submodules == {0: "HCCL", 1: "HCOM"}
    assert SOURCE_RE.match(t.errno.source)


def test_each_table_counts_the_codes_of_its_source() -> None:
    rows = tables().coverage()
    assert {r.table for r in rows} == set(TABLES)
    by = {(r.table, r.prefix): (r.in_source, r.in_table) for r in rows}
    for key in [("rt", "107"), ("rt", "207"), ("rt", "507"), ("acl", "100"), ("ge", "145"),
                ("aclnn", "561"), ("hccl_result", ""), ("pta", ""), ("errmgr", "EI"),
                ("errmgr", "EZ"), ("errmgr", "EE"), ("errmgr", "EL"), ("errmgr", "EJ")]:
        assert by[key][0] == by[key][1] > 0, key  # every code of these sources is in the table
    assert all(0 < held <= defined for defined, held in by.values())


def test_the_shipped_tables_are_read_lazily() -> None:
    lazy = load_tables(SHIPPED, lazy=True)
    assert decode("507916", lazy)[0].name == "ACL_ERROR_RT_CCU_EXCEPTION"
    assert set(lazy._parts) == {"rt"}  # one code, one table read
    decode("EI0002", lazy)
    assert set(lazy._parts) == {"rt", "errmgr"}


# --- strict loading -------------------------------------------------------------------------

def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _problems(directory: Path) -> list[PlogscanError]:
    with pytest.raises(PlogscanError) as info:
        load_tables(directory)
    err = info.value
    return err.errors if isinstance(err, ErrorGroup) else [err]


def test_duplicate_codes_are_rejected_with_both_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, "ts_retcode.yaml", f"table: ts_retcode\ntitle: TS\nsource: {SRC}\n"
                  "entries:\n  - code: '0x2A'\n    meaning: a\n  - code: '0x2a'\n    meaning: b\n")
    (err,) = _problems(tmp_path)
    assert isinstance(err, CodeTableError)
    assert str(err.where) == f"{path}:7" and "duplicate code '0x2a'" in err.message
    assert "line 5" in (err.help or "")


def test_every_problem_in_a_file_is_reported_and_located(tmp_path: Path) -> None:
    path = _write(tmp_path, "rt.yaml", "\n".join([
        "table: rt",                        # 1
        "title: RT",                        # 2
        f"source: {SRC}",                   # 3
        "entries:",                         # 4
        "  - code: 50791",                  # 5  not six digits
        "    name: X",                      # 6
        "    meaning: m",                   # 7
        "  - code: 507916",                 # 8
        "    name: Y",                      # 9
        "    meaning: m",                   # 10
        "    category: ccu",                # 11 not a taxonomy category
        "    colour: red",                  # 12 unknown key
        "  - code: 507915",                 # 13
        "    meaning: m",                   # 14 (name missing)
        "    source: formats.md §8",        # 15 not a public source
        "",
    ]))
    problems = _problems(tmp_path)

    def at(line: int, words: str) -> bool:
        return any(str(p.where) == f"{path}:{line}" and words in p.message for p in problems)

    assert at(5, "invalid code 50791 in table rt")
    assert at(11, "unknown category 'ccu'")
    assert at(12, "unknown key 'colour'")
    assert at(13, "entry 507915 is missing required key 'name'")
    assert at(15, "source 'formats.md §8' of entry 507915 names no public source")
    assert len(problems) == 5
    unknown = next(p for p in problems if p.message.startswith("unknown key"))
    assert "torch_npu" in (unknown.help or "")
    category = next(p for p in problems if p.message.startswith("unknown category"))
    assert "ccu-exception" in (category.help or "")


def test_unquoted_hex_is_caught(tmp_path: Path) -> None:
    path = _write(tmp_path, "innercode.yaml", f"table: innercode\ntitle: I\nsource: {SRC}\n"
                  "entries:\n  - code: 0x7150026\n    acl: 507015\n    meaning: m\n")
    problems = _problems(tmp_path)
    bad = next(p for p in problems if "invalid code" in p.message)
    assert str(bad.where) == f"{path}:5" and "quote" in (bad.help or "")


def test_innercode_must_point_at_a_known_acl_code(tmp_path: Path) -> None:
    _write(tmp_path, "rt.yaml", f"table: rt\ntitle: A\nsource: {SRC}\nentries:\n"
           "  - {code: 507015, name: N, meaning: m}\n")
    path = _write(tmp_path, "innercode.yaml", f"table: innercode\ntitle: I\nsource: {SRC}\n"
                  "entries:\n  - code: '0x7150026'\n    acl: 507999\n    meaning: m\n")
    (err,) = _problems(tmp_path)
    assert str(err.where) == f"{path}:5" and "507999" in err.message


@pytest.mark.parametrize(("text", "line", "words"), [
    ("table: acl\ntitle: a: b\n", 2, "invalid YAML"),
    ("table: acl\ntitle: A\ntitle: B\n", 3, "duplicate key 'title'"),
    (f"table: nope\ntitle: A\nsource: {SRC}\n", 1, "unknown table 'nope'"),
    (f"table: pta\ntitle: A\nsource: {SRC}\nmodules: []\ntypes: []\n", 1, "must live in pta"),
    ("table: acl\ntitle: A\nsource: '[H-32]'\n", 3, "names no public source"),
    ("table: acl\ntitle: A\nsource: x\nsource_codes: many\n", 4, "must be a number"),
    (f"table: acl\ntitle: A\nsource: {SRC}\nentries:\n  - {{code: 507916, name: N, meaning: m}}\n",
     5, "invalid code 507916 in table acl"),
    ("- just a list\n", 1, "must be a mapping"),
])
def test_file_level_problems_are_located(tmp_path: Path, text: str, line: int,
                                         words: str) -> None:
    path = _write(tmp_path, "acl.yaml", text)
    problems = _problems(tmp_path)
    assert any(str(p.where) == f"{path}:{line}" and words in p.message for p in problems), \
        [(str(p.where), p.message) for p in problems]


def test_structures_are_checked(tmp_path: Path) -> None:
    path = _write(tmp_path, "errmgr.yaml", f"table: errmgr\ntitle: E\nsource: {SRC}\n"
                  "components:\n  letters:\n    i: HCCL\n"
                  "entries:\n  - code: EI002\n    meaning: m\n")
    located = {(str(p.where), p.message) for p in _problems(tmp_path)}
    assert any(w == f"{path}:6" and "component letter 'i'" in m for w, m in located)
    assert any(w == f"{path}:8" and "invalid code 'EI002'" in m for w, m in located)


def test_a_lazily_read_table_reports_its_problems_with_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "rt.yaml", f"table: rt\ntitle: RT\nsource: {SRC}\nentries:\n"
                  "  - {code: 507916, name: N, meaning: m, category: nope}\n")
    lazy = load_tables(tmp_path, lazy=True)
    with pytest.raises(PlogscanError) as info:
        decode("507916", lazy)
    err = info.value
    problems = err.errors if isinstance(err, ErrorGroup) else [err]
    assert [str(p.where) for p in problems] == [f"{path}:5"]
    assert "unknown category 'nope'" in problems[0].message


def test_shipped_tables_load_cleanly() -> None:
    assert load_tables(SHIPPED).table("rt")[507916].name == "ACL_ERROR_RT_CCU_EXCEPTION"


# --- plogscan explain -----------------------------------------------------------------------

def explain(*args: str):
    return CliRunner().invoke(cli, ["explain", *args])


def test_explain_examples_from_the_issue() -> None:
    result = explain("507916", "EI0002", "0x0000000005010009", "errcode", "0x200000000",
                     "ERR02200")
    assert result.exit_code == 0, result.output
    blocks = result.stdout.strip().split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == [
        "507916", "EI0002", "0x0000000005010009", "errcode 0x200000000", "ERR02200"]
    assert "ACL_ERROR_RT_CCU_EXCEPTION" in blocks[0]
    assert ("source: github.com/hicann/runtime include/external/acl/error_codes/"
            "rt_error_codes.h") in blocks[0]
    assert "what to do: treat it like an HCCL execution failure" in blocks[0]
    assert "component: I = HCCL" in blocks[1]
    assert "HCOM timeout (9)" in blocks[2] and "submodule: HCOM (1)" in blocks[2]
    assert "DMA MOV instruction write out of bounds." in blocks[3]
    assert "type: 200 = call hccl api failed" in blocks[4]
    for block in blocks:
        assert "\n    what to do: " in block and "\n    source: " in block, block


def test_explain_cites_public_sources_never_fact_sheet_ids() -> None:
    codes = [c for c in known_codes() if " " not in c]
    for lang in ("en", "zh"):
        result = explain("--lang", lang, *codes)
        assert result.exit_code == 0, result.output
        assert not _fact_sheet_id(result.stdout)
        sources = [line.split("source: ", 1)[1] if lang == "en" else line.split("来源：", 1)[1]
                   for line in result.stdout.splitlines()
                   if line.strip().startswith(("source: ", "来源："))]
        assert len(sources) >= len(codes)
        assert all(SOURCE_RE.match(source) for source in sources)


def test_explain_json() -> None:
    result = explain("--format", "json", "0x227", "errcode:(0x800000,", "0,", "0)")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [d["input"] for d in document] == ["0x227", "errcode:(0x800000, 0, 0)"]
    assert document[0]["readings"][0] == {
        "code": "0x227", "table": "ts_retcode", "kind": "TS retCode", "name": "0x227",
        "meaning": "ccu exception", "category": "ccu-exception",
        "remedy": "treat it like an HCCL execution failure: find the peer rank or link the CCU "
                  "task waited on",
        "source": "github.com/hicann/runtime src/runtime/core/inc/task_scheduler_error.h",
        "exact": True, "details": {}}
    assert document[1]["readings"][0]["category"] == "operator-oob"


@pytest.mark.parametrize("code", ["507917", "999999", "EX0001", "0x7150027", "ERR08123"])
def test_explain_of_an_unknown_code_says_so_and_invents_nothing(code: str) -> None:
    result = explain(code)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"error: unknown code '{code}': no code table defines it" in result.stderr
    assert "Traceback" not in result.stderr
    # no neighbour, no look-alike: the only code named is the one asked about
    named = set(re.findall(r"\b(?:[EWI][0-9A-Z]\d{4}|\d{6}|0x[0-9a-fA-F]+|ERR\d{5})\b",
                           result.stderr))
    assert named <= {code}, named
    chinese = explain("--lang", "zh", code)
    assert chinese.exit_code == 2 and f"未知错误码 '{code}'：没有错误码表定义它" in chinese.stderr


def test_explain_prints_the_known_codes_and_fails_on_the_unknown_ones() -> None:
    result = explain("EI0002", "nonsense-code", "999999")
    assert result.exit_code == 2
    assert result.stdout.startswith("EI0002\n")
    assert "unknown code 'nonsense-code'" in result.stderr
    assert "unknown code '999999'" in result.stderr


def test_explain_json_marks_unknown_codes() -> None:
    result = explain("--format", "json", "507917")
    assert result.exit_code == 2
    (entry,) = json.loads(result.stdout)
    assert entry == {"input": "507917", "known": False, "readings": []}


def test_explain_needs_a_code_and_neutralizes_control_characters() -> None:
    assert explain().exit_code == 2
    result = explain("EI00\x1b[31m02")
    assert result.exit_code == 2 and "\x1b" not in result.stderr


@pytest.mark.parametrize(("words", "grouped"), [
    (("errcode", "0x200000000"), ["errcode 0x200000000"]),
    (("errcode:", "0x1", "507916"), ["errcode: 0x1", "507916"]),
    (("errcode:(0x800000,", "0,", "0)", "EI0002"), ["errcode:(0x800000, 0, 0)", "EI0002"]),
    (("InnerCode=", "0x7150026"), ["InnerCode= 0x7150026"]),
    (("507916", "errcode"), ["507916", "errcode"]),
])
def test_argv_words_are_grouped(words: tuple[str, ...], grouped: list[str]) -> None:
    assert group_words(words) == grouped
