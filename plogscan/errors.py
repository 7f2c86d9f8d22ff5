"""Errors as values with a location. Only the CLI turns them into exit codes.

Every problem in a data file (a rule, a line format) names the file and the line, says what is
wrong and, where there is a closed set of choices, lists them. ``render`` prints one in the
lnav style:

    error: unknown key 'levle'
     --> rules/hccl/link_timeout.yaml:7
      = help: valid keys are: id, name, title, ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A place in a data file: path and 1-based line (0 when unknown)."""

    path: str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


class PlogscanError(Exception):
    """Base class of every error plogscan reports to a user (exit code 2 at the CLI)."""

    def __init__(
        self,
        message: str,
        *,
        where: Location | None = None,
        help: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.help = help

    def render(self, translate: Callable[[str], str] | None = None) -> str:
        """The error as the text the user sees: message, location, help; ``translate`` gives
        the labels, the message and the help in the user's language (the CLI passes it)."""
        t = translate or _as_is
        lines = [t("error: ") + t(self.message)]
        if self.where is not None:
            lines.append(f" --> {self.where}")
        if self.help:
            lines.append(t("  = help: ") + t(self.help))
        return "\n".join(lines)


class FormatError(PlogscanError):
    """A line-format data file is invalid (bad pattern, sample that does not parse...)."""


class RuleError(PlogscanError):
    """A rule file is invalid."""


class InputError(PlogscanError):
    """The input could not be read at all."""


class ErrorGroup(PlogscanError):
    """Several errors found in one pass (``collect_errors``); rendered one after another."""

    def __init__(self, errors: Iterable[PlogscanError]) -> None:
        self.errors = list(errors)
        super().__init__(f"{len(self.errors)} error(s)")

    def render(self, translate: Callable[[str], str] | None = None) -> str:
        return "\n\n".join(e.render(translate) for e in self.errors)


def choices(values: Iterable[str]) -> str:
    """Format a closed set of valid values for a help line."""
    return "valid choices are: " + ", ".join(sorted(values))


def _as_is(text: str) -> str:
    return text
