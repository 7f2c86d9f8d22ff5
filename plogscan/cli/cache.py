"""``plogscan cache info|clear``: what the extraction cache holds, and emptying it."""

from __future__ import annotations

import click

from plogscan.cache.location import cache_dir, max_bytes


def binary_size(value: int) -> str:
    """``2 GiB``, ``6.4 MiB``, ``512 bytes``: binary units, as the cap is given (2G = 2 GiB);
    one decimal unless the value is a whole number of its unit."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if value >= 1 << shift:
            amount = value / (1 << shift)
            return f"{amount:.0f} {unit}" if value % (1 << shift) == 0 else f"{amount:.1f} {unit}"
    return f"{value} bytes"


def _directory(cache: str | None):
    directory = cache_dir(cache)
    if directory is None:
        raise click.UsageError("the cache is off (PLOGSCAN_CACHE=off); give --cache DIR")
    return directory


@click.group("cache")
def command() -> None:
    """The extraction cache that makes a rerun of `diagnose` fast.

    `diagnose` keeps, per input file, the records the rules can use and a summary of the
    rest, keyed by the file's path, size, modification time and content hash, and by a hash
    of plogscan's code, data and rule selection. It also keeps each run's whole result: a
    rerun over the same unchanged inputs, with the same rules and options, only checks the
    files and prints it again (another --format is fine). It holds log text: it is created
    0700.

    Apart from it, what plogscan compiles from its own data (the line formats, the rules,
    the Hyperscan databases) is kept in $XDG_CACHE_HOME/plogscan/compiled for the next run;
    it holds no log text, and --no-cache leaves it alone.

    \b
    Examples:
      plogscan cache info
      plogscan cache clear
      PLOGSCAN_CACHE=/scratch/plogscan-cache plogscan diagnose ./logs
    """


@command.command("info")
@click.option("--cache", metavar="DIR", default=None, envvar="PLOGSCAN_CACHE",
              show_envvar=True, help="The cache directory (default: the user's).")
def info(cache: str | None) -> None:
    """Where the cache is, how many file entries it holds and how large it is."""
    from plogscan.cache.store import info as cache_info

    found = cache_info(_directory(cache), max_bytes())
    click.echo(f"directory: {found.directory}")
    click.echo(f"entries:   {found.entries} files ({found.namespaces} code/rule versions)")
    click.echo(f"results:   {found.results} runs")
    click.echo(f"size:      {binary_size(found.bytes)} of at most {binary_size(found.max_bytes)} "
               "(PLOGSCAN_CACHE_MAX; least recently used entries go first)")


@command.command("clear")
@click.option("--cache", metavar="DIR", default=None, envvar="PLOGSCAN_CACHE",
              show_envvar=True, help="The cache directory (default: the user's).")
def clear(cache: str | None) -> None:
    """Remove every entry."""
    from plogscan.cache.store import clear as cache_clear

    directory = _directory(cache)
    removed = cache_clear(directory)
    click.echo(f"removed {removed} entries from {directory}")
