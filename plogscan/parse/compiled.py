"""The compiled chunk kernels (``native/cannheader.c``), or None: the one place that decides.

The C module is optional: where the build found no C compiler it is missing, and every kernel
that uses it has a numpy, Arrow or RE2 twin that gives the same values, more slowly. Setting
the environment variable ``PLOGSCAN_NATIVE=0`` turns the module off where it is built, so the
two paths can be compared on the same input (the tests hold them equal record for record).

Callers read ``compiled.native`` when they run, not when they are imported, so that the
switch (and a test that flips it) reaches every kernel at once.
"""

from __future__ import annotations

import os
from types import ModuleType

OFF_VALUES = ("0", "off", "false", "no")


def _load() -> ModuleType | None:
    if turned_off():
        return None
    try:
        from plogscan.parse import _cannheader
    except ImportError:  # built without a C compiler
        return None
    return _cannheader


def turned_off() -> bool:
    """Whether ``PLOGSCAN_NATIVE`` turns the compiled module off."""
    return os.environ.get("PLOGSCAN_NATIVE", "").strip().lower() in OFF_VALUES


native: ModuleType | None = _load()
