"""The diagnosis: everything ``diagnose`` concluded, the input to every reporter."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from plogscan.model.crossrank import CrossRank, RootCause
from plogscan.model.findings import EventRow, Finding
from plogscan.model.incidents import Incident
from plogscan.model.inputs import IngestSummary, ProcessInfo, RuleInfo

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class UnexplainedExample:
    """One record of an unexplained template: where it is and what it says."""

    path: str
    line: int
    ts: datetime | None
    message: str


@dataclass(frozen=True)
class UnexplainedTemplate:
    """An ERROR template no finding explains (``plogscan.analysis.unexplained``): how often,
    on which ranks and processes, when first and last, and one record of it."""

    template: str
    count: int
    ranks: tuple[int, ...]
    processes: int
    first_ts: datetime | None
    last_ts: datetime | None
    module: str | None
    example: UnexplainedExample


@dataclass(frozen=True)
class CacheUse:
    """What the extraction cache gave the run."""

    reused_files: int = 0  # files read from the cache instead of parsed
    reused_result: bool = False  # the whole diagnosis of an earlier run over the same inputs
    problem: str | None = None  # why the cache could not be used, if it could not


@dataclass(frozen=True)
class ExpiredBaselineEntry:
    """A baseline entry past its expiry date: it no longer suppresses anything."""

    fingerprint: str
    rule: str | None
    title: str | None
    reason: str | None
    expires: str | None  # ISO date


@dataclass(frozen=True)
class BaselineOutcome:
    """What a baseline (``plogscan.baseline``) did to the findings."""

    suppressed: tuple[Finding, ...] = ()  # removed from ``findings``
    suppressed_reasons: dict[str, str | None] = field(default_factory=dict)  # by fingerprint
    expired: tuple[ExpiredBaselineEntry, ...] = ()


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
    # Each code in the findings' evidence with its one-line meaning in ``lang`` (None when
    # unknown); None when not computed (a diagnosis built by hand).
    codes: dict[str, str | None] | None = None
    # ERROR templates no finding explains, ranked; None when not computed.
    unexplained: tuple[UnexplainedTemplate, ...] | None = None
    unexplained_overflow: int = 0  # ERROR records of templates dropped to bound memory
    cache: CacheUse = field(default_factory=CacheUse)
    processes_omitted: int = 0  # processes past the overview's cap
    baseline: BaselineOutcome | None = None  # with ``--baseline``
    lang: str = "en"  # language of the rule texts and of the reports' fixed words
    crossrank: CrossRank | None = None  # who failed first, who waited, clocks, attempts
    # One root cause each with what follows from it, in the order to fix them; every finding
    # of ``findings`` belongs to exactly one (``plogscan.incidents`` builds them).
    incidents: tuple[Incident, ...] = ()

    @property
    def root_cause(self) -> RootCause | None:
        """Which rank failed first and which only waited (the last failed attempt's); None
        when the cross-rank stage did not run."""
        return self.crossrank.root_cause if self.crossrank is not None else None

    def findings_frame(self) -> pd.DataFrame:
        """The findings as a pandas DataFrame (Arrow-backed columns), one row each, in the
        report's order (``model.frames.FINDING_SCHEMA`` lists the columns)."""
        from plogscan.model.frames import findings_table, frame

        return frame(findings_table(self.findings))

    def events_frame(self) -> pd.DataFrame:
        """The records the diagnosis kept (ERROR and WARNING records and every finding's
        evidence) as a pandas DataFrame; ``plogscan.read_events`` gives every record."""
        from plogscan.model.frames import events_table, frame

        return frame(events_table(self.events))
