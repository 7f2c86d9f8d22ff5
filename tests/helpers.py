"""Helpers shared by test modules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from plogscan.model import Diagnosis


def diagnosed(paths: Sequence[str], rules_dirs: Sequence[str] = (), fail_on: str = "error", *,
              on_progress: Callable[[str, int], None] | None = None, executor: Any = None,
              redactor: Any = None, timings: Any = None, **options: Any) -> Diagnosis:
    """``plogscan.pipeline.run`` of ``DiagnoseOptions(paths, rules_dirs, fail_on, **options)``,
    with ``run``'s own arguments passed on."""
    from plogscan.pipeline import DiagnoseOptions, run

    given = DiagnoseOptions(paths=tuple(paths), rules_dirs=tuple(rules_dirs), fail_on=fail_on,
                            **options)
    return run(given, on_progress=on_progress, executor=executor, redactor=redactor,
               timings=timings)
