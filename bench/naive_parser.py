"""Baseline 2 of the benchmark: the parser people write first, a per-line Python ``re`` loop.

For each file, for each line: match the CANN header regex of formats.md §1.1, append a dict,
and build a pandas DataFrame from the dicts at the end of the file. Lines that start with
whitespace or ``<`` (indented continuations, ``<exception_print>`` dumps) are joined to the
record before them; any other line becomes a row with a null level, so nothing is dropped.
It is here to be measured, not used: plogscan's ingest exists because this loop is slow.

    python bench/naive_parser.py TREE_OR_FILE...   # prints a JSON summary on stdout
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd

HEADER = re.compile(
    r"^\[(?P<level>[A-Z]+|\d+)\]\s?(?P<module>[A-Za-z0-9_]+)\((?P<pid>-?\d+),(?P<proc>[^)]*)\):"
    r"\s?(?P<ts>\d{4}-\d{2}-\d{2}[- ]\d{2}:\d{2}:\d{2}\.\d{3}\.\d{3})\s?(?P<message>.*)$"
)
COLUMNS = ["level", "module", "pid", "proc", "ts", "message", "line"]


def parse_file(path: Path) -> pd.DataFrame:
    """One row per record of ``path``, columns ``COLUMNS``."""
    rows: list[dict] = []
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.rstrip("\r\n")
            if not line:
                continue
            match = HEADER.match(line)
            if match:
                row = match.groupdict()
                row["line"] = number
                rows.append(row)
            elif rows and line[0] in " \t<":
                rows[-1]["message"] += "\n" + line
            else:
                rows.append({"level": None, "module": None, "pid": None, "proc": None,
                             "ts": None, "message": line, "line": number})
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["pid"] = pd.to_numeric(frame["pid"]).astype("Int64")
    return frame


def iter_files(paths: Sequence[Path]) -> Iterator[Path]:
    """Regular files under ``paths`` (directories walked recursively), in sorted order."""
    for path in paths:
        if path.is_dir():
            for parent, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    yield Path(parent) / name
        else:
            yield path


def main(argv: Sequence[str] | None = None) -> int:
    """Parse every file and print ``{"files", "bytes", "rows"}`` as JSON."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: naive_parser.py TREE_OR_FILE...", file=sys.stderr)
        return 2
    files = total_bytes = total_rows = 0
    for path in iter_files([Path(a) for a in args]):
        frame = parse_file(path)
        files += 1
        total_bytes += path.stat().st_size
        total_rows += len(frame)
    print(json.dumps({"files": files, "bytes": total_bytes, "rows": total_rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
