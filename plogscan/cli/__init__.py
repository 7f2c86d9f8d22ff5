"""The ``plogscan`` command line: one click group, one module per command.

This package is the only place that turns errors into exit codes:
0 = ran clean, 1 = findings at or above ``--fail-on``, 2 = could not run.
"""

from __future__ import annotations

import click

from plogscan import __version__
from plogscan.errors import PlogscanError
from plogscan.report.safe import neutralize

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class PlogscanGroup(click.Group):
    """A click group that renders ``PlogscanError`` as a located message and exits 2."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except PlogscanError as err:
            click.echo(neutralize(err.render()), err=True)
            ctx.exit(EXIT_ERROR)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(EXIT_ERROR)


@click.group(
    cls=PlogscanGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="plogscan")
def cli() -> None:
    """Forensic analyzer for Huawei Ascend CANN/HCCL logs.

    \b
    Point it at what a failed job left behind: plog directories, device logs,
    job stdout, or the .tar.gz/.zip an asys collection produced.

    \b
    Typical use:
      plogscan diagnose ./logs                 what went wrong, on which rank, why
      plogscan ingest ./logs -o events.parquet parse once into a Parquet event table
      plogscan events events.parquet --level ERROR --limit 20
      plogscan rules list                      the built-in rule catalog

    Exit codes: 0 clean, 1 findings at or above --fail-on, 2 could not run.
    """


def _register() -> None:
    """Attach every command module; each exposes a click command named ``command``."""
    from importlib import import_module

    for name in ("ingest", "events", "diagnose", "rules", "baseline", "explain"):
        try:
            module = import_module(f"plogscan.cli.{name}")
        except ModuleNotFoundError as err:
            if err.name == f"plogscan.cli.{name}":
                continue  # command not built yet
            raise
        cli.add_command(module.command)


_register()


def main() -> None:
    """Console-script entry point (click's usage errors already exit 2)."""
    cli.main(prog_name="plogscan", standalone_mode=True)
