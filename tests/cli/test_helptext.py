"""Help lines wider than the window wrap at a space, under their second column."""

from __future__ import annotations

from plogscan.cli.helptext import fold_line


def test_a_two_column_line_wraps_under_its_second_column() -> None:
    line = ("    507916                   ACL runtime code (ErrCode=, runtime result =, "
            "error code is)")
    assert fold_line(line, 60) == ["    507916                   ACL runtime code (ErrCode=,",
                                   "                             runtime result =, error code",
                                   "                             is)"]


def test_a_command_line_wraps_four_columns_in() -> None:
    line = "    plogscan diagnose ./logs --redact --output-dir ticket --redact-map private.json"
    assert fold_line(line, 60) == [
        "    plogscan diagnose ./logs --redact --output-dir ticket",
        "        --redact-map private.json"]


def test_short_lines_and_unbreakable_words_stay() -> None:
    assert fold_line("  short", 60) == ["  short"]
    word = "  " + "x" * 70
    assert fold_line(word, 60) == [word]
    assert all(len(part) <= 40 for part in fold_line("  " + "word " * 40, 40))
