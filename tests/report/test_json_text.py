"""``indented_json`` writes exactly what ``json.dumps(sort_keys=True, indent=2,
ensure_ascii=False)`` writes, for every kind of value a report holds and the odd ones too, and
refuses what ``json.dumps`` refuses."""

from __future__ import annotations

import enum
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plogscan.textsafe import indented_json
from tests.fuzzing import FUZZ
from tests.helpers import SAMPLES_DIR

SAMPLE = SAMPLES_DIR / "ccu-reuse-before-mc2"


def _stdlib(document: object) -> str:
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False)


_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats()
            | st.text(alphabet=st.characters(codec=None), max_size=12))
_KEYS = st.text(alphabet=st.characters(codec=None), max_size=8)


@FUZZ
@given(document=st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=40))
def test_any_tree_is_written_as_json_dumps_writes_it(document: object) -> None:
    assert indented_json(document) == _stdlib(document)


class Level(enum.IntEnum):
    ERROR = 3


class Name(str):
    pass


@pytest.mark.parametrize("document", [
    {}, [], (), "", 0, -0.0, 1e16, 1.5e-7, float("nan"), float("inf"), -float("inf"),
    2**80, True, None, {"a": []}, {"a": {}}, [[], [[]], {}],
    {"\x00\x1f\"\\\u2028\ud800": "\x7f\u202e\n\t"},
    {2: "int key", 1: "sorted as numbers"}, {1.5: "float key"}, {True: "b"}, {None: "n"},
    {"level": Level.ERROR, Name("k"): Name("v")},
    [0, "", None, False, 0.0, [], {}, ()], {"b": 0, "a": [], "c": ""}, [[0, 1], {"k": 2}],
])
def test_edge_values_are_written_as_json_dumps_writes_them(document: object) -> None:
    assert indented_json(document) == _stdlib(document)


@pytest.mark.parametrize("document", [{"x": object()}, [b"bytes"], [b""], {"x": set()},
                                      [0, frozenset()], {(1, 2): "tuple key"},
                                      {1: "a", "b": "mixed keys cannot be sorted"}])
def test_what_json_dumps_refuses_is_refused(document: object) -> None:
    with pytest.raises(TypeError):
        _stdlib(document)
    with pytest.raises(TypeError):
        indented_json(document)


def test_a_whole_report_is_written_as_json_dumps_writes_it() -> None:
    from plogscan.report.json_report import document
    from tests.helpers import diagnosed

    report = document(diagnosed([str(SAMPLE)]))
    assert report["findings"]
    assert indented_json(report) == _stdlib(report)


def test_without_the_c_encoder_the_same_text_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    from plogscan import textsafe

    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    monkeypatch.setattr(textsafe, "_FLAT_ENCODERS", {})
    document = {"rows": [{"path": "a\u202e", "lines": 3, "problems": []}, [1, 2.5, None]]}
    assert indented_json(document) == _stdlib(document)
    assert textsafe._FLAT_ENCODERS  # the flat path ran, through the fallback
