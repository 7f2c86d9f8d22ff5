"""Apply redaction to text, paths, identified host names and record batches.

Text is redacted in bulk, as an Arrow array: RE2 (``pyarrow.compute``) wraps every match of
the detectors in two marker characters in one pass, and only the rows that got a marker are
touched in Python, where each marked match is classified (``detectors.classify``) and named
(``pseudonyms``). ``--redact-pattern`` expressions run first, each in a pass of its own, and
their matches become ``secret-N``. The marker characters (U+FDD0..U+FDD3, Unicode
non-characters) are replaced by U+FFFD where log text already holds them, so hostile text
cannot shift the markers.

Host names identified elsewhere (the ``host`` column, a path's host directory) are matched by
name from then on, in text too. ``known_text`` is the last pass over everything printed or
written: every original named so far is replaced wherever it still occurs.

Input is redacted as input: a value that happens to equal a name already handed out is an
original like any other and gets a name of its own. Only text that was redacted before (a
warning built from redacted accounting, ``again=True``) keeps the names it holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from plogscan.errors import InputError
from plogscan.pathhints import path_hints
from plogscan.redact import detectors
from plogscan.redact.pseudonyms import Pseudonyms

START, END = "\ufdd0", "\ufdd1"
_MARKER_CHARS = "[\ufdd0-\ufdd3]"
_HOME = r"(?:/home/|/Users/|/export/home/|[A-Za-z]:\\Users\\)"
# Columns of the event schema whose values are fixed words, not log text.
FIXED_COLUMNS = frozenset({"level", "kind", "fmt"})
KNOWN_PER_PASS = 2000  # originals per RE2 alternation of the last pass
# Values of the input that look like pseudonyms: reserved, so no name is ever one of them.
SHAPED = re.compile(r"\b(?:ip|host|user|email|secret)-(?:\d+|[0-9a-f]{10,})\b")


def check_pattern(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a ``--redact-pattern`` (RE2 syntax, empty matches)."""
    probe = pa.array(["", "x"], pa.large_string())
    try:
        hits = pc.match_substring_regex(probe, pattern).to_pylist()
    except pa.ArrowInvalid as err:
        return str(err)
    if hits[0]:
        return "it matches the empty text, so it would match everywhere"
    return None


class Redactor:
    """One run's redaction: the same value gets the same pseudonym in every output."""

    def __init__(self, patterns: Sequence[str] = (), salt: bytes | None = None) -> None:
        for pattern in patterns:
            problem = check_pattern(pattern)
            if problem:
                raise InputError(f"--redact-pattern {pattern!r} cannot be used: {problem}",
                                 help="patterns are RE2: no look-around or backreferences")
        self.patterns = tuple(patterns)
        self.names = Pseudonyms(salt)
        self._known: dict[str, None] = {}  # identified host names, in order of appearance
        self._compiled: tuple[int, str, re.Pattern[str]] | None = None
        self._path_back: dict[str, str] = {}  # redacted path -> the path as read
        self._kept: Callable[[str], bool] = _never  # names kept as they are (again=True)
        self._known_cache: tuple[int, tuple[dict[str, str], dict[str, str], list[str]]] | None
        self._known_cache = None

    def reserve(self, texts: Iterable[str]) -> None:
        """Note the pseudonym-shaped values of ``texts`` (before any of them is named)."""
        self.names.reserve(m.group() for text in texts if text for m in SHAPED.finditer(text))

    # -- values identified by their place -----------------------------------------------------

    def host(self, value: str | None) -> str | None:
        """An identified host name (the ``host`` column, a scope): its pseudonym."""
        if not value:
            return value
        return detectors.name_host_or_ip(value, self._name, self._kept)

    def register_path(self, path: str | None) -> None:
        """Learn the host a path names (``pathhints``) before the path is redacted."""
        if path:
            host = path_hints(path)[0]
            if host:
                self.host(host)

    def _name(self, kind: str, original: str) -> str:
        if kind == "host" and original not in self._known:
            self._known[original] = None
        return self.names.name(kind, original)

    # -- text ---------------------------------------------------------------------------------

    def text(self, value: str, *, again: bool = False) -> str:
        return self.texts_list([value], again=again)[0]

    def texts_list(self, values: Sequence[str], *, again: bool = False) -> list[str]:
        if not values:
            return []
        return self.texts(pa.array(list(values), pa.large_string()), again=again).to_pylist()

    def texts(self, arr: pa.Array, *, again: bool = False) -> pa.Array:
        """``arr`` (Arrow text) with every sensitive value replaced; with ``again`` the text
        was redacted before and the names in it stay."""
        if len(arr) == 0 or arr.null_count == len(arr):
            return arr
        self._kept = self.names.is_pseudonym if again else _never
        try:
            return self._texts(arr)
        finally:
            self._kept = _never

    def _texts(self, arr: pa.Array) -> pa.Array:
        if pc.any(pc.match_substring_regex(arr, _MARKER_CHARS)).as_py():
            arr = pc.replace_substring_regex(arr, _MARKER_CHARS, "\ufffd")
        for pattern in self.patterns:
            arr = self._pass(arr, pattern, self._secret)
        _version, text, compiled = self._detector()
        arr = self._pass(arr, text, lambda token: self._classify(compiled, token))
        return arr

    def _secret(self, token: str) -> str:
        return token if self._kept(token) else self._name("secret", token)

    def _detector(self) -> tuple[int, str, re.Pattern[str]]:
        version = len(self._known)
        if self._compiled is None or self._compiled[0] != version:
            text = detectors.pattern(self._known)
            self._compiled = (version, text, re.compile(text))
        return self._compiled

    def _classify(self, compiled: re.Pattern[str], token: str) -> str:
        match = compiled.fullmatch(token)
        if match is None:  # RE2 and Python disagree: redact rather than leak
            return self._secret(token)
        return detectors.classify(match, token, self._name, self._kept)

    @staticmethod
    def _pass(arr: pa.Array, pattern: str, replace: Callable[[str], str]) -> pa.Array:
        marked = pc.replace_substring_regex(arr, pattern=pattern,
                                            replacement=START + "\\0" + END)
        mask = pc.fill_null(pc.match_substring(marked, START), False)
        if not pc.any(mask).as_py():
            return arr
        rows = pc.filter(marked, mask).to_pylist()
        fixed = [_resolve(row, replace) for row in rows]
        return pc.replace_with_mask(arr, mask, pa.array(fixed, type=arr.type))

    # -- paths and records --------------------------------------------------------------------

    def paths(self, values: Sequence[str]) -> list[str]:
        self.reserve(values)
        for value in values:
            self.register_path(value)
        done = self.texts_list(values)
        self._path_back.update(zip(done, values, strict=True))
        return done

    def original_paths(self, table: pa.Table) -> pa.Table:
        """A redacted table with its ``path`` column as read (for lookups keyed by path)."""
        index = table.schema.get_field_index("path")
        column = table.column(index).combine_chunks()
        back = _map_distinct(column, lambda values: [self._path_back.get(v, v) for v in values])
        return table.set_column(index, table.schema.field(index), back)

    def batch(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """A record batch with every text column redacted (the fixed-word columns kept)."""
        columns = dict(zip(batch.schema.names, batch.columns, strict=True))
        message = columns.get("message")
        if message is not None and len(message):
            shaped = pc.fill_null(pc.match_substring_regex(message, SHAPED.pattern), False)
            if pc.any(shaped).as_py():
                self.reserve(pc.filter(message, shaped).to_pylist())
        if "host" in columns:
            columns["host"] = _map_distinct(columns["host"], self._host_values)
        if "path" in columns:
            columns["path"] = _map_distinct(columns["path"], self.paths)
        for name, column in columns.items():
            if name in ("host", "path") or name in FIXED_COLUMNS or not _is_text(column.type):
                continue
            if name == "message":
                columns[name] = self.texts(column)
            else:
                columns[name] = _map_distinct(column, self.texts_list)
        return pa.RecordBatch.from_arrays(list(columns.values()), schema=batch.schema)

    def _host_values(self, values: Sequence[str]) -> list[str]:
        self.reserve(values)
        return [self.host(v) or v for v in values]

    # -- the last pass ------------------------------------------------------------------------

    def known_text(self, text: str) -> str:
        """``text`` with every original named so far replaced by its pseudonym."""
        if not text:
            return text
        literal, users, parts = self._known_patterns()
        if not parts:
            return text
        home = re.compile(_HOME)

        def swap(token: str) -> str:
            if token in literal:
                return literal[token]
            m = home.match(token)
            if m and token[m.end():] in users:
                return token[: m.end()] + users[token[m.end():]]
            return token

        out = text
        for start in range(0, len(parts), KNOWN_PER_PASS):  # bounded pattern size for RE2
            chunk = "|".join(parts[start:start + KNOWN_PER_PASS])
            out = self._pass(pa.array([out], pa.large_string()), chunk, swap)[0].as_py()
        return out

    def _known_patterns(self) -> tuple[dict[str, str], dict[str, str], list[str]]:
        """The originals named so far, as literals and RE2 alternatives (cached until a new
        name is handed out)."""
        originals = self.names.originals()
        if self._known_cache is not None and self._known_cache[0] == len(originals):
            return self._known_cache[1]
        literal = {original: given for (kind, original), given in originals.items()
                   if kind != "user" and len(original) >= 3}
        users = {original: given for (kind, original), given in originals.items()
                 if kind == "user"}
        parts = [_literal(o) for o in sorted(literal, key=lambda o: (-len(o), o))]
        if users:
            names = "|".join(_literal(u) for u in sorted(users, key=lambda u: (-len(u), u)))
            parts.insert(0, f"{_HOME}(?:{names})\\b")
        self._known_cache = (len(originals), (literal, users, parts))
        return literal, users, parts

    def map_document(self) -> str:
        return self.names.map_document()


def _never(_text: str) -> bool:
    return False


def _literal(text: str) -> str:
    body = detectors.escape(text)
    if text[:1].isalnum():
        body = "\\b" + body
    if text[-1:].isalnum():
        body += "\\b"
    return body


def _resolve(row: str, replace: Callable[[str], str]) -> str:
    parts = row.split(START)
    out = [parts[0]]
    for part in parts[1:]:
        token, _, rest = part.partition(END)
        out.append(replace(token))
        out.append(rest)
    return "".join(out)


def _is_text(kind: pa.DataType) -> bool:
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _map_distinct(column: pa.Array, fn: Callable[[Sequence[str]], Iterable[str]]) -> pa.Array:
    """``fn`` applied to the distinct values of a text column (dictionary-encoded or not)."""
    if len(column) == 0:
        return column
    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
    values = encoded.dictionary
    if len(values) == 0:
        return column
    new = pa.array(list(fn(values.to_pylist())), type=values.type)
    if pa.types.is_dictionary(column.type):
        return pa.DictionaryArray.from_arrays(encoded.indices, new)
    return pc.take(new, encoded.indices).cast(column.type)
