"""``DiagnoseOptions``: every field says whether it changes a result, the result key follows
each field that does and ignores the others, and a bad ``fail_on`` is refused by name."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from plogscan.catalog import load_rules
from plogscan.errors import InputError
from plogscan.ingest.limits import Limits
from plogscan.pipeline import FAIL_ON, DiagnoseOptions

# A value different from the default for every field (a new field must be added here).
OTHER = {
    "paths": ("elsewhere",),
    "rules_dirs": ("more-rules",),
    "rules": None,  # a loaded rule set is not part of the key: the rules passed to it are
    "fail_on": "warning",
    "lang": "zh",
    "context_lines": 5,
    "clock_offsets": (("host-a", 1.5),),
    "clock_reference": "host-a",
    "limits": Limits(findings=7),
    "workers": 3,
    "processes": True,
    "skim": False,
    "cache": Path("/somewhere"),
    "reuse_result": False,
    "events_out": "events.parquet",
}


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    return load_rules()


def test_every_field_says_whether_it_changes_a_result() -> None:
    names = {f.name for f in dataclasses.fields(DiagnoseOptions)}
    assert names == set(OTHER)
    for f in dataclasses.fields(DiagnoseOptions):
        assert isinstance(f.metadata.get("result"), bool), f.name


def test_the_result_key_follows_the_result_fields_only(rules) -> None:  # type: ignore[no-untyped-def]
    base = DiagnoseOptions(paths=("logs",))
    key = base.result_key(rules)
    assert DiagnoseOptions(paths=("logs",)).result_key(rules) == key
    for f in dataclasses.fields(DiagnoseOptions):
        if f.name == "rules":
            continue
        other = dataclasses.replace(base, **{f.name: OTHER[f.name]})
        changed = other.result_key(rules) != key
        assert changed == f.metadata["result"], f.name


def test_the_rules_are_part_of_the_key(rules) -> None:  # type: ignore[no-untyped-def]
    options = DiagnoseOptions(paths=("logs",))
    fewer = dataclasses.replace(rules, rules=rules.rules[1:])
    assert options.result_key(fewer) != options.result_key(rules)


def test_an_unknown_fail_on_level_is_refused_with_the_valid_ones() -> None:
    with pytest.raises(InputError) as refused:
        DiagnoseOptions(paths=("logs",), fail_on="fatal")
    assert "fatal" in refused.value.message
    assert all(level in str(refused.value.help) for level in FAIL_ON)


def test_options_are_frozen_and_normalised() -> None:
    options = DiagnoseOptions(paths=["a", Path("b")],  # type: ignore[arg-type]
                              clock_offsets=[("h", 1)])  # type: ignore[arg-type]
    assert options.paths == ("a", "b")
    assert options.clock_offsets == (("h", 1.0),)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.lang = "zh"  # type: ignore[misc]
