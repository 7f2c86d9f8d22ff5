"""plogscan: forensic analyzer for Huawei Ascend CANN/HCCL logs.

The pipeline runs one way: sources -> parse -> event table -> engine (rules) -> findings ->
reporters. Each stage hands a typed value to the next and never reaches back.

As a library (``docs/python.md``)::

    import plogscan
    events = plogscan.read_events("logs/", level="ERROR")   # a pandas DataFrame
    diagnosis = plogscan.diagnose("logs/")                   # findings, root cause, exit code
    plogscan.explain("507916")                               # what a code means
    plogscan.rules()                                         # the rule catalogue

The functions are loaded on first use (``plogscan.api``): importing ``plogscan`` loads neither
pyarrow nor pandas.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# ``__init__.pyi`` gives type checkers the functions' signatures.
__version__ = "0.1.0"
__all__ = ["UnknownCode", "__version__", "diagnose", "explain", "read_events", "rules"]

_API = frozenset({"UnknownCode", "diagnose", "explain", "read_events", "rules"})


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(import_module("plogscan.api"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
