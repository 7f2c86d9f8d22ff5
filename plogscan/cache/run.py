"""The extraction cache as one diagnose run uses it: the store of per-file entries, and the
memo of whole results.

An unusable cache directory only makes the run slower: ``problem`` says why, and the run goes
on without it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from plogscan.cache.location import max_bytes
from plogscan.errors import InputError
from plogscan.model import Diagnosis
from plogscan.model.listing import InputListing

if TYPE_CHECKING:  # imported by a run with a cache only (SQLite and the store, some 15 ms)
    from plogscan.cache.memo import ResultMemo
    from plogscan.cache.store import CacheStore


class RunCache:
    """The cache of one run; ``store`` None when there is none (or it cannot be used)."""

    def __init__(self, directory: Path | None = None, namespace: str = "",
                 listing: Callable[[], InputListing] | None = None,
                 result_key: str | None = None,
                 unchanged: Callable[[InputListing], bool] | None = None,
                 schema: pa.Schema | None = None) -> None:
        """``namespace`` names the code and the rule selection; with ``result_key`` (the
        settings a result depends on) whole results of the inputs of ``listing()`` (asked for
        only then) are memoized too, kept when ``unchanged(listing)`` after the run.
        ``schema`` is the one of the records the entries keep (the event schema by default)."""
        self.store: CacheStore | None = None
        self.problem: str | None = None  # why the cache could not be used, if it could not
        self.memo: ResultMemo | None = None
        if directory is None:
            return
        from plogscan.cache.memo import ResultMemo
        from plogscan.cache.store import CacheStore

        try:
            self.store = (CacheStore(directory, namespace, max_bytes()) if schema is None
                          else CacheStore(directory, namespace, max_bytes(), schema))
        except InputError as err:
            self.problem = err.message
            return
        if result_key is not None and listing is not None and unchanged is not None:
            self.memo = ResultMemo(self.store, listing(), result_key, unchanged)

    def found(self) -> Diagnosis | None:
        """The whole result of an earlier run over these very inputs and settings, if any."""
        if self.memo is None or self.store is None:
            return None
        return self.memo.find(self.store)

    def keep(self, diagnosis: Diagnosis) -> None:
        """Keep ``diagnosis`` for a rerun over unchanged inputs (when memoizing)."""
        if self.memo is not None:
            self.memo.save(diagnosis)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()

    def __enter__(self) -> RunCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
