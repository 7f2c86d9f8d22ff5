"""``plogscan ingest``: parse logs once into a Parquet event table."""

from __future__ import annotations

from pathlib import Path

import click

from plogscan.cli import redaction
from plogscan.cli.common import (
    cannot_write,
    clock_offset_option,
    clock_reference_option,
    cluster_executor,
    exit_if_incomplete,
    limit_options,
    limits_from,
    list_named,
    nothing_read,
    parallel_option,
    paths_argument,
    prepare_output,
    quiet_option,
    report_problems,
    scheduler_options,
    total_of,
    workers_option,
)
from plogscan.cli.redaction import redact_options
from plogscan.console import progress_bar
from plogscan.crossrank.analyze import Options
from plogscan.errors import InputError
from plogscan.ingest.cores import worker_count
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.walk import Lister
from plogscan.pipeline.tables import write_dataset, write_table
from plogscan.table.stats import render_stats


@click.command("ingest")
@paths_argument
@click.option("-o", "--output", "output", default=None, type=click.Path(dir_okay=False),
              help="Parquet file to write (zstd).")
@click.option("--dataset", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Instead of -o: a hive-partitioned Parquet dataset, "
              "DIR/host=…/rank=…/part-*.parquet, with the per-file accounting in "
              "DIR/_plogscan_inputs.json. DIR must be empty or new.")
@click.option("--overwrite", is_flag=True, help="Let --dataset replace what DIR holds.")
@click.option("--stats", is_flag=True, help="Print per-file accounting to stdout.")
@scheduler_options
@clock_offset_option
@clock_reference_option
@quiet_option
@workers_option
@parallel_option
@limit_options
@redact_options
def command(paths: tuple[str, ...], output: str | None, dataset: str | None, overwrite: bool,
            stats: bool, scheduler: str | None, scheduler_file: str | None,
            clock_offsets: tuple[tuple[str, float], ...], clock_reference: str | None,
            quiet: bool, workers: int | None, parallel: str, **more: object) -> None:
    """Parse logs into one event table and save it as Parquet.

    PATH may be files, directories (searched recursively), globs, .gz files and
    .tar/.tar.gz/.tgz/.zip collections (read in place, never extracted).
    The table's ts_aligned column holds each record's time on the reference
    host's clock (offsets estimated from the logs, or given with --clock-offset),
    and every record carries its process's identity as diagnose resolves it
    (rank, device, phy_device, host, host_ip, attempt, communicator,
    identity_source): the rows are staged beside the output while the logs are
    read, and the table is written from them at the end.
    A PATH that cannot be read is named on stderr; the table of the others is
    written, then the exit code is 2.

    \b
    Examples:
      plogscan ingest ./logs -o events.parquet
      plogscan ingest 'job-*/asys_output_*.tar.gz' -o events.parquet --stats
      plogscan events events.parquet --level ERROR      # query it later, no re-parse
      plogscan ingest /shared/job-42 -o events.parquet --scheduler tcp://10.0.0.5:8786
      plogscan ingest ./logs --dataset events/        # then: plogscan sql QUERY events/
      plogscan ingest ./logs -o shareable.parquet --redact --redact-salt ~/.plogscan-salt
    """
    if (output is None) == (dataset is None):
        raise click.UsageError("give either -o FILE or --dataset DIR")
    limits = limits_from(more)
    # Walked once: for the bar, the redaction and the read; an event table named here is a
    # file skipped for what it is (``ingest`` reads logs).
    inputs = list_named(paths, limits, tables=False)
    # stderr is redacted from here on
    redactor = redaction.start(more, inputs=paths, names=lambda: inputs.complete().names())
    if dataset is not None:
        from plogscan.table.dataset import check_target

        check_target(Path(dataset), overwrite)
        return _ingest_dataset(inputs, Path(dataset), overwrite, stats, quiet, workers,
                               parallel, scheduler, scheduler_file, limits, redactor,
                               Options(clock_offsets, clock_reference))
    prepare_output(output, "event table", inputs=paths)
    executor = cluster_executor(scheduler, scheduler_file, workers, parallel)
    with progress_bar(not quiet, total_of(inputs)) as advance:
        ingest = Ingest(workers=workers, on_progress=advance,
                        processes=parallel == "processes", encoded=True, executor=executor,
                        limits=limits)  # type: ignore[arg-type]
        try:
            summary = write_table(inputs, output, ingest,
                                  Options(clock_offsets, clock_reference), redactor,
                                  threads=worker_count(workers))
        except OSError as err:
            raise cannot_write("event table", output, err) from None
        finally:
            if executor is not None:
                executor.close()
    report_problems(summary, listed="--stats lists them")
    if nothing_read(summary):
        Path(output).unlink(missing_ok=True)  # no empty table that looks like a result
        raise InputError("nothing could be read from the given paths",
                         help="pass log files, directories or archives; see plogscan ingest -h")
    if stats:
        click.echo(render_stats(summary), nl=False)
    records = summary.records
    click.echo(f"wrote {records} records from {len(summary.files)} files to {output}", err=True)
    exit_if_incomplete(summary)


def _ingest_dataset(inputs: Lister, directory: Path, overwrite: bool, stats: bool,
                    quiet: bool, workers: int | None, parallel: str, scheduler: str | None,
                    scheduler_file: str | None, limits: object, redactor: object,
                    options: Options) -> None:
    executor = cluster_executor(scheduler, scheduler_file, workers, parallel)
    with progress_bar(not quiet, total_of(inputs)) as advance:
        ingest = Ingest(workers=workers, on_progress=advance,
                        processes=parallel == "processes", encoded=True, executor=executor,
                        limits=limits)  # type: ignore[arg-type]
        try:
            summary = write_dataset(inputs, directory, overwrite, ingest, options,
                                    redactor)  # type: ignore[arg-type]
        except OSError as err:
            raise cannot_write("dataset", str(directory), err) from None
        finally:
            if executor is not None:
                executor.close()
    report_problems(summary, listed="--stats lists them")
    if nothing_read(summary):
        raise InputError("nothing could be read from the given paths",
                         help="pass log files, directories or archives; see plogscan ingest -h")
    if stats:
        click.echo(render_stats(summary), nl=False)
    click.echo(f"wrote {summary.records} records from {len(summary.files)} files to the "
               f"dataset {directory}", err=True)
    exit_if_incomplete(summary)
