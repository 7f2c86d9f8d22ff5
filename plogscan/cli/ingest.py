"""``plogscan ingest``: parse logs once into a Parquet event table."""

from __future__ import annotations

from pathlib import Path

import click

from plogscan.cli import redaction
from plogscan.cli.common import (
    cannot_write,
    clock_offset_option,
    clock_reference_option,
    input_size,
    limit_options,
    limits_from,
    nothing_read,
    parallel_option,
    paths_argument,
    prepare_output,
    quiet_option,
    report_problems,
    workers_option,
)
from plogscan.cli.redaction import redact_options
from plogscan.console import progress_bar
from plogscan.crossrank.analyze import Context, Options
from plogscan.crossrank.gather import Gatherer
from plogscan.errors import InputError
from plogscan.ingest.pipeline import Ingest
from plogscan.table.parquet import EventWriter
from plogscan.table.stats import render_stats


@click.command("ingest")
@paths_argument
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False),
              help="Parquet file to write (zstd).")
@click.option("--stats", is_flag=True, help="Print per-file accounting to stdout.")
@clock_offset_option
@clock_reference_option
@quiet_option
@workers_option
@parallel_option
@limit_options
@redact_options
def command(paths: tuple[str, ...], output: str, stats: bool,
            clock_offsets: tuple[tuple[str, float], ...], clock_reference: str | None,
            quiet: bool, workers: int | None, parallel: str, **more: object) -> None:
    """Parse logs into one event table and save it as Parquet.

    PATH may be files, directories (searched recursively), globs, .gz files and
    .tar/.tar.gz/.tgz/.zip collections (read in place, never extracted).
    The table's ts_aligned column holds each record's time on the reference
    host's clock (offsets estimated from the logs, or given with --clock-offset).

    \b
    Examples:
      plogscan ingest ./logs -o events.parquet
      plogscan ingest 'job-*/asys_output_*.tar.gz' -o events.parquet --stats
      plogscan events events.parquet --level ERROR      # query it later, no re-parse
      plogscan ingest ./logs -o shareable.parquet --redact --redact-salt ~/.plogscan-salt
    """
    limits = limits_from(more)
    redactor = redaction.start(more, inputs=paths)  # stderr is redacted from here on
    prepare_output(output, "event table", inputs=paths)
    with progress_bar(not quiet, input_size(paths)) as advance:
        ingest = Ingest(workers=workers, on_progress=advance,
                        processes=parallel == "processes", encoded=True,
                        limits=limits)  # type: ignore[arg-type]
        try:
            writer = EventWriter(output)
            gatherer = Gatherer()
            context = None
            try:
                for batch in ingest.batches(list(paths)):
                    writer.write(redactor.batch(batch) if redactor is not None else batch)
                    gatherer.consume(batch)
                context = Context(gatherer.summary(),
                                  Options(clock_offsets, clock_reference))
            finally:
                summary = ingest.summary
                aligner, offsets = ((context.aligned_column, context.offset_by_host())
                                    if context else (None, None))
                if redactor is not None:
                    from plogscan.redact.values import redact_value, redacted_alignment

                    summary = redact_value(summary, redactor)
                    aligner, offsets = redacted_alignment(redactor, aligner, offsets)
                writer.close(summary if context is not None else None, aligner=aligner,
                             offsets=offsets)
        except OSError as err:
            raise cannot_write("event table", output, err) from None
    report_problems(summary, listed="--stats lists them")
    if nothing_read(summary):
        Path(output).unlink(missing_ok=True)  # no empty table that looks like a result
        raise InputError("nothing could be read from the given paths",
                         help="pass log files, directories or archives; see plogscan ingest -h")
    if stats:
        click.echo(render_stats(summary), nl=False)
    records = summary.records
    click.echo(f"wrote {records} records from {len(summary.files)} files to {output}", err=True)
