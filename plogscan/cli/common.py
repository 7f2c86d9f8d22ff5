"""Options and helpers shared by the commands that read logs."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from plogscan.console import warn
from plogscan.errors import Location, PlogscanError
from plogscan.ingest.sources import NOT_A_LOG_REASON
from plogscan.model import IngestSummary
from plogscan.report.i18n import count, ingest_text, tr

if TYPE_CHECKING:
    from plogscan.ingest.limits import Limits
    from plogscan.ingest.walk import Lister


def list_named(paths: Sequence[str], limits: Limits | None = None, *, tables: bool = True
               ) -> Lister:
    """The one walk of the paths a command names (``ingest.walk``): its progress total, the
    names the redaction keeps from its pseudonyms and the read itself all take it. With
    ``tables``, event tables named among the paths are read as tables, not walked."""
    from plogscan.ingest.walk import Lister
    from plogscan.table.parquet import named_inputs

    return named_inputs(paths, limits) if tables else Lister(paths, limits)


def total_of(*listings: Lister) -> Callable[[], int | None]:
    """The progress total of the walks (asked only when a bar is shown): bytes on disk of
    the files they read, None when one is unknown (standard input, a pipe)."""
    def total() -> int | None:
        sizes = [listing.complete().total_bytes() for listing in listings]
        return None if None in sizes else sum(s or 0 for s in sizes) or None

    return total


REPORT_LISTED = "the report's inputs section lists them"


def report_problems(summary: IngestSummary, listed: str = REPORT_LISTED,
                    lang: str = "en") -> None:
    """What ingest could not read. First each path named on the command line that could not
    be read at all, as ``PATH: reason``; then the rest grouped: one stderr line per reason,
    with its count and one example, so a tree of a thousand unknown files gives one line, not
    a thousand. A reason
    that only one file has names that file. Files that are plainly not logs (notes, scripts,
    pictures) share one line whatever their suffix. ``listed`` says where the command shows
    every file; the lines are in ``lang``."""
    listed = tr(lang, listed)
    for error in summary.errors:  # as grep says it: the path, then the system's reason
        warn(f"{error.path}: {ingest_text(lang, error.reason)}")
    groups: dict[str, list[str]] = {}
    for skipped in summary.skipped:
        reason = (NOT_A_LOG_REASON if skipped.reason.startswith(NOT_A_LOG_REASON)
                  else skipped.reason)
        groups.setdefault(reason, []).append(skipped.path)
    for reason, paths in groups.items():
        if reason == NOT_A_LOG_REASON:
            warn(count(lang, len(paths), "skipped {n} file that is not a log ({path}); {listed}",
                       "skipped {n} files that are not logs (e.g. {path}); {listed}",
                       path=paths[0], listed=listed))
        elif len(paths) == 1:
            warn(tr(lang, "skipped {path}: {reason}", path=paths[0],
                    reason=ingest_text(lang, reason)))
        else:
            warn(tr(lang, "skipped {n} files: {reason} (e.g. {path}); {listed}", n=len(paths),
                    reason=ingest_text(lang, reason), path=paths[0], listed=listed))
    _grouped(((stats.path, ingest_text(lang, problem)) for stats in summary.files
              for problem in stats.problems), listed, lang)
    _grouped(((s.path, count(lang, s.decode_errors, "{n} invalid UTF-8 sequence replaced",
                             "{n} invalid UTF-8 sequences replaced"))
              for s in summary.files if s.decode_errors), listed, lang,
             many=tr(lang, "invalid UTF-8 sequences replaced"))
    _grouped(((s.path, count(lang, s.nul_bytes, "{n} NUL byte removed", "{n} NUL bytes removed"))
              for s in summary.files if s.nul_bytes), listed, lang,
             many=tr(lang, "NUL bytes removed"))


PROBLEM_LINES = 10  # problems inside files named one by one before the rest are counted


def _grouped(problems: Iterable[tuple[str, str]], listed: str, lang: str,
             many: str | None = None) -> None:
    """``path: problem`` lines; past ``PROBLEM_LINES`` of them, one line counts the rest (or,
    with ``many``, one line says how many files have that problem)."""
    items = list(problems)
    if many is not None and len(items) > 1:
        warn(tr(lang, "{n} files: {problem} (e.g. {path}); {listed}", n=len(items),
                problem=many, path=items[0][0], listed=listed))
        return
    for path, problem in items[:PROBLEM_LINES]:
        warn(f"{path}: {problem}")
    if len(items) > PROBLEM_LINES:
        warn(count(lang, len(items) - PROBLEM_LINES, "{n} more problem inside files; {listed}",
                   "{n} more problems inside files; {listed}", listed=listed))


def nothing_read(summary: IngestSummary) -> bool:
    return not summary.files


def exit_if_incomplete(summary: IngestSummary) -> None:
    """Exit 2 when a path named on the command line could not be read (its output is written
    by then): a CI hook must see that the collection is incomplete, whatever was found in the
    rest (as grep exits 2 for a missing file even when other files match)."""
    if summary.errors:
        from plogscan.cli import EXIT_ERROR

        sys.exit(EXIT_ERROR)


def cannot_write(what: str, path: str | Path, err: OSError) -> PlogscanError:
    """The error for an output that cannot be written (exit 2, no traceback)."""
    reason = os.strerror(err.errno) if err.errno else (err.strerror or str(err))
    return PlogscanError(f"cannot write {what}: {reason}", where=Location(str(path)))


def prepare_output(path: str | Path, what: str, *, directory: bool = False,
                   inputs: Sequence[str] = ()) -> Path:
    """Create the output's directory and check that it is writable, before any parsing: a typo
    in ``-o`` is reported at once, not after a long run, and never as a traceback. An output
    that is one of the ``inputs`` is refused: writing it would destroy the log being read."""
    target = Path(path)
    for raw in inputs:
        with contextlib.suppress(OSError):
            if target.exists() and Path(raw).is_file() and os.path.samefile(raw, target):
                raise PlogscanError(f"refusing to overwrite the input file {raw} with the {what}",
                                    where=Location(str(path)))
    folder = target if directory else target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        blocker = next((p for p in (folder, *folder.parents) if p.exists()), None)
        if blocker is not None and not blocker.is_dir():
            raise PlogscanError(f"cannot write {what}: {blocker} is not a directory",
                                where=Location(str(path))) from None
        raise cannot_write(what, path, err) from None
    if not folder.is_dir():
        raise PlogscanError(f"cannot write {what}: {folder} is not a directory",
                            where=Location(str(path)))
    if not os.access(folder, os.W_OK) or (not directory and target.exists()
                                          and not os.access(target, os.W_OK)):
        raise PlogscanError(f"cannot write {what}: permission denied", where=Location(str(path)))
    return target


def write_output(path: str | Path, text: str, what: str) -> None:
    """Write ``text`` as UTF-8, complete or not at all (a temporary name, then a rename); an
    OS error (a full disk...) becomes a one-line error."""
    from plogscan.outputs.atomic import write_bytes

    try:
        write_bytes(path, text.encode("utf-8"))
    except OSError as err:
        raise cannot_write(what, path, err) from None


paths_argument = click.argument("paths", nargs=-1, required=True, metavar="PATH...")
quiet_option = click.option("-q", "--quiet", is_flag=True, help="No progress bar on stderr.")


def _workers(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """Any positive count; past the usable cores a warning that it adds memory, not speed."""
    from plogscan.ingest.cores import usable_cores

    cores = usable_cores()
    if value is not None and value > cores:
        warn(f"--workers {value} is more than the {cores} cores this process may use: each "
             "worker holds chunks in memory, and past the cores only inputs on slow storage "
             "read faster")
    return value


workers_option = click.option(
    "--workers", type=click.IntRange(min=1), default=None, envvar="PLOGSCAN_WORKERS",
    show_envvar=True, callback=_workers, metavar="N",
    help="Parser workers, any positive count (default: one per core this process may use). "
         "The parse grows with them up to the cores; each holds the 8 MiB chunk it parses, so "
         "past the cores they add memory and help only inputs on slow storage: a warning "
         "says so.")
parallel_option = click.option(
    "--parallel", type=click.Choice(["threads", "processes"]), default="threads",
    envvar="PLOGSCAN_PARALLEL", show_envvar=True, show_default=True,
    help="How the workers run: threads share one process and use the least CPU in all; "
         "processes need no interpreter lock and hand parsed chunks back through /dev/shm.")


class SizeParam(click.ParamType):
    """A size: a number of bytes or a number with a K, M, G or T suffix (binary units)."""

    name = "size"

    def convert(self, value, param, ctx):  # type: ignore[no-untyped-def]
        if isinstance(value, int):
            return value
        from plogscan.ingest.limits import parse_size

        try:
            size = parse_size(str(value))
        except ValueError as err:
            self.fail(str(err), param, ctx)
        if size < 1:
            self.fail("must be at least 1 byte", param, ctx)
        return size


def limit_options(function):  # type: ignore[no-untyped-def]
    """The ``--max-*`` options of every command that reads logs (``ingest.limits``)."""
    return _limit_options(function, diagnose=False)


def diagnose_limit_options(function):  # type: ignore[no-untyped-def]
    """``limit_options`` and those that bound what the rules report."""
    return _limit_options(function, diagnose=True)


def _limit_options(function, diagnose: bool):  # type: ignore[no-untyped-def]
    from plogscan.ingest.limits import LIMIT_OPTIONS, Limits, format_size

    defaults = Limits()
    for option in reversed(LIMIT_OPTIONS):
        if option.diagnose_only and not diagnose:
            continue
        default = getattr(defaults, option.field)
        shown = format_size(default) if option.size else f"{default:,}"
        kind = SizeParam() if option.size else click.IntRange(0 if option.field == "ratio" else 1)
        function = click.option(option.flag, option.field, type=kind, default=default,
                                metavar=option.metavar,
                                help=f"{option.help} Default: {shown}.")(function)
    return function


def limits_from(values: dict) -> object:
    """The ``Limits`` of the ``--max-*`` options in a command's keyword arguments (removed)."""
    from plogscan.ingest.limits import LIMIT_OPTIONS, Limits

    return Limits(**{o.field: values.pop(o.field) for o in LIMIT_OPTIONS if o.field in values})


def cache_options(fn):
    """``--cache DIR`` and ``--no-cache`` (see ``plogscan.cache``)."""
    fn = click.option("--no-cache", is_flag=True,
                      help="Parse every file, and keep nothing for the next run (the "
                      "compiled formats, rules and Hyperscan databases in "
                      "$XDG_CACHE_HOME/plogscan/compiled are kept: they hold no log text).")(fn)
    return click.option(
        "--cache", metavar="DIR", default=None, envvar="PLOGSCAN_CACHE", show_envvar=True,
        help="Extraction cache: a rerun reads unchanged files from here instead of parsing "
        "them. Default: $XDG_CACHE_HOME/plogscan (~/.cache/plogscan); 'off' turns it off. "
        "Created 0700 (it holds log text), capped by PLOGSCAN_CACHE_MAX (default 2G); "
        "see `plogscan cache info`.")(fn)


def scheduler_options(fn):
    """``--scheduler ADDRESS`` and ``--scheduler-file FILE`` (see ``ingest.cluster``)."""
    fn = click.option("--scheduler-file", type=click.Path(dir_okay=False), metavar="FILE",
                      default=None, help="Dask scheduler file (as `dask scheduler "
                      "--scheduler-file` writes it) instead of --scheduler.")(fn)
    return click.option(
        "--scheduler", metavar="ADDRESS", default=None, envvar="PLOGSCAN_SCHEDULER",
        show_envvar=True, help="Run the parse on a Dask cluster (tcp://HOST:PORT or "
        "tls://...; needs plogscan[distributed] here and on the workers, and the input paths "
        "readable by the workers). --workers and --parallel do not apply.")(fn)


def cluster_executor(scheduler: str | None, scheduler_file: str | None,
                     workers: int | None, parallel: str):
    """A connected ``DaskExecutor``, or None for the local pool; warns about options that do
    not apply to a cluster run."""
    if not (scheduler or scheduler_file or os.environ.get("PLOGSCAN_SCHEDULER")):
        return None  # the local pool: the cluster's module is not imported
    from plogscan.console import warn
    from plogscan.ingest.cluster import ClusterAddress, connect

    where = ClusterAddress.from_options(scheduler, scheduler_file)
    if where is None:
        return None
    if workers is not None or parallel != "threads":
        warn("--workers and --parallel do not apply to a Dask cluster run: the cluster's "
             "workers parse")
    return connect(where)

def _clock_offsets(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
                   ) -> tuple[tuple[str, float], ...]:
    out = []
    for value in values:
        host, sep, seconds = value.rpartition("=")
        try:
            number = float(seconds) if sep and host else None
        except ValueError:
            number = None
        if number is None or number != number or abs(number) == float("inf"):
            raise click.BadParameter(f"{value!r} is not HOST=SECONDS (e.g. worker-1=-6.25)",
                                     ctx=ctx, param=param)
        out.append((host, number))
    return tuple(out)


clock_offset_option = click.option(
    "--clock-offset", "clock_offsets", multiple=True, metavar="HOST=SECONDS",
    callback=_clock_offsets,
    help="A host's clock offset from the reference host (its clock minus the reference's, "
         "in seconds), instead of the one estimated from the logs. Repeatable.")
clock_reference_option = click.option(
    "--clock-reference", metavar="HOST", default=None,
    help="The host whose clock the others are aligned to (default: the host with the most "
         "ranks, ties by name).")
