"""Line breaking for the terminal report: rich's ``Text``, wrapped the way Chinese is written.

rich breaks lines at spaces only, and folds a longer "word" at whatever cell the line ends on.
Chinese has no spaces, so a Chinese sentence is one long word to rich, and it breaks inside the
Latin terms and codes the sentence holds (``NOTIFY\\nWAIT``, ``ra\\nnk``). Here a line may also
break between two characters when either is wide (CJK), except before closing punctuation or
after opening punctuation, and never between two characters of a run of ``[A-Za-z0-9_]``; a
piece longer than the whole line (a path) is folded after a ``/``, ``-`` or ``.``, else by
cells, as rich does. Widths are terminal cells (a
Chinese character takes two). Text without wide characters and without a run longer than the
line is wrapped by rich itself, so English prose is exactly rich's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich import text as rich_text
from rich.cells import cell_len, chop_cells, get_character_cell_size
from rich.console import Console, ConsoleOptions
from rich.containers import Lines
from rich.measure import Measurement

# No line starts with these, and none ends with OPENING.
CLOSING = frozenset("，。、；：！？）》」』】〉”’%)]}>,.;:!?")
OPENING = frozenset("（《「『【〈“‘([{<")
_WORD = re.compile(r"[A-Za-z0-9_]")


def _wide(ch: str) -> bool:
    return get_character_cell_size(ch) > 1


def has_wide(text: str) -> bool:
    """Whether ``text`` holds a character two cells wide (rich's own wrapping then misbreaks)."""
    return any(ord(ch) >= 0x1100 and _wide(ch) for ch in text)


def _may_break(before: str, after: str) -> bool:
    """Whether a line may end after ``before`` and the next start with ``after``."""
    if before.isspace():
        return not after.isspace()
    if after.isspace() or after in CLOSING or before in OPENING:
        return False
    if _WORD.match(before) and _WORD.match(after):
        return False
    return _wide(before) or _wide(after)


def segments(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of the pieces between break opportunities (a piece keeps the spaces
    that follow it)."""
    start = 0
    for i in range(1, len(text)):
        if _may_break(text[i - 1], text[i]):
            yield start, i
            start = i
    if text:
        yield start, len(text)


def _fold(piece: str, width: int) -> list[int]:
    """Lengths of the lines a piece wider than ``width`` folds into: each ends after the last
    character outside ``[A-Za-z0-9_]`` that fits (``/``, ``-``, ``.``), else at the width."""
    lengths = []
    while cell_len(piece) > width:
        chunk = chop_cells(piece, width)[0]
        cut = max((i + 1 for i, ch in enumerate(chunk) if not _WORD.match(ch)), default=0)
        cut = cut or len(chunk)
        lengths.append(cut)
        piece = piece[cut:]
    return [*lengths, len(piece)]


def break_offsets(text: str, width: int) -> list[int]:
    """Where to break one line of ``text`` so that every line fits ``width`` cells: greedy, at
    break opportunities; a piece wider than a line is folded by cells."""
    breaks: list[int] = []
    used = 0
    for start, end in segments(text):
        piece = text[start:end]
        need = cell_len(piece.rstrip())
        if used and used + need > width:
            breaks.append(start)
            used = 0
        if need > width:  # longer than a line (a path, say): fold it between terms
            offset = start
            for cut in _fold(piece, width)[:-1]:
                offset += cut
                breaks.append(offset)
            used = cell_len(text[offset:end])
            continue
        used += cell_len(piece)
    return breaks


class Text(rich_text.Text):
    """rich's ``Text`` whose lines break between Chinese characters too, never inside a Latin
    term or code (see the module docstring)."""

    def wrap(self, console: Console, width: int, **kwargs) -> Lines:  # type: ignore[override]
        plain = self.plain
        if self.no_wrap or kwargs.get("no_wrap") or not (
                has_wide(plain) or any(cell_len(run) > width for run in plain.split())):
            return super().wrap(console, width, **kwargs)
        lines = Lines()
        for line in self.split(allow_blank=True):
            offsets = break_offsets(line.plain, width)
            for piece in line.divide(offsets) if offsets else [line]:
                piece.rstrip()
                lines.extend(rich_text.Text.wrap(piece, console, width, **kwargs))
        return lines

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        measured = super().__rich_measure__(console, options)
        if not has_wide(self.plain):
            return measured
        plain = self.plain
        narrowest = max((cell_len(plain[a:b].rstrip()) for a, b in segments(plain)), default=0)
        return Measurement(min(narrowest, measured.maximum), measured.maximum)
