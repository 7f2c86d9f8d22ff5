"""The ``plogscan`` command line: one click group, one module per command.

This package is the only place that turns errors into exit codes:
0 = ran clean, 1 = findings at or above ``--fail-on``, 2 = could not run, or a path named on
the command line could not be read (after the output of the others is written).

In: the command line and the environment. Out: reports on stdout or in files, progress and
messages on stderr, the exit code. It sits on top of every stage and is imported by none.

Must not import: nothing above it; heavy modules (pyarrow, the parser, the engine) only inside
the command that needs them, so ``plogscan --help`` starts fast (see ``lean_imports``).
"""

from __future__ import annotations

import sys

import click

from plogscan import __version__
from plogscan.cli.arrow_pool import use_lean_pool
from plogscan.cli.collector import collect_less
from plogscan.cli.helptext import HelpContext, with_window_help
from plogscan.cli.keptcode import keep_compiled_code
from plogscan.cli.lean_imports import keep_compute_docs_short, keep_pandas_out
from plogscan.errors import PlogscanError
from plogscan.textsafe import neutralize

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


COMMANDS = ("ingest", "events", "diagnose", "diff", "rules", "baseline", "explain", "cache",
            "sql")


class PlogscanGroup(click.Group):
    """A click group that renders ``PlogscanError`` as a located message and exits 2.

    Command modules are imported when their command runs (or when help lists them), so that
    ``plogscan ingest`` does not pay for importing the reporters. Help fits the terminal
    (``helptext``).
    """

    context_class = HelpContext

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        from importlib import import_module

        command = import_module(f"plogscan.cli.{cmd_name}").command
        use_lean_pool()  # the commands that read logs or tables have imported pyarrow by now
        return with_window_help(command)

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            try:
                return super().invoke(ctx)
            except PlogscanError as err:
                click.echo(neutralize(_rendered(ctx, err)), err=True)
                ctx.exit(EXIT_ERROR)
            except KeyboardInterrupt:
                click.echo(_said(ctx, "interrupted"), err=True)
                ctx.exit(EXIT_ERROR)
            finally:
                # --redact: its streams stay until the error above is printed through them;
                # then the map is written (imported only when a command used it).
                redaction = sys.modules.get("plogscan.cli.redaction")
                if redaction is not None:
                    redaction.stop()  # type: ignore[attr-defined]
        except PlogscanError as err:  # the redaction map could not be written
            click.echo(neutralize(_rendered(ctx, err)), err=True)
            ctx.exit(EXIT_ERROR)


LANG_KEY = "plogscan.lang"  # ctx.meta: the language a command was asked to speak (--lang)


def speak(lang: str | None) -> str:
    """The language a command speaks (its ``--lang``, else the locale's), kept so that its
    error messages are in that language too."""
    from plogscan.lang import locale_lang

    chosen = lang or locale_lang()
    click.get_current_context().meta[LANG_KEY] = chosen
    return chosen


def _said(ctx: click.Context, text: str) -> str:
    """``text`` (an error's part, or a word of the CLI's own) in the command's language: its
    ``--lang``, else ``PLOGSCAN_LANG`` or the locale."""
    from plogscan.lang import default_lang

    lang = ctx.meta.get(LANG_KEY) or default_lang()
    if lang == "en":
        return text
    from plogscan.report.i18n import error_text

    return error_text(lang, text)


def _header_reader() -> str:
    """Which reader of the CANN header this installation has: the C module is optional (it is
    built where the install finds a C compiler) and the other is slower."""
    from plogscan.parse import compiled

    if compiled.native is not None:
        return "CANN header reader: compiled (native/cannheader.c)"
    if compiled.turned_off():
        return "CANN header reader: RE2 (the C module is turned off by PLOGSCAN_NATIVE)"
    return ("CANN header reader: RE2 (the C module was not built: reinstall with a C "
            "compiler for faster parsing)")


def _rendered(ctx: click.Context, err: PlogscanError) -> str:
    return err.render(lambda text: _said(ctx, text))


@click.group(
    cls=PlogscanGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="plogscan",
                      message=f"%(prog)s, version %(version)s\n{_header_reader()}")
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

    Exit codes: 0 clean, 1 findings at or above --fail-on, 2 could not run or a
    named PATH could not be read.
    """


def main() -> None:
    """Console-script entry point (click's usage errors already exit 2)."""
    keep_pandas_out()
    keep_compute_docs_short()
    keep_compiled_code()  # before the command's modules create their classes
    collect_less()  # one command a process: see plogscan.cli.collector
    cli.main(prog_name="plogscan", standalone_mode=True)
