"""A whole ``Diagnosis`` as the cache keeps it: pickled, and read back only as plogscan's own
result types.

A rerun over inputs that did not change (``model.listing``), with the same code, rules and
options, gives the result of the earlier run without reading an entry per file or running the
rules again. The result is pickled (its frozen dataclasses, tuples and enums round-trip
exactly, which a hand-written JSON reader would have to re-implement type by type); it is read
back with an unpickler that refuses every global outside ``plogscan.model`` and the few
built-in types a result holds, so a tampered cache entry cannot name a function to call: it
is a miss.
"""

from __future__ import annotations

import io
import pickle
import zlib
from typing import Any

from plogscan.model import Diagnosis

PROTOCOL = 5
_MODEL = "plogscan.model."
_ALLOWED = {("datetime", "datetime"), ("datetime", "timezone"), ("datetime", "timedelta"),
            ("builtins", "frozenset"), ("builtins", "set")}


class _ResultUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        if module.startswith(_MODEL):
            found = super().find_class(module, name)
            # A class of the model itself, not a name its module imported (``os``, a function).
            if isinstance(found, type) and found.__module__.startswith(_MODEL):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a result")


def encode(diagnosis: Diagnosis) -> bytes:
    """The bytes the cache keeps for ``diagnosis`` (compressed: log text repeats)."""
    return zlib.compress(pickle.dumps(diagnosis, protocol=PROTOCOL), 1)


def decode(payload: bytes) -> Diagnosis | None:
    """The ``Diagnosis`` ``encode`` gave ``payload`` for; None for anything else."""
    try:
        value = _ResultUnpickler(io.BytesIO(zlib.decompress(payload))).load()
    except Exception:  # any damage or tampering is a miss, never a crash
        return None
    return value if isinstance(value, Diagnosis) else None
