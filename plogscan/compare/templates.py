"""The message template of every record, independent of numbers, hosts, pids and clocks.

The masks are those of the unexplained-error list (``analysis.unexplained``): times, paths,
IP addresses, hex values, hashes and numbers become ``<TS>``, ``<PATH>``, ``<IP>``, ``<HEX>``
and ``<NUM>``, on the record's first line. That list keeps every number shaped like an ACL
code (``507916``) as it is; comparing runs, that would turn an offset that happens to look
like one (``offset[504320]``) into a template of its own. Here a number is kept only in the
records whose ``codes`` (the parser's own reading of the record) name a numeric code; every
other record is masked whole. The run's own host names become ``<HOST>`` first. All of it runs
vectorized over a batch, once per distinct message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.analysis.unexplained import first_lines, mask
from plogscan.parse.arrays import distinct

MAX_HOSTS = 1024  # host names masked (the longest first)
_HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]")
_LETTER = re.compile(r"[A-Za-z]")


def host_pattern(hosts: Iterable[str]) -> str | None:
    """An RE2 pattern of the run's host names, to mask where a message names one: a renamed
    host must not make a template of its own. Addresses are masked anyway; a name without a
    letter is left alone."""
    names = sorted({h for h in hosts if _HOST_NAME.fullmatch(h) and _LETTER.search(h)},
                   key=lambda h: (-len(h), h))
    if not names:
        return None
    return r"\b(?:" + "|".join(re.escape(h) for h in names[:MAX_HOSTS]) + r")\b"


def template_column(messages: pa.Array, codes: pa.Array, hosts: str | None = None) -> pa.Array:
    """The template of each message; ``codes`` is the event table's column of the same rows,
    ``hosts`` a ``host_pattern``. Each distinct message is masked once (logs repeat
    themselves: a batch holds far fewer distinct messages than records)."""
    if isinstance(messages, pa.ChunkedArray):
        messages = messages.combine_chunks()
    encoded = pc.dictionary_encode(messages)
    lines = first_lines(encoded.dictionary)
    if hosts is not None:
        lines = pc.replace_substring_regex(lines, hosts, "<HOST>")
    plain = mask(lines, keep_codes=False).take(encoded.indices)
    coded = _rows_with_numeric_codes(codes, len(messages))
    if not len(coded):
        return plain
    kept = mask(lines.take(encoded.indices.take(pa.array(coded))), keep_codes=True)
    chosen = np.zeros(len(messages), bool)
    chosen[coded] = True
    return pc.replace_with_mask(plain, pa.array(chosen), kept.cast(plain.type))


def _rows_with_numeric_codes(codes: pa.Array, rows: int) -> np.ndarray:
    if isinstance(codes, pa.ChunkedArray):
        codes = codes.combine_chunks()
    if rows == 0 or codes.null_count == rows:
        return np.zeros(0, np.int64)
    flat = pc.list_flatten(codes)
    if not len(flat):
        return np.zeros(0, np.int64)
    numeric = pc.fill_null(pc.match_substring_regex(flat, r"^[0-9]+$"), False)
    parents = pc.list_parent_indices(codes).to_numpy(zero_copy_only=False)
    return distinct(parents[numeric.to_numpy(zero_copy_only=False)])
