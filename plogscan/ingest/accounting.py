"""What one ingest run accounts for: every file read (with its ``FileStats``), every file
skipped and every named path that could not be read (with the reason), the limits that bit.

``Ingest`` keeps one ``Accounting`` and hands out its ``summary``; an event table's stored
accounting joins it (``absorb``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from plogscan.ingest.limits import LimitHit, format_size
from plogscan.model import FileStats, IngestSummary, SkippedFile

if TYPE_CHECKING:
    from plogscan.ingest.chunks import FileState

MAX_LIMIT_HITS = 1000  # limit hits kept for the report; later ones are only counted


class Accounting:
    """The files read and skipped and the limits hit, as the run goes."""

    def __init__(self) -> None:
        self.files: list[FileStats] = []
        self.skipped: list[SkippedFile] = []
        self.errors: list[SkippedFile] = []  # named paths that could not be read at all
        self.paths: tuple[str, ...] = ()
        self.limit_hits: list[LimitHit] = []
        self.more_limit_hits = 0

    @property
    def summary(self) -> IngestSummary:
        # Skips in directory-walk order of their paths, so that the report does not depend on
        # the order in which the arguments were given.
        hits = tuple(self.limit_hits)
        if self.more_limit_hits:
            last = hits[-1]
            hits += (LimitHit(last.limit, last.option, last.value, "",
                              f"and {self.more_limit_hits:,} more limit hits not listed"),)
        return IngestSummary(self.paths, tuple(self.files),
                             tuple(sorted(self.skipped, key=lambda s: s.path.split("/"))),
                             hits, tuple(self.errors))

    def record_inputs(self, paths: Sequence[str]) -> None:
        """The paths the run was given, as the summary names them."""
        self.paths = tuple(paths)

    def skip(self, path: str, reason: str, named: bool) -> None:
        """A file the run does not read; ``named``: a path given by the user that could not
        be read at all (the run's exit code says so)."""
        (self.errors if named else self.skipped).append(SkippedFile(path, reason))

    def absorb(self, files: Iterable[FileStats], skipped: Iterable[SkippedFile],
               limits: Iterable[LimitHit] = (), errors: Iterable[SkippedFile] = ()) -> None:
        """Add accounting made by an earlier run (stored in an event table)."""
        self.files.extend(files)
        self.skipped.extend(skipped)
        self.errors.extend(errors)
        for hit in limits:
            self.record_limit(hit)

    def record_limit(self, hit: LimitHit) -> None:
        """Keep a limit that bit (the first ``MAX_LIMIT_HITS``; later ones are counted)."""
        if len(self.limit_hits) < MAX_LIMIT_HITS:
            self.limit_hits.append(hit)
        else:
            self.more_limit_hits += 1


def file_stats(state: FileState) -> FileStats:
    """The accounting of a file read to its end."""
    s = state.stats
    return FileStats(
        path=state.ctx.path, kind=state.ctx.kind, bytes=s.get("bytes", 0),
        lines=s.get("lines", 0), records=s.get("records", 0),
        record_lines=s.get("record_lines", 0), blank_lines=s.get("blank_lines", 0),
        unparsed_lines=s.get("unparsed_lines", 0), decode_errors=s.get("decode_errors", 0),
        nul_bytes=s.get("nul_bytes", 0), control_bytes=s.get("control_bytes", 0),
        truncated_lines=s.get("truncated_lines", 0),
        invalid_timestamps=s.get("invalid_timestamps", 0),
        epoch_clock_records=s.get("epoch_clock_records", 0), problems=tuple(state.problems),
        encoding=state.ctx.encoding)


def cut_lines_note(state: FileState, line_bytes: int) -> str | None:
    """What a file whose long lines were cut at ``line_bytes`` says of them (None when none
    was)."""
    s = state.stats
    if not s.get("cut_lines"):
        return None
    bound = format_size(line_bytes)
    return (f"{s['cut_lines']:,} line(s) longer than {bound} kept their first {bound} "
            f"(first: line {state.first_cut}); {s.get('cut_bytes', 0):,} bytes of them "
            "were not read")
