"""Every sample of the built-in line formats parses to what it states: checked here, since a
run reads the formats' compiled form without parsing their samples again."""

from __future__ import annotations

import dataclasses

import pytest

from plogscan.errors import ErrorGroup
from plogscan.parse.formatcheck import builtin_formats, check_samples
from plogscan.parse.lineformats import read_formats


def test_every_builtin_sample_parses_to_its_fields() -> None:
    fset = read_formats()
    assert sum(len(f.samples) for f in fset.formats) >= 30
    assert sum(len(p.samples) for p in fset.prefixes) >= 1
    check_samples(fset)


def test_the_formats_a_run_reads_are_the_checked_ones() -> None:
    assert builtin_formats() == read_formats()


@pytest.mark.parametrize("part", ["formats", "prefixes"])
def test_a_sample_that_does_not_parse_to_its_fields_fails_the_check(part: str) -> None:
    fset = read_formats()
    entries = list(getattr(fset, part))
    index, entry = next((i, e) for i, e in enumerate(entries) if e.samples)
    line, fields, where = entry.samples[0]
    wrong = {**fields, "pid": 987654321}
    entries[index] = dataclasses.replace(entry, samples=((line, wrong, where),
                                                         *entry.samples[1:]))
    with pytest.raises(ErrorGroup) as raised:
        check_samples(dataclasses.replace(fset, **{part: tuple(entries)}))
    (error,) = raised.value.errors
    assert "'pid'" in str(error) and "987654321" in str(error) and error.where == where
