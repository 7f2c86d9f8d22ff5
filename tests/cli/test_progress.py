"""The progress bar: on stderr when it is a terminal, never with --quiet or into a pipe, and
never on stdout (where results go)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pty_run import ROOT, have_pty

SAMPLE = str(ROOT / "samples" / "ccu-reuse-before-mc2")


COMMANDS = {
    "ingest": ["ingest", SAMPLE, "-o", "{tmp}/e.parquet"],
    "events": ["events", SAMPLE, "--format", "csv"],
    "diagnose": ["diagnose", SAMPLE, "--format", "json"],
    "baseline": ["baseline", "create", SAMPLE, "-o", "{tmp}/b.json"],
}


@pytest.mark.skipif(not have_pty(), reason="no pseudo-terminals on this machine")
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_progress_shows_on_a_terminal_only_and_not_with_quiet(terminal, name: str,
                                                              tmp_path: Path) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[name]]
    shown = terminal(args, stdout_tty=False)
    assert "parsing" in shown.stderr, shown.stderr[-500:]
    assert "parsing" not in shown.stdout
    quiet = terminal([*args, "--quiet"], stdout_tty=False)
    assert "parsing" not in quiet.stderr
    piped = terminal(args, stdout_tty=False, stderr_tty=False)
    assert "parsing" not in piped.stderr


def test_the_total_is_added_up_only_for_a_bar_that_is_shown(terminal) -> None:
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
