"""The rule engine: load declarative rules (``rules/**.yaml``) and run them over the event table.

``load_rules`` reads and validates rule files strictly (located errors, all at once);
``scan`` streams record batches through every rule and returns sorted ``Finding`` values.
The rule format and its matching semantics are written in ``rules/README.md``.

In: rule files (data) and record batches in the event schema. Out: ``Finding`` values
(``plogscan.model``), each with its evidence records, scope and verdict.

Must not import: ``analysis``, ``crossrank``, ``report``, ``cli``, ``diagnose``, ``baseline``;
it reads the table the parser made, never files (``engine.testing`` parses rule cases through
``ingest.textinput``, the one way down).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plogscan.engine.engine import scan
    from plogscan.engine.rule import Rule, RuleSet
    from plogscan.engine.ruleset import builtin_rules_dir, load_rules

# Where each public name lives: imported on first use, so that importing the package (as
# ``plogscan rules list`` does) does not load pyarrow and the engine.
_EXPORTS = {"scan": "plogscan.engine.engine", "Rule": "plogscan.engine.rule",
            "RuleSet": "plogscan.engine.rule", "builtin_rules_dir": "plogscan.engine.ruleset",
            "load_rules": "plogscan.engine.ruleset"}

__all__ = ["Rule", "RuleSet", "builtin_rules_dir", "load_rules", "scan"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
