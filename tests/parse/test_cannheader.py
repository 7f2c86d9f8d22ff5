"""The CANN header fast path gives exactly the spans and values of the YAML header and bodies
it stands in for."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.parse import cannheader, compiled, glue
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import FIELDS, field_of
from plogscan.parse.linematch import Spans
from tests.corpus_path import corpus_dir

CORPUS = corpus_dir()


def _match_both_ways(lines: list[str]) -> tuple[Spans, Spans]:
    from plogscan.parse import linematch

    arr = pa.array(lines, pa.large_string())
    blank = np.array([not line.strip() for line in lines])
    fast = linematch.match_lines(arr, blank, builtin_formats())
    original = cannheader.applies_to
    try:
        cannheader.applies_to = lambda primary: False  # the YAML regexes only
        slow = linematch.match_lines(arr, blank, builtin_formats())
    finally:
        cannheader.applies_to = original
    return fast, slow


def assert_spans_equal(fast: Spans, slow: Spans, lines: list[str]) -> None:
    """Same format, message start and field spans on every line (lengths of absent fields
    are not compared)."""
    for i, line in enumerate(lines):
        assert fast.fmt[i] == slow.fmt[i], line
        assert fast.msg_start[i] == slow.msg_start[i], line
        for name in FIELDS:
            got = (fast.start[name][i], fast.length[name][i] if fast.start[name][i] >= 0 else 0)
            want = (slow.start[name][i], slow.length[name][i] if slow.start[name][i] >= 0 else 0)
            assert got == want, (name, line)


def assert_same(lines: list[str]) -> None:
    """Header and bodies: the fast path's spans equal those of the YAML regexes."""
    assert_spans_equal(*_match_both_ways(lines), lines)


def test_the_fast_path_is_used_for_the_builtin_header() -> None:
    """If this fails, formats/cann.yaml changed: update cannheader (and keep it exact)."""
    primary = builtin_formats().primary
    assert cannheader.applies_to(primary)
    names = {field_of(g) for g in builtin_formats().primary.groups}
    assert names == {"level", "module", "pid", "proc", "ts", "src_file", "src_line", "tid"}


def test_every_builtin_sample_line() -> None:
    lines = [s[0] for f in builtin_formats().formats for s in f.samples]
    assert_same(lines)


@pytest.mark.skipif(CORPUS is None, reason="real-log corpus not present beside the checkout")
def test_real_corpus_lines() -> None:
    assert CORPUS is not None
    lines: list[str] = []
    for path in sorted(CORPUS.iterdir()):
        if path.suffix != ".log" and path.suffix != ".txt":
            continue
        lines += path.read_text("utf-8", errors="replace").splitlines()
    assert len(lines) > 100
    assert_same(lines)


_digits = st.text("0123456789", min_size=0, max_size=12)
_word = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ_abc019", min_size=0, max_size=10)
_noise = st.text(" []:()0123456789atid,\t-", min_size=0, max_size=14)
_tail_part = st.one_of(
    st.just(" "), st.just("["), st.just("]"), st.just(":"), _digits, _noise,
    st.builds(lambda f, sep, n: f"[{f}{sep}{n}]", st.text("ab._/ :x\t", max_size=8),
              st.sampled_from([":", " ", "", "::"]), _digits),
    st.builds(lambda sp, n: f"{sp}[{n}]", st.sampled_from(["", " ", "  "]), _digits),
    st.builds(lambda sp, n, end: f"{sp}{n}{end}", st.sampled_from(["", " "]), _digits,
              st.sampled_from([" ", "", "x", "  ", "]"])),
)


@st.composite
def header_lines(draw: st.DrawFn) -> str:
    level = draw(st.one_of(st.sampled_from(["ERROR", "INFO", "DEBUG", "EVENT", "3"]), _word))
    module = draw(st.one_of(st.sampled_from(["HCCL", "RUNTIME", "TSCH"]), _word))
    pid = draw(st.sampled_from(["123", "-1", "-2", "", "1a", "4194304"]))
    proc = draw(st.text("abc.py3 ,(_-", max_size=10))
    date_sep = draw(st.sampled_from(["-", " ", "-", "_"]))
    ts = f"2025-03-14{date_sep}08:01:26.400.{draw(st.sampled_from(['006', '06', '1234']))}"
    head = (f"[{level}]{draw(st.sampled_from([' ', '', '  ']))}{module}({pid},{proc})"
            f":{draw(st.sampled_from(['', ' ', '  ']))}{ts}")
    tail = "".join(draw(st.lists(_tail_part, max_size=6)))
    return head + tail + draw(st.sampled_from(["", " msg", "\u00e9 x"]))


@settings(max_examples=400, deadline=None)
@given(st.lists(header_lines(), min_size=1, max_size=30))
def test_generated_headers(lines: list[str]) -> None:
    assert_same(lines)


def test_long_thread_ids_are_read_whole() -> None:
    line = "[INFO] HCCL(1,p):2025-03-14-08:01:26.400.006 [a.cc:1]" + "9" * 40 + " m"
    found = cannheader.match(pa.array([line], pa.large_string()))
    assert list(found.length["tid"]) == [40]
    assert found.values["tid"].to_pylist() == [None]  # too long for int64
    assert_same([line, line.replace("]9", "] [9", 1) + "]"])


_HEAD = "[INFO] HCCL(1,p):2025-03-14-08:01:26.400.006"


@pytest.mark.parametrize("tail", [
    " [a.cc:1]  msg", " [a.cc:1] [] x", " [a.cc:1]12x", " [a.cc:1] 12 ", " [a.cc:1]12",
    " [a.cc:1] [12", " [a.cc:1][12]", " [a.cc:1]  [12] x", " [a.cc 1]7 m", " [a.cc:]7 m",
    " [:1]7 m", " [a b:1]7 m", "  [a.cc:1]7 m", "[a.cc:1]7 m", "  x", " ", "", "x",
    " [a.cc:1] ", " [a.cc:1]", " [a.cc:1]\t7 m", " [a.cc:1] 7  m", " [a.cc:1][7] m",
])
def test_thread_id_shapes(tail: str) -> None:
    assert_same([_HEAD + tail])


# The tagged-tid body of formats/cann.yaml is written as two one-pass patterns; tried in order
# they must capture what the single pattern they replace captures.
_SINGLE_TID_BODY = (r"(?:\[[A-Za-z_]\w*\])?\[[Tt]id:(?P<tid>\d+)\] ?| ?\(tid:(?P<tid_2>\d+)\) ?"
                    r"|tid:(?P<tid_3>\d+),")


def _tid_and_end(pattern: str, messages: list[str]) -> list[tuple[int, int, int] | None]:
    import pyarrow.compute as pc

    spans = pc.extract_regex_span(pa.array(messages, pa.large_string()),
                                  f"^(?P<_all>{pattern})").to_pylist()
    out: list[tuple[int, int, int] | None] = []
    for row in spans:
        if row is None:
            out.append(None)
            continue
        tid = next(v for k, v in row.items() if k.startswith("tid") and v is not None)
        out.append((tid[0], tid[1], row["_all"][1]))
    return out


_tid_message = st.builds(
    lambda a, b, c, d: a + b + c + d,
    st.sampled_from(["", " ", "[", "(", "[Func]", "[_x9]", "[9x]", "[tid]", "t"]),
    st.sampled_from(["[tid:", "[Tid:", "(tid:", "tid:", "[TID:", "", "[tid"]),
    st.text("0123456789", max_size=6),
    st.sampled_from(["] msg", "]", ") x", ")", ",", " ", "x", "]  y", ")  y"]),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_tid_message, min_size=1, max_size=20))
def test_split_tagged_tid_bodies_equal_the_single_pattern(messages: list[str]) -> None:
    bodies = {b.name: b.pattern for b in builtin_formats().primary.bodies}
    first = _tid_and_end(bodies["tagged-tid"], messages)
    second = _tid_and_end(bodies["bare-tid"], messages)
    combined = [a if a is not None else b for a, b in zip(first, second, strict=True)]
    assert combined == _tid_and_end(_SINGLE_TID_BODY, messages)


_body_tail = st.builds(
    lambda sp, head, mid, num, close, rest: sp + head + mid + num + close + rest,
    st.sampled_from(["", " ", "  "]),
    st.sampled_from(["[Func]", "[_f9]", "[9f]", "[tid]", "[", "(", " (", "", "[a b]"]),
    st.sampled_from(["[tid:", "[Tid:", "(tid:", "tid:", "[tId:", "", "[tid"]),
    st.text("0123456789", max_size=8),
    st.sampled_from(["]", ")", ",", "] ", ") ", "]x", "", "]]"]),
    st.sampled_from(["", " m", "  m", "x" * 40]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["[a.cc:1]", "[a.cc:1] 7 ", "[a.cc:1]7 ", ""]),
                          _body_tail), min_size=1, max_size=20))
def test_thread_id_bodies_after_the_fast_header_equal_the_regexes(parts: list[tuple[str, str]]
                                                                  ) -> None:
    assert_same([f"{_HEAD} {block}{tail}" for block, tail in parts])


def _records_both_ways(lines: list[str]) -> tuple[pa.Table, pa.Table]:
    """Records of ``lines`` parsed with the fast path and with the YAML regexes only."""
    from plogscan.parse.chunk import parse_chunk
    from plogscan.parse.results import FileContext

    text = "\n".join(lines).encode()
    ctx = FileContext(path="x.log", kind="plog")
    fast = parse_chunk(text, 1, ctx, builtin_formats(), open_record=False).records
    original = cannheader.applies_to
    try:
        cannheader.applies_to = lambda primary: False
        slow = parse_chunk(text, 1, ctx, builtin_formats(), open_record=False).records
    finally:
        cannheader.applies_to = original
    return fast, slow


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(header_lines(), st.builds(lambda b, t: f"{_HEAD} {b}{t}",
                                                   st.sampled_from(["[a.cc:1]", "[b.c 9] 7 ", ""]),
                                                   _body_tail)),
                min_size=1, max_size=25))
def test_fast_path_values_equal_the_regex_path(lines: list[str]) -> None:
    """The values the fast path reads (level, module, pid, proc, src_file, src_line, tid)
    are the ones the regex path cuts from the spans, record for record."""
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    fast, slow = _records_both_ways(lines)
    assert fast.to_pylist() == slow.to_pylist()


def test_fast_path_values_of_long_numbers_and_odd_prefixes() -> None:
    lines = [
        "[INFO] HCCL(123456789012345678901,p):2025-03-14-08:01:26.400.006 [a.cc:1234567890]7 m",
        "[3]GE(-1,):2025-03-14 08:01:26.400.006 [x.c:5] [1234567890123456789012] y",
        "[DEBUG]  TSCH(-2,a b):2025-03-14-08:01:26.400.006 z",
        "not a header",
        "[ERROR] RUNTIME(7,python3):2025-03-14-08:01:26.400.006 [f.cc:3][Run][tid:99] w",
    ]
    fast, slow = _records_both_ways(lines)
    assert fast.to_pylist() == slow.to_pylist()
    assert fast.column("pid").to_pylist() == [None, -1, 7]  # lines 3 and 4 continue line 2


def test_an_edited_tagged_tid_body_turns_the_fast_path_off() -> None:
    import dataclasses

    primary = builtin_formats().primary
    bodies = tuple(dataclasses.replace(b, pattern=r"\[tid=(?P<tid>\d+)\]") if
                   b.pattern == cannheader.TAGGED_TID_BODY else b for b in primary.bodies)
    assert not cannheader.applies_to(dataclasses.replace(primary, bodies=bodies))
    assert not cannheader.applies_to(dataclasses.replace(primary, pattern=primary.pattern + "x"))


def test_the_compiled_header_reader_is_built() -> None:
    """The build compiles native/cannheader.c where a C compiler is found (it is here); a
    build without it still runs, on RE2 (``test_compiled_and_re2_groups_are_equal``)."""
    assert compiled.native is not None


def _assert_same_groups(lines: list[str]) -> None:
    """The C reader and RE2 find the same span of each group on every line (so the same text),
    and the same lines matching."""
    arr = pa.array(lines, pa.large_string())
    by_c = cannheader.header_spans(arr)
    by_re2 = cannheader.header_spans(arr, compiled=False)
    assert (by_c[:, 1] > 0).tolist() == (by_re2[:, 1] > 0).tolist()
    for k, name in enumerate(cannheader.GROUPS):
        assert by_c[:, 2 * k:2 * k + 2].tolist() == by_re2[:, 2 * k:2 * k + 2].tolist(), name


_odd = st.text(alphabet=st.sampled_from([*"[]():,- \t_0123456789aDTtid", "é", "\x0b"]),
               max_size=40)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(header_lines(), _odd,
                          st.builds(lambda h, t: h + t, header_lines(), _odd),
                          st.builds(lambda b, t: f"{_HEAD} {b}{t}",
                                    st.sampled_from(["[a.cc:1]", "[b.c 9] 7 ", "", "[é.c:2]"]),
                                    _body_tail)),
                min_size=1, max_size=30))
def test_compiled_and_re2_groups_are_equal(lines: list[str]) -> None:
    _assert_same_groups([line.replace("\n", " ") for line in lines])


def test_compiled_and_re2_groups_of_every_cut_of_real_lines() -> None:
    """Every prefix of real header lines: a line may end anywhere inside its header."""
    full = [
        "[ERROR] RUNTIME(7,python3):2025-03-14-08:01:26.400.006 [f.cc:3][Run][tid:99] w",
        "[INFO] HCCL(1,p):2025-03-14 08:01:26.400.006 [a.cc:1]  [12] x",
        "[DEBUG] GE(423977,python3):2025-03-14-08:01:26.400.108 [op.cc:1222]425693 Update",
        "[3]GE(-1,):2025-03-14-08:01:26.400.006 [x.c 5] (tid:8) y",
        *(f"[INFO] HCCL(1,p):2025-03-14-08:01:26.400.006 [a{c}b:1]7 m" for c in "\t\f\r\x0b"),
    ]
    _assert_same_groups([line[:cut] for line in full for cut in range(len(line) + 1)])


def test_the_re2_path_reads_the_same_records(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["[INFO] HCCL(1,p):2025-03-14-08:01:26.400.006 [a.cc:1]7 m", "  detail", "junk",
             "[ERROR] RUNTIME(7,py):2025-03-14-08:01:26.400.006 [f.cc:3][Run][tid:99] w"]
    by_c, _ = _records_both_ways(lines)
    monkeypatch.setattr(compiled, "native", None)
    by_re2, _ = _records_both_ways(lines)
    assert by_c.equals(by_re2)


_glue_bytes = st.lists(st.sampled_from([b"[", b"\n", b"]", b"x", b" ", b"\xe6\xb6\x88",
                                        *(tag.encode() for tag in glue._GLUE_TAGS),
                                        *(tag.encode()[:-1] for tag in glue._GLUE_TAGS)]),
                       max_size=60).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(_glue_bytes)
def test_compiled_and_numpy_find_the_same_glued_tags(buf: bytes) -> None:
    """The C module's ``glued_tags`` and numpy's ``tag_places`` find the same level tags
    that do not open a line, cut tags and tags at the very start or end included."""
    assert compiled.native.glued_tags(buf) == glue.tag_places(buf).tolist()


def test_a_glued_tag_is_found_after_any_byte_but_a_newline() -> None:
    buf = b"[ERROR] a[DEBUG] b\n[INFO] x [TRACE]\n[WARN][WARNING]x[EVEN]"
    assert compiled.native.glued_tags(buf) == [9, 28, 42]
    assert glue.suspects(buf).tolist() == [0, 1, 2]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 12)), max_size=80),
       st.text(alphabet="ab[]é(", min_size=0, max_size=40))
def test_compiled_and_arrow_number_distinct_texts_alike(cuts: list[tuple[int, int]],
                                                        text: str) -> None:
    """The C module's ``span_ids`` numbers texts as Arrow's ``dictionary_encode`` does: the
    same index per row, the same distinct texts in the same order (repeats next to each
    other, far apart, and empty texts among them)."""
    data = np.frombuffer(text.encode("ascii", "replace").ljust(60, b"a"), np.uint8)
    starts = np.array([start for start, _ in cuts], np.int64)
    lengths = np.array([length for _, length in cuts], np.int64)
    by_c = cannheader.distinct_texts(data, starts, lengths)
    by_arrow = cannheader.distinct_texts(data, starts, lengths, compiled=False)
    assert by_c[0].tolist() == by_arrow[0].tolist()
    assert by_c[1].equals(by_arrow[1])


def test_span_ids_refuses_a_span_outside_the_data() -> None:
    out = np.empty(1, np.int64)
    with pytest.raises(ValueError, match="outside the data"):
        compiled.native.span_ids(b"abc", np.array([2], np.int64), np.array([5], np.int64), out)


def test_span_ids_numbers_thousands_of_distinct_texts() -> None:
    """Past the table's first size (a chunk of a million processes holds many prefixes)."""
    text = "".join(f"[D] M({pid},p):" for pid in range(6000)).encode()
    data = np.frombuffer(text * 2, np.uint8)
    ends = np.flatnonzero(data == ord(":")) + 1
    starts = np.concatenate(([0], ends[:-1]))
    by_c = cannheader.distinct_texts(data, starts, ends - starts)
    by_arrow = cannheader.distinct_texts(data, starts, ends - starts, compiled=False)
    assert len(by_c[1]) == 6000
    assert by_c[0].tolist() == by_arrow[0].tolist() and by_c[1].equals(by_arrow[1])


def test_header_values_of_lines_without_a_header_are_null_indices() -> None:
    """A line without a CANN header has no level, module, pid or proc: a null index, not an
    index to a null among the dictionary's values. Arrow releases before 26 do not count the
    latter as null (``is_null``), so the fields a later format reads from such a line (the
    level and pid of a torch_npu line) were left out there."""
    from tests import plog_lines as L

    lines = [L.HCCL_DEBUG, L.STDOUT_PTA, L.CONTINUATION, L.RUNTIME_ERROR, L.STDOUT_EXC]
    found = cannheader.match(pa.array(lines, pa.large_string()))
    for name in ("level", "module", "pid", "proc"):
        values = found.values[name]
        absent = values.dictionary_decode().is_null().to_pylist()
        assert absent == [False, True, True, False, True], name
        assert values.indices.is_null().to_pylist() == absent, name
        assert values.is_null().to_pylist() == absent, name
