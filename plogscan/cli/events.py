"""``plogscan events``: print and filter parsed records, from logs or a saved Parquet table."""

from __future__ import annotations

import click

from plogscan.cli import redaction
from plogscan.cli.common import (
    exit_if_incomplete,
    limit_options,
    limits_from,
    list_named,
    nothing_read,
    parallel_option,
    paths_argument,
    quiet_option,
    report_problems,
    total_of,
    workers_option,
)
from plogscan.cli.redaction import redact_options
from plogscan.console import progress_bar
from plogscan.errors import InputError
from plogscan.ingest.pipeline import Ingest
from plogscan.pipeline.tables import table_batches
from plogscan.table.filters import EventFilter, parse_when
from plogscan.table.parquet import is_table
from plogscan.table.writers import WRITERS


@click.command("events")
@paths_argument
@click.option("--level", "levels", multiple=True, metavar="LEVEL",
              help="Keep these levels (DEBUG, INFO, WARNING, ERROR, EVENT...); repeatable.")
@click.option("--module", "modules", multiple=True, metavar="MODULE",
              help="Keep these modules (HCCL, RUNTIME, PTA...); repeatable.")
@click.option("--pid", "pids", multiple=True, type=int, help="Keep these process ids.")
@click.option("--rank", "ranks", multiple=True, type=int,
              help="Keep these ranks (as the cross-rank stage resolves each process's).")
@click.option("--device", "devices", multiple=True, type=int,
              help="Keep these logical devices.")
@click.option("--host", "hosts", multiple=True, metavar="HOST",
              help="Keep these hosts (as the table names them: worker-1, node-a...).")
@click.option("--attempt", "attempts", multiple=True, type=int,
              help="Keep these attempts (1, 2... in time order: a restarted job is a new one).")
@click.option("--grep", metavar="REGEX", help="Keep records whose message matches (RE2).")
@click.option("--since", metavar="TIME", help="Keep records at or after TIME.")
@click.option("--until", metavar="TIME", help="Keep records at or before TIME.")
@click.option("--limit", type=click.IntRange(min=0), default=None,
              help="Print at most N records. From logs the whole input is still read first: "
                   "each record's rank and device come from its whole process; a saved table "
                   "(plogscan ingest) stops at once.")
@click.option("--format", "fmt", type=click.Choice(sorted(WRITERS)), default="table",
              show_default=True, help="Output format.")
@quiet_option
@workers_option
@parallel_option
@limit_options
@redact_options
def command(paths: tuple[str, ...], levels: tuple[str, ...], modules: tuple[str, ...],
            pids: tuple[int, ...], ranks: tuple[int, ...], devices: tuple[int, ...],
            hosts: tuple[str, ...], attempts: tuple[int, ...], grep: str | None,
            since: str | None, until: str | None, limit: int | None, fmt: str, quiet: bool,
            workers: int | None, parallel: str, **more: object) -> None:
    """Print parsed log records, filtered, as a table, CSV or JSON Lines.

    PATH may be logs (files, directories, globs, archives) or a .parquet file
    written by `plogscan ingest`: parse once, query many times.

    Every record carries its process's identity (rank, device, phy_device,
    host, host_ip, attempt, communicator, identity_source), known only once
    every record of the logs is read: records of logs are printed after the
    whole input is parsed.

    \b
    Examples:
      plogscan events ./logs --level ERROR --limit 20
      plogscan events events.parquet --module HCCL --grep 'Already have context'
      plogscan events events.parquet --rank 1 --since '2026-03-02 10:15' --format jsonl
      plogscan events ./logs --host node-b --device 1 --attempt 2
      plogscan events ./logs --level ERROR --format csv --redact > errors.csv

    Filters see the original records; --redact changes only what is printed.
    A PATH that cannot be read is named on stderr; the others are printed, then
    the exit code is 2.
    """
    limits = limits_from(more)
    inputs = list_named(paths, limits)  # walked once: for the bar, the redaction and the read
    # stderr is redacted from here on
    redactor = redaction.start(more, inputs=paths, names=lambda: inputs.complete().names())
    selector = EventFilter(levels, modules, pids, ranks, grep,
                           parse_when(since) if since else None,
                           parse_when(until) if until else None,
                           devices=devices, hosts=hosts, attempts=attempts)
    selector.check()
    write = WRITERS[fmt]
    printed = 0
    header = True
    stopped_early = False
    log_paths = [p for p in paths if not is_table(p)]
    with progress_bar(not quiet and bool(log_paths), total_of(inputs)) as advance:
        ingest = Ingest(workers=workers, on_progress=advance, encoded=True,
                        processes=parallel == "processes", limits=limits)  # type: ignore[arg-type]
        for batch in table_batches(list(paths), ingest, inputs):
            if limit is not None and printed >= limit:
                stopped_early = True
                break
            kept = batch.filter(selector.mask(batch))
            if limit is not None:
                kept = kept.slice(0, limit - printed)
            if kept.num_rows:
                if redactor is not None:
                    kept = redactor.batch(kept)
                click.echo(write(kept, header), nl=False)
                header = False
                printed += kept.num_rows
    if log_paths and not stopped_early:
        report_problems(ingest.summary, listed="plogscan ingest --stats lists them")
        if nothing_read(ingest.summary) and len(log_paths) == len(paths):
            raise InputError("nothing could be read from the given paths")
    exit_if_incomplete(ingest.summary)
