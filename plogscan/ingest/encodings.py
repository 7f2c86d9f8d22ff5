"""Text encodings other than UTF-8: detected from the first bytes, decoded to UTF-8 on the fly.

The parser reads UTF-8 (invalid sequences are replaced and counted). Two other encodings are
common in what users collect and would otherwise be lost:

* UTF-16, little or big endian, with or without a byte-order mark: what a Windows PowerShell
  ``>`` redirection writes. Without a mark it is recognised by its NUL bytes, which fall on
  every odd (LE) or every even (BE) position of ASCII text.
* GBK (read as GB18030, its superset): logs written on a Chinese-locale host. A head that is
  not UTF-8, decodes as GB18030 without error, and whose UTF-8 reading would give more
  replacement characters than real non-ASCII characters is GBK. A UTF-8 file with a few stray
  bytes stays UTF-8 (its replacements are counted).

A UTF-8 byte-order mark is dropped. ``Decoded`` turns a stream in one of these encodings into
a stream of UTF-8 bytes and counts the undecodable sequences it replaced (``decode_errors``).
"""

from __future__ import annotations

import codecs
import io
import threading
from typing import BinaryIO

UTF8 = "utf-8"
_CODECS = {"utf-8": "utf-8", "utf-16-le": "utf-16-le", "utf-16-be": "utf-16-be",
           "gbk": "gb18030"}
SNIFF_BYTES = 4096  # enough to tell UTF-16 by its NULs and GBK by its byte pairs
READ_BYTES = 1 << 20


def detect(head: bytes) -> tuple[str, int]:
    """(encoding, length of its byte-order mark) for a stream starting with ``head``."""
    if head.startswith(codecs.BOM_UTF8):
        return UTF8, 3
    if head.startswith(codecs.BOM_UTF16_LE) and not head.startswith(codecs.BOM_UTF32_LE):
        return "utf-16-le", 2
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be", 2
    sample = head[: SNIFF_BYTES & ~1]
    if len(sample) >= 16:
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        half = len(sample) // 2
        if odd >= 0.3 * half and even <= 0.02 * half:
            return "utf-16-le", 0
        if even >= 0.3 * half and odd <= 0.02 * half:
            return "utf-16-be", 0
    if _looks_gbk(head[: SNIFF_BYTES * 16]):
        return "gbk", 0
    return UTF8, 0


def _looks_gbk(head: bytes) -> bool:
    if head.isascii():
        return False
    text = head.decode("utf-8", "replace")
    errors = text.count("\ufffd") - head.count("\ufffd".encode())
    if errors <= 0:
        return False
    genuine = sum(1 for ch in text if ch > "\x7f" and ch != "\ufffd")
    if errors <= genuine:
        return False  # UTF-8 with stray bytes
    for cut in range(4):  # the head may end inside a character
        try:
            decoded = head[: len(head) - cut].decode("gb18030")
        except UnicodeDecodeError:
            continue
        wide = [ch for ch in decoded if ch > "\x7f"]
        cjk = sum(1 for ch in wide if "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
        return bool(wide) and cjk * 2 >= len(wide)
    return False


_counting = threading.local()


def _count_and_replace(exc: UnicodeError) -> tuple[str, int]:
    target = getattr(_counting, "stream", None)
    if target is not None:
        target.decode_errors += 1
    return "\ufffd", exc.end  # type: ignore[attr-defined]


codecs.register_error("plogscan-count", _count_and_replace)


class Decoded(io.RawIOBase):
    """The bytes of ``source`` (in ``encoding``, after ``bom`` mark bytes) as UTF-8 bytes."""

    def __init__(self, source: BinaryIO, encoding: str, bom: int = 0) -> None:
        super().__init__()
        self._source = source
        self._read = getattr(source, "read1", None) or source.read
        self._decoder = codecs.getincrementaldecoder(_CODECS[encoding])("plogscan-count")
        self._skip = bom
        self._out = bytearray()
        self._done = False
        self.encoding = encoding
        self.decode_errors = 0

    def readable(self) -> bool:
        return True

    def _fill(self, want: int) -> None:
        while len(self._out) < want and not self._done:
            raw = self._read(READ_BYTES)
            if self._skip:
                dropped = raw[: self._skip]
                self._skip -= len(dropped)
                raw = raw[len(dropped):]
                if not raw and dropped:
                    continue
            final = not raw
            _counting.stream = self
            try:
                text = self._decoder.decode(raw, final)
            finally:
                _counting.stream = None
            self._out += text.encode("utf-8", "surrogatepass")
            self._done = final

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        self._fill(len(buffer))
        n = min(len(buffer), len(self._out))
        buffer[:n] = self._out[:n]
        del self._out[:n]
        return n

    def read1(self, size: int = -1) -> bytes:
        self._fill(size if size and size > 0 else READ_BYTES)
        n = len(self._out) if size is None or size < 0 else min(size, len(self._out))
        out = bytes(self._out[:n])
        del self._out[:n]
        return out


def decode_head(head: bytes, encoding: str, bom: int) -> bytes:
    """``head`` decoded for sniffing (a character cut at its end is dropped)."""
    if encoding == UTF8 and not bom:
        return head
    text = codecs.getincrementaldecoder(_CODECS[encoding])("replace").decode(head[bom:])
    return text.encode("utf-8", "surrogatepass")
