"""Where lines start in a plain file: a sparse index of (line number, byte offset) marks.

Reading the context lines of evidence means finding line N of a file; without an index that
is a count of every newline before it. ``LineMarks`` holds the start of about one line every
``MARK_BYTES`` (fewer in a huge file: at most ``MAX_MARKS``), recorded while a file is read
from its start, so that a later read seeks to the last mark before a wanted line and reads a
few kilobytes instead of the file. The extraction cache keeps a file's marks with the content
digest they were taken from (``StoredMarks``); a file whose size, modification time or digest
changed is read from its start again.

Marks cover a prefix of the file: the part read so far. A read past the last mark records
new ones, so the index grows to wherever reads have reached.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import Protocol

import numpy as np

MARK_BYTES = 16 << 10  # about this many bytes between two marks
MAX_MARKS = 1 << 16  # per file (16 bytes each): a larger file gets sparser marks


@dataclass(frozen=True)
class StoredMarks:
    """A file's marks as a store keeps them, with what says they are still the file's."""

    size: int
    mtime_ns: int
    digest: str  # ``reuse.file_digest`` of the content the marks were taken from
    data: bytes  # ``LineMarks.pack``


class MarkStore(Protocol):
    def find_marks(self, path: str) -> StoredMarks | None: ...

    def save_marks(self, path: str, marks: StoredMarks) -> None: ...


class LineMarks:
    """Line starts of one file, ascending: ``lines[i]`` starts at byte ``offsets[i]``.

    Line 1 at offset 0 is implied, never stored."""

    def __init__(self, size: int, data: bytes = b"") -> None:
        self.spacing = max(MARK_BYTES, size // MAX_MARKS + 1)
        pairs = array("q")
        if len(data) % (2 * pairs.itemsize):
            raise ValueError("line marks: not whole pairs of numbers")
        pairs.frombytes(data)
        if sys.byteorder == "big":
            pairs.byteswap()
        self.lines = pairs[0::2]
        self.offsets = pairs[1::2]
        if not _ascending(self.lines, self.offsets) or (self.offsets and self.offsets[-1] > size):
            raise ValueError("line marks: not ascending line starts inside the file")
        self.next_at = (self.offsets[-1] if self.offsets else 0) + self.spacing
        self.grown = False  # marks were added since loading

    def before(self, line: int) -> tuple[int, int] | None:
        """The last mark at or before ``line``: (its line, its offset); None when none is."""
        index = bisect_right(self.lines, line) - 1
        return (self.lines[index], self.offsets[index]) if index >= 0 else None

    def covers(self, line: int) -> bool:
        """Whether some mark lies past ``line`` (the file was read beyond it)."""
        return bool(self.lines) and self.lines[-1] > line

    def note(self, ends: np.ndarray, base: int, length: int, line: int) -> None:
        """Record the marks in a block of ``length`` bytes read from offset ``base``, whose
        newlines are at ``ends`` (ascending positions in the block), while line ``line`` is
        being read (so the line after the block's k-th newline is ``line + k``)."""
        end = base + length
        while self.next_at <= end:
            k = int(np.searchsorted(ends, max(0, self.next_at - 1 - base)))
            if k == len(ends):
                break
            start = base + int(ends[k]) + 1
            self.lines.append(line + k + 1)
            self.offsets.append(start)
            self.next_at = start + self.spacing
            self.grown = True

    def pack(self) -> bytes:
        pairs = array("q", bytes(16 * len(self.lines)))
        pairs[0::2] = self.lines
        pairs[1::2] = self.offsets
        if sys.byteorder == "big":
            pairs.byteswap()
        return pairs.tobytes()


def _ascending(lines: array, offsets: array) -> bool:
    return all(a < b for a, b in zip([1, *lines], [*lines, 1 << 62], strict=True)) and all(
        a < b for a, b in zip([0, *offsets], [*offsets, 1 << 62], strict=True))
