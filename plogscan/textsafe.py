"""Make hostile log text harmless to show: control characters become visible escapes.

Log text is attacker-controllable. Written raw to a terminal, ``\\x1b[2J`` clears the screen, a
carriage return overwrites what was printed before it, and a right-to-left override reorders
what the reader sees. In XML 1.0 most C0 characters are not even allowed. Every reporter that
shows log text to a person passes it through ``neutralize`` first, which writes each such
character as a visible Python-style escape (``\\x1b``, ``\\u202e``) and keeps the rest verbatim.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable

# C0 controls except TAB and LF, DEL, C1 controls (0x9b is an 8-bit CSI on some terminals),
# bidi embeddings/overrides/isolates, line/paragraph separators, lone surrogates (left by
# surrogateescape decoding) and the two non-characters XML 1.0 forbids.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ufffe\uffff]"
)
_UNSAFE_KEEP_NEWLINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def neutralize(text: str, *, keep_newlines: bool = True) -> str:
    """Return ``text`` with every control, bidi and XML-illegal character written as an escape.

    TAB is kept. LF is kept when ``keep_newlines`` (multi-line records join their lines with
    ``\\n``); a lone CR is always escaped, because on a terminal it rewinds the line.
    """
    if keep_newlines:
        return _UNSAFE_KEEP_NEWLINES.sub(_escape, text.replace("\r\n", "\n"))
    return _UNSAFE.sub(_escape, text).replace("\n", "\\n").replace("\t", " ")


def one_line(text: str, limit: int | None = None) -> str:
    """The line that names ``text`` (its first line, or what ``plogscan.headline`` picks for
    a record that spans lines), neutralized, cut to ``limit`` characters with an ellipsis."""
    if "\n" not in text:
        line = neutralize(text, keep_newlines=False)
    else:
        from plogscan.headline import headline  # Arrow's kernels, only for multi-line text

        line = neutralize(headline(text), keep_newlines=False) + " …"
    if limit is not None and len(line) > limit:
        line = line[: max(limit - 1, 0)] + "…"
    return line


# What ``json.dumps(ensure_ascii=False)`` leaves raw although a terminal acts on it (DEL, C1
# controls, bidi overrides), ``str.splitlines`` splits on it (U+2028/2029, U+0085), or UTF-8
# cannot encode it (lone surrogates). C0 controls are always escaped by ``json.dumps``.
_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ufffe\uffff]"
)


def json_escape(text: str) -> str:
    """JSON text with every unsafe character written as a ``\\uXXXX`` escape.

    Those characters can only occur inside JSON strings, where the escape decodes to the very
    same string: the document still carries the exact log text, but cannot reorder or control a
    terminal it is printed on, and JSON Lines stay one record per line.
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_text(document: object) -> str:
    """``document`` as deterministic JSON text: sorted keys, 2-space indent, UTF-8, final newline,
    unsafe characters escaped (``json_escape``)."""
    return json_escape(indented_json(document)) + "\n"


def indented_json(document: object) -> str:
    """The text of ``json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False)``,
    built in about a quarter of its time: with an indent the standard library encodes in
    Python through nested generators, a few MB of report costing a tenth of a second. This
    builds one list of pieces instead, and has the C encoder write each container of scalars
    (``_flat_json``). ``document`` is a tree (no container holds itself)."""
    parts: list[str] = []
    _encode(document, "", parts.append)
    return "".join(parts)


def _encode(value: object, pad: str, add: Callable[[str], None]) -> None:
    kind = type(value)
    if kind is str:
        add(_JSON_STRING(value))
    elif kind is dict:
        _encode_dict(value, pad, add)  # type: ignore[arg-type]
    elif kind is list or kind is tuple:
        _encode_list(value, pad, add)  # type: ignore[arg-type]
    elif kind is int:
        add(int.__repr__(value))  # type: ignore[arg-type]
    elif isinstance(value, str):
        add(_JSON_STRING(value))
    elif isinstance(value, dict):
        _encode_dict(value, pad, add)
    elif isinstance(value, (list, tuple)):
        _encode_list(value, pad, add)
    else:
        add(_scalar(value, "values"))


def _encode_list(value: list | tuple, pad: str, add: Callable[[str], None]) -> None:
    if _flat(value):
        add(_flat_json(value, pad))
    else:
        _encode_items(((None, item) for item in value), bool(value), "[]", pad, add)


def _encode_dict(value: dict, pad: str, add: Callable[[str], None]) -> None:
    if _flat(value.values()):
        add(_flat_json(value, pad))
    else:
        _encode_items(sorted(value.items()), bool(value), "{}", pad, add)


def _flat(items: Collection[object]) -> bool:
    """Whether a container holds items and only scalars or empty containers (a report's rows:
    file statistics, records, lists of paths)."""
    return bool(items) and _LEAVES.issuperset(map(type, filter(None, items)))  # at C speed


def _flat_json(value: list | tuple | dict, pad: str) -> str:
    """A ``_flat`` container written by the standard library's C encoder: indenting needs no
    more than the separator between items carrying the newline and the indent. It takes about
    a tenth of the time of ``_encode_items``."""
    encode = _FLAT_ENCODERS.get(pad)
    if encode is None:
        encode = _FLAT_ENCODERS[pad] = _flat_encoder(",\n" + pad + "  ")
    text = encode(value)
    return text[0] + "\n" + pad + "  " + text[1:-1] + "\n" + pad + text[-1]


def _flat_encoder(between: str) -> Callable[[object], str]:
    """``json.dumps(sort_keys=True, ensure_ascii=False)`` with ``between`` after each item's
    comma. The C encoder is called directly: ``JSONEncoder.encode`` makes a new one on every
    call, which costs as much as encoding a row."""
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    refuse = json.JSONEncoder().default  # raises json.dumps's TypeError
    try:
        # markers None: no check for a container holding itself, which a flat one cannot
        chunks = c_make_encoder(None, refuse, _JSON_STRING, None, ": ", between,  # type: ignore[misc]
                                True, False, True)
    except TypeError:  # no C accelerator in this interpreter, or another signature
        return json.JSONEncoder(ensure_ascii=False, sort_keys=True,
                                separators=(between, ": ")).encode
    return lambda value: "".join(chunks(value, 0))


def _encode_items(items: Iterable[tuple[object, object]], any_item: bool, brackets: str,
                  pad: str, add: Callable[[str], None]) -> None:
    """A list's items (key None) or a dict's, one per line, indented two spaces more."""
    if not any_item:
        add(brackets)
        return
    inner = pad + "  "
    between = ",\n" + inner
    add(brackets[0] + "\n" + inner)
    first = True
    for key, item in items:
        if not first:
            add(between)
        first = False
        if key is not None or brackets == "{}":
            add(_JSON_STRING(key if isinstance(key, str) else _scalar(key, "keys")) + ": ")
        _encode(item, inner, add)
    add("\n" + pad + brackets[1])


def _scalar(value: object, what: str) -> str:
    """A JSON number, boolean or null as ``json.dumps`` writes it (keys are quoted after)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (_INFINITY, -_INFINITY):
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    if what == "keys":
        raise TypeError(f"keys must be str, int, float, bool or None, not "
                        f"{value.__class__.__name__}")
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


_JSON_STRING = json.encoder.encode_basestring  # quoted and escaped as ensure_ascii=False does
_LEAVES = frozenset({str, int, float, bool, type(None)})  # what the C encoder writes as json.dumps
_FLAT_ENCODERS: dict[str, Callable[[object], str]] = {}  # by indent
_INFINITY = float("inf")
