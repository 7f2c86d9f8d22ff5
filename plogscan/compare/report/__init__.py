"""The reports of ``plogscan diff``: a ``Comparison`` as text, JSON or Markdown.

Each format module takes the ``Comparison`` only (``compare.model``) and the words of
``compare.words``; like every reporter they see results, never the logs, the parser or the
event table, and they show log text as hostile input (neutralized on a terminal, escaped or
fenced in Markdown, escaped in JSON). Importing this package is cheap: a format's module is
imported when it is asked for.

In: a ``Comparison``. Out: text.

Must not import: ``parse``, ``ingest``, ``table``, ``engine``, ``crossrank``, ``analysis``,
``pipeline``, ``cli``, nor the rest of ``compare`` but ``model`` and ``words``.
"""

from __future__ import annotations

from importlib import import_module

from plogscan.compare.model import Comparison

FORMATS = ("text", "json", "markdown")
_MODULES = {"text": "text", "json": "document", "markdown": "markdown"}
LIMIT = 10  # items listed per section in text and Markdown (0: all)


def render(comparison: Comparison, fmt: str = "text", limit: int = LIMIT) -> str:
    """The comparison in ``fmt`` (``FORMATS``). ``limit`` caps each list of the text and
    Markdown reports (0 lists everything; the JSON document always holds everything)."""
    module = import_module(f"plogscan.compare.report.{_MODULES[fmt]}")
    if fmt == "json":
        return module.render(comparison)
    return module.render(comparison, limit=limit)
