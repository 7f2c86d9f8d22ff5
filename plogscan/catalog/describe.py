"""A rule's description with its ``{placeholders}`` filled, worded for what the records hold.

Three conventions of rule texts make the sentence read naturally whatever the records hold:

* ``{count} record(s)`` (also ``(es)``, ``(ies)``) after a number placeholder takes the singular
  or the plural by the value: ``1 record``, ``3 records``, ``1 notify``, ``2 notifies``;
* a parenthesized list of facts, ``(peer {dest_ip}, peer rank {dest_rank}; role {role})`` or
  ``（对端 {dest_ip}，状态 {link_status}）``, leaves out each item whose value the records lack,
  and the whole parenthesis when none is known: a report never prints ``code ?``;
* ``[[...]]`` marks any other part that is left out when one of its values is unknown:
  ``a stream[[ on device {device_id}]] waited``.

A placeholder elsewhere whose value is unknown is left out with the space before it (the rule's
text should mark its clause instead). Values are substituted as they are, never interpreted,
and the structure is read from the rule's text, never from the values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_OPTIONAL = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
_PLURAL = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}(\s*)([A-Za-z]+)\((s|es|ies)\)")
_GROUP = re.compile(r"(?P<lead> ?)(?:\((?P<ascii>[^()]*)\)|（(?P<wide>[^（）]*)）)")
_ITEM_SEPARATOR = re.compile(r"(; |, |；|，|、)")

Lookup = Callable[[str], "str | None"]


def _plural(match: re.Match[str], lookup: Lookup) -> str:
    name, space, word, ending = match.groups()
    one = (lookup(name) or "").strip().replace(",", "") == "1"
    if ending == "ies":
        word = word if one else word[:-1] + "ies" if word.endswith("y") else word + "ies"
    elif not one:
        word += ending
    return f"{{{name}}}{space}{word}"


def _facts(match: re.Match[str], lookup: Lookup) -> str:
    inner = match["ascii"] if match["ascii"] is not None else match["wide"]
    if not PLACEHOLDER.search(inner):
        return match.group(0)
    parts = _ITEM_SEPARATOR.split(inner)
    items, separators = parts[0::2], parts[1::2]
    kept = [i for i, item in enumerate(items) if _known(item, lookup)]
    if len(kept) == len(items):
        return match.group(0)
    if not kept:
        return ""
    text = items[kept[0]]
    for before, item in pairwise(kept):  # the separator after the item kept
        text += separators[before] + items[item]
    opening, closing = ("(", ")") if match["ascii"] is not None else ("（", "）")
    return f"{match['lead']}{opening}{text}{closing}"


def _known(text: str, lookup: Lookup) -> bool:
    return all(lookup(name) is not None for name in PLACEHOLDER.findall(text))


def as_written(template: str) -> str:
    """The template for people to read (``rules show``, SARIF): the ``[[...]]`` marks off."""
    return _OPTIONAL.sub(lambda m: m.group(1), template)


def fill(template: str, lookup: Lookup) -> str:
    """``template`` with each placeholder replaced by ``lookup(name)`` (None: unknown)."""
    text = _OPTIONAL.sub(lambda m: m.group(1) if _known(m.group(1), lookup) else "", template)
    text = _PLURAL.sub(lambda m: _plural(m, lookup), text)
    text = _GROUP.sub(lambda m: _facts(m, lookup), text)
    text = PLACEHOLDER.sub(lambda m: "\0" if (v := lookup(m.group(1))) is None else v, text)
    return re.sub(r" ?\0", "", text)
