"""Keep pyarrow from importing pandas in the command-line process.

pyarrow imports pandas the first time it converts Python or numpy values, only to check
whether they are pandas objects. plogscan never hands it one, and that import costs 0.15 to
0.2 s of every command: about a third of ``diagnose`` on a small sample, and in ``ingest``
time before the first chunk that no worker can overlap. So the console script refuses the
import in its own process (and in the worker processes it forks), and pyarrow goes on as it
does where pandas is not installed. Code that imports plogscan as a library is not affected.
A future command that needs pandas itself (a Dask scale-out, say) must not call this.

Likewise ``pyarrow.compute``, which every command that reads logs imports, writes the
docstring of each of its 280 functions as it is imported, parsing the docstrings of their
options classes with a vendored numpydoc parser: 12 ms of the 25 its import takes, for
texts only ``help()`` shows. ``keep_compute_docs_short`` hands it a parser that finds no
sections, so the functions' docstrings leave out the options' descriptions.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any


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


DOCSTRING_PARSER = "pyarrow.vendored.docscrape"  # what pyarrow.compute parses docstrings with


class NoSections(dict):
    """A parsed docstring with every section empty (pyarrow.compute reads 'Parameters')."""

    def __init__(self, docstring: str | None = None, config: Any = None) -> None:
        super().__init__()

    def __missing__(self, section: str) -> list:
        return []


class ShortComputeDocs(importlib.abc.MetaPathFinder):
    """An import hook that loads pyarrow's docstring parser with ``NoSections`` for its
    parser class; anything else about the module stays as it is."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != DOCSTRING_PARSER:
            return None
        spec = PathFinder.find_spec(fullname, path)
        if spec is not None and isinstance(spec.loader, importlib.abc.Loader):
            spec.loader = _ParsingNothing(spec.loader)
        return spec


class _ParsingNothing(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        if hasattr(module, "NumpyDocString"):
            module.NumpyDocString = NoSections  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> Any:  # get_source and the like, for tracebacks
        return getattr(self.loader, name)


def keep_compute_docs_short() -> bool:
    """Load ``pyarrow.compute`` with short docstrings from now on in this process; False
    when it is already imported."""
    if "pyarrow.compute" in sys.modules:
        return False
    if not any(isinstance(finder, ShortComputeDocs) for finder in sys.meta_path):
        sys.meta_path.insert(0, ShortComputeDocs())
    return True
