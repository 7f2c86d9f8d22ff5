"""The facts table's schema: one row per distinct (host, pid, level, module, kind, path) of the
records a worker parsed, with counts and ranges.

The parse workers compute facts (``plogscan.ingest.facts``), the extraction cache stores them
beside each file's kept records (``plogscan.cache.store``), and the overview, the ``requires``
checks and the cross-rank summary read them. Part of the shared vocabulary.
"""

from __future__ import annotations

import pyarrow as pa

from plogscan.schema import ENCODED_TEXT

FACT_KEYS = ("host", "pid", "level", "module", "kind", "path")
# The keys that hold one value per file, dictionary-encoded: a file written by a million
# processes has a million facts rows, and each would otherwise carry its own copy of the path.
FILE_KEYS = ("host", "kind", "path")
FACTS_SCHEMA = pa.schema([
    pa.field("host", ENCODED_TEXT), pa.field("pid", pa.int64()), pa.field("level", pa.string()),
    pa.field("module", pa.string()), pa.field("kind", ENCODED_TEXT),
    pa.field("path", ENCODED_TEXT),
    pa.field("records", pa.int64()), pa.field("rank", pa.int64()),
    pa.field("device", pa.int64()), pa.field("first_ts", pa.timestamp("us")),
    pa.field("last_ts", pa.timestamp("us")), pa.field("first_line", pa.int64()),
    pa.field("last_line", pa.int64()), pa.field("epoch_records", pa.int64()),
    # True when every record these facts summarize was handed on too (a later stage may
    # count them from the records instead)
    pa.field("whole", pa.bool_()),
])
