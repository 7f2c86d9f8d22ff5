"""Line formats as data: read ``plogscan/parse/formats/*.yaml`` and compile them.

A format is an RE2 pattern with named groups that matches a *prefix* of a line; the rest of
the line is the message. Each format carries sample lines with the fields they must produce,
and every sample must parse to exactly those fields (lnav's rule: a format whose samples do
not parse is a bug in the format): ``formatcheck`` checks the built-in formats in the test
suite, and format files given to ``load_formats`` as they load.

Long module: it reads every part of a format file (formats with their bodies and block roles,
prefixes, strips, continuations), each with its checks and its located errors; split by part,
the grammar of one file would be spread over several modules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from plogscan.errors import ErrorGroup, FormatError, Location, choices
from plogscan.parse.firstbytes import first_bytes
from plogscan.parse.superset import start_pretest

FIELDS = ("level", "module", "pid", "proc", "ts", "tid", "src_file", "src_line", "rank", "device",
          "code")
TIMESTAMPS = ("cann", "generic")
_FORMAT_KEYS = {
    "name", "description", "primary", "timestamp", "pattern", "samples", "bodies", "module",
    "level", "levels", "keep_prefix", "alone", "pasted", "block",
}
# What a format's records are in a message that spans records (``parse.blocks``): the head of
# a Python traceback, the exception line that ends one, a record of an error-manager block,
# the part of a device exception dump after its head.
BLOCK_ROLES = ("traceback", "exception", "error-manager", "device-dump")
_BODY_KEYS = {"name", "pattern", "when_src_file_missing", "when_tid_missing"}
_PREFIX_KEYS = {"name", "description", "pattern", "samples"}
_STRIP_KEYS = {"name", "description", "pattern", "samples"}
_CONTINUATION_KEYS = {"name", "description", "pattern", "min_width", "samples"}
_FILE_KEYS = {"formats", "prefixes", "strip", "continuations"}
MAX_PREFIXES = 4  # rounds of prefix peeling per line (a quote, a service, a process...)
_GROUP = re.compile(r"\(\?P<(\w+)>")
_ALT_SUFFIX = re.compile(r"^(\w+?)_\d+$")


@dataclass(frozen=True)
class Body:
    """A module-specific body prefix tried on messages that still lack a field."""

    name: str
    pattern: str
    groups: tuple[str, ...]
    when_src_file_missing: bool = False
    when_tid_missing: bool = False


@dataclass(frozen=True)
class LineFormat:
    """One line shape: a prefix pattern, fixed values and the samples that prove it."""

    name: str
    pattern: str
    groups: tuple[str, ...]  # named groups, in pattern order
    timestamp: str | None = None
    primary: bool = False
    module: str | None = None
    level: str | None = None
    levels: dict[str, str] = field(default_factory=dict)
    keep_prefix: bool = False
    alone: bool = False  # its records take no continuation lines (markdown fences, <details>)
    pasted: bool = False  # a shape of pasted text and job output only, never of a CANN file

    @property
    def text_only(self) -> bool:
        """Whether the format is read only in job output and pasted text."""
        return self.alone or self.pasted
    block: str | None = None  # its part in a message that spans records (BLOCK_ROLES)
    bodies: tuple[Body, ...] = ()
    samples: tuple[tuple[str, dict[str, Any], Location], ...] = ()

    @property
    def anchored(self) -> str:
        """The pattern anchored at line start with the whole match captured as ``_all``."""
        return f"^(?P<_all>{self.pattern})"


@dataclass(frozen=True)
class Prefix:
    """A prefix that a tool put in front of a log line (``[rank3]:``, ``(Worker pid=8)``, a
    docker-compose service, a ``> `` quote) taken off before the formats are tried on the line
    inside. Prefixes are taken off in up to ``MAX_PREFIXES`` rounds, each trying every prefix
    in file order, so they may come in any order; the fields they name (pid, rank, level...)
    fill what the inner line does not say."""

    name: str
    pattern: str
    groups: tuple[str, ...]
    samples: tuple[tuple[str, dict[str, Any], Location], ...] = ()


@dataclass(frozen=True)
class Strip:
    """Text taken out of every line before anything is matched (terminal colour codes). The
    pattern is a Python regex over bytes; it never matches a newline."""

    name: str
    pattern: str
    compiled: re.Pattern[bytes]
    trigger: frozenset[int] | None  # a text holds one of these bytes when the pattern can match
    samples: tuple[tuple[str, str, Location], ...] = ()  # (line, the line stripped)

    def apply(self, data: bytes) -> bytes:
        """``data`` without the pattern's matches (unchanged when no trigger byte is there)."""
        if self.trigger is not None and not any(bytes((b,)) in data for b in self.trigger):
            return data
        return self.compiled.sub(b"", data)


@dataclass(frozen=True)
class Continuation:
    """A line that continues the record before it although it does not look like it: a line
    a terminal re-wrapped. It follows a line that a prefix started and that the terminal cut
    (one of the widest lines of the text, at least ``min_width`` bytes wide), has no prefix of
    its own, matches no format and starts with ``pattern``. Its text is joined to the line
    before without a newline."""

    name: str
    pattern: str
    min_width: int
    samples: tuple[tuple[str, str, Location], ...] = ()  # (lines, the record's message)


@dataclass(frozen=True)
class FormatSet:
    """All formats: the primary one first, then the others in file order, and the prefixes,
    strips and continuations."""

    formats: tuple[LineFormat, ...]
    prefixes: tuple[Prefix, ...]
    strips: tuple[Strip, ...] = ()
    continuations: tuple[Continuation, ...] = ()

    @property
    def primary(self) -> LineFormat:
        return self.formats[0]

    @cached_property
    def secondary_start_bytes(self) -> np.ndarray | None:
        """A 256-entry mask of the bytes a line can start with for any prefix or any format
        but the primary to match it; None when any byte can."""
        mask, unknown = _start_bytes([p.pattern for p in self.prefixes]
                                     + [f.pattern for f in self.formats[1:]])
        return None if unknown else mask

    @cached_property
    def secondary_pretest(self) -> str | None:
        """A pattern for the start of any line a prefix or a secondary format may take."""
        return start_pretest([p.pattern for p in self.prefixes]
                             + [f.pattern for f in self.formats[1:]])

    @cached_property
    def prefix_starts(self) -> tuple[np.ndarray | None, ...]:
        """For each prefix, a 256-entry mask of the bytes a line can start with for it to
        match (None: any byte)."""
        return tuple(_start_mask(p.pattern) for p in self.prefixes)

    @cached_property
    def format_starts(self) -> tuple[np.ndarray | None, ...]:
        """For each format, what ``prefix_starts`` is for each prefix."""
        return tuple(_start_mask(f.pattern) for f in self.formats)

    @cached_property
    def start_bytes(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """The bytes a line can start with for any format or prefix to match it (a 256-entry
        mask), and the patterns of which any byte may be the first."""
        return _start_bytes([p.pattern for p in self.prefixes] + [f.pattern for f in self.formats])


def _start_mask(pattern: str) -> np.ndarray | None:
    found = first_bytes(pattern)
    if found is None:
        return None
    mask = np.zeros(256, bool)
    mask[list(found)] = True
    return mask


def _start_bytes(patterns: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    mask = np.zeros(256, bool)
    unknown = []
    for pattern in patterns:
        found = first_bytes(pattern)
        if found is None:
            unknown.append(pattern)
        else:
            mask[list(found)] = True
    return mask, tuple(unknown)


def field_of(group: str) -> str:
    """Map an alternative group name (``tid_2``) to its field (``tid``)."""
    if group in FIELDS:
        return group
    m = _ALT_SUFFIX.match(group)
    return m.group(1) if m else group


def _groups(pattern: str, where: Location, errors: list[FormatError]) -> tuple[str, ...]:
    names = tuple(_GROUP.findall(pattern))
    for name in names:
        if field_of(name) not in FIELDS:
            errors.append(FormatError(f"unknown field group '{name}'", where=where,
                                      help=choices(FIELDS)))
    try:
        pc.extract_regex_span(pa.array([""], pa.string()), f"^(?P<_all>{pattern})")
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
        errors.append(FormatError(f"pattern is not valid RE2: {err}", where=where,
                                  help="use RE2 syntax: no look-around, no backreferences; "
                                       "every group must be named (?P<name>...) or (?:...)"))
    return names


@lru_cache(maxsize=1)
def _line_loader() -> type:
    """A safe loader (LibYAML's, 5x faster, when there) recording lines and refusing repeated
    keys; made, and YAML imported, only when a format file is read (a run reads the formats'
    compiled form)."""
    import yaml

    def construct_mapping(loader: Any, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key}' (first at line {seen[key] + 1})",
                    key_node.start_mark)
            seen[key] = key_node.start_mark.line
        mapping = loader.construct_mapping(node, deep=deep)
        mapping["__line__"] = node.start_mark.line + 1
        return mapping

    loader = type("LineLoader", (getattr(yaml, "CSafeLoader", yaml.SafeLoader),), {})
    loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return loader


def _check_keys(data: dict, valid: set[str], where: Location, what: str,
                errors: list[FormatError]) -> None:
    for key in data:
        if key != "__line__" and key not in valid:
            errors.append(FormatError(f"unknown key '{key}' in {what}", where=where,
                                      help=choices(valid)))


@dataclass
class _Parts:
    """What one format file holds."""

    formats: list[LineFormat] = field(default_factory=list)
    prefixes: list[Prefix] = field(default_factory=list)
    strips: list[Strip] = field(default_factory=list)
    continuations: list[Continuation] = field(default_factory=list)


def _load_file(path: Path, errors: list[FormatError]) -> _Parts:
    import yaml

    parts = _Parts()
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_line_loader())
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        errors.append(FormatError(f"invalid YAML: {getattr(err, 'problem', err)}",
                                  where=Location(str(path), mark.line + 1 if mark else 0)))
        return parts
    where = Location(str(path), 1)
    if not isinstance(doc, dict):
        errors.append(FormatError("a format file must be a mapping", where=where))
        return parts
    _check_keys(doc, _FILE_KEYS, where, "format file", errors)
    parts.formats = [f for item in doc.get("formats", [])
                     if (f := _format(path, item, errors)) is not None]
    for item in doc.get("prefixes", []):
        loc = Location(str(path), item.get("__line__", 0))
        if _named(item, "prefix", loc, _PREFIX_KEYS, errors):
            parts.prefixes.append(_prefix(path, item, loc, errors))
    for item in doc.get("strip", []):
        loc = Location(str(path), item.get("__line__", 0))
        if _named(item, "strip", loc, _STRIP_KEYS, errors):
            strip = _strip(path, item, loc, errors)
            if strip is not None:
                parts.strips.append(strip)
    for item in doc.get("continuations", []):
        loc = Location(str(path), item.get("__line__", 0))
        if _named(item, "continuation", loc, _CONTINUATION_KEYS, errors):
            parts.continuations.append(_continuation(path, item, loc, errors))
    return parts


def _named(item: Any, what: str, loc: Location, keys: set[str],
           errors: list[FormatError]) -> bool:
    """Whether ``item`` is a mapping with a name and a pattern (errors recorded if not)."""
    if not isinstance(item, dict):
        errors.append(FormatError(f"a {what} must be a mapping", where=loc))
        return False
    _check_keys(item, keys, loc, what, errors)
    missing = [k for k in ("name", "pattern") if k not in item]
    if missing:
        errors.append(FormatError(f"{what} lacks {', '.join(missing)}", where=loc))
    return not missing


def _samples(path: Path, item: dict, what: str, loc: Location, errors: list[FormatError],
             value: str) -> list[tuple[str, Any, Location]]:
    """The ``samples`` of an entry: (line or text, its ``value`` key, location)."""
    out = []
    for sample in item.get("samples", []):
        sloc = Location(str(path), sample.get("__line__", 0))
        got = sample.get(value)
        if value == "fields":
            got = {k: v for k, v in (got or {}).items() if k != "__line__"}
        elif got is None:
            errors.append(FormatError(f"{what} sample lacks '{value}'", where=sloc))
            continue
        out.append((str(sample.get("line", sample.get("text", ""))), got, sloc))
    if not out:
        errors.append(FormatError(f"{what} '{item['name']}' has no samples", where=loc,
                                  help=f"every {what} carries samples that prove it"))
    return out


def _prefix(path: Path, item: dict, loc: Location, errors: list[FormatError]) -> Prefix:
    pattern = str(item["pattern"])
    groups = _groups(pattern, loc, errors)
    try:
        if re.match(f"(?:{pattern})", ""):
            errors.append(FormatError(f"prefix '{item['name']}' matches an empty line",
                                      where=loc, help="a prefix must take at least one byte"))
    except re.error:
        pass  # reported by _groups as invalid RE2
    return Prefix(str(item["name"]), pattern, groups,
                  tuple(_samples(path, item, "prefix", loc, errors, "fields")))


def _strip(path: Path, item: dict, loc: Location, errors: list[FormatError]) -> Strip | None:
    pattern = str(item["pattern"])
    try:
        compiled = re.compile(pattern.encode("utf-8"))
    except re.error as err:
        errors.append(FormatError(f"strip pattern is not a valid regex: {err}", where=loc))
        return None
    if compiled.search(b"\n") or compiled.match(b""):
        errors.append(FormatError(f"strip '{item['name']}' can match a newline or nothing",
                                  where=loc, help="a strip pattern takes text off lines, never "
                                  "whole lines and never an empty match"))
    samples = [(line, str(text), where) for line, text, where
               in _samples(path, item, "strip", loc, errors, "stripped")]
    return Strip(str(item["name"]), pattern, compiled, first_bytes(pattern), tuple(samples))


def _continuation(path: Path, item: dict, loc: Location,
                  errors: list[FormatError]) -> Continuation:
    pattern = str(item["pattern"])
    _groups(pattern, loc, errors)
    width = item.get("min_width", 0)
    if not isinstance(width, int) or isinstance(width, bool) or width < 0:
        errors.append(FormatError(f"min_width must be a number of bytes, not {width!r}",
                                  where=loc))
        width = 0
    samples = [(text, str(message), where) for text, message, where
               in _samples(path, item, "continuation", loc, errors, "message")]
    return Continuation(str(item["name"]), pattern, width, tuple(samples))


def _format(path: Path, item: dict, errors: list[FormatError]) -> LineFormat | None:
    loc = Location(str(path), item.get("__line__", 0))
    _check_keys(item, _FORMAT_KEYS, loc, "format", errors)
    missing = [k for k in ("name", "pattern") if k not in item]
    if missing:
        errors.append(FormatError(f"format lacks {', '.join(missing)}", where=loc))
        return None
    if item.get("timestamp") not in (None, *TIMESTAMPS):
        errors.append(FormatError(f"unknown timestamp grammar '{item['timestamp']}'",
                                  where=loc, help=choices(TIMESTAMPS)))
    if item.get("block") not in (None, *BLOCK_ROLES):
        errors.append(FormatError(f"unknown block role '{item['block']}'", where=loc,
                                  help=choices(BLOCK_ROLES)))
    bodies = []
    for body in item.get("bodies", []):
        bloc = Location(str(path), body.get("__line__", 0))
        _check_keys(body, _BODY_KEYS, bloc, "body", errors)
        bodies.append(Body(body["name"], body["pattern"], _groups(body["pattern"], bloc, errors),
                           bool(body.get("when_src_file_missing")),
                           bool(body.get("when_tid_missing"))))
    samples = []
    for sample in item.get("samples", []):
        sloc = Location(str(path), sample.get("__line__", 0))
        fields = {k: v for k, v in (sample.get("fields") or {}).items() if k != "__line__"}
        samples.append((str(sample.get("line", "")), fields, sloc))
    if not samples:
        errors.append(FormatError(f"format '{item['name']}' has no samples", where=loc,
                                  help="every format carries sample lines with their fields"))
    return LineFormat(
        name=str(item["name"]), pattern=str(item["pattern"]),
        groups=_groups(str(item["pattern"]), loc, errors), timestamp=item.get("timestamp"),
        primary=bool(item.get("primary")), module=item.get("module"), level=item.get("level"),
        levels={str(k): str(v) for k, v in (item.get("levels") or {}).items() if k != "__line__"},
        keep_prefix=bool(item.get("keep_prefix")), alone=bool(item.get("alone")),
        pasted=bool(item.get("pasted")),
        block=item.get("block"), bodies=tuple(bodies), samples=tuple(samples))


def read_formats(paths: Sequence[Path] | None = None) -> FormatSet:
    """Read and compile format files (the built-in ones by default), without parsing their
    samples: ``formatcheck.load_formats`` does that with the real parser, which this module
    cannot import (the parser is built on it)."""
    if paths is None:
        paths = builtin_format_files()
    errors: list[FormatError] = []
    every = _Parts()
    for path in paths:
        parts = _load_file(Path(path), errors)
        every.formats += parts.formats
        every.prefixes += parts.prefixes
        every.strips += parts.strips
        every.continuations += parts.continuations
    formats = every.formats
    primaries = [f for f in formats if f.primary]
    if len(primaries) != 1:
        errors.append(FormatError(f"exactly one format must be primary, found {len(primaries)}",
                                  where=Location(", ".join(str(p) for p in paths))))
    if errors:
        raise ErrorGroup(errors)
    ordered = tuple(primaries + [f for f in formats if not f.primary])
    return FormatSet(ordered, tuple(every.prefixes), tuple(every.strips),
                     tuple(every.continuations))


def builtin_format_files() -> list[Path]:
    """The built-in format files, in the order they are read."""
    base = resources.files("plogscan.parse") / "formats"
    return sorted(Path(str(p)) for p in base.iterdir() if p.name.endswith(".yaml"))
