"""``plogscan diff GOOD BAD``: what a failing run logged that a passing run did not."""

from __future__ import annotations

import errno
import os
import sys

import click

from plogscan.cli import EXIT_CLEAN, EXIT_FINDINGS, speak
from plogscan.cli.common import (
    list_named,
    prepare_output,
    quiet_option,
    total_of,
    workers_option,
    write_output,
)
from plogscan.console import progress_bar
from plogscan.errors import InputError
from plogscan.lang import ENV_VAR, LANGS
from plogscan.table.parquet import is_table

FORMATS = ("text", "json", "markdown")


@click.command("diff")
@click.argument("good", metavar="GOOD")
@click.argument("bad", metavar="BAD")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the report to FILE (complete or not at all) instead of stdout.")
@click.option("--limit", type=click.IntRange(min=0), default=10, show_default=True,
              help="Items listed per section of the text and Markdown reports; 0 lists all "
                   "(the JSON report always holds all).")
@click.option("--rules", "rules_dirs", multiple=True, type=click.Path(exists=True),
              metavar="DIR", help="Extra rule files or directories, for the findings compared. "
              "Repeatable.")
@click.option("--lang", type=click.Choice(LANGS), default=None, envvar=ENV_VAR,
              show_envvar=True, help="Language of the report's words. Default: zh when "
              "LC_ALL, LC_MESSAGES or LANG (the first one set) starts with 'zh', else en.")
@quiet_option
@workers_option
def command(good: str, bad: str, fmt: str, output: str | None, limit: int,
            rules_dirs: tuple[str, ...], lang: str | None, quiet: bool,
            workers: int | None) -> None:
    """Compare a passing run (GOOD) with a failing run (BAD) of the same job.

    GOOD and BAD are each one log directory, archive (.tar.gz, .zip...), log
    file, or event table from `plogscan ingest` (.parquet or --dataset DIR).
    Records are folded into message templates (numbers, hex values, hashes,
    addresses, paths and times masked), so other pids, hosts, clocks and
    rank counts do not count as differences. Processes are matched by rank
    (else by the order they started). The report leads with what only BAD
    logged, in every failing process of BAD and in no process of GOOD first,
    then by when it first appeared; then, per rank, where the two runs first
    diverge; the error codes, log levels, modules, settings (HCCL_*, log
    levels) and findings only one run has; each with its evidence lines.

    \b
    Examples:
      plogscan diff good-run/ bad-run/
      plogscan diff samples/mc2-before-eager samples/ccu-reuse-before-mc2
      plogscan diff good.parquet bad.tar.gz --format json -o diff.json
      plogscan diff good/ bad/ --format markdown >> "$GITHUB_STEP_SUMMARY"
      plogscan diff good/ bad/ --limit 0 --lang zh

    \b
    Exit codes (as diff(1)):
      0  no difference
      1  the runs differ
      2  could not run: a path that does not exist or cannot be read,
         a bad rule file, a bad option
    """
    lang = speak(lang)
    for role, path in (("GOOD", good), ("BAD", bad)):
        if not os.path.exists(path):
            raise InputError(f"cannot read {role} {path}: {os.strerror(errno.ENOENT)}",
                             help="GOOD and BAD are each a log directory, archive, file or "
                                  "event table")
    if output:
        prepare_output(output, "report", inputs=(good, bad))
    from plogscan.compare.pair import compare_runs
    from plogscan.compare.report import render

    logs = [p for p in (good, bad) if not is_table(p)]
    inputs = (list_named([good]), list_named([bad]))  # each walked once: the bar, the run
    with progress_bar(not quiet and bool(logs), total_of(*inputs)) as advance:
        comparison = compare_runs(good, bad, rules_dirs=rules_dirs, lang=lang, workers=workers,
                                  on_progress=advance, listings=inputs)
    text = render(comparison, fmt, limit=limit)
    if output:
        write_output(output, text, "report")
    else:
        click.echo(text, nl=False)
    sys.exit(EXIT_FINDINGS if comparison.differs else EXIT_CLEAN)
