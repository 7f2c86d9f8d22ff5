"""``plogscan diagnose``: what went wrong, on which rank first, why, and what to do."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from plogscan.cache.location import cache_dir
from plogscan.cli import redaction, speak
from plogscan.cli.common import (
    cache_options,
    cannot_write,
    clock_offset_option,
    clock_reference_option,
    cluster_executor,
    diagnose_limit_options,
    limits_from,
    list_named,
    parallel_option,
    paths_argument,
    prepare_output,
    quiet_option,
    report_problems,
    scheduler_options,
    total_of,
    workers_option,
    write_output,
)
from plogscan.cli.redaction import redact_options
from plogscan.console import color_wanted, progress_bar, terminal_width, warn
from plogscan.lang import ENV_VAR, LANGS
from plogscan.pipeline import FAIL_ON, DiagnoseOptions, NothingRead, run
from plogscan.report import Format, render, write_all
from plogscan.report.i18n import tr

WIDTHS = (40, 400)  # the narrowest and widest terminal report


def _fitted(columns: int) -> int:
    """The terminal's width, within what the report can be laid out in."""
    return min(max(columns, WIDTHS[0]), WIDTHS[1])


@click.command("diagnose")
@paths_argument
@click.option("--rules", "rules_dirs", multiple=True, type=click.Path(exists=True),
              metavar="DIR", help="Extra rule files or directories; a rule with a built-in "
              "id overrides it. Repeatable.")
@click.option("--format", "fmt", type=click.Choice([f.value for f in Format]), default="text",
              show_default=True, help="Report format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the report to FILE instead of stdout.")
@click.option("--output-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write every format at once: report.html/.json/.md/.sarif/.xml.")
@click.option("--events-out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also save the parsed event table as Parquet.")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True,
              envvar="PLOGSCAN_FAIL_ON", show_envvar=True,
              help="Exit 1 when a finding is at or above this level.")
@click.option("--baseline", "baseline_path", type=click.Path(exists=True, dir_okay=False),
              metavar="FILE", help="Suppress findings recorded by `plogscan baseline create`.")
@click.option("--lang", type=click.Choice(LANGS), default=None, envvar=ENV_VAR, show_envvar=True,
              help="Language of the rule texts and report headings (rules without a "
              "translation stay in English). Default: zh when LC_ALL, LC_MESSAGES or LANG "
              "(the first one set) starts with 'zh', else en.")
@click.option("-v", "--verbose", is_flag=True, help="Show context lines around evidence.")
@click.option("--all", "show_all", is_flag=True,
              help="Terminal report: every finding unfolded, by level, instead of the "
                   "answer-first view that folds each incident's symptoms and evidence.")
@click.option("--details", is_flag=True,
              help="Terminal report: the unexplained errors, ingest health and codes in full "
                   "(by default one line each, unless they hold the only findings).")
@click.option("--width", type=click.IntRange(*WIDTHS), default=None,
              help="Terminal report width (default: the terminal's, 80 when piped).")
@cache_options
@scheduler_options
@clock_offset_option
@clock_reference_option
@quiet_option
@workers_option
@parallel_option
@diagnose_limit_options
@redact_options
def command(paths: tuple[str, ...], rules_dirs: tuple[str, ...], fmt: str, output: str | None,
            output_dir: str | None, events_out: str | None, fail_on: str,
            baseline_path: str | None, lang: str | None, verbose: bool, show_all: bool,
            details: bool, width: int | None,
            clock_offsets: tuple[tuple[str, float], ...], clock_reference: str | None,
            cache: str | None, no_cache: bool, scheduler: str | None,
            scheduler_file: str | None, quiet: bool, workers: int | None, parallel: str,
            **more: object) -> None:
    """Diagnose a failed Ascend job from its logs.

    PATH may be files, directories, globs, .gz files, .tar/.tar.gz/.tgz/.zip
    collections, or a .parquet written by `plogscan ingest`.

    \b
    Examples:
      plogscan diagnose ./logs
      plogscan diagnose ./logs --format json -o report.json
      plogscan diagnose ./logs --output-dir plogscan-report --fail-on critical
      plogscan diagnose events.parquet --rules ./my-rules --verbose
      plogscan diagnose ./logs --lang zh
      plogscan diagnose ./logs --details
      plogscan diagnose ./logs --no-cache
      plogscan diagnose /shared/job-42 --scheduler tcp://10.0.0.5:8786
      plogscan diagnose ./logs --redact --output-dir ticket --redact-map private.json
      plogscan diagnose ./logs --clock-offset worker-1=-6.25 --clock-reference worker-0

    \b
    Exit codes:
      0  nothing at or above --fail-on
      1  findings at or above --fail-on (a CI hook fails the job on this)
      2  could not run (bad rule file, bad option, nothing readable), or a
         PATH could not be read: it is named on stderr and in the report,
         which covers the other paths (2 wins over 1 and --fail-on never)
    """
    # Everything that can be checked before the (possibly long) run is checked first.
    lang = speak(lang)
    limits = limits_from(more)
    inputs = list_named(paths, limits)  # walked once: for the bar, the redaction and the run
    # stderr is redacted from here on
    redactor = redaction.start(more, inputs=paths, names=lambda: inputs.complete().names())
    baseline = None
    if baseline_path:
        from plogscan.baseline import apply_baseline, expiry_warnings, load_baseline

        baseline = load_baseline(Path(baseline_path))
    if output:
        prepare_output(output, "report", inputs=paths)
    if output_dir:
        prepare_output(output_dir, "reports", directory=True)
    if events_out:
        prepare_output(events_out, "event table", inputs=paths)
    executor = cluster_executor(scheduler, scheduler_file, workers, parallel)
    with progress_bar(not quiet, total_of(inputs)) as advance:
        try:
            options = DiagnoseOptions(
                paths=paths, rules_dirs=rules_dirs, fail_on=fail_on, lang=lang,
                clock_offsets=clock_offsets, clock_reference=clock_reference, limits=limits,
                workers=workers, processes=parallel == "processes",
                cache=cache_dir(cache, no_cache), events_out=events_out)
            diagnosis = run(options, listing=inputs, on_progress=advance, executor=executor,
                            redactor=redactor)
        except NothingRead as err:
            report_problems(err.summary, lang=lang)
            raise
        finally:
            if executor is not None:
                executor.close()
    if diagnosis.cache.problem:
        warn(f"{diagnosis.cache.problem}; ran without the cache (--no-cache "
             "hides this warning)")
    if baseline is not None:  # on the real fingerprints, before any redaction
        diagnosis, _suppressed, expired = apply_baseline(diagnosis, baseline)
        for line in expiry_warnings(expired):
            warn(line)
    if redactor is not None:
        from plogscan.redact.values import redact_diagnosis

        diagnosis = redact_diagnosis(diagnosis, redactor)
    report_problems(diagnosis.inputs, lang=lang)
    if output_dir:
        try:
            written = write_all(diagnosis, Path(output_dir), verbose=verbose,
                                transform=redaction.final_text(redactor))
        except OSError as err:
            raise cannot_write("reports", err.filename or output_dir, err) from None
        for path in written:
            click.echo(tr(lang, "wrote {path}", path=path), err=True)
    to_terminal = output is None and sys.stdout.isatty()
    text = render(diagnosis, fmt, verbose=verbose, show_all=show_all, details=details,
                  width=width or (_fitted(terminal_width()) if to_terminal else None),
                  color=to_terminal and color_wanted(sys.stdout))
    if redactor is not None:
        text = redactor.known_text(text)
    if output:
        write_output(output, text, "report")
    else:
        click.echo(text, nl=not text.endswith("\n"))
    sys.exit(diagnosis.exit_code)
