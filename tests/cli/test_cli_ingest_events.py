"""The ingest and events commands: outputs, filters, exit codes, streams."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from plogscan.cli import cli
from plogscan.schema import ENCODED_COLUMNS, STORED_TABLE_COLUMNS, TABLE_SCHEMA
from tests import plog_lines as L
from tests.helpers import run_cli


@pytest.fixture()
def logs(tmp_path: Path) -> Path:
    root = tmp_path / "job" / "rank_1" / "debug" / "plog"
    root.mkdir(parents=True)
    (root / "plog-4100_20260203100000000.log").write_text(
        "\n".join([L.TDT_INFO, L.INFO_GE, L.HCCL_DEBUG, L.RUNTIME_ERROR, L.CONTINUATION]) + "\n")
    (tmp_path / "job" / "train_rank1.log").write_text(
        "\n".join([L.STDOUT_PTA, "Traceback (most recent call last):", "  File 'x.py'",
                   L.STDOUT_EXC]) + "\n")
    (tmp_path / "job" / "notes.bin").write_bytes(bytes(range(256)) * 4)
    return tmp_path / "job"


def test_ingest_writes_parquet_with_the_event_schema(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "events.parquet"
    result = run_cli("ingest", str(logs), "-o", str(out), "--stats", "--quiet")
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    assert table.schema.names == TABLE_SCHEMA.names
    assert table.schema.metadata[b"plogscan.schema_version"] == b"3"
    assert table.num_rows == 6  # the traceback and its exception line are one record
    assert "total" in result.stdout and "skipped" in result.stdout
    assert "notes.bin" in result.stderr and "binary" in result.stderr


def test_the_stored_table_keeps_repeated_text_as_dictionaries_and_reads_back_whole(
        logs: Path, tmp_path: Path) -> None:
    """Low-cardinality text is dictionary-encoded in the file; readers get the table's
    schema back, with every value as the logs gave it."""
    out = tmp_path / "events.parquet"
    assert run_cli("ingest", str(logs), "-o", str(out), "--quiet").exit_code == 0
    stored = pq.read_schema(out)
    assert set(ENCODED_COLUMNS) <= set(STORED_TABLE_COLUMNS)
    for name in TABLE_SCHEMA.names:
        encoded = pa.types.is_dictionary(stored.field(name).type)
        assert encoded == (name in STORED_TABLE_COLUMNS), name
    from_table = run_cli("events", str(out), "--format", "jsonl").stdout
    from_logs = run_cli("events", str(logs), "--format", "jsonl", "--quiet").stdout
    assert from_table == from_logs and from_table.count("\n") == 6
    written = tmp_path / "from-diagnose.parquet"
    run_cli("diagnose", str(logs), "--events-out", str(written), "--quiet")
    as_read = pq.read_table(out).cast(TABLE_SCHEMA)
    assert pq.read_table(written).cast(TABLE_SCHEMA).equals(as_read)


def test_events_reads_parquet_and_filters(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "events.parquet"
    run_cli("ingest", str(logs), "-o", str(out), "--quiet")
    result = run_cli("events", str(out), "--level", "error", "--module", "RUNTIME",
                     "--format", "jsonl")
    assert result.exit_code == 0
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["ts"] == "2026-02-03T10:00:02.500000"
    assert row["codes"] == ["507916", "0x7150227"]
    assert row["line_count"] == 2 and row["message"].endswith(L.CONTINUATION)


@pytest.mark.parametrize(
    ("args", "count"),
    [
        (("--grep", "Already have context"), 1),
        (("--rank", "1"), 6),
        (("--pid", "4100", "--module", "HCCL"), 1),
        (("--since", "2026-02-03 10:00:01", "--until", "2026-02-03-10:00:02.500.000"), 2),
        (("--limit", "2"), 2),
    ],
)
def test_event_filters(logs: Path, args: tuple[str, ...], count: int) -> None:
    result = run_cli("events", str(logs), "--format", "csv", "--quiet", *args)
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0][:3] == ["ts", "level", "module"]
    assert len(rows) - 1 == count


def test_table_output_makes_control_characters_visible(tmp_path: Path) -> None:
    path = tmp_path / "plog-1_20260101000000000.log"
    path.write_text("[ERROR] GE(1,p):2026-01-01-00:00:00.000.001 [a.cc:1]1 bad \x1b[2J end\n")
    result = run_cli("events", str(path), "--quiet")
    assert "\x1b" not in result.stdout and "\\x1b[2J" in result.stdout


def test_the_table_names_each_records_host_and_device(tmp_path: Path) -> None:
    root = tmp_path / "node-a7" / "device-3" / "debug" / "plog"
    root.mkdir(parents=True)
    (root / "plog-4100_20260203100000000.log").write_text(L.RUNTIME_ERROR + "\n")
    header, row = run_cli("events", str(tmp_path), "--quiet").stdout.splitlines()[:2]
    assert header.split()[:8] == ["ts", "level", "module", "host", "pid", "rank", "dev", "where"]
    assert row.split()[4:6] == ["node-a7", "4100"] and row.split()[7] == "3", row


def test_bad_regex_and_bad_time_exit_2(logs: Path) -> None:
    assert run_cli("events", str(logs), "--grep", "(?<=x)y").exit_code == 2
    bad_time = run_cli("events", str(logs), "--since", "yesterday")
    assert bad_time.exit_code == 2 and "cannot read time" in bad_time.stderr


def test_nothing_readable_exits_2(tmp_path: Path) -> None:
    result = run_cli("ingest", str(tmp_path / "missing"), "-o", str(tmp_path / "o.parquet"))
    assert result.exit_code == 2
    assert "nothing could be read" in result.stderr and "Traceback" not in result.output


def test_version_and_module_entry_point() -> None:
    import subprocess
    import sys

    from plogscan import __version__

    run = subprocess.run([sys.executable, "-m", "plogscan", "--version"], capture_output=True,
                         text=True, check=True)
    assert __version__ in run.stdout
    # Which header reader this installation has: the C module is built here.
    assert "CANN header reader: compiled" in run.stdout


def test_csv_cells_cannot_run_as_spreadsheet_formulas(tmp_path: Path) -> None:
    path = tmp_path / "plog-1_20260101000000000.log"
    path.write_text("[ERROR] GE(1,p):2026-01-01-00:00:00.000.001 [a.cc:1]1 x\n"
                    "=HYPERLINK(\"http://example.invalid\")\n")
    result = run_cli("events", str(path), "--format", "csv", "--quiet")
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[1][rows[0].index("message")] == "x\n=HYPERLINK(\"http://example.invalid\")"
    orphan = tmp_path / "plog-2_20260101000000000.log"
    orphan.write_text("=1+1\n")
    rows = list(csv.reader(io.StringIO(run_cli("events", str(orphan), "--format", "csv",
                                               "--quiet").stdout)))
    assert rows[1][rows[0].index("message")] == "'=1+1"
    assert rows[1][rows[0].index("pid")] == ""


def test_rules_directory_without_rules_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing here\n")
    log = tmp_path / "plog-1_20260101000000000.log"
    log.write_text(L.INFO_GE + "\n")
    result = run_cli("diagnose", str(log), "--rules", str(tmp_path), "--quiet")
    assert result.exit_code == 2 and "no rule files in" in result.stderr


def test_events_out_is_not_left_behind_when_nothing_was_read(tmp_path: Path) -> None:
    out = tmp_path / "events.parquet"
    result = run_cli("diagnose", str(tmp_path / "missing"), "--events-out", str(out), "--quiet")
    assert result.exit_code == 2 and not out.exists()


def test_threads_and_processes_write_the_same_table(logs: Path, tmp_path: Path) -> None:
    tables = {}
    for mode in ("threads", "processes"):
        out = tmp_path / f"{mode}.parquet"
        result = run_cli("ingest", str(logs), "-o", str(out), "--quiet", "--workers", "2",
                         "--parallel", mode)
        assert result.exit_code == 0, result.output
        tables[mode] = pq.read_table(out)
    assert tables["threads"].num_rows == 6
    assert tables["threads"].equals(tables["processes"])


def test_an_unknown_parallel_mode_is_refused_with_the_choices(logs: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["ingest", str(logs), "-o", str(tmp_path / "e.parquet"),
                                      "--parallel", "fibers"])
    assert result.exit_code == 2
    assert "threads" in result.output and "processes" in result.output


def test_reports_on_an_event_table_show_the_files_it_was_made_from(logs: Path,
                                                                    tmp_path: Path) -> None:
    table = tmp_path / "events.parquet"
    assert run_cli("ingest", str(logs), "-o", str(table), "--quiet").exit_code == 0
    direct = json.loads(run_cli("diagnose", str(logs), "--format", "json", "--quiet").stdout)
    stored = json.loads(run_cli("diagnose", str(table), "--format", "json", "--quiet").stdout)
    assert stored["inputs"]["paths"] == [str(table)]
    for key in ("file_stats", "files", "lines", "records", "skipped_files", "unparsed_lines"):
        assert stored["inputs"][key] == direct["inputs"][key], key
    assert stored["inputs"]["files"] == 2


def test_an_event_table_without_stored_accounting_still_reads(logs: Path, tmp_path: Path) -> None:
    from plogscan.table.parquet import INPUTS_KEY, stored_inputs

    table = tmp_path / "events.parquet"
    assert run_cli("ingest", str(logs), "-o", str(table), "--quiet").exit_code == 0
    rows = pq.read_table(table)
    for name, metadata in (("bare.parquet", None),
                           ("broken.parquet", {INPUTS_KEY: b"{not json"}),
                           ("foreign.parquet", {INPUTS_KEY: b'{"files": [{"x": 1}]}'})):
        copy = tmp_path / name
        pq.write_table(rows.replace_schema_metadata(metadata), copy)
        assert stored_inputs(pq.ParquetFile(copy)) == ([], [], [], [])
        result = run_cli("diagnose", str(copy), "--format", "json", "--quiet")
        assert json.loads(result.stdout)["inputs"]["records"] == 0  # nothing stored, no crash


def test_the_skipped_notes_line_says_where_this_command_lists_them(diagnose_cli, logs: Path,
                                                                    tmp_path: Path) -> None:
    (logs / "README.md").write_text("# what this job was\n\nNotes, not a log.\n")
    ingest = CliRunner().invoke(cli, ["ingest", str(logs), "-o", str(tmp_path / "e.parquet"),
                                      "--quiet"])
    events = CliRunner().invoke(cli, ["events", str(logs), "--quiet"])
    diagnose = diagnose_cli(logs, "--quiet")
    assert "1 file that is not a log" in ingest.stderr and "; --stats lists them" in ingest.stderr
    assert "plogscan ingest --stats lists them" in events.stderr
    assert "the report's inputs section lists them" in diagnose.stderr


def test_skips_are_grouped_on_stderr_one_line_per_reason(diagnose_cli, logs: Path,
                                                         tmp_path: Path) -> None:
    """A tree with hundreds of files that are not logs gives a few stderr lines, each with a
    count and one example; the full list stays in the report and in ``ingest --stats``."""
    junk = logs / "collected"
    junk.mkdir()
    for i in range(40):
        (junk / f"note-{i:02d}.dat").write_text("nothing a log would say\n" * 3)
        (junk / f"pic-{i:02d}.dat").write_bytes(bytes(range(256)) * 8)
    diagnose = diagnose_cli(logs, "--quiet", "--format", "json")
    lines = [line for line in diagnose.stderr.splitlines() if "skipped" in line]
    assert len(lines) == 2, diagnose.stderr
    unknown = next(line for line in lines if "unknown format" in line)
    assert "skipped 40 files: unknown format" in unknown and "note-00.dat" in unknown
    assert "the report's inputs section lists them" in unknown
    report = json.loads(diagnose.stdout)
    binaries = [s for s in report["inputs"]["skipped_files"] if s["reason"] == "binary file"]
    assert len(binaries) >= 40  # the fixture's own binary file too
    binary = next(line for line in lines if "binary" in line)
    assert f"skipped {len(binaries)} files: binary file" in binary
    assert len(report["inputs"]["skipped_files"]) == len(binaries) + 40
    stats = CliRunner().invoke(cli, ["ingest", str(logs), "-o", str(tmp_path / "e.parquet"),
                                     "--quiet", "--stats"])
    assert stats.stdout.count("unknown format") == 40
    assert "--stats lists them" in stats.stderr


def test_one_skipped_file_is_named_with_its_reason(diagnose_cli, logs: Path) -> None:
    (logs / "odd.dat").write_text("nothing a log would say\n")
    diagnose = diagnose_cli(logs, "--quiet")
    assert "odd.dat: unknown format" in diagnose.stderr
