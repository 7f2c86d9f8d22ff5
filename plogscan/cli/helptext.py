"""``--help`` as a terminal shows it: headings and option names styled, every line within the
window.

click wraps the prose of a help text to the terminal's width, but keeps the ``\\b`` blocks
(examples, exit codes) as written, so a long example ran past the edge of a narrow terminal.
Here such a line wraps too, at a space, with a hanging indent: under its second column when
it has one (``507916    ACL runtime code...``), else four columns in. Styling follows the
terminal standard output is on (``console.color_wanted``: never into a pipe or with
``NO_COLOR``); click's own echo drops escapes on a stream that is not a terminal as well.
"""

from __future__ import annotations

import re
import sys

import click
from click.formatting import HelpFormatter

_COLUMN_GAP = re.compile(r"\S( {2,})(?=\S)")


def _styled() -> bool:
    from plogscan.console import color_wanted  # help is written to standard output

    return color_wanted(sys.stdout)


def fold_line(line: str, width: int) -> list[str]:
    """``line`` as lines of at most ``width`` characters, cut at spaces; the continuation
    lines start under the line's second column (after its first run of two or more spaces),
    else four columns past its indent. A word longer than the room stays whole."""
    if len(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    gap = _COLUMN_GAP.search(line, indent)
    hang = gap.end(1) if gap is not None and gap.end(1) <= width - 20 else indent + 4
    out: list[str] = []
    rest = line
    while len(rest) > width:
        cut = rest.rfind(" ", hang if out else indent + 1, width + 1)
        if cut <= (hang if out else indent):
            cut = rest.find(" ", width)
            if cut < 0:
                break
        out.append(rest[:cut].rstrip(" "))
        rest = " " * hang + rest[cut:].lstrip(" ")
    out.append(rest)
    return out


class WindowHelpFormatter(HelpFormatter):
    """click's help formatter, with every line within its width and, on a colour terminal,
    bold headings and cyan option names."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.color = _styled()

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        if prefix is None and self.color:
            # the styled prefix is measured as it shows: click strips escapes from widths
            prefix = click.style("Usage:", bold=True) + " "
        super().write_usage(prog, args, prefix)

    def write_heading(self, heading: str) -> None:
        super().write_heading(click.style(heading, bold=True) if self.color else heading)

    def write_dl(self, rows, col_max: int = 30, col_spacing: int = 2) -> None:  # type: ignore[no-untyped-def]
        if self.color:
            rows = [(click.style(term, fg="cyan"), text) for term, text in rows]
        super().write_dl(rows, col_max, col_spacing)

    def getvalue(self) -> str:
        lines = super().getvalue().split("\n")
        return "\n".join(part for line in lines for part in
                         (fold_line(line, self.width) if "\x1b" not in line else [line]))


class HelpContext(click.Context):
    """A context whose help is laid out by ``WindowHelpFormatter``."""

    formatter_class = WindowHelpFormatter


def with_window_help(command: click.Command) -> click.Command:
    """``command`` and its subcommands, with their help laid out by ``WindowHelpFormatter``."""
    command.context_class = HelpContext
    for sub in getattr(command, "commands", {}).values():
        with_window_help(sub)
    return command
