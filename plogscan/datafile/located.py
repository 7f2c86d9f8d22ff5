"""Strict YAML loading that keeps line numbers, for rule files and rule-case files.

PyYAML silently keeps the last of two equal keys and forgets where each value came from. Rule
authors need both problems caught and located, so this module composes the YAML node tree and
builds plain Python values from it: mappings become ``LMap`` (a dict that remembers the line of
each key and value), sequences become ``LList`` (a list that remembers the line of each item).
A repeated key, a non-string key or a YAML syntax error is a ``RuleError`` with ``file:line``.

Data files come from users and may be hostile. They cannot run code: only YAML's plain types
load (the safe loader; a ``!!python/...`` tag is an error), and nothing is evaluated. Their
cost is bounded: a file larger than ``MAX_FILE_BYTES`` is refused before it is read
(``read_data_file``), and aliases cannot blow up: a document that expands to more than
``MAX_VALUES`` values (a "billion laughs" file whose aliases refer to aliases) or nests
deeper than ``MAX_DEPTH`` (a recursive alias) is a located error.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, Any

from plogscan.errors import Location, RuleError

if TYPE_CHECKING:
    import yaml

MAX_FILE_BYTES = 1 << 20  # no rule, case or code-table file comes near this
MAX_VALUES = 100_000  # values a document may expand to, aliases counted every time used
MAX_DEPTH = 64  # nesting of mappings and lists


class DataFileError(ValueError):
    """A data file that cannot be read as text: too large, not a regular file, not UTF-8."""


def read_data_file(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a user's data file, refusing what is not a regular file or is larger
    than ``limit`` bytes before reading it. Raises ``OSError`` or ``DataFileError``."""
    with open(path, "rb", opener=lambda p, f: os.open(p, f | getattr(os, "O_NONBLOCK", 0))
              ) as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise DataFileError("not a regular file")
        if st.st_size > limit:
            raise DataFileError(f"the file is {st.st_size:,} bytes: larger than the "
                                f"{limit:,} bytes a data file may have")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise DataFileError(f"the file is larger than the {limit:,} bytes a data file may have")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataFileError(f"not UTF-8 text (byte {err.start})") from None


class _Budget:
    """Counts the values built from one document, aliases included."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.values = 0

    def spend(self, node: yaml.Node, depth: int) -> None:
        self.values += 1
        if self.values > MAX_VALUES:
            raise RuleError(f"the document expands to more than {MAX_VALUES:,} values",
                            where=Location(self.path, line_of(node)),
                            help="aliases (*name) that refer to aliases multiply; write the "
                            "values out, or use fewer aliases")
        if depth > MAX_DEPTH:
            raise RuleError(f"values nested more than {MAX_DEPTH} levels deep",
                            where=Location(self.path, line_of(node)),
                            help="an alias used inside its own anchor repeats for ever")


class LMap(dict):
    """A YAML mapping with the 1-based line of the mapping, of each key and of each value."""

    line: int
    key_lines: dict[str, int]
    value_lines: dict[str, int]


class LList(list):
    """A YAML sequence with the 1-based line of the sequence and of each item."""

    line: int
    item_lines: list[int]


def line_of(node: yaml.Node) -> int:
    """The 1-based line where a YAML node starts."""
    return node.start_mark.line + 1


def load_yaml(text: str, path: str) -> Any:
    """Parse one YAML document strictly; return ``LMap``/``LList``/scalars.

    Raises ``RuleError`` (located) for syntax errors, several documents, duplicate keys and
    keys that are not strings. An empty document gives ``None``. (YAML is imported here: a
    run that reads only compiled data does without it.)
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    plain_tags = frozenset(yaml.SafeLoader.yaml_constructors) - {None}
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        return _build(node, loader, path, _Budget(path), 0, plain_tags)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = err.problem or err.context or "invalid YAML"
        hint = None
        if "escape" in problem:
            hint = "write regexes and text with backslashes in single quotes: 'a\\d+'"
        elif "alias" in problem:
            hint = "define an anchor (&name) before the alias (*name) that uses it"
        raise RuleError(f"invalid YAML: {problem}", where=Location(path, line), help=hint) from None
    except yaml.YAMLError as err:
        raise RuleError(f"invalid YAML: {err}", where=Location(path)) from None
    finally:
        loader.dispose()


def _build(node: yaml.Node, loader: Any, path: str, budget: _Budget, depth: int,
           plain_tags: frozenset[str]) -> Any:
    """The value of ``node``; ``plain_tags`` are the tags of YAML's plain types."""
    import yaml

    budget.spend(node, depth)
    if node.tag not in plain_tags:
        shown = node.tag.replace("tag:yaml.org,2002:", "!!")
        raise RuleError(f"tag '{shown}' is not allowed", where=Location(path, line_of(node)),
                        help="data files hold plain values: text, numbers, booleans, lists "
                        "and mappings")
    if isinstance(node, yaml.MappingNode):
        return _build_map(node, loader, path, budget, depth, plain_tags)
    if isinstance(node, yaml.SequenceNode):
        out = LList(_build(item, loader, path, budget, depth + 1, plain_tags)
                    for item in node.value)
        out.line = line_of(node)
        out.item_lines = [line_of(item) for item in node.value]
        return out
    return loader.construct_object(node, deep=True)


def _build_map(node: yaml.MappingNode, loader: Any, path: str, budget: _Budget,
               depth: int, plain_tags: frozenset[str]) -> LMap:
    import yaml

    out = LMap()
    out.line = line_of(node)
    out.key_lines = {}
    out.value_lines = {}
    for key_node, value_node in node.value:
        where = Location(path, line_of(key_node))
        if not isinstance(key_node, yaml.ScalarNode):
            raise RuleError("keys must be text, got a mapping or a list", where=where,
                            help="quote the key")
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            raise RuleError(
                f"keys must be text, got {type(key).__name__} {key!r}",
                where=where,
                help="quote the key",
            )
        if key in out:
            raise RuleError(
                f"duplicate key '{key}'",
                where=where,
                help=f"'{key}' is already set at line {out.key_lines[key]}; keep one of them",
            )
        out[key] = _build(value_node, loader, path, budget, depth + 1, plain_tags)
        out.key_lines[key] = line_of(key_node)
        out.value_lines[key] = line_of(value_node)
    return out
