"""Redact whole result values: a ``Diagnosis``, an ``IngestSummary``, anything built of
dataclasses, mappings, lists, tuples and text.

The walk is generic: every string of every field is redacted, so a section added to the
diagnosis later (a root cause, incidents, clock notes) is covered without a change here. The
field a string sits in says how: ``host``/``hosts`` hold identified host names, ``path``/
``paths`` hold paths (their host directory is learnt first); every other string is log text.
Rule metadata (``RuleInfo``) and the rule-written fields of a finding (id, name, category,
remediation, references...) come from the rule pack, not from the logs, and are kept.

Strings are collected first and redacted in one Arrow pass, then put back. Fingerprints are
then computed again from the redacted finding (rule, verdict, scope, the first message of each
evidence step), so they reveal nothing about the originals, and every reference to an old
fingerprint (suppressed-by-baseline reasons, other sections) is rewritten.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

from plogscan.model import Finding, RuleInfo
from plogscan.model.fingerprint import fingerprint
from plogscan.redact.redactor import Redactor

T = TypeVar("T")
HOST_FIELDS = frozenset({"host", "hosts"})
PATH_FIELDS = frozenset({"path", "paths"})
# Fields of a finding that the rule pack wrote: the same for every input, kept.
RULE_FIELDS = frozenset({"rule", "name", "category", "level", "verdict", "remediation",
                         "references", "missing", "role", "links", "explains", "fingerprint"})
_FINGERPRINT = re.compile(r"\b[0-9a-f]{16}\b")

Visit = Callable[[str, str], str]  # (text, how: "host" | "path" | "text") -> text


def _walk(value: Any, visit: Visit, how: str = "text") -> Any:
    if isinstance(value, Enum) or value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return visit(value, how)
    if isinstance(value, RuleInfo):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        finding = isinstance(value, Finding)
        for f in dataclasses.fields(value):
            if not f.init or (finding and f.name in RULE_FIELDS):
                continue
            old = getattr(value, f.name)
            new = _walk(old, visit, _how(f.name, how))
            if new is not old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, dict):
        return type(value)((_walk(k, visit, how), _walk(v, visit, _how(k, how)))
                           for k, v in value.items()) if value else value
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        return type(value)._make(_walk(v, visit, _how(n, how))
                                 for n, v in zip(value._fields, value, strict=True))
    if isinstance(value, list | tuple | set | frozenset):
        return type(value)(_walk(v, visit, how) for v in value)
    return value


def _how(name: object, inherited: str) -> str:
    """How the strings of a field (or mapping key) ``name`` are redacted."""
    if not isinstance(name, str):
        return inherited
    if name in HOST_FIELDS:
        return "host"
    if name in PATH_FIELDS:
        return "path"
    return "text"


def redact_value(value: T, redactor: Redactor) -> T:
    """``value`` with every string redacted, in one bulk pass (see the module docstring)."""
    hosts: dict[str, None] = {}
    texts: dict[str, None] = {}

    def collect(text: str, how: str) -> str:
        if how == "host":
            hosts[text] = None
        else:
            if how == "path":
                redactor.register_path(text)
            texts[text] = None
        return text

    _walk(value, collect)
    redactor.reserve([*hosts, *texts])  # before any name is handed out
    host_names = {h: redactor.host(h) or h for h in hosts}
    order = list(texts)
    done = dict(zip(order, redactor.texts_list(order), strict=True))
    return _walk(value, lambda text, how: host_names[text] if how == "host" else done[text])


def redact_diagnosis(diagnosis: T, redactor: Redactor) -> T:
    """A diagnosis with every output value redacted and its fingerprints recomputed."""
    redacted = redact_value(diagnosis, redactor)
    old_to_new: dict[str, str] = {}

    def refingerprint(value: Any, visit: Visit) -> Any:
        if isinstance(value, Finding):
            firsts: dict[str, str] = {}
            for ev in value.evidence:
                firsts.setdefault(ev.step, ev.message)
            new = fingerprint(value.rule, value.verdict.value, value.scope,
                              sorted(firsts.items()))
            old_to_new[value.fingerprint] = new
        return value

    _collect_findings(redacted, refingerprint)
    if not old_to_new:
        return redacted

    def swap(text: str, how: str) -> str:
        if text in old_to_new:
            return old_to_new[text]
        if len(text) >= 16 and _FINGERPRINT.search(text):
            return _FINGERPRINT.sub(lambda m: old_to_new.get(m.group(), m.group()), text)
        return text

    return _rewrite_fingerprints(redacted, swap)


def _collect_findings(value: Any, fn: Callable[[Any, Visit], Any]) -> None:
    """Call ``fn`` on every ``Finding`` inside ``value``."""
    if isinstance(value, Finding):
        fn(value, lambda t, h: t)
        return
    if isinstance(value, RuleInfo | str | Enum) or value is None:
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _collect_findings(getattr(value, f.name), fn)
    elif isinstance(value, dict):
        for v in value.values():
            _collect_findings(v, fn)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            _collect_findings(v, fn)


def _rewrite_fingerprints(value: Any, swap: Visit) -> Any:
    """``value`` with every old fingerprint (in findings too) replaced."""
    if isinstance(value, Finding):
        rest = _walk(value, swap)
        return dataclasses.replace(rest, fingerprint=swap(value.fingerprint, "text"))
    if isinstance(value, str):
        return swap(value, "text")
    if isinstance(value, Enum | RuleInfo) or value is None or isinstance(value, bool | int | float):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _rewrite_fingerprints(getattr(value, f.name), swap)
                   for f in dataclasses.fields(value) if f.init}
        return dataclasses.replace(value, **changes)
    if isinstance(value, dict):
        return type(value)((_rewrite_fingerprints(k, swap), _rewrite_fingerprints(v, swap))
                           for k, v in value.items())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)._make(_rewrite_fingerprints(v, swap) for v in value)
    if isinstance(value, list | tuple | set | frozenset):
        return type(value)(_rewrite_fingerprints(v, swap) for v in value)
    return value


def redacted_annotation(redactor: Redactor, annotate: Callable[[Any], Any] | None,
                        offsets: dict[str, int] | None
                        ) -> tuple[Callable[[Any], Any] | None, dict[str, int] | None]:
    """The finishing of a redacted event table: ``annotate`` (``crossrank.rows``) looks
    records up by the paths as read, and the identity it adds is redacted as the records
    were (host names and addresses by their pseudonyms); the offsets are keyed by the hosts'
    pseudonyms."""
    if annotate is not None:
        inner = annotate

        def annotate(table: Any) -> Any:
            import pyarrow as pa

            path = table.schema.get_field_index("path")
            host = table.schema.get_field_index("host")
            names = ("host", "host_ip", "communicator")
            # The identity's host where the record had none (the records' own are redacted)
            original = redactor.original_paths(table)
            original = original.set_column(host, original.schema.field(host),
                                           pa.nulls(len(original), original.schema.field(
                                               host).type))
            done = inner(original)
            found = pa.RecordBatch.from_arrays(
                [done.column(n).combine_chunks() for n in names], names=list(names))
            found = redactor.batch(found)
            done = done.set_column(path, done.schema.field(path), table.column(path))
            kept = done.schema.get_field_index("record_host")
            done = done.set_column(kept, done.schema.field(kept), table.column(host))
            for n in names:
                index = done.schema.get_field_index(n)
                column = found.column(n)
                if n == "host":
                    import pyarrow.compute as pc

                    own = table.column(host).combine_chunks()
                    column = pc.coalesce(_plain(own), _plain(column))
                    if pa.types.is_dictionary(own.type):
                        column = pc.dictionary_encode(column).cast(own.type)
                done = done.set_column(index, done.schema.field(index), column)
            return done
    if offsets:
        offsets = {redactor.host(host) or host: value for host, value in offsets.items()}
    return annotate, offsets


def _plain(column: Any) -> Any:
    import pyarrow as pa

    return column.dictionary_decode() if pa.types.is_dictionary(column.type) else column
