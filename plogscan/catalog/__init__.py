"""The rule catalogue: rule files read into a ``RuleSet``, and the tools that keep them honest.

``ruleset`` loads and validates rule files strictly (located errors, all at once) through
``ruledoc`` (one document to one ``Rule``, the model in ``rule``) and ``ruletext`` (the texts
and their translations); ``operators`` is the ``field|op`` vocabulary the files are checked
against; ``describe`` fills a description's placeholders; ``checks`` lints a rule set,
``testing`` reads rule cases and compares findings with them, ``coverage`` says what the
catalogue covers, and ``categories`` is the taxonomy every rule and code table names. The
rule format is written in ``rules/README.md``.

In: rule files and their case files (data). Out: a ``RuleSet``, lint issues, case results,
coverage. Must not import: ``engine``, ``ingest``, ``table``, ``cache``, ``parse``, ``codes``,
``pipeline``, ``cli``; the catalogue never sees a log.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plogscan.catalog.rule import Rule, RuleSet
    from plogscan.catalog.ruleset import builtin_rules_dir, load_rules, rule_from_text

# Where each public name lives: imported on first use, so that importing the package (as
# ``plogscan rules list`` does) stays light.
_EXPORTS = {"Rule": "plogscan.catalog.rule", "RuleSet": "plogscan.catalog.rule",
            "builtin_rules_dir": "plogscan.catalog.ruleset",
            "load_rules": "plogscan.catalog.ruleset",
            "rule_from_text": "plogscan.catalog.ruleset"}

__all__ = ["Rule", "RuleSet", "builtin_rules_dir", "load_rules", "rule_from_text"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
