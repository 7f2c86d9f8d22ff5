"""The rule engine: load declarative rules (``rules/**.yaml``) and run them over the event table.

``load_rules`` reads and validates rule files strictly (located errors, all at once);
``scan`` streams record batches through every rule and returns sorted ``Finding`` values.
The rule format and its matching semantics are written in ``rules/README.md``.
"""

from plogscan.engine.engine import scan
from plogscan.engine.rule import Rule, RuleSet
from plogscan.engine.ruleset import builtin_rules_dir, load_rules

__all__ = ["Rule", "RuleSet", "builtin_rules_dir", "load_rules", "scan"]
