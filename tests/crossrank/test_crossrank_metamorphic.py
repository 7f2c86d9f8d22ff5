"""The cross-rank answer tested by transformation, not by answer.

Every real multi-rank tree (``shared/corpus/trees``), every ``real/`` multi-rank paste and every
multi-rank sample is diagnosed as it is, then once per transformation that applies to it
(``tests/metamorphic.py``): renamed hosts, renumbered pids, the files handed over in another
order, a plog split in two or two joined, one host's clock shifted within the timeouts, every
line pid of a file rewritten: the answer must not change. A swap of the root's logs with a
victim's moves the root with them; deleting the root's files leaves a peer to collect (never a
victim promoted); deleting a victim's files leaves the root where it was. Each input and
transformation is a case of its own, run in-process without a cache.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from plogscan.catalog.ruleset import load_rules
from plogscan.report.json_report import document
from tests import metamorphic as m
from tests.corpus_path import corpus_dir, trees_dir
from tests.helpers import REPO_ROOT, diagnosed

REPO = REPO_ROOT
TREES = trees_dir()
REAL = corpus_dir()
SAMPLES = ("notify-wait-cascade", "link-chain-silent-rank", "op-index-mismatch",
           "clock-skew-earliest-error", "restart-two-attempts", "notify-wait-undetermined",
           "notify-timeout-two-hosts")
# input -> (where, paths under it)
INPUTS: dict[str, tuple[Path | None, list[str]]] = {
    "tree:st_event_timeout": (TREES, ["st_event_timeout_testcase"]),
    "tree:st_event_timeout/worker-1": (TREES, ["st_event_timeout_testcase/worker-1"]),
    "tree:st_aicpu_notify": (TREES, ["st_aicpu_notify_testcase"]),
    "tree:rc_122": (TREES, ["rc_122"]),
    "real:11": (REAL, ["11_hccl_link_error_no_connect_2workers.log"]),
    "real:14": (REAL, ["14_hccl_aicpu_task_exception_sdma_notify_2workers.log"]),
    "real:17": (REAL, ["17_hccl_notify_wait_index_mismatch_4ranks.log"]),
    **{f"sample:{name}": (REPO / "samples", [name]) for name in SAMPLES},
}


@cache
def _rules():  # type: ignore[no-untyped-def]
    return load_rules([])


def _answer(tree: m.Tree, where: Path) -> dict:
    where.mkdir(parents=True, exist_ok=True)
    return document(diagnosed(tree.write(where), rules=_rules(), context_lines=0, workers=1))


@cache
def _original(name: str) -> tuple[m.Tree, dict] | None:
    root, paths = INPUTS[name]
    if root is None:
        return None
    import tempfile

    tree = m.load(name, root, paths)
    with tempfile.TemporaryDirectory(prefix="xr-meta-") as tmp:
        return tree, _answer(tree, Path(tmp))


def _cases() -> list:
    out = []
    for name in INPUTS:
        found = _original(name)
        for transform in m.TRANSFORMATIONS:
            if found is not None and m.TRANSFORMATIONS[transform](*found) is None:
                continue
            marks = [pytest.mark.skip(reason=f"{INPUTS[name][1][0]} is not beside the checkout")
                     ] if found is None else []
            out.append(pytest.param(name, transform, id=f"{name}-{transform}", marks=marks))
    return out


@pytest.mark.parametrize(("name", "transform"), _cases())
def test_the_answer_holds_under_the_transformation(name: str, transform: str,
                                                   tmp_path: Path) -> None:
    found = _original(name)
    assert found is not None
    tree, answer = found
    change = m.TRANSFORMATIONS[transform](tree, answer)
    assert change is not None
    before = m.Shape.of(answer)
    after = m.Shape.of(_answer(change.tree, tmp_path / "in"))
    expected = change.expect(before)
    if expected is not None:
        assert after == expected, f"{transform} changed the answer"
    if change.check is not None:
        change.check(before, after)


def test_every_transformation_applies_to_some_input() -> None:
    """A transformation that applies nowhere would test nothing."""
    if TREES is None or REAL is None:
        pytest.skip("the real corpus is not beside the checkout")
    applied = {t for name in INPUTS if (found := _original(name)) is not None
               for t, f in m.TRANSFORMATIONS.items() if f(*found) is not None}
    assert applied == set(m.TRANSFORMATIONS)
