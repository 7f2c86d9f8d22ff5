"""Where the real-log corpus is: ``$PLOGSCAN_CORPUS``, or ``shared/corpus/real`` beside the
checkout; the real multi-rank trees: ``$PLOGSCAN_TREES``, or ``shared/corpus/trees``. They are
never copied into the repository; tests that need them skip when they are absent."""

from __future__ import annotations

import os
from pathlib import Path


def corpus_dir() -> Path | None:
    env = os.environ.get("PLOGSCAN_CORPUS")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real")
    return next((c for c in candidates if c.is_dir()), None)


def trees_dir() -> Path | None:
    env = os.environ.get("PLOGSCAN_TREES")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "corpus" / "trees")
    return next((c for c in candidates if c.is_dir()), None)
