"""Robustness from the user's and the attacker's side, through the real command line.

* bad input never crashes: every kind of broken file goes through every command and every
  format; the user gets one clear line per problem on stderr, exit code 2 only when nothing at
  all could be read, and never a traceback;
* bad options and unwritable outputs are refused with one error line, before any parsing;
* the same input gives byte-identical reports (runs, worker counts, argument order, tree moved);
* no line is lost: ``lines == record_lines + blank_lines`` per file, equal to an independent
  count, for random trees built from the samples plus noise;
* hostile log text stays inert in every output format.

Every input is built in ``tmp_path``. Runs use ``--workers 1`` where the worker count does not
matter (a thread pool starts faster than worker processes); the determinism test compares it
with the default.
"""

from __future__ import annotations

import concurrent.futures.process as futures_process
import gzip
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner, Result
from markdown_it import MarkdownIt

from plogscan.catalog import load_rules
from plogscan.cli import cli
from plogscan.engine import scan
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.textinput import parse_files
from plogscan.parse.results import FileContext
from plogscan.pipeline.passes import coalesced
from tests.forked import plogscan_as_nobody
from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
SAMPLES = ROOT / "samples"
# What must never reach a terminal raw: C0 controls but TAB and LF, DEL, C1, bidi controls,
# line/paragraph separators.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                    "\u2066-\u2069]")
FORMATS = ("text", "json", "markdown", "sarif", "junit", "html")
EVENT_FORMATS = ("table", "csv", "jsonl")


def plog(level: str, module: str, pid: int, second: int, message: str) -> str:
    return (f"[{level}] {module}({pid},python):2026-03-02-10:15:{second:02d}.123.456 "
            f"[op.cc:{second + 10}][tid:{pid}] {message}")


GOOD = "\n".join([
    plog("INFO", "GE", 4321, 1, "BuildGraph: graph 7 built"),
    plog("ERROR", "HCCL", 4321, 2, "EI0002: The wait execution of the Notify register times "
         "out. remote rank [3] tag [AllReduce_0]"),
]) + "\n"


def run(*args: object, stdin: bytes | str | None = None) -> Result:
    """Invoke plogscan in-process; any exception other than an exit code fails the test."""
    result = CliRunner().invoke(cli, [str(a) for a in args], input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        trace = "".join(traceback.format_exception(*result.exc_info))  # type: ignore[misc]
        pytest.fail(f"plogscan {' '.join(map(str, args))} raised:\n{trace}")
    assert "Traceback" not in result.stderr
    return result


def assert_inert(text: str, where: str) -> None:
    found = sorted(set(UNSAFE.findall(text)))
    assert not found, f"{where} carries raw control/bidi characters {found!r}"


def check_document(fmt: str, text: str) -> None:
    """The document parses as what it claims to be."""
    if fmt in ("json", "sarif"):
        json.loads(text)
    elif fmt == "jsonl":
        lines = text.split("\n")[:-1]
        assert len(text.splitlines()) == len(lines), "a JSON Lines record spans several lines"
        for line in lines:
            json.loads(line)
    elif fmt == "junit":
        ET.fromstring(text.encode("utf-8"))
    elif fmt == "html":
        assert text.lstrip().lower().startswith("<!doctype html>")
        HTMLParser().feed(text)


# --------------------------------------------------------------------------------------------
# 1. Bad input never crashes.


def _archive_chain(levels: int, payload: bytes) -> bytes:
    """A log wrapped in ``levels`` archives, alternately tar.gz and zip."""
    name, blob = "plog-4321_20260302101500000.log", payload
    for level in range(levels):
        out = io.BytesIO()
        if level % 2 == 0:
            with tarfile.open(fileobj=out, mode="w:gz") as tar:
                info = tarfile.TarInfo(name)
                info.size = len(blob)
                tar.addfile(info, io.BytesIO(blob))
            name = f"level{level}.tgz"
        else:
            with zipfile.ZipFile(out, "w") as archive:
                archive.writestr(name, blob)
            name = f"level{level}.zip"
        blob = out.getvalue()
    return blob


WEIRD_NAMES = ("with space.log", "ünïcödé 日志.log", "new\nline.log", "esc\x1b[2Jname.log",
               "bidi\u202eevil.log", "tab\tname.log")


def bad_tree(root: Path) -> dict[str, str]:
    """Every kind of bad input in one tree, next to one good log.

    Returns ``{name fragment: what stderr must say on that file's line}``.
    """
    root.mkdir(parents=True)
    good = GOOD.encode()
    (root / "plog-4321_20260302101500000.log").write_bytes(good)
    (root / "bad-utf8.log").write_bytes(good + b"[INFO] GE(1,x):2026-03-02-10:15:03.000.000 "
                                                b"bad \xff\xfe\xc3 bytes\n")
    (root / "gbk.log").write_bytes(good + "[INFO] GE(1,x):2026-03-02-10:15:03.000.000 设备错误\n"
                                   .encode("gbk"))
    (root / "nul.log").write_bytes(good.replace(b"graph 7", b"gr\x00aph 7") + b"\x00\x00\n")
    (root / "empty.log").write_bytes(b"")
    (root / "month13.log").write_bytes(
        b"[ERROR] HCCL(77,x):2026-13-02-10:15:01.123.456 month 13\n"
        b"[ERROR] HCCL(77,x):2026-02-31-25:61:61.123.456 day 31 of February\n"
        b"[ERROR] HCCL(77,x):0000-01-01-00:00:00.000.000 year 0\n"
        b"[ERROR] HCCL(77,x):9999-12-31-23:59:60.000.000 a leap second past year 9999\n")
    compressed = gzip.compress(good * 300)
    (root / "truncated.log.gz").write_bytes(compressed[: len(compressed) // 2])
    (root / "corrupt.log.gz").write_bytes(b"\x1f\x8b\x08\x00" + random.Random(1).randbytes(400))
    (root / "corrupt.zip").write_bytes(b"PK\x03\x04" + random.Random(2).randbytes(300))
    raw_tar = io.BytesIO()
    with tarfile.open(fileobj=raw_tar, mode="w") as tar:
        for name in ("a/plog-1_20260302101500000.log", "b/plog-2_20260302101500000.log"):
            info = tarfile.TarInfo(name)
            info.size = len(good) * 50
            tar.addfile(info, io.BytesIO(good * 50))
    (root / "cut.tar.gz").write_bytes(gzip.compress(raw_tar.getvalue()[:-6000]))
    (root / "binary.dat").write_bytes(random.Random(3).randbytes(4096))
    (root / "deep.zip").write_bytes(_archive_chain(10, good))
    (root / "nested.tgz").write_bytes(_archive_chain(3, good))
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    (root / "sub").mkdir()
    os.symlink("..", root / "sub" / "up")
    os.mkfifo(root / "pipe")
    for name in WEIRD_NAMES:
        (root / name).write_bytes(good)
    return {
        "bad-utf8.log": "invalid UTF-8 sequences replaced",
        "nul.log": "NUL bytes removed",
        "empty.log": "empty file",
        "truncated.log.gz": "read stopped after",
        "corrupt.log.gz": "corrupt data",
        "corrupt.zip": "corrupt archive",
        "cut.tar.gz: corrupt archive": "unexpected end of data",
        "cut.tar.gz!b/plog-2": "read stopped after",
        "binary.dat": "binary file",
        "deep.zip": "archive nested too deeply",
        "loop-a": "symlink loop",
        "loop-b": "symlink loop",
        "sub/up": "symlink loop",
        "pipe": "not a regular file",
    }


# Problems met while reading a file are named file by file (their texts differ: where the read
# stopped, and why); skip reasons and replaced bytes are grouped.
PER_FILE_PROBLEMS = ("read stopped after",)


def _commands(tree: Path, out: Path) -> list[tuple[str, list[object], int]]:
    """(label, argv, exit code) for every command and format over ``tree``."""
    commands: list[tuple[str, list[object], int]] = [
        ("ingest", ["ingest", tree, "-o", out / "events.parquet", "--stats", "-q"], 0),
        ("baseline", ["baseline", "create", tree, "-o", out / "baseline.json", "--workers", 1], 0),
        ("output-dir", ["diagnose", tree, "--output-dir", out / "reports", "-q"], 1),
    ]
    commands += [(f"events-{fmt}", ["events", tree, "--format", fmt, "-q"], 0)
                 for fmt in EVENT_FORMATS]
    commands += [(f"diagnose-{fmt}", ["diagnose", tree, "--format", fmt, "-q"], 1)
                 for fmt in FORMATS]
    for _label, argv, _code in commands:
        argv += ["--workers", 1] if "--workers" not in argv else []
    return commands


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("bad") / "logs"
    return root, bad_tree(root)


@pytest.mark.parametrize("label", [c[0] for c in _commands(Path("."), Path("."))])
def test_bad_inputs_through_every_command(bad_inputs: tuple[Path, dict[str, str]],
                                          tmp_path: Path, label: str) -> None:
    tree, expected = bad_inputs
    ((_, argv, code),) = [c for c in _commands(tree, tmp_path) if c[0] == label]
    result = run(*argv)
    assert result.exit_code == code, result.stderr
    assert_inert(result.stdout, "stdout")
    assert_inert(result.stderr, "stderr")
    lines = result.stderr.splitlines()
    fragments_of: dict[str, list[str]] = {}
    for fragment, reason in expected.items():
        fragments_of.setdefault(reason, []).append(fragment)
    for reason, fragments in fragments_of.items():
        if len(fragments) == 1 or reason in PER_FILE_PROBLEMS:
            for fragment in fragments:  # each file named with its reason
                mine = [line for line in lines if f"/{fragment}" in line and reason in line]
                assert len(mine) == 1, f"{fragment}: expected one stderr line with " \
                    f"{reason!r}:\n" + "\n".join(lines)
            continue
        # Several files skipped for one reason: one line with their count and one example.
        mine = [line for line in lines if f" {len(fragments)} files" in line
                and reason in line and any(f"/{f}" in line for f in fragments)]
        assert len(mine) == 1, f"{fragments}: expected one stderr line with {reason!r}:\n" + \
            "\n".join(lines)
    if label in ("ingest", "events-table", "events-csv"):  # odd file names: shown, escaped
        for shown in ("with space.log", "ünïcödé 日志.log", "new\\x0aline.log",
                      "esc\\x1b[2Jname.log", "bidi\\u202eevil.log", "tab\\x09name.log"):
            assert f"/{shown}" in result.stdout
    if label == "events-jsonl":  # a GBK log is decoded, not replaced
        assert "设备错误" in result.stdout
    assert "/gbk.log" not in result.stderr
    fmt = label.split("-", 1)[-1]
    if label.startswith(("events", "diagnose")):
        check_document(fmt, result.stdout)
    if label == "output-dir":
        for name, kind in (("report.json", "json"), ("report.sarif", "sarif"),
                           ("report.xml", "junit"), ("report.html", "html"),
                           ("report.md", "markdown")):
            text = (tmp_path / "reports" / name).read_text(encoding="utf-8")
            check_document(kind, text)
            assert_inert(text, name)
    if label == "ingest":
        stats = result.stdout
        assert re.search(r"^plog\s+4\s+4\s+0\s+0\s+0\s+0\s+4\s+0\s+\S*month13\.log$", stats, re.M)
        assert "nested.tgz!level1.zip!level0.tgz!plog-4321" in stats


def test_huge_lines_are_kept_and_reports_stay_small(tmp_path: Path) -> None:
    """A single 10 MB line and a 1 MB line of '[' are parsed and counted as possibly truncated;
    the 10 MB line keeps its first 8 MiB (the default --max-line-bytes), says so on stderr and
    in the JSON inputs, and is kept whole with a larger limit. Reports stay small."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "plog-1_20260302101500000.log").write_text(
        plog("INFO", "GE", 1, 1, "A" * (10 << 20)) + "\n" + GOOD)
    (logs / "plog-2_20260302101500000.log").write_text(
        plog("ERROR", "HCCL", 2, 3, "EI0002: The wait execution of the Notify register times out"
             ) + "\n" + "[" * (1 << 20) + "\n" + GOOD)
    result = run("ingest", logs, "-o", tmp_path / "e.parquet", "--stats", "-q", "--workers", 1)
    assert result.exit_code == 0, result.stderr
    assert re.search(r"^plog\s+3\s+3\s+0\s+0\s+0\s+1\s", result.stdout, re.M)  # 10 MB line
    assert re.search(r"^plog\s+4\s+3\s+0\s+0\s+0\s+1\s", result.stdout, re.M)  # '[' line joined
    dropped = len(plog("INFO", "GE", 1, 1, "")) + (10 << 20) - (8 << 20)
    assert ("plog-1_20260302101500000.log: 1 line(s) longer than 8 MiB kept their first 8 MiB "
            f"(first: line 1); {dropped:,} bytes of them were not read") in result.stderr
    result = run("events", logs, "--format", "jsonl", "-q", "--workers", 1)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 6
    longest = max(rows, key=lambda r: len(r["message"]))
    assert len(longest["message"]) == (8 << 20) - len(plog("INFO", "GE", 1, 1, ""))
    assert longest["truncated"] is True
    assert [r["line_count"] for r in rows if "[[[[" in r["message"]] == [2]
    result = run("events", logs, "--format", "jsonl", "-q", "--workers", 1,
                 "--max-line-bytes", "16M")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert max(len(r["message"]) for r in rows) == 10 << 20
    assert "longer than" not in result.stderr
    result = run("diagnose", logs, "-q", "--workers", 1, "--format", "json")
    assert result.exit_code == 1
    (hit,) = json.loads(result.stdout)["inputs"]["limits"]
    assert (hit["limit"], hit["option"], hit["value"]) == ("line_bytes", "--max-line-bytes",
                                                           8 << 20)
    assert hit["path"].endswith("plog-1_20260302101500000.log")
    result = run("diagnose", logs, "-q", "--workers", 1, "--all")
    assert result.exit_code == 1
    assert len(result.stdout) < 100_000
    assert "more characters]" in result.stdout


def test_two_thousand_tiny_files(tmp_path: Path) -> None:
    logs = tmp_path / "many"
    logs.mkdir()
    for i in range(2000):
        (logs / f"plog-{i}_20260302101500000.log").write_text(plog("INFO", "GE", i, 1, "ok\n"))
    result = run("diagnose", logs, "--format", "json", "-q")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["inputs"]["files"] == 2000 and document["findings"] == []


def test_small_batches_are_joined_without_changing_rows_or_findings() -> None:
    """``diagnose`` joins the one-batch-per-file stream before the rules run."""
    files = {f"rank_{i}/plog-{i}_20260302101500000.log": GOOD for i in range(40)}
    batches = parse_files(files).to_batches(max_chunksize=2)
    joined = list(coalesced(iter(batches), rows=16))
    assert len(joined) < len(batches)
    assert pa.Table.from_batches(joined).equals(pa.Table.from_batches(batches))
    rules = load_rules()
    assert scan(iter(joined), rules) == scan(iter(batches), rules)


def _readers() -> list[tuple[str, list[str]]]:
    return [("ingest", ["ingest", "{in}", "-o", "{out}/e.parquet"]),
            ("events", ["events", "{in}"]),
            ("diagnose", ["diagnose", "{in}"]),
            ("baseline", ["baseline", "create", "{in}", "-o", "{out}/b.json"])]


@pytest.mark.parametrize("what", ["empty-dir", "stdin", "dev-null", "glob", "fifo-in-dir"])
@pytest.mark.parametrize(("command", "argv"), _readers(), ids=[r[0] for r in _readers()])
def test_nothing_readable_exits_2_and_says_why(tmp_path: Path, command: str, argv: list[str],
                                               what: str) -> None:
    target, reason = {
        "empty-dir": (tmp_path / "empty", None),
        "stdin": ("-", "<stdin>: empty file"),
        "dev-null": ("/dev/null", "/dev/null: empty file"),
        "glob": (f"{tmp_path}/nothing*.log", "nothing*.log: no file matches this pattern"),
        "fifo-in-dir": (tmp_path / "pipes", "pipes/p: not a regular file"),
    }[what]
    (tmp_path / "empty").mkdir()
    (tmp_path / "pipes").mkdir()
    os.mkfifo(tmp_path / "pipes" / "p")
    args = [str(a).format(**{"in": target, "out": tmp_path}) for a in argv]
    result = run(*args, "--workers", "1", stdin=b"")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-2 if "help" in result.stderr else -1].startswith(
        "error: nothing could be read")
    if reason:  # a named path that cannot be read is named as grep names it, not "skipped"
        said = f"plogscan: {tmp_path}/{reason}" if what == "glob" else f"skipped {reason}"
        assert said in result.stderr or f"plogscan: skipped {tmp_path}/{reason}" in \
            result.stderr, result.stderr
    assert not (tmp_path / "e.parquet").exists() and not (tmp_path / "b.json").exists()


def test_stdin_and_named_pipes_are_read(tmp_path: Path) -> None:
    result = run("events", "-", "--format", "jsonl", "--workers", "1", stdin=GOOD)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["path"], r["line"], r["level"]) for r in rows] == [
        ("<stdin>", 1, "INFO"), ("<stdin>", 2, "ERROR")]
    fifo = tmp_path / "job.log"
    os.mkfifo(fifo)
    source = tmp_path / "source.log"
    source.write_text(GOOD)
    # diagnose reads a pipe once: fetching context lines afterwards must not open it again
    # (that would wait forever), so it runs in a child with a timeout.
    writer = subprocess.Popen(["sh", "-c", f"cat '{source}' > '{fifo}'"])
    try:
        done = subprocess.run([sys.executable, "-m", "plogscan", "diagnose", str(fifo),
                               "--format", "json", "--workers", "1"], cwd=ROOT,
                              capture_output=True, timeout=120, check=False)
    finally:
        writer.kill()
        writer.wait()
    assert done.returncode == 1, done.stderr
    finding = json.loads(done.stdout)["findings"][0]
    assert finding["evidence"][0]["path"] == str(fifo)


def test_unreadable_inputs_and_outputs(tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        base.chmod(0o777)
        logs = base / "logs"
        (logs / "secret").mkdir(parents=True)
        (logs / "plog-1_20260302101500000.log").write_text(GOOD)
        (logs / "locked.log").write_text(GOOD)
        (logs / "secret" / "plog-2_20260302101500000.log").write_text(GOOD)
        (base / "ro").mkdir()
        for path in (logs, base / "ro"):
            path.chmod(0o755)
        (logs / "plog-1_20260302101500000.log").chmod(0o644)
        (logs / "locked.log").chmod(0)
        (logs / "secret").chmod(0)
        # Warm up as root: modules that load lazily cannot be read by 'nobody' in a checkout
        # under /root.
        run("diagnose", logs, "--output-dir", tmp_path / "warm", "-q", "--workers", "1")
        try:
            common = ["--workers", "1"]
            for argv, code in (
                (["events", str(logs), "--format", "csv", *common], 0),
                (["ingest", str(logs), "-o", str(base / "e.parquet"), *common], 0),
                (["diagnose", str(logs), "--format", "json", *common], 1),
                (["baseline", "create", str(logs), "-o", str(base / "b.json"), *common], 0),
            ):
                status, _out, err = plogscan_as_nobody(argv)
                assert status == code, err
                assert "Traceback" not in err and "CHILD ERROR" not in err, err
                # one line for both: their count, the reason and one of them
                assert (f"skipped 2 files: unreadable: Permission denied (e.g. {logs}/locked.log)"
                        in err), err
            for argv in (["diagnose", str(logs), "-o", str(base / "ro" / "r.txt"), *common],
                         ["diagnose", str(logs), "--output-dir", str(base / "ro" / "d"), *common],
                         ["diagnose", str(logs), "--events-out", str(base / "ro" / "e.parquet"),
                          *common],
                         ["ingest", str(logs), "-o", str(base / "ro" / "e.parquet"), *common],
                         ["baseline", "create", str(logs), "-o", str(base / "ro" / "b.json")]):
                status, _out, err = plogscan_as_nobody(argv)
                assert status == 2, err
                assert "Traceback" not in err and "CHILD ERROR" not in err, err
                assert "error: cannot write" in err and "permission denied" in err.lower(), err
                assert "skipped" not in err, "the output must be checked before parsing"
        finally:
            (logs / "secret").chmod(0o755)


def test_worker_processes_unavailable_fall_back_to_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without named semaphores (no /dev/shm, some sandboxes) a process pool cannot start."""
    monkeypatch.setitem(sys.modules, "multiprocessing.synchronize", None)
    monkeypatch.setattr(futures_process, "_system_limits_checked", False)
    monkeypatch.setattr(futures_process, "_system_limited", None)
    ingest = Ingest(workers=2)
    ctx = FileContext("job.log", "plog")
    rows = sum(b.num_rows for b in ingest.batches_from([(ctx, io.BytesIO(GOOD.encode()))]))
    assert rows == 2


@pytest.mark.parametrize(("argv", "message"), [
    (["events", "{logs}", "--since", "garbage"], "error: cannot read time 'garbage'"),
    (["events", "{logs}", "--until", "2026-13-45"], "error: cannot read time '2026-13-45'"),
    (["events", "{logs}", "--grep", "(unclosed"], "error: --grep is not a valid RE2 regex"),
    (["diagnose", "{logs}", "--fail-on", "garbage"], "'garbage' is not one of"),
    (["diagnose", "{logs}", "--rules", "{tmp}/passwd"], "a rule file must be a mapping"),
    (["diagnose", "{logs}", "--rules", "{tmp}/binary.yaml"], "cannot read rule file"),
    (["diagnose", "{logs}", "--output-dir", "{tmp}/afile"], "is a file"),
    (["diagnose", "{logs}", "-o", "{tmp}/afile/report.txt"], "error: cannot write report"),
    (["diagnose", "{logs}", "--events-out", "{tmp}/afile/e.parquet"],
     "error: cannot write event table"),
    (["diagnose", "{logs}", "--baseline", "{tmp}/passwd"], "baseline file is not valid JSON"),
    (["ingest", "{logs}", "-o", "{tmp}/afile/e.parquet"], "error: cannot write event table"),
    (["ingest", "{logs}/plog-4321_20260302101500000.log", "-o",
      "{logs}/plog-4321_20260302101500000.log"], "refusing to overwrite the input file"),
    (["diagnose", "{logs}/plog-4321_20260302101500000.log", "-o",
      "{logs}/plog-4321_20260302101500000.log"], "refusing to overwrite the input file"),
    (["baseline", "create", "{logs}", "-o", "{tmp}/afile/b.json"],
     "error: cannot write baseline file"),
])
def test_bad_options_exit_2_before_any_parsing(tmp_path: Path, argv: list[str],
                                               message: str) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "plog-4321_20260302101500000.log").write_text(GOOD)
    (logs / "README.md").write_text("notes\n")  # read => a 'skipped ... not logs' line
    (tmp_path / "afile").write_text("x")
    (tmp_path / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n" * 200)
    (tmp_path / "binary.yaml").write_bytes(b"\xc8\x00\xff" * 50)
    args = [a.format(logs=logs, tmp=tmp_path) for a in argv]
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "skipped" not in result.stderr, "bad options are refused before the logs are read"
    assert max(len(line) for line in result.stderr.splitlines()) < 300
    assert (logs / "plog-4321_20260302101500000.log").read_text() == GOOD


def test_output_into_a_missing_directory_is_created(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "plog-4321_20260302101500000.log").write_text(GOOD)
    out = tmp_path / "new" / "dir"
    assert run("diagnose", logs, "-o", out / "r.json", "--format", "json", "-q",
               "--workers", "1").exit_code == 1
    assert run("ingest", logs, "-o", out / "e.parquet", "-q", "--workers", "1").exit_code == 0
    json.loads((out / "r.json").read_text())
    assert run("events", out / "e.parquet").exit_code == 0


# --------------------------------------------------------------------------------------------
# 2. Determinism.


def _reports(args: list[object], out: Path) -> dict[str, bytes]:
    result = run("diagnose", *args, "--output-dir", out, "-q")
    assert result.exit_code == 1, result.stderr
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    files["report.txt"] = result.stdout_bytes
    return files


def test_reports_are_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "a" / "job"
    names = ("ccu-reuse-before-mc2", "hostile-text", "mc2-before-eager")
    for name in names:
        shutil.copytree(SAMPLES / name, tree / name)
    dirs = [tree / n for n in names]
    first = _reports([tree], tmp_path / "r1")
    assert _reports([tree], tmp_path / "r2") == first
    assert _reports([tree, "--workers", "1"], tmp_path / "r3") == first
    # Arguments in another order: only the echo of the arguments differs.
    forward = _reports([*dirs], tmp_path / "r4")
    backward = _reports([*reversed(dirs)], tmp_path / "r5")
    for name in ("report.json", "report.sarif"):
        a, b = json.loads(forward[name]), json.loads(backward[name])
        if name == "report.json":
            assert a["inputs"].pop("paths") == [str(d) for d in dirs]
            b["inputs"].pop("paths")
        assert a == b
    # The tree copied elsewhere, named by a relative path: byte-identical.
    shutil.copytree(tree, tmp_path / "elsewhere" / "deeper" / "job")
    monkeypatch.chdir(tmp_path / "a")
    here = _reports(["job"], tmp_path / "r6")
    monkeypatch.chdir(tmp_path / "elsewhere" / "deeper")
    assert _reports(["job"], tmp_path / "r7") == here


def test_parquet_round_trip_equals_raw_events(tmp_path: Path,
                                              bad_inputs: tuple[Path, dict[str, str]]) -> None:
    tree = tmp_path / "job"
    shutil.copytree(SAMPLES / "hostile-text", tree / "hostile")
    shutil.copytree(SAMPLES / "ccu-reuse-no-debug", tree / "ccu")
    shutil.copytree(bad_inputs[0], tree / "bad", symlinks=True,
                    ignore=shutil.ignore_patterns("pipe"))  # copying a FIFO would block
    parquet = tmp_path / "e.parquet"
    assert run("ingest", tree, "-o", parquet, "-q").exit_code == 0
    raw = run("events", tree, "--format", "jsonl", "-q")
    again = run("events", parquet, "--format", "jsonl")
    assert again.stdout == raw.stdout and raw.stdout.count("\n") > 100
    raw_csv = run("events", tree, "--format", "csv", "-q", "--workers", "1")
    assert run("events", parquet, "--format", "csv").stdout == raw_csv.stdout


# --------------------------------------------------------------------------------------------
# 3. Nothing lost.


def _sample_lines() -> list[bytes]:
    lines: list[bytes] = []
    for path in sorted(SAMPLES.rglob("*.log")):
        lines += path.read_bytes().split(b"\n")
    return lines


NOISE = [b"", b"   ", b"\t", b"\r", b"[", b"[" * 3000, b"\x00\x00", b"\xff\xfe\xfd",
         "中文".encode("gbk"), b"    continuation", b"\x1b[31m", b"X" * 1500, b"]]>", b"\x0b\x0c",
         b"Traceback (most recent call last):", b'  File "x.py", line 1', b"\xe2\x80\xa8sep",
         b"  " + plog("ERROR", "HCCL", 1, 1, "indented header").encode(),
         b"tail" + plog("INFO", "GE", 2, 2, "glued").encode() + plog("ERROR", "HCCL", 3, 3,
                                                                     "twice").encode(),
         b"\xcc" + plog("DEBUG", "P", 7, 4, "after garbage").encode(), b" \x1f"]


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _random_log(rnd: random.Random, pool: list[bytes]) -> bytes:
    parts = [rnd.choice(pool) if rnd.random() < 0.7 else rnd.choice(NOISE)
             for _ in range(rnd.randint(0, 300))]
    data = rnd.choice([b"\n", b"\r\n"]).join(parts)
    if rnd.random() < 0.5:
        data += b"\n"
    if rnd.random() < 0.2:
        data = rnd.randbytes(rnd.randint(1, 2000)) + data
    return data


@pytest.mark.parametrize("seed", range(40))
def test_every_line_is_accounted_for(seed: int) -> None:
    rnd = random.Random(seed)
    data = _random_log(rnd, _sample_lines())
    ingest = Ingest(workers=1, chunk_bytes=rnd.choice([1, 7, 64, 1000, 1 << 20]), processes=False)
    ctx = FileContext("f.log", rnd.choice(["plog", "stdout", "device-fw", "syslog"]))
    rows = sum(b.num_rows for b in ingest.batches_from([(ctx, io.BytesIO(data))]))
    (stats,) = ingest.summary.files
    assert stats.lines == _count_lines(data)
    assert stats.lines == stats.record_lines + stats.blank_lines, stats
    assert rows == stats.records


@pytest.mark.parametrize(("text", "chunk"), [
    # a header indented by whitespace: the indentation is not a blank line of its own
    ("  " + plog("ERROR", "HCCL", 1, 1, "indented"), 1 << 20),
    ("\x1f" + plog("DEBUG", "HCCL", 1, 1, "after a unit separator"), 1 << 20),
    # a glued line that starts a chunk: its first part continues the record before the chunk
    (plog("INFO", "GE", 1, 1, "a") + "\nx" + plog("DEBUG", "GE", 1, 2, "b"), 16),
    ("\nx" + plog("DEBUG", "GE", 1, 2, "orphan part first"), 16),
])
def test_glued_and_indented_headers_count_each_line_once(text: str, chunk: int) -> None:
    files = {"plog-1_20260302101500000.log": text, "job/stdout.log": text}
    for path, content in files.items():
        ingest = Ingest(workers=1, chunk_bytes=chunk, processes=False)
        kind = "stdout" if path.endswith("stdout.log") else "plog"
        list(ingest.batches_from([(FileContext(path, kind), io.BytesIO(content.encode()))]))
        (stats,) = ingest.summary.files
        assert stats.lines == text.count("\n") + 1
        assert stats.lines == stats.record_lines + stats.blank_lines, stats
    table = parse_files({"plog-1_20260302101500000.log": text}, chunk_bytes=chunk)
    assert table.num_rows >= 1


def test_ingest_stats_totals_match_an_independent_count(tmp_path: Path) -> None:
    rnd = random.Random(7)
    pool = _sample_lines()
    expected: dict[str, int] = {}
    root = tmp_path / "tree"
    for i in range(12):
        data = plog("INFO", "GE", i, 1, "first").encode() + b"\n" + _random_log(rnd, pool)
        name = f"rank_{i % 3}/debug/plog/plog-{100 + i}_20260302101500000.log"
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if i % 4 == 1:
            path = path.with_name(path.name + ".gz")
            path.write_bytes(gzip.compress(data))
        else:
            path.write_bytes(data)
        expected[str(path)] = _count_lines(data)
    members = io.BytesIO()
    with tarfile.open(fileobj=members, mode="w:gz") as tar:
        for j in range(2):
            data = plog("INFO", "GE", 50 + j, 1, "member").encode() + b"\n" + \
                _random_log(rnd, pool)
            info = tarfile.TarInfo(f"run/plog/plog-{50 + j}_20260302101500000.log")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            expected[f"{root}/collect.tgz!{info.name}"] = _count_lines(data)
    (root / "collect.tgz").write_bytes(members.getvalue())
    result = run("ingest", root, "-o", tmp_path / "e.parquet", "--stats", "-q")
    assert result.exit_code == 0, result.stderr
    counted = {}
    for line in result.stdout.splitlines():
        cells = line.split()
        if cells and cells[0] not in ("kind", "total", "skipped"):
            counted[line.split("  ")[-1].strip()] = int(cells[1])
        if cells and cells[0] == "total":
            total = int(cells[1])
    assert counted == expected
    assert total == sum(expected.values())
    ingest = Ingest(workers=1)
    list(ingest.batches([str(root)]))
    for stats in ingest.summary.files:
        assert stats.lines == stats.record_lines + stats.blank_lines == expected[stats.path]


# --------------------------------------------------------------------------------------------
# 4. Hostile text.


def hostile_tree(root: Path) -> Path:
    plogs = root / "rank_0" / "debug" / "plog"
    plogs.mkdir(parents=True)
    header = ("[ERROR] HCCL(4242,py\x1b]0;pwned\x07thon):2026-03-02-10:15:0{}.123.456 "
              "[x.cc:1][tid:7] ")
    bodies = [
        "EI0002: The wait execution of the Notify register times out. remote rank [{tag}] "
        "streamID:[3] taskID[4] tag[{remote_rank}{title}%s{0}{{7*7}}] Cluster Exception "
        "Location[IP/ID]:[\x1b[31m</script><script>alert(1)</script>]]>] ExceptionType:[{count}]",
        "clear \x1b[2J\x1b[31mRED\r overwritten \u202egnp.exe <!-- --> \x9b31m \u2028 \x7f",
        "fence ```\n```html\n<img src=x onerror=alert(1)>\n[link](http://evil.example/) "
        "![img](http://evil.example/x.png) | pipe | {placeholder} %n ${jndi:ldap://x}",
        "X" * 1030 + " ]]>]]> </testcase></testsuite> </script>",
    ]
    (plogs / "plog-4242_20260302101500000.log").write_text(
        "\n".join(header.format(i) + b for i, b in enumerate(bodies)) + "\n", encoding="utf-8")
    (root / "rank_0" / "stdout.log").write_text(
        "[ERROR] 2026-03-02-10:15:09 (PID:4242, Device:0, RankID:0) ERR00100 PTA call acl api "
        "failed \x1b[31m</script>]]>\r\nEZ9999: Inner Error! \x1b[1;31mbold\x1b[0m {0} %s\n"
        "RuntimeError: npuSynchronizeDevice: error code is 507916 \u202e<!--\n", encoding="utf-8")
    return root


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[tuple[str, str, str | None]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_script = tag == "script"
        for key, value in attrs:
            if key.startswith("on") or (key in ("src", "href") and value
                                        and re.match(r"(?i)\s*(https?:|//|javascript:)", value)):
                self.bad.append((tag, key, value))

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False


def _check_markdown(text: str) -> None:
    """Log text cannot become markup: no HTML, link or image, tables keep their columns."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)

    def walk(items):  # type: ignore[no-untyped-def]
        for token in items:
            yield token
            yield from walk(token.children or [])

    for token in walk(tokens):
        assert token.type not in ("image", "link_open"), token
        if token.type == "html_block":  # only the report's own collapsed sections
            assert re.fullmatch(r"<details>\n<summary>[^<>]*</summary>\n|</details>\n",
                                token.content), token
        if token.type == "html_inline":
            assert token.content in ("<sub>", "</sub>"), token
    # Every row of a table has the table's columns: log text split no cell.
    cells = [t.type for t in walk(tokens)
             if t.type in ("table_open", "tr_open", "th_open", "td_open")]
    for table in "".join({"table_open": "#", "tr_open": "|"}.get(c, "c")
                         for c in cells).split("#")[1:]:
        widths = table.split("|")[1:]
        assert len(set(widths)) <= 1, widths


@pytest.mark.parametrize("source", ["sample", "crafted"])
def test_hostile_text_stays_inert_in_every_format(tmp_path: Path, source: str) -> None:
    tree = SAMPLES / "hostile-text" if source == "sample" else hostile_tree(tmp_path / "logs")
    outputs: dict[str, str] = {}
    for fmt in EVENT_FORMATS:
        result = run("events", tree, "--format", fmt, "-q", "--workers", "1")
        assert result.exit_code == 0
        outputs[f"events-{fmt}"] = result.stdout
        assert_inert(result.stderr, f"events {fmt} stderr")
    for fmt in FORMATS:
        for verbose in ([], ["-v"]):
            result = run("diagnose", tree, "--format", fmt, "-q", "--workers", "1", *verbose)
            assert result.exit_code == 1, result.stderr
            outputs[f"{fmt}{verbose}"] = result.stdout
            assert_inert(result.stderr, f"{fmt} stderr")
    for name, text in outputs.items():
        assert_inert(text, name)
        check_document(name.removeprefix("events-").split("[")[0], text)
    for name in ("markdown[]", "markdown['-v']"):
        _check_markdown(outputs[name])
    for name in ("html[]", "html['-v']"):
        parser = _Elements()
        parser.feed(outputs[name])
        assert not parser.bad, parser.bad
        assert len(parser.scripts) == 1 and "alert(" not in parser.scripts[0]
    if source == "crafted":
        # captured text that looks like a template or a format string is shown as written
        finding = next(f for f in json.loads(outputs["json[]"])["findings"]
                       if f["rule"] == "HCCL002")
        assert "tag {remote_rank}{title}%s{0}{{7*7}}" in finding["description"]
        assert "remote rank {tag}" in finding["description"]
        assert ("location \x1b[31m</script><script>alert(1)</script>, type {count}"
                in finding["description"])
        # JSON keeps the exact text, with the unsafe characters as escapes
        rows = [json.loads(line) for line in outputs["events-jsonl"].splitlines()]
        assert any("\u202egnp.exe" in r["message"] and "\u2028" in r["message"] for r in rows)
        assert any(r["proc"] == "py\x1b]0;pwned\x07thon" for r in rows)


def test_problem_lines_on_stderr_escape_hostile_file_names(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "plog-1_20260302101500000.log").write_text(GOOD)
    (logs / "evil\x1b]0;title\x07\u202e.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (logs / "x\u2028y.bin").write_bytes(bytes(range(256)) * 8)
    result = run("events", logs, "-q", "--workers", "1")
    assert result.exit_code == 0
    assert_inert(result.stderr, "stderr")
    assert "evil\\x1b]0;title\\x07\\u202e.gz" in result.stderr
    assert "x\\u2028y.bin: binary file" in result.stderr


def test_errors_escape_control_characters_from_arguments(tmp_path: Path) -> None:
    result = run("events", tmp_path, "--since", "\x1b[2Jnow\u202e")
    assert result.exit_code == 2
    assert_inert(result.stderr, "stderr")
    assert "\\x1b[2Jnow\\u202e" in result.stderr


def _limit_file_size() -> None:
    """In the child: files may not grow past 64 KiB (writes past it fail with EFBIG)."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


@pytest.mark.parametrize("command", ["ingest", "diagnose"])
@pytest.mark.parametrize("rows", [20_000, 300_000], ids=["at_close", "while_writing"])
def test_a_failed_write_is_one_error_line(tmp_path: Path, rows: int, command: str) -> None:
    """The event table's writer fails partway (the file may not grow): one error line, exit
    2, no traceback, whether the failure comes while row groups are written or at the end."""
    logs = tmp_path / "plog-7_20260302101500000.log"
    rng = random.Random(5)
    logs.write_text("".join(
        f"[INFO] GE(7,python3):2026-03-02-10:15:00.{i % 1000:03d}.000 [a.cc:{i}]9 "
        f"value {rng.getrandbits(64):x}\n" for i in range(rows)))
    out = tmp_path / "events.parquet"
    option = "-o" if command == "ingest" else "--events-out"
    proc = subprocess.run([sys.executable, "-m", "plogscan", command, str(logs), option,
                           str(out), "--quiet", "--workers", "1"],
                          capture_output=True, text=True, preexec_fn=_limit_file_size,
                          timeout=300, check=False)
    assert proc.returncode == 2, proc.stderr
    assert re.search(r"^error: cannot write event table: ", proc.stderr, re.M), proc.stderr
    assert "Traceback" not in proc.stderr
