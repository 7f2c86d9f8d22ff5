"""Line formats as data: read ``plogscan/parse/formats/*.yaml`` and compile them.

A format is an RE2 pattern with named groups that matches a *prefix* of a line; the rest of
the line is the message. Each format carries sample lines with the fields they must produce,
and loading fails unless every sample parses to exactly those fields (lnav's rule: a format
whose samples do not parse is a bug in the format, caught before any log is read).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import yaml

from plogscan.errors import ErrorGroup, FormatError, Location, choices
from plogscan.parse.firstbytes import first_bytes

FIELDS = ("level", "module", "pid", "proc", "ts", "tid", "src_file", "src_line", "rank", "device",
          "code")
TIMESTAMPS = ("cann", "generic")
_FORMAT_KEYS = {
    "name", "description", "primary", "timestamp", "pattern", "samples", "bodies", "module",
    "level", "levels", "keep_prefix",
}
_BODY_KEYS = {"name", "pattern", "when_src_file_missing", "when_tid_missing"}
_PREFIX_KEYS = {"name", "description", "pattern"}
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
    bodies: tuple[Body, ...] = ()
    samples: tuple[tuple[str, dict[str, Any], Location], ...] = ()

    @property
    def anchored(self) -> str:
        """The pattern anchored at line start with the whole match captured as ``_all``."""
        return f"^(?P<_all>{self.pattern})"


@dataclass(frozen=True)
class Prefix:
    """A framework prefix (``[rank3]:``, ``(train pid=8)``) taken off before matching formats."""

    name: str
    pattern: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class FormatSet:
    """All formats: the primary one first, then the others in file order, and the prefixes."""

    formats: tuple[LineFormat, ...]
    prefixes: tuple[Prefix, ...]

    @property
    def primary(self) -> LineFormat:
        return self.formats[0]

    @cached_property
    def secondary_start_bytes(self) -> np.ndarray | None:
        """A 256-entry mask of the bytes a line can start with for any prefix or any format
        but the primary to match it; None when any byte can."""
        mask = np.zeros(256, bool)
        for pattern in [p.pattern for p in self.prefixes] + [f.pattern for f in self.formats[1:]]:
            found = first_bytes(pattern)
            if found is None:
                return None
            mask[list(found)] = True
        return mask


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


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that records line numbers and rejects duplicate keys."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
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


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _check_keys(data: dict, valid: set[str], where: Location, what: str,
                errors: list[FormatError]) -> None:
    for key in data:
        if key != "__line__" and key not in valid:
            errors.append(FormatError(f"unknown key '{key}' in {what}", where=where,
                                      help=choices(valid)))


def _load_file(path: Path, errors: list[FormatError]) -> tuple[list[LineFormat], list[Prefix]]:
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_LineLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        errors.append(FormatError(f"invalid YAML: {getattr(err, 'problem', err)}",
                                  where=Location(str(path), mark.line + 1 if mark else 0)))
        return [], []
    where = Location(str(path), 1)
    if not isinstance(doc, dict):
        errors.append(FormatError("a format file must be a mapping", where=where))
        return [], []
    _check_keys(doc, {"formats", "prefixes"}, where, "format file", errors)
    formats = [_format(path, item, errors) for item in doc.get("formats", [])]
    prefixes = []
    for item in doc.get("prefixes", []):
        loc = Location(str(path), item.get("__line__", 0))
        _check_keys(item, _PREFIX_KEYS, loc, "prefix", errors)
        groups = _groups(item["pattern"], loc, errors)
        prefixes.append(Prefix(item["name"], item["pattern"], groups))
    return [f for f in formats if f is not None], prefixes


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
        keep_prefix=bool(item.get("keep_prefix")), bodies=tuple(bodies), samples=tuple(samples))


def read_formats(paths: Sequence[Path] | None = None) -> FormatSet:
    """Read and compile format files (the built-in ones by default), without parsing their
    samples: ``formatcheck.load_formats`` does that with the real parser, which this module
    cannot import (the parser is built on it)."""
    if paths is None:
        base = resources.files("plogscan.parse") / "formats"
        paths = sorted(Path(str(p)) for p in base.iterdir() if p.name.endswith(".yaml"))
    errors: list[FormatError] = []
    formats: list[LineFormat] = []
    prefixes: list[Prefix] = []
    for path in paths:
        fmts, pres = _load_file(Path(path), errors)
        formats += fmts
        prefixes += pres
    primaries = [f for f in formats if f.primary]
    if len(primaries) != 1:
        errors.append(FormatError(f"exactly one format must be primary, found {len(primaries)}",
                                  where=Location(", ".join(str(p) for p in paths))))
    if errors:
        raise ErrorGroup(errors)
    ordered = tuple(primaries + [f for f in formats if not f.primary])
    return FormatSet(ordered, tuple(prefixes))
