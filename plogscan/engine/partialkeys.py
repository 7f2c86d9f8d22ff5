"""Groups of a ``by`` rule whose key misses values, folded into the group they belong to.

A record without a pid (or another ``by`` field) forms a group of its own; when exactly one
other group agrees with it, it is that group's record. The groups are ``correlate`` samples
(anything with ``merged``).
"""

from __future__ import annotations

from typing import Any


def fold_partial_keys(groups: dict[Any, Any], by: tuple[str, ...]) -> None:
    """Merge each group whose key misses values (None, except the host) into the one other
    group equal to it on every field it has and on the host, if there is exactly one (most
    incomplete keys first; looked up by one index per pattern of missing fields, which keeps
    the groups merged away later: they are skipped)."""
    fixed = tuple(name == "host" for name in by)

    def nulls(key: tuple) -> int:
        return sum(v is None and not host for v, host in zip(key, fixed, strict=True))

    def pattern(key: tuple) -> tuple[bool, ...]:  # the fields another key must equal
        return tuple(v is not None or host for v, host in zip(key, fixed, strict=True))

    def values(key: tuple, fields: tuple[bool, ...]) -> tuple:
        return tuple(v for v, used in zip(key, fields, strict=True) if used)

    indexes: dict[tuple[bool, ...], dict[tuple, list[Any]]] = {}
    for key in sorted((k for k in groups if nulls(k)), key=nulls, reverse=True):
        fields = pattern(key)
        if fields not in indexes:
            index: dict[tuple, list[Any]] = {}
            for other in groups:
                index.setdefault(values(other, fields), []).append(other)
            indexes[fields] = index
        fits = [k for k in indexes[fields].get(values(key, fields), ())
                if k != key and k in groups]
        if len(fits) == 1:
            groups[fits[0]] = groups[fits[0]].merged(groups.pop(key))
