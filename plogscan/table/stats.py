"""Plain-text table of per-file ingest accounting (``ingest --stats``)."""

from __future__ import annotations

from plogscan.model import IngestSummary

_COLUMNS = (
    ("lines", "lines"), ("records", "records"), ("blank", "blank_lines"),
    ("unparsed", "unparsed_lines"), ("decode_err", "decode_errors"),
    ("truncated", "truncated_lines"), ("bad_ts", "invalid_timestamps"),
    ("epoch_ts", "epoch_clock_records"),
)


def render_stats(summary: IngestSummary) -> str:
    """One row per file, then totals and skipped files; tab-free fixed columns."""
    header = ["kind", *(name for name, _ in _COLUMNS), "path"]
    rows = [header]
    for f in summary.files:
        rows.append([f.kind, *(str(getattr(f, attr)) for _, attr in _COLUMNS), f.path])
    totals = ["total", *(str(sum(getattr(f, attr) for f in summary.files))
                         for _, attr in _COLUMNS), f"{len(summary.files)} files"]
    rows.append(totals)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    lines = []
    for row in rows:
        numbers = zip(row[1:-1], widths[1:], strict=True)
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in numbers]
        lines.append("  ".join([*cells, row[-1]]))
    for skipped in summary.skipped:
        lines.append(f"skipped  {skipped.path}: {skipped.reason}")
    return "\n".join(lines) + "\n"
