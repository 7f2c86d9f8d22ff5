"""Small located validators shared by the rule and rule-case loaders.

Each check records a ``RuleError`` (file, line, what is wrong, the valid choices) in a
``Doc`` and returns None, so one pass over a file reports every problem in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from plogscan.datafile.located import LList, LMap
from plogscan.errors import Location, PlogscanError, RuleError, choices

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(us|ms|s|m|h|d)")
_UNIT_US = {"us": 1, "ms": 1_000, "s": 1_000_000, "m": 60_000_000, "h": 3_600_000_000}
_UNIT_US["d"] = 24 * _UNIT_US["h"]


class Doc:
    """The errors found in one file (``RuleError`` by default; data files of other kinds,
    such as the code tables, pass their own error class)."""

    error_type: type[PlogscanError] = RuleError

    def __init__(self, path: str) -> None:
        self.path = path
        self.errors: list[PlogscanError] = []

    def error(self, message: str, line: int, help: str | None = None) -> None:
        self.errors.append(self.error_type(message, where=Location(self.path, line), help=help))

    def mapping(self, value: object, line: int, what: str) -> LMap | None:
        if isinstance(value, LMap):
            return value
        self.error(f"{what} must be a mapping, got {describe_value(value)}", line)
        return None

    def keys(
        self, m: LMap, what: str, valid: Iterable[str], required: Iterable[str] = ()
    ) -> None:
        """Unknown keys (listing the valid ones) and missing required keys."""
        valid = sorted(valid)
        for key in m:
            if key not in valid:
                self.error(
                    f"unknown key '{key}' in {what}", m.key_lines[key],
                    help="valid keys are: " + ", ".join(valid),
                )
        for key in required:
            if key not in m:
                self.error(f"{what} is missing required key '{key}'", m.line)

    def text(self, m: LMap, key: str, what: str) -> str | None:
        """A non-empty text value (numbers are accepted and turned into text)."""
        if key not in m:
            return None
        value = m[key]
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            hint = None
            if isinstance(value, LMap):
                hint = "a value starting with '{' is read as a mapping: quote it or use '>-'"
            self.error(f"'{key}' of {what} must be text, got {describe_value(value)}",
                       m.value_lines[key], help=hint)
            return None
        text = str(value).strip()
        if not text:
            self.error(f"'{key}' of {what} must not be empty", m.value_lines[key])
            return None
        return text

    def text_list(self, m: LMap, key: str, what: str) -> tuple[str, ...] | None:
        """A list of non-empty texts."""
        if key not in m:
            return None
        value = m[key]
        if not isinstance(value, LList):
            self.error(f"'{key}' of {what} must be a list, got {describe_value(value)}",
                       m.value_lines[key])
            return None
        out: list[str] = []
        for item, line in zip(value, value.item_lines, strict=True):
            if isinstance(item, bool) or not isinstance(item, str | int) or not str(item).strip():
                self.error(f"items of '{key}' must be non-empty text, "
                           f"got {describe_value(item)}", line)
            else:
                out.append(str(item).strip())
        return tuple(out)

    def choice(self, m: LMap, key: str, what: str, valid: Iterable[str]) -> str | None:
        """A value from a closed set, listing the set when it is not one of them."""
        text = self.text(m, key, what)
        valid = sorted(valid)
        if text is not None and text not in valid:
            self.error(f"invalid {key} '{text}'", m.value_lines[key], help=choices(valid))
            return None
        return text

    def integer(self, m: LMap, key: str, what: str, minimum: int) -> int | None:
        if key not in m:
            return None
        value = m[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.error(f"'{key}' of {what} must be a whole number >= {minimum}, got {value!r}",
                       m.value_lines[key])
            return None
        return value

    def duration(self, m: LMap, key: str, what: str) -> int | None:
        """A time span like ``30s``, ``10m``, ``1h30m`` or ``250ms``, in microseconds."""
        if key not in m:
            return None
        value = m[key]
        us = parse_duration(value) if isinstance(value, str) else None
        if us is None or us <= 0:
            self.error(f"invalid duration {value!r} for '{key}' of {what}", m.value_lines[key],
                       help="write numbers with units, e.g. 30s, 10m, 1h30m, 250ms "
                       "(units: us, ms, s, m, h, d)")
            return None
        return us


def parse_duration(text: str) -> int | None:
    """``1h30m`` -> microseconds; None when the text is not a duration."""
    text = text.strip()
    pos, total = 0, 0.0
    for found in _DURATION.finditer(text):
        if found.start() != pos:
            return None
        total += float(found.group(1)) * _UNIT_US[found.group(2)]
        pos = found.end()
    if pos != len(text) or not text:
        return None
    return round(total)


def describe_value(value: object) -> str:
    """How a YAML value reads in an error message: 'a list', 'the text ...'."""
    if isinstance(value, LMap):
        return "a mapping"
    if isinstance(value, LList):
        return "a list"
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):  # a whole non-YAML file may arrive as one text
        return f"the text {value if len(value) <= 60 else value[:60] + '…'!r}"
    return f"{type(value).__name__} {value!r}"
