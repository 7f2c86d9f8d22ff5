"""What one diagnose run is asked for (``DiagnoseOptions``), how long its stages took
(``Timings``), and the one way it fails for want of input (``NothingRead``).

The command line and the library build the same frozen ``DiagnoseOptions``; the fields that
change a result (marked ``result=True``) are the cache's key to a whole earlier result, the
others only change how the run goes about it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING

from plogscan.errors import InputError
from plogscan.ingest.cores import check_workers
from plogscan.ingest.limits import Limits
from plogscan.model import IngestSummary

if TYPE_CHECKING:
    from plogscan.catalog.rule import RuleSet

FAIL_ON = ("info", "warning", "error", "critical", "never")


# Each field says whether a different value may change the diagnosis (and so is part of
# ``DiagnoseOptions.result_key``) or only how the run goes about it.
RESULT = {"result": True}
HOW = {"result": False}


@dataclass(frozen=True)
class DiagnoseOptions:
    """Everything a diagnose run is asked for that is data (live objects, such as a cluster
    executor, a progress callback or a redactor, are ``run``'s own arguments)."""

    paths: tuple[str, ...] = field(metadata=HOW)  # the inputs' listing covers them
    rules_dirs: tuple[str, ...] = field(default=(), metadata=HOW)  # the loaded rules do
    rules: RuleSet | None = field(default=None, metadata=HOW)  # rules already loaded, instead
    fail_on: str = field(default="error", metadata=RESULT)
    lang: str = field(default="en", metadata=RESULT)  # ``plogscan.lang.LANGS``
    context_lines: int = field(default=3, metadata=RESULT)  # shown around each evidence line
    # (host, seconds): offsets given instead of the estimated ones (``crossrank.clock``)
    clock_offsets: tuple[tuple[str, float], ...] = field(default=(), metadata=RESULT)
    clock_reference: str | None = field(default=None, metadata=RESULT)
    limits: Limits = field(default_factory=Limits, metadata=RESULT)
    workers: int | None = field(default=None, metadata=HOW)
    processes: bool = field(default=False, metadata=HOW)  # worker processes, not threads
    skim: bool = field(default=True, metadata=HOW)  # the same diagnosis either way
    cache: Path | None = field(default=None, metadata=HOW)  # the extraction cache's directory
    reuse_result: bool = field(default=True, metadata=HOW)  # a whole earlier result, unchanged
    events_out: str | None = field(default=None, metadata=HOW)  # also write the event table

    def __post_init__(self) -> None:
        if self.fail_on not in FAIL_ON:
            raise InputError(f"unknown --fail-on level '{self.fail_on}'",
                             help="valid choices are: " + ", ".join(FAIL_ON))
        for name in ("paths", "rules_dirs"):
            object.__setattr__(self, name, tuple(str(p) for p in getattr(self, name)))
        object.__setattr__(self, "clock_offsets",
                           tuple((str(h), float(s)) for h, s in self.clock_offsets))
        if self.limits is None:
            object.__setattr__(self, "limits", Limits())
        check_workers(self.workers)

    def result_key(self, rules: RuleSet) -> str:
        """What a whole result depends on besides the inputs and the code: the rules as
        loaded (in the run's language) and every ``result`` field."""
        settings = tuple((f.name, getattr(self, f.name)) for f in fields(self)
                         if f.metadata["result"])
        return hashlib.sha256(f"{rules!r}\n{settings!r}".encode()).hexdigest()


class Timings:
    """Seconds spent in each named stage of a run, summed over its visits: ``total``,
    ``crossrank-gather`` (the cross-rank summary, during the pass) and ``crossrank``
    (identities, clocks and conclusions after it)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        begun = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - begun


class NothingRead(InputError):
    """No input could be read; ``summary`` says why for each path (the CLI prints it)."""

    def __init__(self, summary: IngestSummary) -> None:
        super().__init__("nothing could be read from the given paths",
                         help="pass log files, directories, archives or an events .parquet")
        self.summary = summary
