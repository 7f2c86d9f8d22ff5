"""Strict YAML loading that keeps line numbers, for rule files and rule-case files.

PyYAML silently keeps the last of two equal keys and forgets where each value came from. Rule
authors need both problems caught and located, so this module composes the YAML node tree and
builds plain Python values from it: mappings become ``LMap`` (a dict that remembers the line of
each key and value), sequences become ``LList`` (a list that remembers the line of each item).
A repeated key, a non-string key or a YAML syntax error is a ``RuleError`` with ``file:line``.
"""

from __future__ import annotations

from typing import Any

import yaml

from plogscan.errors import Location, RuleError

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
    keys that are not strings. An empty document gives ``None``.
    """
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        return _build(node, loader, path)
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


def _build(node: yaml.Node, loader: Any, path: str) -> Any:
    if isinstance(node, yaml.MappingNode):
        return _build_map(node, loader, path)
    if isinstance(node, yaml.SequenceNode):
        out = LList(_build(item, loader, path) for item in node.value)
        out.line = line_of(node)
        out.item_lines = [line_of(item) for item in node.value]
        return out
    return loader.construct_object(node, deep=True)


def _build_map(node: yaml.MappingNode, loader: Any, path: str) -> LMap:
    out = LMap()
    out.line = line_of(node)
    out.key_lines = {}
    out.value_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        where = Location(path, line_of(key_node))
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
        out[key] = _build(value_node, loader, path)
        out.key_lines[key] = line_of(key_node)
        out.value_lines[key] = line_of(value_node)
    return out
