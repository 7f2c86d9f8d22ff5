"""The console script runs without importing pandas; library use is left alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, console_run

ROOT = REPO_ROOT
SAMPLE = str(ROOT / "samples" / "ccu-reuse-before-mc2")

# Every command and output format, as the console script runs them (``plogscan.cli.main``),
# in one process: pandas must not be imported by any of them.
RUN_COMMANDS = """
import json, sys
from plogscan.cli import main
codes = []
for args in json.loads(sys.argv[1]):
    sys.argv = ["plogscan", *args]
    try:
        main()
        codes.append(0)
    except SystemExit as stop:
        codes.append(stop.code)
print("\\nRESULT " + json.dumps({"codes": codes, "pandas": "pandas" in sys.modules}))
"""


def _python(*args: str) -> str:
    done = subprocess.run([sys.executable, "-c", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_no_command_imports_pandas(tmp_path: Path) -> None:
    table = str(tmp_path / "e.parquet")
    commands = [
        ["ingest", SAMPLE, "-o", table, "--quiet", "--stats"],
        ["ingest", SAMPLE, "-o", str(tmp_path / "p.parquet"), "--quiet", "--workers", "2",
         "--parallel", "processes"],
        ["events", table, "--format", "table", "--limit", "3"],
        ["events", SAMPLE, "--format", "jsonl", "--quiet", "--level", "error"],
        ["events", table, "--format", "csv", "--grep", "context"],
        ["diagnose", SAMPLE, "--output-dir", str(tmp_path / "report"), "--quiet",
         "--events-out", str(tmp_path / "d.parquet")],
        ["diagnose", table, "--format", "text"],
        ["explain", "507916", "EI0002"],
        ["rules", "list"],
        ["rules", "test"],
        ["baseline", "create", SAMPLE, "-o", str(tmp_path / "b.json")],
        ["diff", table, SAMPLE, "--quiet", "--format", "json"],
    ]
    out = _python(RUN_COMMANDS, json.dumps(commands))
    result = json.loads(out.rsplit("\nRESULT ", 1)[1])
    assert result["pandas"] is False
    # Each command did its work: diagnose finds the sample's fault (1), the others succeed.
    assert result["codes"] == [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0], out[-2000:]
    assert (tmp_path / "report" / "report.html").stat().st_size > 0
    assert (tmp_path / "b.json").stat().st_size > 0


def test_importing_plogscan_as_a_library_does_not_refuse_pandas() -> None:
    out = _python(
        "import sys\n"
        "from plogscan.ingest.textinput import parse_text\n"
        "parse_text('[ERROR] HCCL(1,python):2026-01-01-00:00:00.000.000 [a.cc:1]2 x\\n')\n"
        "from plogscan.cli.lean_imports import RefusePandas\n"
        "print(any(isinstance(f, RefusePandas) for f in sys.meta_path))\n")
    assert out.split() == ["False"]


def test_the_refusal_looks_like_a_missing_package() -> None:
    from plogscan.cli.lean_imports import RefusePandas

    with pytest.raises(ModuleNotFoundError, match="does not use pandas"):
        RefusePandas().find_spec("pandas.core")
    assert RefusePandas().find_spec("pyarrow") is None


def test_the_command_line_uses_jemalloc_unless_told_otherwise() -> None:
    """Once a command that reads logs is loaded, Arrow allocates from jemalloc (mimalloc,
    pyarrow's default, keeps freed pages); an ARROW_DEFAULT_MEMORY_POOL given stays."""
    import os
    import subprocess
    import sys

    script = ("import click, pyarrow as pa\n"
              "from plogscan.cli import cli\n"
              "cli.get_command(click.Context(cli), 'diagnose')\n"
              "print(pa.default_memory_pool().backend_name)\n")
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    chosen = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, check=True).stdout.strip()
    import pyarrow as pa

    try:
        pa.jemalloc_memory_pool()
        expected = "jemalloc"
    except NotImplementedError:  # a pyarrow built without it keeps its default
        expected = pa.default_memory_pool().backend_name
    assert chosen == expected
    kept = subprocess.run([sys.executable, "-c", script],
                          env={**env, "ARROW_DEFAULT_MEMORY_POOL": "system"},
                          capture_output=True, text=True, check=True).stdout.strip()
    assert kept == "system"


# What a JSON ``diagnose`` of one record does without: the YAML of the formats and rules (read
# compiled), the terminal and HTML reports, the extraction cache's SQLite (``--no-cache``),
# pandas, Dask, Parquet; the pool of worker processes (its parse runs in threads), the
# statistics of clock offsets (one host), a child process of any kind (``ldconfig`` to find
# the C library, say).
LEAN_RUN = console_run("""import json
print("\\nRESULT " + json.dumps(sorted(sys.modules)))
""")
NOT_IMPORTED = ("yaml", "rich", "jinja2", "pandas", "dask", "distributed", "sqlite3",
                "pyarrow.parquet", "plogscan.report.text", "plogscan.report.html",
                "plogscan.report.markdown", "plogscan.catalog.ruledoc",
                "plogscan.cache.store", "concurrent.futures.process", "statistics",
                "subprocess", "ctypes.util")


def test_a_json_diagnose_of_one_record_imports_only_what_it_uses(tmp_path: Path) -> None:
    plog = tmp_path / "plog" / "plog-4001_20250314080000000.log"
    plog.parent.mkdir()
    plog.write_text("[ERROR] HCCL(4001,python3):2025-03-14-08:00:00.000.100 [hccl_comm.cc:88] "
                    "[4001]HcclAllReduce failed, return code 7\n")
    _python(LEAN_RUN, str(tmp_path))  # the first run keeps the compiled formats and rules
    out = _python(LEAN_RUN, str(tmp_path))
    report, modules = out.rsplit("\nRESULT ", 1)
    assert json.loads(report)["inputs"]["records"] == 1
    assert set(NOT_IMPORTED).isdisjoint(json.loads(modules))


SHORT_DOCS = """
import sys
import pyarrow
from plogscan.cli.lean_imports import keep_compute_docs_short
if sys.argv[1] == "short":
    keep_compute_docs_short()
import pyarrow.compute as pc
print(pc.utf8_slice_codeunits(pyarrow.array(["abcdef"]), 1, 3).to_pylist())
print(pc.utf8_slice_codeunits.__doc__)
"""


def test_the_command_line_loads_pyarrow_compute_with_short_docstrings() -> None:
    """Its functions work the same; their docstrings leave out the options' descriptions
    (the parsing of which is half of importing ``pyarrow.compute``); a library user's
    import keeps them."""
    short = _python(SHORT_DOCS, "short")
    full = _python(SHORT_DOCS, "full")
    assert short.splitlines()[0] == full.splitlines()[0] == "['bc']"
    for text in (short, full):
        assert "Slice string." in text and "options : pyarrow.compute.SliceOptions" in text
    assert "start : int" in full
    assert "start : int" not in short
