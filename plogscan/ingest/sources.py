"""What ingest hands on: a readable log (``Source``) or an input it does not read (``Skipped``).

Nothing is skipped silently, with one exception: operating-system and version-control clutter
(``.DS_Store``, ``Thumbs.db``, ``desktop.ini``, AppleDouble ``._*`` files, ``__MACOSX/``, and the
``.git``/``.hg``/``.svn`` directories) is dropped without a word when found inside a directory
walk or an archive, because it never holds logs and would drown the real skip reasons. Such a
file named explicitly by the user is treated like any other file. Everything else that is not
read becomes a ``Skipped`` with a short reason: ``not found``, ``empty file``, ``binary file``,
``unreadable: <OS reason>``, ``symlink loop``, ``duplicate: same file as <path>``, ``not a regular
file``, ``corrupt archive: <reason>``, ``unknown format: ...``, ``empty directory`` (a directory
named on the command line that holds no file) and a few more. A path named on the command line
that cannot be read at all is a ``Skipped`` marked ``named``, with the system's reason.

Paths are shown through ``printable``: a file name is text from the input too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from plogscan.schema import SourceKind

PARQUET_REASON = "parquet event table (use plogscan events)"
UNKNOWN_REASON = "unknown format: no line matches a known log shape"
NOT_A_LOG_REASON = "not a log file"
STDIN_PATH = "<stdin>"  # the display path of ``-``
# Files that sit next to logs in collections (notes, scripts, configs, pictures): when their
# content matches no log shape they are skipped as "not a log file" rather than "unknown".
NOT_LOG_SUFFIXES = frozenset({
    ".md", ".rst", ".py", ".sh", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".html",
    ".htm", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".csv", ".xml", ".pb", ".om",
    ".onnx", ".pkl", ".pt", ".pth", ".npy", ".so", ".o",
})



@dataclass(frozen=True)
class Source:
    """One readable log: where it is, what it is, and what its path says about its origin.

    ``size`` is the size of the stored object: bytes on disk for a plain or compressed file,
    the tar member size, or the uncompressed size of a zip member. For a gzip-compressed file
    or member it is the compressed size (the uncompressed size is not known before reading).
    """

    path: str
    kind: SourceKind
    host: str | None
    rank: int | None
    device: int | None
    pid: int | None
    size: int | None
    encoding: str = "utf-8"  # what the bytes are decoded from (see ``encodings``)


@dataclass(frozen=True)
class Skipped:
    """An input that is not read, with a short human reason.

    ``named``: the path was named on the command line (or is what a pattern named there
    matched) and could not be read at all: it does not exist, cannot be opened or listed, or
    is not a file. That is an input error (``IngestSummary.errors``, exit code 2), not a skip;
    its reason is the operating system's (``No such file or directory``)."""

    path: str
    reason: str
    named: bool = False


NOISE_FILES = frozenset({".ds_store", "thumbs.db", "desktop.ini"})
NOISE_DIRS = frozenset({"__macosx", ".git", ".hg", ".svn"})
# Controls (C0, DEL, C1), bidi overrides/isolates, line separators and surrogates: what a
# terminal would act on or reorder (the same set as ``plogscan.textsafe``).
_UNSAFE_CHARS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]"
)

def printable(text: str) -> str:
    """A path safe to print: control characters and undecodable bytes as ``\\xNN``, other
    unsafe characters (C1 controls, bidi overrides) as ``\\uNNNN``."""

    def esc(m: re.Match[str]) -> str:
        code = ord(m.group(0))
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
            return f"\\x{code - 0xDC00:02x}"
        return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"

    return _UNSAFE_CHARS.sub(esc, text)


def is_noise(name: str) -> bool:
    low = name.lower()
    return low in NOISE_FILES or low.startswith("._")


def member_is_noise(name: str) -> bool:
    parts = [p for p in name.split("/") if p]
    if not parts:
        return True
    return is_noise(parts[-1]) or any(p.lower() in NOISE_DIRS for p in parts[:-1])

