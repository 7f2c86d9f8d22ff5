"""One run read for the comparison: diagnosed, its processes named, its records folded.

A run given as logs is diagnosed once with its event table written to a temporary directory
(every record, not only those the rules use: the comparison reads DEBUG records too); a run
given as an event table (``.parquet`` or a dataset from ``plogscan ingest``) is diagnosed from
it and read in place. The table is then read twice, batch by batch: once for the cross-rank
summary that names every process (``crossrank``), once to fold every record into its
process's templates (``profile``). The temporary table is removed when the comparison is done.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from plogscan.catalog import RuleSet
from plogscan.compare.model import Process
from plogscan.compare.processes import StreamMap, processes_of
from plogscan.compare.profile import Profile, ProfileBuilder
from plogscan.compare.templates import host_pattern
from plogscan.crossrank.analyze import Context, Options
from plogscan.crossrank.gather import Gatherer
from plogscan.crossrank.identity import ProcessKey
from plogscan.errors import InputError
from plogscan.ingest.walk import Lister
from plogscan.model import Diagnosis
from plogscan.pipeline import DiagnoseOptions, NothingRead, run
from plogscan.table.dataset import is_dataset, read_dataset
from plogscan.table.parquet import is_table, open_event_table, read_parquet


@dataclass(frozen=True)
class Run:
    """A run as the comparison needs it."""

    role: str  # good | bad
    path: str  # as the user named it
    table: str  # its event table
    diagnosis: Diagnosis
    context: Context  # who each process is, its settings, the clocks
    processes: tuple[Process, ...]
    index: dict[ProcessKey, int]  # identity -> position in ``processes``
    profile: Profile


def table_batches(path: str) -> Iterator[pa.RecordBatch]:
    """The batches of an event table file or dataset, in the event schema."""
    if is_dataset(path):
        return read_dataset(path)
    return read_parquet(open_event_table(path))


@contextmanager
def read_run(role: str, path: str, rules: RuleSet, *, lang: str = "en",
             workers: int | None = None,
             on_progress: Callable[[str, int], None] | None = None,
             listing: Lister | None = None) -> Iterator[Run]:
    """The run at ``path``, read; its temporary files live until the block ends."""
    with tempfile.TemporaryDirectory(prefix="plogscan-diff-") as scratch:
        given = is_table(path)
        table = path if given else str(Path(scratch) / "events.parquet")
        try:
            options = DiagnoseOptions(paths=(path,), fail_on="never", rules=rules,
                                      workers=workers, events_out=None if given else table,
                                      context_lines=0, lang=lang)
            diagnosis = run(options, listing=listing, on_progress=on_progress)
        except NothingRead:
            raise InputError(f"nothing could be read from {role.upper()} {path}",
                             help="GOOD and BAD are each a log directory, archive, file or "
                                  "event table") from None
        gatherer = Gatherer()
        for batch in table_batches(table):
            gatherer.consume(batch)
        context = Context(gatherer.summary(), Options(lang=lang))
        processes, index = processes_of(context, diagnosis.findings)
        hosts = host_pattern(h for i in context.ids.processes.values()
                             for h in (i.host, i.key.host) if h)
        builder = ProfileBuilder(StreamMap(context.ids, index), hosts)
        for batch in table_batches(table):
            builder.consume(batch)
        yield Run(role, path, table, diagnosis, context, processes, index, builder.result())
