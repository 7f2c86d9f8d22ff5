"""The rule engine: run the catalogue's rules over the event table.

``scan`` streams record batches through every rule and returns sorted ``Finding`` values;
``selector`` is the parse workers' prefilter (which records some rule can use), ``presence``
the evidence ``requires`` checks look for, and ``cases`` runs a rule's own cases. The rules
come from ``plogscan.catalog``; their matching semantics are written in ``rules/README.md``.

In: a ``RuleSet`` (``plogscan.catalog``) and record batches in the event schema. Out:
``Finding`` values (``plogscan.model``), each with its evidence records, scope and verdict.

Must not import: ``analysis``, ``crossrank``, ``report``, ``cli``, ``pipeline``, ``baseline``;
it reads the table the parser made, never files (``engine.cases`` parses rule cases through
``ingest.textinput``, the one way down).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plogscan.engine.engine import scan

# Imported on first use, so that importing the package does not load pyarrow and the engine.
_EXPORTS = {"scan": "plogscan.engine.engine"}

__all__ = ["scan"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
