"""Multi-literal prefilter libraries compared on the messages of a real parse.

``diagnose`` needs, for every parsed record, whether its message holds any of the rule pack's
literals (about 220 of them, case-insensitive). This script parses TREE once, then times the
same question answered by:

* ``re2``: one case-insensitive RE2 alternation through ``pyarrow.compute`` (what plogscan
  uses);
* ``hyperscan``: a Hyperscan block-mode database of the same literals (``pip install
  hyperscan``), scanning the message buffer once and mapping match ends back to rows;
* ``duckdb``: DuckDB's ``regexp_matches`` (RE2 inside) over the same Arrow column, on all
  cores (``pip install duckdb``).

Each answer is checked against the RE2 one (Hyperscan may flag a few more rows: a literal
across the boundary of two messages; never fewer). Best of ``--repeat`` runs, in seconds and
MB/s of message text. A library that is not installed is reported as such.

    python bench/prefilter.py TREE [--repeat 5]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from plogscan.catalog import load_rules
from plogscan.engine.predicates import _literals
from plogscan.engine.selector import Selector
from plogscan.ingest.pipeline import Ingest


def rule_literals() -> list[str]:
    pattern = Selector(load_rules([])).patterns["message"]
    body = pattern[len("(?i)(?:"):-1]
    return sorted({re.sub(r"\\(.)", r"\1", x) for x in re.split(r"(?<!\\)\|", body)})


def with_re2(messages: pa.Array, literals: list[str]) -> Callable[[], np.ndarray]:
    pattern = _literals(tuple(literals))

    def run() -> np.ndarray:
        hit = pc.match_substring_regex(messages, pattern).fill_null(False)
        return hit.to_numpy(zero_copy_only=False)
    return run


def with_hyperscan(messages: pa.Array, literals: list[str]) -> Callable[[], np.ndarray] | str:
    try:
        import hyperscan
    except ImportError:
        return "not installed (pip install hyperscan)"
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=[re.escape(x).encode() for x in literals],
               ids=list(range(len(literals))),
               flags=[hyperscan.HS_FLAG_CASELESS] * len(literals))
    offsets = np.frombuffer(messages.buffers()[1], dtype=np.int64)[: len(messages) + 1]
    data = messages.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]]
    bounds = offsets[1:] - offsets[0]

    def run() -> np.ndarray:
        ends: list[int] = []
        db.scan(data, match_event_handler=lambda _i, _f, to, _fl, _c: ends.append(to))
        mask = np.zeros(len(messages), bool)
        if ends:
            mask[np.searchsorted(bounds, np.asarray(ends) - 1, side="right")] = True
        return mask
    return run


def with_duckdb(messages: pa.Array, literals: list[str]) -> Callable[[], np.ndarray] | str:
    try:
        import duckdb
    except ImportError:
        return "not installed (pip install duckdb)"
    con = duckdb.connect()
    table = pa.table({"message": messages})
    con.register("m", table)
    pattern = _literals(tuple(literals))

    def run() -> np.ndarray:
        out = con.execute("SELECT coalesce(regexp_matches(message, ?), false) AS hit FROM m",
                          [pattern]).to_arrow_table()
        return out.column("hit").to_numpy()
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    batches = list(Ingest().batches([str(args.tree)]))
    messages = pa.Table.from_batches(batches).column("message").combine_chunks()
    text_mb = pc.sum(pc.binary_length(messages)).as_py() / 1e6
    literals = rule_literals()
    print(f"{len(messages):,} messages, {text_mb:.1f} MB of text, {len(literals)} literals")
    reference = with_re2(messages, literals)()
    for name, make in (("re2", with_re2), ("hyperscan", with_hyperscan),
                       ("duckdb", with_duckdb)):
        run = make(messages, literals)
        if isinstance(run, str):
            print(f"{name:10} {run}")
            continue
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            mask = run()
            best = min(best, time.perf_counter() - start)
        missing = int((reference & ~mask).sum())
        extra = int((mask & ~reference).sum())
        print(f"{name:10} {best:7.3f} s {text_mb / best:8.1f} MB/s  rows {int(mask.sum()):,}"
              f"  missing {missing}  extra {extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
