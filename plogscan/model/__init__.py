"""The shared vocabulary handed from the engine to the reporters: frozen dataclasses, no I/O.

Reporters see these values only, never the parser or the event table. ``findings`` (findings,
evidence and their order), ``inputs`` (the ingest accounting, rules and processes),
``crossrank`` (root cause, clock, attempts, collectives, settings, missing ranks),
``incidents`` and ``diagnosis`` (all of it together) hold the declarations; every name is
importable from ``plogscan.model``.

Part of the shared vocabulary. Must not import: any pipeline stage.
"""

from __future__ import annotations

from plogscan.model.crossrank import (
    AttemptReport,
    ClockFlag,
    ClockOffset,
    ClockReport,
    CollectiveCall,
    CollectiveMismatch,
    CollectivesReport,
    CommunicatorSequence,
    ConfigReport,
    CrossRank,
    EvidenceRef,
    GraphEdge,
    GraphNode,
    Hop,
    MissingReport,
    Party,
    RootCause,
    SettingMismatch,
    SettingValue,
    ShortTimeout,
    Suspect,
    SuspectReason,
    WaitGraph,
)
from plogscan.model.diagnosis import (
    BaselineOutcome,
    CacheUse,
    Diagnosis,
    ExpiredBaselineEntry,
    UnexplainedExample,
    UnexplainedTemplate,
)
from plogscan.model.findings import (
    ROLE_RANK,
    EventRow,
    Evidence,
    Finding,
    Level,
    Scope,
    Verdict,
    explainers,
    finding_order,
    order_findings,
)
from plogscan.model.incidents import (
    Incident,
)
from plogscan.model.inputs import (
    FileStats,
    IngestSummary,
    LimitHit,
    ProcessInfo,
    RuleInfo,
    SkippedFile,
)

__all__ = [
    "ROLE_RANK",
    "AttemptReport",
    "BaselineOutcome",
    "CacheUse",
    "ClockFlag",
    "ClockOffset",
    "ClockReport",
    "CollectiveCall",
    "CollectiveMismatch",
    "CollectivesReport",
    "CommunicatorSequence",
    "ConfigReport",
    "CrossRank",
    "Diagnosis",
    "EventRow",
    "Evidence",
    "EvidenceRef",
    "ExpiredBaselineEntry",
    "FileStats",
    "Finding",
    "GraphEdge",
    "GraphNode",
    "Hop",
    "Incident",
    "IngestSummary",
    "Level",
    "LimitHit",
    "MissingReport",
    "Party",
    "ProcessInfo",
    "RootCause",
    "RuleInfo",
    "Scope",
    "SettingMismatch",
    "SettingValue",
    "ShortTimeout",
    "SkippedFile",
    "Suspect",
    "SuspectReason",
    "UnexplainedExample",
    "UnexplainedTemplate",
    "Verdict",
    "WaitGraph",
    "explainers",
    "finding_order",
    "order_findings",
]
