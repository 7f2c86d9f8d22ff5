"""Keep pyarrow from importing pandas in the command-line process.

pyarrow imports pandas the first time it converts Python or numpy values, only to check
whether they are pandas objects. plogscan never hands it one, and that import costs 0.15 to
0.2 s of every command: about a third of ``diagnose`` on a small sample, and in ``ingest``
time before the first chunk that no worker can overlap. So the console script refuses the
import in its own process (and in the worker processes it forks), and pyarrow goes on as it
does where pandas is not installed. Code that imports plogscan as a library is not affected.
A future command that needs pandas itself (a Dask scale-out, say) must not call this.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType


class RefusePandas(importlib.abc.MetaPathFinder):
    """An import hook that makes ``import pandas`` fail as if pandas were not installed."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname == "pandas" or fullname.startswith("pandas."):
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (plogscan's command line does not use pandas)",
                name=fullname)
        return None


def keep_pandas_out() -> bool:
    """Refuse pandas from now on in this process; False when it is already imported (then
    there is nothing left to save)."""
    if "pandas" in sys.modules:
        return False
    if not any(isinstance(finder, RefusePandas) for finder in sys.meta_path):
        sys.meta_path.insert(0, RefusePandas())
    return True
