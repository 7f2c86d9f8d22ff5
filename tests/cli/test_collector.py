"""The command-line process collects garbage less often (``plogscan.cli.collector``)."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from plogscan.cli.collector import MIDDLE_PASSES, OLD_PASSES, YOUNG_OBJECTS, collect_less


@pytest.fixture
def thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_the_thresholds_are_raised_to_the_floor(thresholds: None) -> None:
    gc.set_threshold(700, 10, 10)
    assert collect_less() == (YOUNG_OBJECTS, MIDDLE_PASSES, OLD_PASSES)
    assert gc.get_threshold() == (YOUNG_OBJECTS, MIDDLE_PASSES, OLD_PASSES)


def test_thresholds_set_higher_are_kept(thresholds: None) -> None:
    gc.set_threshold(YOUNG_OBJECTS * 2, 5, OLD_PASSES * 3)
    assert collect_less() == (YOUNG_OBJECTS * 2, MIDDLE_PASSES, OLD_PASSES * 3)


def test_a_cycle_left_behind_is_still_collected(thresholds: None) -> None:
    collect_less()

    class Node:
        pass

    gc.collect()
    before = len(gc.get_objects())
    for _ in range(YOUNG_OBJECTS):  # cycles, each unreachable once made
        a, b = Node(), Node()
        a.other, b.other = b, a
    assert len(gc.get_objects()) < before + 2 * YOUNG_OBJECTS  # a collection ran meanwhile


def test_a_command_runs_with_the_raised_thresholds() -> None:
    code = ("import gc, sys; import plogscan.cli as c; c.cli.main = "
            "lambda **k: print(gc.get_threshold()); c.main()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == str((YOUNG_OBJECTS, MIDDLE_PASSES, OLD_PASSES))
