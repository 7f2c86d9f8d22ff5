"""The extraction cache: what ``diagnose`` extracted from each input file, kept for reruns.

A rerun over unchanged files reads the kept records, facts and accounting of each file from
here instead of parsing it. Entries are keyed by the file's path, size and modification time
and checked against its content digest; they live in a namespace named by a content hash of
plogscan's own code and data (formats, code tables) and of the rule selection, so any change
of either starts afresh. The cache holds log text: its directory is created 0700 and its
database 0600, and its size is capped with least-recently-used eviction.

Where: ``--cache DIR``, else ``PLOGSCAN_CACHE``, else ``$XDG_CACHE_HOME/plogscan`` (or
``~/.cache/plogscan``); ``--no-cache`` or ``PLOGSCAN_CACHE=off`` turns it off.

``entries`` is the typed hand-off to ingest (a file's key and what was kept of it),
``digest`` the sampled content digest an entry is checked against, ``fingerprint`` the hash of
plogscan's own code, ``store`` the SQLite store, ``memo`` and ``results`` whole results of
earlier runs.

In: ``cache.entries`` keys and entries (records and facts as Arrow tables). Out: the same,
read back; ``info`` and ``clear`` for ``plogscan cache``.

Must not import: ``engine``, ``analysis``, ``crossrank``, ``report``, ``cli``, ``pipeline``:
the rule selection reaches it as a fingerprint string.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# Imported on first use: ``plogscan cache info`` and the option parsing need no pyarrow.
_EXPORTS = {"CacheStore": "plogscan.cache.store",
            "code_fingerprint": "plogscan.cache.fingerprint",
            "max_bytes": "plogscan.cache.location", "cache_dir": "plogscan.cache.location"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
