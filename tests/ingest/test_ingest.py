"""Ingest: every line accounted for, chunk boundaries invisible, bad input never crashes."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from pathlib import Path

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.textinput import parse_text
from plogscan.parse.results import FileContext
from plogscan.schema import decoded, table_schema
from tests import plog_lines as L


def physical_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def ingest_bytes(data: bytes, chunk: int, kind: str = "plog-debug", encoded: bool = False):
    ingest = Ingest(chunk_bytes=chunk, workers=2, encoded=encoded)
    batches = list(ingest.batches_from([(FileContext("f.log", kind), io.BytesIO(data))]))
    for batch in batches:
        assert batch.schema == table_schema(encoded)
    if encoded:
        batches = [decoded(batch) for batch in batches]
    table = pa.Table.from_batches(batches) if batches else None
    (stats,) = ingest.summary.files
    return table, stats


def check_accounting(data: bytes, chunk: int, kind: str = "plog-debug",
                     encoded: bool = False) -> pa.Table | None:
    table, stats = ingest_bytes(data, chunk, kind, encoded)
    assert stats.lines == physical_lines(data)
    assert stats.lines == stats.record_lines + stats.blank_lines
    rows = 0 if table is None else table.num_rows
    assert stats.records == rows
    if table is not None:
        assert sum(table.column("line_count").to_pylist()) == stats.record_lines
        firsts = table.column("line").to_pylist()
        assert firsts == sorted(firsts)
    return table


LINE_CHOICES = st.sampled_from([*L.VALID_LINES, L.STDOUT_PTA, L.STDOUT_EXC, "\t", "x"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(LINE_CHOICES, max_size=40), chunk=st.integers(16, 400),
       trailing_newline=st.booleans(), kind=st.sampled_from(["plog-debug", "stdout"]))
def test_accounting_holds_for_any_mix_of_valid_lines(lines, chunk, trailing_newline, kind) -> None:
    data = "\n".join(lines).encode() + (b"\n" if trailing_newline and lines else b"")
    small = check_accounting(data, chunk, kind)
    whole = check_accounting(data, 1 << 20, kind)
    # The chunk size must not change a single record.
    assert (small is None) == (whole is None)
    if small is not None:
        assert small.equals(whole)
    # Nor must the encoded form the Parquet writer gets, records stitched across chunks and
    # orphan lines included.
    stored = check_accounting(data, chunk, kind, encoded=True)
    assert (stored is None) == (whole is None)
    if stored is not None:
        assert stored.equals(whole)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=600), chunk=st.integers(8, 300))
def test_accounting_holds_for_random_bytes(data: bytes, chunk: int) -> None:
    plain = check_accounting(data, chunk)
    stored = check_accounting(data, chunk, encoded=True)
    assert (plain is None) == (stored is None)
    if plain is not None:
        assert plain.equals(stored)


def test_record_split_across_chunks_is_stitched() -> None:
    text = "\n".join([L.INFO_GE] + [L.CONTINUATION] * 50 + ["", "", L.HCCL_DEBUG]) + "\n"
    table = check_accounting(text.encode(), 64)
    first, second = table.to_pylist()
    assert first["line_count"] == 51 and first["message"].count("\n") == 50
    assert second["line"] == 54


def test_invalid_utf8_nul_and_gbk_are_counted_not_fatal() -> None:
    data = (L.INFO_GE + " \xff\xfe bad").encode("latin-1") + b"\n" + b"a\x00b\n" + \
        "[INFO] GE(1,p):2026-01-01-00:00:00.000.001 [a.cc:1]1 中文".encode("gbk") + b"\n"
    table, stats = ingest_bytes(data, 1 << 20)
    assert stats.decode_errors >= 2 and stats.nul_bytes == 1
    assert stats.lines == 3 == stats.record_lines + stats.blank_lines
    assert "\ufffd" in table.column("message")[0].as_py()


def test_a_single_ten_megabyte_line() -> None:
    data = (L.INFO_GE + " " + "y" * (10 << 20)).encode() + b"\n" + L.HCCL_DEBUG.encode()
    table = check_accounting(data, 1 << 20)
    assert table.num_rows == 2 and table.column("truncated").to_pylist() == [True, False]


def test_empty_and_blank_only_input() -> None:
    table, stats = ingest_bytes(b"", 64)
    assert table is None and stats.lines == 0
    table, stats = ingest_bytes(b"\n\n  \n", 64)
    assert table is None and stats.lines == 3 == stats.blank_lines


def test_month_13_is_kept_with_null_ts_and_counted() -> None:
    table, stats = ingest_bytes(
        b"[ERROR] GE(1,p):2026-13-40-00:00:00.000.001 [a.cc:1]1 odd date\n", 1 << 20)
    assert table.column("ts").to_pylist() == [None] and stats.invalid_timestamps == 1


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "logs" / "rank_1" / "debug" / "plog"
    root.mkdir(parents=True)
    (root / "plog-4100_20260203100000000.log").write_text(
        "\n".join([L.INFO_GE, L.RUNTIME_ERROR]) + "\n")
    return tmp_path / "logs"


def test_directories_gz_and_archives(tmp_path: Path) -> None:
    logs = _tree(tmp_path)
    text = (logs / "rank_1/debug/plog/plog-4100_20260203100000000.log").read_bytes()
    (tmp_path / "one.log.gz").write_bytes(gzip.compress(text))
    with tarfile.open(tmp_path / "c.tar.gz", "w:gz") as tar:
        tar.add(logs, arcname="logs")
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as archive:
        archive.writestr("run/plog/plog-4100_20260203100000000.log", text)
    for target in (logs, tmp_path / "one.log.gz", tmp_path / "c.tar.gz", tmp_path / "c.zip"):
        ingest = Ingest()
        table = pa.Table.from_batches(list(ingest.batches([str(target)])))
        assert table.num_rows == 2, target
        assert table.column("module").to_pylist() == ["GE", "RUNTIME"]
    assert "c.zip!run/plog/plog-4100_20260203100000000.log" in table.column("path")[0].as_py()


def test_truncated_gzip_keeps_what_was_readable(tmp_path: Path) -> None:
    body = ("\n".join([L.INFO_GE] * 2000) + "\n").encode()
    packed = gzip.compress(body)
    path = tmp_path / "plog-1_20260101000000000.log.gz"
    path.write_bytes(packed[: len(packed) // 2])
    ingest = Ingest()
    table = pa.Table.from_batches(list(ingest.batches([str(path)])))
    (stats,) = ingest.summary.files
    assert 0 < table.num_rows < 2000
    assert stats.problems and "read stopped" in stats.problems[0]


def test_parse_text_classifies_by_path() -> None:
    table = parse_text(L.STDOUT_PTA + "\n", "job/train_rank1.log")
    assert table.column("kind").to_pylist() == ["stdout"]


@settings(max_examples=300, deadline=None)
@given(data=st.one_of(st.binary(max_size=64), st.text(max_size=32).map(str.encode)))
def test_the_utf8_check_agrees_with_python(data: bytes) -> None:
    from plogscan.ingest.chunks import valid_utf8

    try:
        data.decode("utf-8")
        expected = True
    except UnicodeDecodeError:
        expected = False
    assert valid_utf8(data) is expected


_UTF8_EDGES = st.sampled_from([b"\xed\xa0\x80", b"\xc0\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\xaf",
                               b"\xef\xbf\xbf", "长".encode(), b"\xf0\x9f\x98\x80", b"\x80"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=8), _UTF8_EDGES), max_size=12))
def test_the_small_utf8_check_agrees_with_arrows(parts: list[bytes]) -> None:
    """Small data is checked with ``bytes.decode``, large data with Arrow: both accept the
    same bytes (surrogates, overlong forms and code points past U+10FFFF refused alike)."""
    from plogscan.ingest.chunks import SMALL_UTF8_CHECK, valid_utf8

    data = b"".join(parts)
    padded = data + b"a" * (SMALL_UTF8_CHECK - len(data))  # the same bytes, checked by Arrow
    assert valid_utf8(data) == valid_utf8(padded)
    try:
        data.decode("utf-8")
        assert valid_utf8(padded)
    except UnicodeDecodeError:
        assert not valid_utf8(padded)


def test_ingest_shows_only_its_calls_and_its_accounting() -> None:
    """Other packages drive ``Ingest`` through these names alone; its collaborators and state
    are its own (the attributes are private, the accounting is read from ``summary``)."""
    public = {name for name in dir(Ingest) if not name.startswith("_")}
    assert public == {"batches", "batches_from", "hand_on", "absorb", "record_limit",
                      "record_inputs", "summary", "limits", "reused_files", "cancel"}
    ingest = Ingest(workers=1)
    assert not {name for name in vars(ingest) if not name.startswith("_")}
