"""``ResultMemo``: a whole diagnosis kept for inputs that did not change.

Before a run reads anything, the memo lists its inputs (``ingest.signature``: names, sizes and
modification times, no reads) and looks the listing up, with the run's settings (``key``: the
rules as loaded, the language, the options that change a result), in the cache's ``results``
table. An entry is used only when the content digests of the files (read now) equal the
ones it was saved with. After a run that had no entry, the inputs are listed again;
when nothing changed during the run, its result is saved under that listing.

Reusing the whole result spares a rerun the per-file entries and the rules; the per-file
entries still serve a rerun in which some files changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from plogscan.cache.results import decode, encode
from plogscan.cache.store import CacheStore
from plogscan.ingest.signature import InputListing, listing
from plogscan.model import Diagnosis


class ResultMemo:
    """The memo of one run: its inputs' listing and the key of its settings."""

    def __init__(self, store: CacheStore, paths: Sequence[str], key: str) -> None:
        self.directory = store.directory
        self.namespace = store.namespace
        self.max_bytes = store.max_bytes
        self.paths = tuple(paths)
        self.key = key
        self.before: InputListing | None = listing(self.paths)

    def _slot(self, found: InputListing) -> str:
        return hashlib.sha256(f"{found.stat_hash}\n{self.key}".encode()).hexdigest()

    def find(self, store: CacheStore) -> Diagnosis | None:
        """The diagnosis kept for these inputs and settings, if their contents are unchanged."""
        if self.before is None:
            return None
        payload = store.find_result(self._slot(self.before), self.before.content_hash)
        return decode(payload) if payload is not None else None

    def save(self, diagnosis: Diagnosis) -> None:
        """Keep ``diagnosis`` when the inputs did not change while it was made."""
        if self.before is None:
            return
        after = listing(self.paths)
        if after is None or after.stat_hash != self.before.stat_hash:
            return
        content = after.content_hash()
        if content is None:
            return
        store = CacheStore(Path(self.directory), self.namespace, self.max_bytes)
        try:
            store.save_result(self._slot(after), content, encode(diagnosis))
        finally:
            store.close()
