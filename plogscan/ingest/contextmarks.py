"""The candidates of a chunk, asked once: for the records a worker keeps and for the records
it takes context lines for.

In ``diagnose`` the reducer that picks the records a worker hands on (``facts.Reducer``) is
the selector that marks the records whose context lines are taken (``ContextSpec.marker``),
and both ask the same question of every chunk: which records may some rule use. The reducer
answers it first, over all the chunk's records; ``RememberedMarks`` keeps that answer (the
first line of each candidate) so that the context lines read it instead of testing the kept
records again (a second Hyperscan scan, narrowing and RE2 confirmation per chunk).

Every candidate is kept, so the records marked are the same but for rows the selector's
superset test marks only because of their neighbours in a scan (a literal across two
messages): such a record matches no rule, so its context lines are never shown.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from plogscan.ingest.contextlines import ContextSpec


class KeepingMarker(Protocol):
    """A reducer that is also a context marker (``engine.selector.Selector``)."""

    def keep_and_candidates(self, records: pa.Table) -> tuple[np.ndarray, np.ndarray | None]:
        ...

    def candidates(self, records: pa.Table) -> np.ndarray: ...


class RememberedMarks:
    """A reducer for one chunk that remembers which records it found to be candidates, and
    answers the context's ``candidates`` from that (other attributes are the selector's)."""

    def __init__(self, selector: KeepingMarker) -> None:
        self.selector = selector
        self.lines: np.ndarray | None = None  # first line of each candidate, ascending

    def __getattr__(self, name: str) -> Any:
        if name == "selector":  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.selector, name)

    def keep(self, records: pa.Table) -> np.ndarray:
        keep, candidates = self.selector.keep_and_candidates(records)
        if candidates is not None:
            lines = records.column("line").to_numpy(zero_copy_only=False)
            self.lines = np.sort(lines[np.asarray(candidates, dtype=bool)])
        return keep

    def candidates(self, records: pa.Table) -> np.ndarray:
        if self.lines is None:  # the reducer kept every record without asking
            return self.selector.candidates(records)
        lines = records.column("line").to_numpy(zero_copy_only=False)
        at = np.minimum(np.searchsorted(self.lines, lines), max(len(self.lines) - 1, 0))
        return (self.lines[at] == lines) if len(self.lines) else np.zeros(len(lines), bool)


def asked_once(reducer: Any, context: ContextSpec | None) -> tuple[Any, ContextSpec | None]:
    """The reducer and context spec of one chunk's parse: one ``RememberedMarks`` for both
    when the reducer is the context's marker and can tell its candidates, else as given."""
    if (context is None or reducer is None or context.marker is not reducer
            or not hasattr(reducer, "keep_and_candidates")):
        return reducer, context
    marks = RememberedMarks(reducer)
    return marks, dataclasses.replace(context, marker=marks)
