"""``ResultMemo``: a whole diagnosis kept for inputs that did not change.

Before a run reads anything, the memo looks the inputs' listing up (``model.listing``: names,
sizes and modification times from the walk, no reads) with the run's settings (``key``: the
rules as loaded, the language, the options that change a result) in the cache's ``results``
table. An entry is used only when the content digests of the files (read now, once each) equal
the ones it was saved with. After a run that had no entry, the listing is checked against the
disk (one ``stat`` per entry, ``unchanged``); when nothing changed during the run, its result
is saved under that listing, with the digests the run computed (a file the run did not hash is
hashed then, once).

Reusing the whole result spares a rerun the per-file entries and the rules; the per-file
entries still serve a rerun in which some files changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from plogscan.cache.digest import file_digests, sampled_bytes
from plogscan.cache.results import decode, encode
from plogscan.cache.store import CacheStore
from plogscan.model import Diagnosis
from plogscan.model.listing import InputListing

TASK_BYTES = 8 << 20  # file bytes hashed per task
THREADS = 2  # hashlib and large reads release the GIL; opening small files side by side does
# not pay (20,000 files of 160 bytes: 0.31 s on one thread, 0.57 s on two)


class ResultMemo:
    """The memo of one run: its inputs' listing and the key of its settings. ``unchanged``
    says whether the listing still holds after the run (``ingest.walk.unchanged``)."""

    def __init__(self, store: CacheStore, listing: InputListing, key: str,
                 unchanged: Callable[[InputListing], bool]) -> None:
        self.directory = store.directory
        self.namespace = store.namespace
        self.max_bytes = store.max_bytes
        self.listing = listing if listing.memoizable else None
        self.key = key
        self.unchanged = unchanged

    def _slot(self, listing: InputListing) -> str:
        return hashlib.sha256(f"{listing.stat_hash()}\n{self.key}".encode()).hexdigest()

    def find(self, store: CacheStore) -> Diagnosis | None:
        """The diagnosis kept for these inputs and settings, if their contents are unchanged."""
        if self.listing is None:
            return None
        payload = store.find_result(self._slot(self.listing), lambda: content_hash(self.listing))
        return decode(payload) if payload is not None else None

    def save(self, diagnosis: Diagnosis) -> None:
        """Keep ``diagnosis`` when the inputs did not change while it was made."""
        if self.listing is None or not self.unchanged(self.listing):
            return
        content = content_hash(self.listing)
        if content is None:
            return
        store = CacheStore(Path(self.directory), self.namespace, self.max_bytes)
        try:
            store.save_result(self._slot(self.listing), content, encode(diagnosis))
        finally:
            store.close()


def content_hash(listing: InputListing) -> str | None:
    """``listing.content_hash()`` once every regular file's digest is known: the ones the run
    has not computed are read now (in tasks of about ``TASK_BYTES``, on two threads when there
    are many bytes to read) and kept in the listing's digests."""
    missing = [(listing.absolute(e.path), e.size or 0) for e in listing.regular_files()
               if listing.absolute(e.path) not in listing.digests]
    if missing:
        tasks: list[list[str]] = [[]]
        weight = 0
        for path, size in missing:
            if weight >= TASK_BYTES:
                tasks.append([])
                weight = 0
            tasks[-1].append(path)
            weight += sampled_bytes(size)
        if len(tasks) == 1:
            found = file_digests(tasks[0])
        else:
            with ThreadPoolExecutor(THREADS) as pool:
                found = [d for part in pool.map(file_digests, tasks) for d in part]
        for (path, _), digest in zip(missing, found, strict=True):
            if digest is not None:
                listing.digests[path] = digest  # type: ignore[index]
    return listing.content_hash()
