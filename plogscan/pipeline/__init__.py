"""The diagnose pipeline: one run from the inputs to the ``Diagnosis`` every reporter takes.

``options`` holds what a run is asked for (``DiagnoseOptions``, built by the command line and
by the library) and its ``Timings``; ``stages`` is the run itself, a short sequence of named
stage calls; ``passes`` is what watches the single pass over the records on their way to the
rules; ``assemble`` builds the diagnosis after it.

In: ``DiagnoseOptions``. Out: a ``Diagnosis`` (``plogscan.model``). Must not import: ``cli``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plogscan.pipeline.options import FAIL_ON, DiagnoseOptions, NothingRead, Timings
    from plogscan.pipeline.stages import run

# Imported on first use: the command line reads ``FAIL_ON`` without loading pyarrow.
_EXPORTS = {"run": "plogscan.pipeline.stages", "DiagnoseOptions": "plogscan.pipeline.options",
            "Timings": "plogscan.pipeline.options", "NothingRead": "plogscan.pipeline.options",
            "FAIL_ON": "plogscan.pipeline.options"}

__all__ = ["FAIL_ON", "DiagnoseOptions", "NothingRead", "Timings", "run"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
