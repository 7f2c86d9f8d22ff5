"""The rows of a record batch that cross-rank analysis reads: those ``patterns.PREFILTER``
matches.

``ingest`` hands every record to the gatherer, and RE2's alternation over all their messages
took a third of the main thread's time there. Hyperscan (already used by the engine) scans the
same messages in one pass; the alternation is case-sensitive literals and one ``[0-9]+``, so it
matches the same bytes either way, whatever the text, and RE2 confirms the few rows it finds
(a match may run across two messages). RE2 alone stays where Hyperscan is missing.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.crossrank.patterns import PREFILTER
from plogscan.parse.arrays import distinct
from plogscan.parse.literals import LiteralScanner


def prefiltered_rows(message: pa.Array, hyperscan: bool = True) -> np.ndarray:
    """Rows (ascending) whose message ``PREFILTER`` matches a piece of."""
    scanner = LiteralScanner.build((), (PREFILTER,)) if hyperscan else None
    if scanner is not None:
        # Scanned as it is: no literal, so exact on any text; and without the dictionary of
        # distinct messages that ``matches`` builds for repeated ones (a copy of the batch's
        # text beside the engine's and the workers' memory, for little time saved here).
        _ids, rows, _non_ascii = scanner.scan_rows(message)
        rows = distinct(rows)
        # The scan runs over the messages end to end, so a match can begin in one message and
        # end in the next ("Entry-" then "Hccl"): the few rows found are confirmed by RE2.
        found = message.take(pa.array(rows))
        exact = pc.fill_null(pc.match_substring_regex(found, PREFILTER), False)
        return rows[exact.to_numpy(zero_copy_only=False)]
    hit = pc.fill_null(pc.match_substring_regex(message, PREFILTER), False)
    return np.flatnonzero(hit.to_numpy(zero_copy_only=False))
