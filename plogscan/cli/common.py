"""Options and helpers shared by the commands that read logs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import click

from plogscan.console import warn
from plogscan.model import IngestSummary
from plogscan.sources import NOT_A_LOG_REASON


def input_size(paths: Sequence[str]) -> int | None:
    """Bytes on disk under ``paths`` (for the progress bar); None when unknown."""
    total = 0
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            for root, _dirs, files in os.walk(path):
                for name in files:
                    try:
                        total += (Path(root) / name).stat().st_size
                    except OSError:
                        continue
        else:
            return None
    return total or None


def report_problems(summary: IngestSummary) -> None:
    """One stderr line per skipped file and per problem inside a file; files that are plainly
    not logs (notes, scripts, pictures) are counted in one line."""
    not_logs = [s for s in summary.skipped if s.reason.startswith(NOT_A_LOG_REASON)]
    for skipped in summary.skipped:
        if skipped not in not_logs:
            warn(f"skipped {skipped.path}: {skipped.reason}")
    if not_logs:
        example = not_logs[0].path
        warn(f"skipped {len(not_logs)} file(s) that are not logs (e.g. {example}); "
             "the report's inputs section lists them")
    for stats in summary.files:
        for problem in stats.problems:
            warn(f"{stats.path}: {problem}")
        if stats.decode_errors:
            warn(f"{stats.path}: {stats.decode_errors} invalid UTF-8 sequence(s) replaced")
        if stats.nul_bytes:
            warn(f"{stats.path}: {stats.nul_bytes} NUL byte(s) removed")


def nothing_read(summary: IngestSummary) -> bool:
    return not summary.files


paths_argument = click.argument("paths", nargs=-1, required=True, metavar="PATH...")
quiet_option = click.option("-q", "--quiet", is_flag=True, help="No progress bar on stderr.")
workers_option = click.option(
    "--workers", type=click.IntRange(1, 64), default=None, envvar="PLOGSCAN_WORKERS",
    show_envvar=True, help="Parser threads (default: one per CPU core).")
