"""A rule's own cases run: each excerpt parsed by the real parser and scanned with that rule
alone, the findings compared with what the case expects (``catalog.testing``).

``plogscan rules test`` and ``tests/catalog/test_rules.py`` both run cases through ``run_case``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from plogscan.catalog.rule import RuleSet
from plogscan.catalog.testing import Case, CaseResult, compare
from plogscan.engine.engine import scan


def parse_case(case: Case) -> pa.Table:
    """The event table of a case's excerpt(s), from the real parser."""
    from plogscan.ingest.textinput import parse_files

    return parse_files(dict(case.files))


def run_case(case: Case, rules: RuleSet,
             identities: Callable[[pa.Table], Callable[[], Any]] | None = None) -> CaseResult:
    """Parse the case, scan it with its rule alone, compare with ``expect``.

    ``identities(table)`` gives the engine what ``diagnose`` tells it of each record's process
    (``crossrank.analyze.identities``: a file that names no process, such as lines pasted
    without their headers, is one process of its own, its records in line order)."""
    rule = rules.get(case.rule)
    if rule is None:
        return CaseResult(case, False, (f"no rule {case.rule} is loaded",))
    table = parse_case(case)
    return compare(case, scan(table, RuleSet((rule,)), identities(table) if identities else None))
