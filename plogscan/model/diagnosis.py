"""The diagnosis: everything ``diagnose`` concluded, the input to every reporter."""

from __future__ import annotations

from dataclasses import dataclass, field

from plogscan.model.crossrank import CrossRank
from plogscan.model.findings import EventRow, Finding
from plogscan.model.incidents import Incident
from plogscan.model.inputs import IngestSummary, ProcessInfo, RuleInfo


@dataclass(frozen=True)
class Diagnosis:
    """Everything ``diagnose`` concluded: the input to every reporter."""

    inputs: IngestSummary
    findings: tuple[Finding, ...]
    rules_evaluated: tuple[RuleInfo, ...] = ()  # every rule that ran, sorted by id
    processes: tuple[ProcessInfo, ...] = ()
    events: tuple[EventRow, ...] = ()  # ERROR/WARNING + evidence records, (ts, path, line) order
    events_truncated: bool = False  # True when more events existed than were kept
    exit_code: int = 0  # what the CLI will exit with for the chosen --fail-on
    fail_on: str = "error"
    extra: dict[str, object] = field(default_factory=dict)
    lang: str = "en"  # language of the rule texts and of the reports' fixed words
    crossrank: CrossRank | None = None  # who failed first, who waited, clocks, attempts
    # One root cause each with what follows from it, in the order to fix them; every finding
    # of ``findings`` belongs to exactly one (``plogscan.incidents`` builds them).
    incidents: tuple[Incident, ...] = ()
