"""The progress bar: on stderr when it is a terminal, never with --quiet or into a pipe, and
never on stdout (where results go)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "samples" / "ccu-reuse-before-mc2")


def _run(args: list[str], stderr_tty: bool) -> tuple[str, bytes]:
    """Run plogscan with stdout to a pipe and stderr to a terminal (or a pipe)."""
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    if not stderr_tty:
        done = subprocess.run([sys.executable, "-m", "plogscan", *args], capture_output=True,
                              env=env, cwd=ROOT, timeout=120, check=False)
        return done.stdout.decode(), done.stderr
    leader, follower = pty.openpty()
    # stdout to a file, not a pipe: nobody reads a pipe here, and a full one would block the run
    with tempfile.TemporaryFile() as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "plogscan", *args], stdout=stdout,
                                stderr=follower, env=env, cwd=ROOT)
        os.close(follower)
        seen = b""
        while select.select([leader], [], [], 60)[0]:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the process is done with it
                break
            if not chunk:
                break
            seen += chunk
        proc.wait(timeout=60)
        os.close(leader)
        stdout.seek(0)
        return stdout.read().decode(), seen


def _have_pty() -> bool:
    try:
        leader, follower = pty.openpty()
    except OSError:
        return False
    os.close(leader)
    os.close(follower)
    return True


COMMANDS = {
    "ingest": ["ingest", SAMPLE, "-o", "{tmp}/e.parquet"],
    "events": ["events", SAMPLE, "--format", "csv"],
    "diagnose": ["diagnose", SAMPLE, "--format", "json"],
    "baseline": ["baseline", "create", SAMPLE, "-o", "{tmp}/b.json"],
}


@pytest.mark.skipif(not _have_pty(), reason="no pseudo-terminals on this machine")
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_progress_shows_on_a_terminal_only_and_not_with_quiet(name: str, tmp_path: Path) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[name]]
    out, terminal = _run(args, stderr_tty=True)
    assert b"parsing" in terminal, terminal[-500:]
    assert "parsing" not in out
    _, quiet = _run([*args, "--quiet"], stderr_tty=True)
    assert b"parsing" not in quiet
    _, piped = _run(args, stderr_tty=False)
    assert b"parsing" not in piped


def test_the_total_is_added_up_only_for_a_bar_that_is_shown() -> None:
    """Adding up a tree's sizes stats every file: a run without a bar (``--quiet``, stderr not
    a terminal) never asks for it."""
    from plogscan.console import progress_bar

    asked: list[int] = []

    def total() -> int:
        asked.append(1)
        return 10

    for enabled in (False, True):  # stderr is not a terminal under pytest
        with progress_bar(enabled, total) as advance:
            advance("bytes", 5)  # type: ignore[operator]
    assert asked == []
