"""Incidents: one root finding and everything that follows from it, the unit a person fixes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from plogscan.model.crossrank import Party
from plogscan.model.findings import Level, Scope


@dataclass(frozen=True)
class Incident:
    """A root finding with the findings it explains.

    ``same_rule``: the same rule firing in other processes or ranks of the same attempt;
    ``symptoms``: the findings that follow from them (wrappers, subsumed details, the findings
    of the ranks that only waited, checks that could not run for the fault); ``victims``: the
    ranks the cross-rank analysis says only waited for this root. ``scope`` covers every
    member; ``level`` is the root's.
    """

    id: str  # "I1", "I2"... in the order to fix them
    root: str  # finding id
    same_rule: tuple[str, ...]
    symptoms: tuple[str, ...]
    rule: str
    title: str
    category: str
    level: Level
    scope: Scope
    victims: tuple[Party, ...]
    first_ts: datetime | None
    last_ts: datetime | None
    attempt: int | None = None

    @property
    def members(self) -> tuple[str, ...]:
        """Every finding id of the incident: the root, the same rule elsewhere, the symptoms."""
        return (self.root, *self.same_rule, *self.symptoms)
