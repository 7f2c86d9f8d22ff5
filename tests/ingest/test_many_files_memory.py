"""Bounded state for trees of many small files.

Two things grew with the number of files: the batches waiting to be joined before the rules
run (one object per file, each costing kilobytes whatever its rows), and the JSON report's
per-file accounting (one entry per file). The first is joined every ``COALESCE_BATCHES``
batches; the second lists at most ``MAX_FILE_STATS`` files, those with something to say
first, and counts the rest while the totals still cover every file.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pyarrow as pa
import pytest

import plogscan.report.json_report as json_report
from plogscan.model import FileStats
from plogscan.pipeline.passes import COALESCE_BATCHES, coalesced
from plogscan.report.json_report import listed_files, schema_path


def test_coalescing_joins_small_batches_before_many_wait(monkeypatch) -> None:
    joined: list[int] = []
    concat = pa.concat_batches

    def counting(batches):
        joined.append(len(batches))
        return concat(batches)

    monkeypatch.setattr(pa, "concat_batches", counting)
    small = [pa.record_batch({"line": [i], "text": [f"r{i}"]}) for i in range(1000)]
    out = list(coalesced(iter(small), rows=600))
    assert max(joined) <= COALESCE_BATCHES
    assert [b.num_rows for b in out] == [600, 400]
    assert pa.Table.from_batches(out).column("line").to_pylist() == list(range(1000))


def test_listing_keeps_the_files_with_something_to_say_first() -> None:
    files = [FileStats(f"f{i:02d}.log", "plog", lines=1) for i in range(12)]
    files[9] = FileStats("f09.log", "plog", lines=3, unparsed_lines=1)
    files[11] = FileStats("f11.log", "plog", problems=("gzip stream truncated",))
    assert listed_files(files, cap=20) == sorted(files, key=lambda f: f.path)
    shown = [f.path for f in listed_files(list(reversed(files)), cap=4)]
    assert shown == ["f00.log", "f01.log", "f09.log", "f11.log"]


def test_the_report_counts_the_files_it_does_not_list(diagnose_cli, tmp_path: Path,
                                                      monkeypatch) -> None:
    monkeypatch.setattr(json_report, "MAX_FILE_STATS", 5)
    for i in range(12):
        folder = tmp_path / f"rank_{i}" / "process_log" / "run" / "plog"
        folder.mkdir(parents=True)
        text = (f"[ERROR] GE({1000 + i},python3):2026-05-01-10:00:0{i % 10}.000.000 "
                "[ge.cc:640]1 Run:done\n").encode()
        if i == 7:
            text = text.replace(b"done", b"d\xffne")  # one invalid UTF-8 byte
        (folder / f"plog-{1000 + i}_20260501100000000.log").write_bytes(text)
    result = diagnose_cli(tmp_path, "--format", "json", "--quiet", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    jsonschema.validate(document, json.loads(schema_path().read_text()))
    inputs = document["inputs"]
    assert inputs["files"] == 12 and inputs["lines"] == 12
    assert len(inputs["file_stats"]) == 5 and inputs["file_stats_omitted"] == 7
    assert any(f["decode_errors"] == 1 and "rank_7" in f["path"] for f in inputs["file_stats"])


@pytest.mark.usefixtures("every_file_stored")
def test_a_cached_rerun_counts_the_files_facts_in_bulk(tmp_path: Path, monkeypatch) -> None:
    from plogscan.crossrank import gather
    from plogscan.report import render
    from tests.helpers import diagnosed

    for i in range(300):
        folder = tmp_path / "logs" / f"rank_{i % 4}" / "process_log" / "run" / "plog"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"plog-{1000 + i}_20260501100000000.log").write_text(
            f"[INFO] GE({1000 + i},python3):2026-05-01-10:00:0{i % 10}.000.000 "
            "[ge.cc:640]1 Run:done\n")
    logs, cache = str(tmp_path / "logs"), tmp_path / "cache"
    first = render(diagnosed([logs], cache=cache), "json")
    calls: list[int] = []
    counted = gather.count_from_facts
    monkeypatch.setattr(gather, "count_from_facts",
                        lambda g, facts: calls.append(facts.num_rows) or counted(g, facts))
    second = diagnosed([logs], cache=cache, reuse_result=False)
    assert second.cache.reused_files == 300
    assert render(second, "json") == first
    assert 1 <= len(calls) <= 3 and sum(calls) >= 300


def test_slices_of_one_table_are_joined_by_what_they_hold() -> None:
    """The records of a group of small files arrive as slices of one table: each counts the
    bytes of its own rows, not of the whole table it is cut from, so they are joined."""
    from plogscan.schema import EVENT_SCHEMA

    rows = 20_000
    table = pa.table({name: pa.nulls(rows, EVENT_SCHEMA.field(name).type)
                      for name in EVENT_SCHEMA.names}).set_column(
        EVENT_SCHEMA.get_field_index("message"), EVENT_SCHEMA.field("message"),
        pa.array(["x" * 400] * rows, EVENT_SCHEMA.field("message").type))
    slices = [table.slice(i, 20).to_batches()[0] for i in range(0, rows, 20)]
    out = list(coalesced(iter(slices)))
    assert [b.num_rows for b in out] == [rows]
