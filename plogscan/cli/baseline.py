"""``plogscan baseline create``: record today's findings as known, so later runs suppress them.

The file it writes is read by ``plogscan diagnose --baseline FILE`` (see ``plogscan.baseline``).
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import click

from plogscan.baseline import create_baseline, write_baseline
from plogscan.cli.common import (
    exit_if_incomplete,
    limit_options,
    limits_from,
    list_named,
    prepare_output,
    quiet_option,
    report_problems,
    total_of,
    workers_option,
)
from plogscan.console import progress_bar, warn
from plogscan.errors import Location, PlogscanError

# Where a user sees every skipped file of the logs a baseline was made from.
BASELINE_LISTED = "plogscan diagnose lists them in its report's inputs section"


@click.group("baseline")
def command() -> None:
    """Record known findings so that CI runs suppress them.

    \b
      plogscan baseline create ./logs -o .plogscan-baseline.json \\
          --reason "tracked in ASC-1234" --expires 2026-12-31
      plogscan diagnose ./logs --baseline .plogscan-baseline.json

    Suppressed findings no longer fail the run but are still listed as suppressed;
    entries past their expiry date stop suppressing and are reported as expired.
    """


@command.command("create")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Baseline file to write (JSON), e.g. .plogscan-baseline.json.")
@click.option("--reason", default=None, help="Why these findings are accepted (for every entry).")
@click.option("--expires", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              metavar="YYYY-MM-DD",
              help="Last day the entries suppress anything (default: never expire).")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(exists=True),
              help="Rule file or directory added to the built-in rules (as for diagnose). "
              "Repeatable.")
@workers_option
@quiet_option
@limit_options
def create(paths: tuple[str, ...], output: Path, reason: str | None,
           expires: datetime | None, rule_dirs: tuple[str, ...], workers: int | None,
           quiet: bool, **limit_values: int) -> None:
    """Diagnose PATH... and write every current finding's fingerprint to a baseline file."""
    limits = limits_from(limit_values)
    expiry = expires.date() if expires else None
    if expiry is not None and expiry < date.today():
        raise click.BadParameter(f"{expiry.isoformat()} is in the past", param_hint="--expires")
    prepare_output(output, "baseline file", inputs=paths)
    # the whole pipeline; imported when needed
    from plogscan.pipeline import DiagnoseOptions, NothingRead, run

    inputs = list_named(paths, limits)
    with progress_bar(not quiet, total_of(inputs)) as advance:
        try:
            options = DiagnoseOptions(paths=paths, rules_dirs=rule_dirs, fail_on="never",
                                      workers=workers, limits=limits)
            diagnosis = run(options, listing=inputs, on_progress=advance)
        except NothingRead as err:
            report_problems(err.summary, listed=BASELINE_LISTED)
            raise
    report_problems(diagnosis.inputs, listed=BASELINE_LISTED)
    baseline = create_baseline(diagnosis, reason=reason, expires=expiry)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_baseline(baseline, output)
    except OSError as err:
        raise PlogscanError(f"cannot write baseline file: {err.strerror or err}",
                            where=Location(str(output))) from None
    if not baseline.entries:
        warn(f"no findings: wrote an empty baseline to {output}")
    else:
        warn(f"recorded {len(baseline.entries)} finding(s) in {output}")
    exit_if_incomplete(diagnosis.inputs)
