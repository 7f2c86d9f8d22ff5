"""The line formats load, their samples parse, and broken format files give located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from plogscan.errors import ErrorGroup
from plogscan.parse.formatcheck import builtin_formats, check_samples, load_formats
from plogscan.schema import SourceKind


def test_builtin_formats_load_and_every_sample_parses() -> None:
    fset = builtin_formats()
    assert fset.primary.name == "cann"
    names = [f.name for f in fset.formats]
    assert len(names) == len(set(names))
    assert sum(len(f.samples) for f in fset.formats) >= 30
    check_samples(fset)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    return path


PATTERN = (r"\[(?P<level>[A-Z]+)\] (?P<module>\w+)\((?P<pid>-?\d+),(?P<proc>[^)]*)\):"
           r"(?P<ts>\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) ")
PRIMARY = f"""\
formats:
  - name: mini
    primary: true
    timestamp: cann
    pattern: '{PATTERN}'
    samples:
      - line: '[INFO] GE(1,p):2026-01-01-00:00:00.000.001 built'
        fields: {{level: INFO, module: GE, pid: 1, message: built}}
"""


def test_minimal_format_file_loads(tmp_path: Path) -> None:
    fset = load_formats([_write(tmp_path, PRIMARY)])
    assert fset.primary.name == "mini"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("fields: {level: INFO,", "fields: {level: ERROR,"), "sample field 'level' is 'INFO'"),
        (("    timestamp: cann\n", "    timestamp: cann\n    colour: red\n"),
         "unknown key 'colour'"),
        (("(?P<module>", "(?P<modul>"), "unknown field group 'modul'"),
        (("(?P<module>\\w+)", "(?P<module>(?<=x)\\w+)"), "pattern is not valid RE2"),
        (("timestamp: cann", "timestamp: unix"), "unknown timestamp grammar 'unix'"),
        (("    primary: true\n", "    primary: true\n    primary: false\n"), "duplicate key"),
        (("    timestamp: cann\n", "    timestamp: cann\n   bad: [\n"), "invalid YAML"),
    ],
)
def test_broken_format_files_are_located(tmp_path: Path, edit: tuple[str, str],
                                         expected: str) -> None:
    old, new = edit
    text = PRIMARY.replace(old, new, 1)
    assert text != PRIMARY, "the edit must apply"
    path = _write(tmp_path, text)
    with pytest.raises(ErrorGroup) as info:
        load_formats([path])
    rendered = info.value.render()
    assert expected in rendered
    assert str(path) in rendered
    if expected in ("duplicate key", "invalid YAML"):  # the line the loader located
        assert f"{path}:{text.splitlines().index(new.splitlines()[-1]) + 1}" in rendered


def test_a_sample_that_matches_no_format_is_reported(tmp_path: Path) -> None:
    text = PRIMARY.replace("[INFO] GE(1,p)", "INFO GE 1 p")
    with pytest.raises(ErrorGroup, match="1 error"):
        load_formats([_write(tmp_path, text)])


def test_samples_parsed_together_equal_samples_parsed_one_by_one() -> None:
    from plogscan.parse.chunk import parse_sample, parse_samples

    fset = builtin_formats()
    lines = [line for fmt in fset.formats if not fmt.alone for line, _, _ in fmt.samples]
    assert parse_samples(lines, fset) == [parse_sample(line, fset) for line in lines]
    # The job stdout samples (of the formats found only in pastes, and of the prefixes)
    # hold a line that continues the one before in a batch: those two are parsed alone.
    stdout = [line for fmt in fset.formats if fmt.alone for line, _, _ in fmt.samples]
    stdout += [line for prefix in fset.prefixes for line, _, _ in prefix.samples]
    assert parse_samples(stdout, fset, SourceKind.STDOUT) == [
        parse_sample(line, fset, SourceKind.STDOUT) for line in stdout]
    # A line that continues the one before, a line that is no record, a blank line and a
    # line break inside a sample: each comes out as parsed alone.
    for odd in (["    continued"], ["", lines[1]], ["a\nb"], []):
        mixed = [lines[0], *odd, lines[2]]
        assert parse_samples(mixed, fset) == [parse_sample(line, fset) for line in mixed]
