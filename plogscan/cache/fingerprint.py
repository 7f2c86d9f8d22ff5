"""A content hash of plogscan's own code and data: part of every cache namespace, and what a
Dask worker is checked against."""

from __future__ import annotations

import hashlib
from pathlib import Path

_CODE_SUFFIXES = (".py", ".yaml", ".yml", ".json")


def code_fingerprint() -> str:
    """A content hash of plogscan's own code and data files (formats, code tables, schema):
    the version number alone does not change with every change."""
    root = Path(__file__).resolve().parent.parent  # the plogscan package
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in _CODE_SUFFIXES):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
