"""``plogscan sql QUERY PATH...``: query the event table with DuckDB SQL."""

from __future__ import annotations

import click

from plogscan.cli.common import (
    list_named,
    paths_argument,
    quiet_option,
    report_problems,
    total_of,
)


@click.command("sql")
@click.argument("query", metavar="QUERY")
@paths_argument
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "jsonl"]), default="table",
              show_default=True, help="Output format.")
@quiet_option
def command(query: str, paths: tuple[str, ...], fmt: str, quiet: bool) -> None:
    """Run a DuckDB SQL query over the records of PATH, as the table `events`.

    PATH may be logs (parsed on the fly), a .parquet from `plogscan ingest -o` or a dataset
    directory from `plogscan ingest --dataset`. Columns are those of the event table (ts,
    level, module, pid, message, path, line, host, rank, device, codes...) and each
    record's identity (phy_device, host_ip, attempt, communicator, identity_source). The query can
    read only `events`: DuckDB's access to other files is turned off once the inputs are
    registered. Needs DuckDB: pip install 'plogscan[sql]'.

    \b
    Examples:
      plogscan sql "SELECT level, count(*) FROM events GROUP BY level" ./logs
      plogscan sql "SELECT host, rank, device, count(*) FROM events GROUP BY ALL" ./logs
      plogscan sql "SELECT rank, min(ts) FROM events WHERE level='ERROR' GROUP BY rank" ds/
      plogscan sql "SELECT path, line, message FROM events WHERE message ILIKE '%timeout%'"
          events.parquet --format csv
    """
    from plogscan.console import progress_bar
    from plogscan.ingest.pipeline import Ingest
    from plogscan.pipeline.tables import table_batches
    from plogscan.table.parquet import is_table
    from plogscan.table.sql import connect, render
    from plogscan.table.sql import query as run_query

    connect()  # a missing DuckDB is said before any parsing
    logs = [p for p in paths if not is_table(p)]
    inputs = list_named(paths)  # walked once: for the bar and the read
    with progress_bar(not quiet and bool(logs), total_of(inputs)) as advance:
        ingest = Ingest(on_progress=advance, encoded=True)
        names, rows = run_query(query, table_batches(list(paths), ingest, inputs))
        for text in render(names, rows, fmt):
            click.echo(text, nl=False)
    report_problems(ingest.summary, listed="`plogscan ingest --stats` lists them")
