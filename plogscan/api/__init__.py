"""plogscan as a library: the functions the ``plogscan`` package exports.

``read_events`` (the event table as a pandas DataFrame), ``diagnose`` (the ``Diagnosis`` every
report is made from), ``explain`` (what an error code means) and ``rules`` (the rule
catalogue). The command line calls the same stages (``pipeline``): the same inputs give the
same records and the same findings. Nothing here prints or exits; a problem is an exception
(``plogscan.errors.PlogscanError`` and its kinds, ``InputError`` for inputs) whose message
says what is wrong. pandas is imported by the functions that return a DataFrame, only.

In: paths and options. Out: DataFrames and the model's values. Must not import: ``cli``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from plogscan.errors import InputError, PlogscanError

if TYPE_CHECKING:
    import pandas as pd

    from plogscan.catalog.rule import Rule
    from plogscan.codes import CodeInfo
    from plogscan.model import Diagnosis

PathLike = str | os.PathLike[str]
Paths = PathLike | Iterable[PathLike]
Many = int | Iterable[int] | None
Words = str | Iterable[str] | None

__all__ = ["UnknownCode", "diagnose", "explain", "read_events", "rules"]


class UnknownCode(PlogscanError, LookupError):
    """``explain``: no code table defines the code."""


def _paths(paths: Paths) -> tuple[str, ...]:
    if isinstance(paths, str | os.PathLike):
        return (os.fspath(paths),)
    found = tuple(os.fspath(p) for p in paths)
    if not found:
        raise InputError("no paths given", help="pass a log file, directory, archive, "
                         ".parquet table or dataset directory")
    return found


def _many(value: object, kind: type) -> tuple:
    """A filter's values: one value or several."""
    if value is None:
        return ()
    if isinstance(value, kind) or not isinstance(value, Iterable):
        return (value,)
    return tuple(value)


def _when(value: str | datetime | None) -> datetime | None:
    from plogscan.table.filters import parse_when

    if value is None or isinstance(value, datetime):
        return value
    return parse_when(value)


def read_events(paths: Paths, *, level: Words = None, module: Words = None, pid: Many = None,
                rank: Many = None, device: Many = None, host: Words = None,
                attempt: Many = None, grep: str | None = None,
                since: str | datetime | None = None, until: str | datetime | None = None,
                limit: int | None = None, workers: int | None = None) -> pd.DataFrame:
    """The records of ``paths`` as a DataFrame: the columns of ``plogscan ingest``'s table
    (``plogscan.schema.TABLE_SCHEMA``: each record with its process's rank, device, host,
    attempt…), with Arrow-backed dtypes.

    ``paths``: a path or several: log files, directories, globs, archives, a ``.parquet``
    written by ``plogscan ingest -o`` or a dataset directory from ``--dataset`` (read as
    they are). The filters are those of ``plogscan events`` (each one value or several, all
    of them ANDed): ``level``, ``module``, ``pid``, ``rank``, ``device`` (logical),
    ``host``, ``attempt``, ``grep`` (an RE2 regex over the message), ``since`` / ``until``
    (a ``datetime`` or text such as ``2026-03-02 10:15``); ``limit`` keeps the first N.

    Raises ``InputError`` when a named path cannot be read (the message names it and why),
    or nothing can be read; ``ImportError`` (how to install it) without pandas."""
    import pyarrow as pa

    from plogscan.ingest.cores import check_workers
    from plogscan.ingest.pipeline import Ingest
    from plogscan.model.frames import frame, pandas_module
    from plogscan.pipeline.tables import table_batches
    from plogscan.schema import TABLE_SCHEMA
    from plogscan.table.filters import EventFilter
    from plogscan.table.parquet import named_inputs

    pandas_module()  # a missing pandas is said before any parsing
    names = _paths(paths)
    selector = EventFilter(_many(level, str), _many(module, str), _many(pid, int),
                           _many(rank, int), grep, _when(since), _when(until),
                           devices=_many(device, int), hosts=_many(host, str),
                           attempts=_many(attempt, int))
    selector.check()
    check_workers(workers)
    ingest = Ingest(workers=workers, encoded=True)
    kept: list[pa.RecordBatch] = []
    count = 0
    batches = table_batches(list(names), ingest, named_inputs(names))
    try:
        for batch in batches:
            if limit is not None and count >= limit:
                break
            batch = batch.filter(selector.mask(batch))
            if limit is not None:
                batch = batch.slice(0, limit - count)
            count += batch.num_rows
            if batch.num_rows:
                kept.append(batch)
    finally:
        batches.close()
    summary = ingest.summary
    if limit is None or count < limit:
        _check_read(summary, names)
    return frame(pa.Table.from_batches(kept, schema=TABLE_SCHEMA))


def _check_read(summary: object, names: tuple[str, ...]) -> None:
    """``InputError`` for named paths that could not be read, or for an input of nothing."""
    errors = getattr(summary, "errors", ())
    if errors:
        listed = "; ".join(f"{e.path}: {e.reason}" for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        raise InputError(f"cannot read {listed}{more}")
    from plogscan.table.parquet import is_table

    if not getattr(summary, "files", ()) and not any(is_table(n) for n in names):
        raise InputError("nothing could be read from the given paths",
                         help="pass log files, directories, archives or an events .parquet")


def diagnose(paths: Paths, *, rules_dirs: Iterable[PathLike] = (), fail_on: str = "error",
             lang: str = "en", context_lines: int = 3,
             clock_offsets: Mapping[str, float] | None = None,
             clock_reference: str | None = None, workers: int | None = None,
             cache: PathLike | None = None, events_out: PathLike | None = None) -> Diagnosis:
    """Diagnose the logs (or event table) of ``paths``: the ``Diagnosis`` every report of
    ``plogscan diagnose`` is made from, with the same findings as ``--format json``.

    ``findings`` (in the report's order), ``incidents`` (one root cause each, in the order to
    fix them), ``root_cause`` (which rank failed first, which waited), ``exit_code`` (what the
    command would exit with for ``fail_on``: 1 for findings at or above it, else 0),
    ``findings_frame()`` and ``events_frame()`` as DataFrames. ``rules_dirs`` adds rule files;
    ``lang`` (``en``, ``zh``) picks the language of the texts; ``clock_offsets`` (host ->
    seconds) and ``clock_reference`` fix the hosts' clocks; ``cache`` is a directory for the
    extraction cache (none by default); ``events_out`` also writes the event table.
    ``inputs.errors`` lists the named paths that could not be read (the command exits 2).

    Raises ``InputError`` when nothing can be read, ``RuleError`` / ``ErrorGroup`` for bad
    rule files, ``InputError`` for a bad option value (the message lists the choices)."""
    from plogscan.lang import LANGS
    from plogscan.pipeline import DiagnoseOptions, run

    if lang not in LANGS:
        raise InputError(f"unknown language {lang!r}", help="valid choices are: "
                         + ", ".join(LANGS))
    options = DiagnoseOptions(
        paths=_paths(paths), rules_dirs=tuple(os.fspath(d) for d in rules_dirs),
        fail_on=fail_on, lang=lang, context_lines=context_lines,
        clock_offsets=tuple((clock_offsets or {}).items()), clock_reference=clock_reference,
        workers=workers, cache=Path(cache) if cache is not None else None,
        events_out=os.fspath(events_out) if events_out is not None else None)
    return run(options)


def explain(code: str, *, lang: str = "en") -> CodeInfo:
    """What an error code from a CANN, HCCL or torch_npu log means: its most specific reading
    (``plogscan explain`` prints every reading; ``plogscan.codes.decode`` returns them all).
    Raises ``UnknownCode`` (a ``LookupError``) when no code table defines it."""
    from plogscan.codes import decode

    readings = decode(code, lang=lang)
    if not readings:
        raise UnknownCode(f"unknown code {code!r}: no code table defines it",
                          help="`plogscan explain --help` lists the forms understood")
    return readings[0]


def rules(*, rules_dirs: Iterable[PathLike] = (), lang: str = "en") -> list[Rule]:
    """The rules a diagnosis runs (the built-in pack and ``rules_dirs``), sorted by id, with
    their texts in ``lang``. Raises ``RuleError`` / ``ErrorGroup`` for bad rule files."""
    from plogscan.catalog import load_rules

    return list(load_rules([os.fspath(d) for d in rules_dirs], lang=lang))
