"""The texts a chunk's context lines are taken from, several times each (rows near each other
share lines): ``ViewPool`` holds Arrow string views into the chunk's bytes, so a row's lines
are picked by a numpy take of 16-byte views and their bytes copied once, by the cast to
``string``; ``TextPool`` holds the texts themselves, for a chunk past the 2 GiB views reach.
Both keep, after the chunk's lines, the extra texts (lines shortened, edge lines)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from plogscan.parse.arrowtext import string_views

_VIEW_INLINE = 12  # a string view holds up to 12 bytes itself; past them, where they lie


class TextPool:
    """Texts to take rows' lines from: a string array (the lines, then the extra texts)."""

    def __init__(self, lines: pa.Array, place: np.ndarray, extra: list[pa.Array]) -> None:
        self.texts = pa.concat_arrays([lines, *extra])
        self.place = place
        self.size = len(self.texts)

    def take(self, index: pa.Array) -> pa.Array:
        return self.texts.take(index)


class ViewPool:
    """Texts to take rows' lines from, as Arrow string views (16 bytes each) into the
    chunk's bytes and a buffer of extra texts: a row's lines are taken by a numpy take of
    their views, and their bytes copied once, by the cast to ``string``."""

    def __init__(self, array: np.ndarray, data: bytes, starts: np.ndarray,
                 lengths: np.ndarray) -> None:
        self.buffers = [pa.py_buffer(data)]
        self.views = _view_words(string_views(array, self.buffers[0], starts, lengths))
        self.place = np.zeros(0, np.int64)
        self.size = len(self.views)

    def with_extra(self, place: np.ndarray, extra: list[pa.Array]) -> ViewPool:
        """The pool with ``extra`` texts after its own, ``place`` the element of each line."""
        texts = pa.concat_arrays(extra)
        if len(texts):
            data = texts.buffers()[2]
            offsets = np.frombuffer(texts.buffers()[1], np.int32)[:len(texts) + 1].astype(
                np.int64)
            raw = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
            views = _view_words(string_views(raw, data or pa.py_buffer(b""), offsets[:-1],
                                             np.diff(offsets)))
            views[views[:, 0] > _VIEW_INLINE, 2] = len(self.buffers)  # this buffer's index
            self.buffers.append(data or pa.py_buffer(b""))
            self.views = np.concatenate([self.views, views])
            self.size = len(self.views)
        self.place = place
        return self

    def take(self, index: pa.Array) -> pa.Array:
        picked = np.ascontiguousarray(self.views[index.to_numpy(zero_copy_only=False)])
        return pa.Array.from_buffers(pa.string_view(), len(picked),
                                     [None, pa.py_buffer(picked), *self.buffers])


def _view_words(views: pa.Array) -> np.ndarray:
    """The 16-byte views of a ``string_view`` array, four 32-bit words each (a copy)."""
    return np.frombuffer(views.buffers()[1], np.uint32).reshape(-1, 4)[
        views.offset:views.offset + len(views)].copy()
