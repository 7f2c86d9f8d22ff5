"""What one attempt's processes reported, the input of root-cause localization.

``analyze`` fills ``Facts`` from the engine's findings and the summary: per process its real
errors and its timeouts (each a ``Problem`` with its aligned time and evidence lines), the
op position of its failed tasks, the heartbeat reports of the attempt, and the odd ranks of
the collective alignment and of the settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plogscan.crossrank.collectives import Divergence
from plogscan.crossrank.config import Mismatch
from plogscan.crossrank.identity import ProcessKey
from plogscan.crossrank.summary import Heartbeat, TaskState


@dataclass(frozen=True)
class Problem:
    """A real error or a timeout of one process: its aligned time and evidence."""

    ts: int | None
    text: str
    evidence: tuple[tuple[str, int], ...]


@dataclass
class Facts:
    """What one attempt's processes reported: the input of ``localize``."""

    members: frozenset[ProcessKey]
    errors: dict[ProcessKey, list[Problem]] = field(default_factory=dict)
    timeouts: dict[ProcessKey, list[Problem]] = field(default_factory=dict)
    tasks: dict[ProcessKey, list[TaskState]] = field(default_factory=dict)
    heartbeats: list[Heartbeat] = field(default_factory=list)
    divergence: Divergence | None = None
    config: tuple[Mismatch, ...] = ()

    @property
    def failed(self) -> bool:
        return bool(self.errors or self.timeouts)
