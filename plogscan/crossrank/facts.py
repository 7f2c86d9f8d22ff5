"""What one attempt's processes reported, the input of root-cause localization.

``analyze`` fills ``Facts`` from the engine's findings and the summary: per process its real
errors and its timeouts (each a ``Problem`` with its aligned time and evidence lines), its
wait records, the op position of its failed tasks, the heartbeat reports of the attempt (with
the process that logged each), the root-info rosters, and the first divergence of the
collectives and the settings of each process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plogscan.crossrank.collectives import Divergence
from plogscan.crossrank.config import Settings
from plogscan.crossrank.identity import ProcessKey
from plogscan.crossrank.summary import Heartbeat, Roster, TaskState, Wait


@dataclass(frozen=True)
class Problem:
    """A real error or a timeout of one process: its aligned time and evidence."""

    ts: int | None
    text: str
    evidence: tuple[tuple[str, int], ...]


@dataclass
class Facts:
    """What one attempt's processes reported: the input of the wait graph and the decision."""

    members: frozenset[ProcessKey]
    errors: dict[ProcessKey, list[Problem]] = field(default_factory=dict)
    timeouts: dict[ProcessKey, list[Problem]] = field(default_factory=dict)
    waits: dict[ProcessKey, list[Wait]] = field(default_factory=dict)  # in stream, line order
    tasks: dict[ProcessKey, list[TaskState]] = field(default_factory=dict)
    heartbeats: list[tuple[ProcessKey, Heartbeat]] = field(default_factory=list)
    rosters: dict[ProcessKey, list[Roster]] = field(default_factory=dict)
    divergence: Divergence | None = None
    settings: Settings = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return bool(self.errors or self.timeouts)

    def first_error(self, key: ProcessKey) -> Problem | None:
        """The earliest real error of a process (the first one logged when none has a time)."""
        problems = self.errors.get(key)
        if not problems:
            return None
        timed = [p for p in problems if p.ts is not None]
        return min(timed, key=lambda p: p.ts) if timed else problems[0]  # type: ignore

    def silent(self, key: ProcessKey) -> bool:
        """It logged neither a real error nor a timeout nor a wait."""
        return key not in self.errors and key not in self.timeouts and key not in self.waits
