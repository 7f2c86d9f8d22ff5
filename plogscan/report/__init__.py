"""Reporters: turn a ``Diagnosis`` into text for people, CI systems and other tools.

Every reporter takes the ``Diagnosis`` value only (``plogscan.model``): none sees the parser,
the engine or the event table, and none imports pyarrow or pandas. ``render`` picks one format;
``write_all`` writes every format at once for ``--output-dir``. Each module is imported only
when its format is asked for, so ``import plogscan.report`` stays cheap.

In: a ``Diagnosis``. Out: text (terminal, JSON, Markdown, SARIF, JUnit XML, HTML).

Must not import: ``parse``, ``ingest``, ``table`` (a report sees results, never inputs),
``engine`` internals other than through ``model``, ``cli``, ``pipeline``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from importlib import import_module
from pathlib import Path

from plogscan.errors import PlogscanError, choices
from plogscan.model import Diagnosis
from plogscan.report.view import complete


class Format(str, Enum):
    """Report formats, as ``--format`` spells them."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"
    SARIF = "sarif"
    JUNIT = "junit"
    HTML = "html"


# Format -> module under plogscan.report exposing render(diagnosis, ...) -> str.
_MODULES = {
    Format.TEXT: "text",
    Format.JSON: "json_report",
    Format.MARKDOWN: "markdown",
    Format.SARIF: "sarif",
    Format.JUNIT: "junit",
    Format.HTML: "html",
}

# What --output-dir writes, in this order.
OUTPUT_FILES = (
    (Format.HTML, "report.html"),
    (Format.JSON, "report.json"),
    (Format.MARKDOWN, "report.md"),
    (Format.SARIF, "report.sarif"),
    (Format.JUNIT, "report.xml"),
)


def _format(fmt: Format | str) -> Format:
    try:
        return Format(fmt)
    except ValueError:
        raise PlogscanError(f"unknown report format {fmt!r}",
                            help=choices(f.value for f in Format)) from None


def render(diagnosis: Diagnosis, fmt: Format | str, *, verbose: bool = False,
           width: int | None = None, color: bool = False, show_all: bool = False,
           details: bool = False) -> str:
    """The report in one format.

    ``verbose`` adds context lines around evidence (text, HTML); ``width``, ``color``,
    ``show_all`` (every finding unfolded) and ``details`` (the appendix sections in full)
    apply to the terminal report only (default 80 columns, no colour, incidents folded,
    appendix one line per section).
    """
    fmt = _format(fmt)
    diagnosis = complete(diagnosis)
    module = import_module(f"plogscan.report.{_MODULES[fmt]}")
    if fmt is Format.TEXT:
        return module.render(diagnosis, verbose=verbose, width=width, color=color,
                             show_all=show_all, details=details)
    if fmt is Format.HTML:
        return module.render(diagnosis, verbose=verbose)
    return module.render(diagnosis)


def write_all(diagnosis: Diagnosis, out_dir: Path, *, verbose: bool = False,
              transform: Callable[[str], str] | None = None) -> list[Path]:
    """Write report.html, .json, .md, .sarif and .xml into ``out_dir`` (created if needed).

    Returns the paths written, in ``OUTPUT_FILES`` order. Files are UTF-8 with ``\\n`` line
    ends whatever the platform, so they are byte-identical for the same diagnosis. Each file
    is complete or absent: it is written under a temporary name and renamed into place.
    ``transform``, when given, is applied to each document's text before it is written.
    """
    from plogscan.outputs.atomic import write_bytes

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt, name in OUTPUT_FILES:
        path = out_dir / name
        text = render(diagnosis, fmt, verbose=verbose)
        write_bytes(path, (transform(text) if transform else text).encode("utf-8"))
        written.append(path)
    return written
