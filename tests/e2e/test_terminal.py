"""Every command as a person types it in a terminal: standard output and standard error on a
real pseudo-terminal of a set window size (``tests/pty_run``).

No traceback and the documented exit code; the terminal report and ``--help`` coloured and
within the window; JSON, CSV and JSON Lines written to a terminal byte for byte what a pipe
receives (plain, unwrapped).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.pty_run import ROOT, Ran, have_pty, plain

pytestmark = pytest.mark.skipif(not have_pty(), reason="no pseudo-terminals on this machine")

SAMPLE = str(ROOT / "samples" / "ccu-reuse-before-mc2")
COLS = 90  # neither the 80 a pipe gets nor the 100 of --help's limit


def _clean(ran: Ran, code: int) -> None:
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]  # stdout may quote a log's
    assert ran.code == code, (ran.stdout + ran.stderr)[-3000:]


def _fits(text: str, cols: int = COLS) -> None:
    wide = [line for line in plain(text).splitlines() if cell_len(line) > cols]
    assert not wide, f"{len(wide)} lines wider than {cols} cells, e.g. {wide[0]!r}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_diagnose_text_report_on_a_terminal(terminal, lang: str) -> None:
    ran = terminal(["diagnose", SAMPLE, "--lang", lang])
    _clean(ran, 1)
    assert "\x1b[" in ran.stdout  # coloured
    assert "CCU001" in ran.stdout_plain
    assert ("exit code 1" if lang == "en" else "退出码 1") in ran.stdout_plain
    _fits(ran.stdout)
    # the width is the window's: a wider window gives longer lines (the rules are full width)
    wide = terminal(["diagnose", SAMPLE, "--lang", lang, "--quiet"], cols=132)
    _clean(wide, 1)
    _fits(wide.stdout, 132)
    longest = max(cell_len(line) for line in wide.stdout_plain.splitlines())
    assert COLS < longest <= 132


def test_diagnose_width_option_wins_over_the_window(terminal) -> None:
    ran = terminal(["diagnose", SAMPLE, "--quiet", "--width", "60"])
    _clean(ran, 1)
    _fits(ran.stdout, 60)
    assert max(cell_len(line) for line in ran.stdout_plain.splitlines()) == 60


def test_a_narrow_window_gets_the_narrowest_report(terminal) -> None:
    ran = terminal(["diagnose", SAMPLE, "--quiet"], cols=30)
    _clean(ran, 1)
    _fits(ran.stdout, 40)


def test_diagnose_json_to_a_terminal_is_what_a_pipe_gets(terminal) -> None:
    args = ["diagnose", SAMPLE, "--format", "json"]
    ran = terminal(args)
    _clean(ran, 1)
    piped = terminal(args, stdout_tty=False, stderr_tty=False)
    assert ran.stdout == piped.stdout
    assert "\x1b" not in ran.stdout
    assert json.loads(ran.stdout)["summary"]["exit_code"] == 1


def test_diagnose_output_dir_on_a_terminal(terminal, tmp_path: Path) -> None:
    ran = terminal(["diagnose", SAMPLE, "--output-dir", str(tmp_path / "out")])
    _clean(ran, 1)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "report.html", "report.json", "report.md", "report.sarif", "report.xml"]
    assert "report.html" in ran.stderr
    assert "CCU001" in ran.stdout_plain
    _fits(ran.stdout)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_events_to_a_terminal_is_what_a_pipe_gets(terminal, fmt: str) -> None:
    args = ["events", SAMPLE, "--format", fmt, "--level", "ERROR"]
    ran = terminal(args)
    _clean(ran, 0)
    piped = terminal(args, stdout_tty=False, stderr_tty=False)
    assert ran.stdout == piped.stdout
    assert "\x1b" not in ran.stdout and ran.stdout.count("\n") > 10


def test_events_table_on_a_terminal(terminal) -> None:
    ran = terminal(["events", SAMPLE, "--limit", "5"])
    _clean(ran, 0)
    assert "bind core" in ran.stdout


def test_ingest_on_a_terminal(terminal, tmp_path: Path) -> None:
    ran = terminal(["ingest", SAMPLE, "-o", str(tmp_path / "e.parquet")])
    _clean(ran, 0)
    assert (tmp_path / "e.parquet").stat().st_size > 0
    table = terminal(["diagnose", str(tmp_path / "e.parquet"), "--quiet"])
    _clean(table, 1)
    _fits(table.stdout)


def test_explain_on_a_terminal(terminal) -> None:
    ran = terminal(["explain", "507916"])
    _clean(ran, 0)
    assert "507916" in ran.stdout


def test_rules_list_on_a_terminal_fits_the_window(terminal) -> None:
    ran = terminal(["rules", "list"])
    _clean(ran, 0)
    assert "CCU001" in ran.stdout
    _fits(ran.stdout)
    piped = terminal(["rules", "list"], stdout_tty=False, stderr_tty=False)
    assert max(len(line) for line in piped.stdout.splitlines()) > COLS  # a pipe gets it all


@pytest.mark.parametrize("args", [["--help"], ["diagnose", "--help"], ["ingest", "--help"],
                                  ["events", "--help"], ["explain", "--help"],
                                  ["rules", "--help"], ["sql", "--help"]],
                         ids=lambda a: " ".join(a))
def test_help_is_coloured_and_fits_the_window(terminal, args: list[str]) -> None:
    ran = terminal(args, cols=72)
    _clean(ran, 0)
    assert "\x1b[" in ran.stdout
    assert "Usage:" in ran.stdout_plain and "Options" in ran.stdout_plain
    _fits(ran.stdout, 72)
    piped = terminal(args, stdout_tty=False, stderr_tty=False)
    assert "\x1b" not in piped.stdout


def test_no_color_turns_colour_off_on_a_terminal(terminal) -> None:
    ran = terminal(["diagnose", SAMPLE, "--quiet"], env={"NO_COLOR": "1"})
    _clean(ran, 1)
    assert "\x1b" not in ran.stdout
    _fits(ran.stdout)
    helped = terminal(["--help"], env={"NO_COLOR": "1"})
    assert "\x1b" not in helped.stdout


@pytest.mark.parametrize("args", [["rules", "show", "CCU001"], ["rules", "check"],
                                  ["cache", "info"], ["--version"],
                                  ["baseline", "create", SAMPLE, "-o", "{tmp}/b.json"]],
                         ids=lambda a: " ".join(a[:2]))
def test_the_other_commands_on_a_terminal(terminal, args: list[str], tmp_path: Path) -> None:
    ran = terminal([a.replace("{tmp}", str(tmp_path)) for a in args])
    _clean(ran, 0)
    assert ran.stdout or ran.stderr
