"""Where the real-log corpora are, beside the checkout (``shared/corpus/<name>``) or where an
environment variable says. They are never copied into the repository; tests that need them skip,
and say so, when they are absent.

* ``corpus_dir()``: whole real logs with their expected diagnosis (``$PLOGSCAN_CORPUS``,
  ``shared/corpus/real``).
* ``pasted_corpus_dir()``: short excerpts of logs as users paste them into public bug reports,
  labelled with their failure class (``$PLOGSCAN_PASTED_CORPUS``, ``shared/corpus/issues``);
  ``pasted_corpus_dirs()``: that one and the second such set (``$PLOGSCAN_PASTED_CORPUS2``,
  ``shared/corpus/issues2``), those present.
* ``trees_dir()``: real multi-rank log trees in their directory layout (``$PLOGSCAN_TREES``,
  ``shared/corpus/trees``).
"""

from __future__ import annotations

import os
from pathlib import Path


def _find(variable: str, name: str) -> Path | None:
    env = os.environ.get(variable)
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "corpus" / name)
    return next((c for c in candidates if c.is_dir()), None)


def corpus_dir() -> Path | None:
    return _find("PLOGSCAN_CORPUS", "real")


def pasted_corpus_dir() -> Path | None:
    return _find("PLOGSCAN_PASTED_CORPUS", "issues")


def pasted_corpus_dirs() -> dict[str, Path]:
    """The sets of labelled pasted excerpts that are present, by name."""
    found = {"issues": pasted_corpus_dir(), "issues2": _find("PLOGSCAN_PASTED_CORPUS2", "issues2")}
    return {name: path for name, path in found.items() if path is not None}


def trees_dir() -> Path | None:
    """Real multi-rank log trees in their directory layout (``$PLOGSCAN_TREES``,
    ``shared/corpus/trees``)."""
    return _find("PLOGSCAN_TREES", "trees")
