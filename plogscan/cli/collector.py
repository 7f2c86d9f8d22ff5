"""The garbage collector's thresholds in the command-line process: about a hundred times
fewer collections.

Python's cyclic garbage collector runs after every 700 new objects, and its passes over the
older generations walk every object alive there. A command keeps many alive (the rules and
their compiled patterns, the per-process summary, up to 100,000 identities and their
attempts), and plogscan makes few reference cycles, so the collector mostly walks objects it
cannot free: over a file written by 1,000,000 processes it took about half the time of the
cross-rank stage. A command lets it run after 100,000 new objects instead, which still frees
any cycle left behind. Code that imports plogscan as a library keeps its own thresholds.
"""

from __future__ import annotations

import gc

YOUNG_OBJECTS = 100_000  # new objects between two collections of the youngest generation
MIDDLE_PASSES = 50  # young collections between two of the middle generation
OLD_PASSES = 100  # middle collections between two full ones


def collect_less() -> tuple[int, int, int]:
    """Raise this process's collector thresholds (``gc.set_threshold``) to at least the
    values above, keeping any set higher already; the thresholds now in force."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_OBJECTS), max(middle, MIDDLE_PASSES),
                     max(old, OLD_PASSES))
    return gc.get_threshold()
