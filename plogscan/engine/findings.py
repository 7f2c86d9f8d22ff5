"""Turn what a rule concluded (``Occurrence``) into a ``Finding``: evidence, scope, times,
captures, the description with its ``{placeholders}`` filled, and the fingerprint.

Placeholder and ``show`` names resolve in this order: the specials ``count``, ``elapsed`` and
``scope``; named regex captures (the first non-empty value of the step records in evidence
order, then of the context records, latest first); columns of the trigger record (the one that
filled the last step), else of the first evidence record that has one.
A parenthesized fact whose value is unknown is left out, and ``record(s)`` agrees with its
number (``catalog.describe``). Log text is substituted as it is, never interpreted.

With an ``Identify`` function (the cross-rank stage's view of the whole input), each record's
host, rank and device are those of its process (a debug plog line gets the rank its run plog
announced), its scope names the host process, and the scope says where the identity came from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from plogscan.catalog.describe import fill
from plogscan.catalog.rule import Rule, Sequence
from plogscan.engine.correlate import Occurrence, Row
from plogscan.engine.words import scope_words, words
from plogscan.model import Evidence, Finding, Scope
from plogscan.model.fingerprint import fingerprint

# A record's columns -> what the whole input says of its process: host, rank, device, pid (the
# host process), identity ("content", "path" or "assumed"); None when nothing is known.
Identify = Callable[[dict[str, Any]], dict[str, Any] | None]
_IDENTITY_ORDER = {"content": 0, "path": 1, "assumed": 2}
MAX_VALUE = 200  # characters of one capture or placeholder value


def build_finding(rule: Rule, occ: Occurrence, identify: Identify | None = None,
                  lang: str = "en") -> Finding:
    """The finding for one occurrence of ``rule`` (identities filled by ``identify``; the
    scope's words in ``lang``)."""
    if identify is not None:
        occ = _identified(occ, identify)
    context = {s.id for s in rule.body.context} if isinstance(rule.body, Sequence) else set()
    evidence = tuple(_evidence(step, row) for step, row in occ.items)
    sources = {r.cols.get("identity") for _, r in occ.items} - {None}
    scope = Scope(
        hosts=_distinct(r.cols["host"] for _, r in occ.items),
        ranks=_distinct(r.cols["rank"] for _, r in occ.items),
        pids=_distinct(r.cols.get("host_pid", r.cols["pid"]) for _, r in occ.items),
        devices=_distinct(r.cols["device"] for _, r in occ.items),
        identity=max(sources, key=_IDENTITY_ORDER.__getitem__) if sources else None,
    )
    times = [r.ts for step, r in occ.items if step not in context and r.ts is not None]
    caps = _captures(occ, context)
    rows = [occ.trigger] + [r for _, r in occ.items]
    values = {**caps, **occ.specials, "scope": _scope(rows, lang)}

    def lookup(name: str) -> str | None:
        if name in values:
            return values[name]
        return next((_text(r.cols[name]) for r in rows if r.cols.get(name) is not None), None)

    shown = {n: v for n in rule.show if (v := lookup(n)) is not None} if rule.show else values
    keys = [(step, row.cols["message"] or "") for step, row in occ.key_steps]
    return Finding(
        fingerprint=fingerprint(rule.id, occ.verdict.value, scope, keys),
        rule=rule.id,
        name=rule.name,
        title=rule.title,
        category=rule.category,
        level=rule.level,
        verdict=occ.verdict,
        description=occ.description or fill(rule.description, lookup),
        scope=scope,
        first_ts=min(times) if times else None,
        last_ts=max(times) if times else None,
        evidence=evidence,
        remediation=rule.remediation,
        references=rule.references,
        missing=occ.missing,
        captures=tuple(sorted(shown.items())),
        role=rule.role,
        links=rule.links,
        explains=rule.explains,
    )


def _identified(occ: Occurrence, identify: Identify) -> Occurrence:
    """``occ`` with every record's identity columns replaced by its process's."""
    done: dict[int, Row] = {}

    def one(row: Row) -> Row:
        if id(row) not in done:
            found = identify(row.cols) or {}
            cols = dict(row.cols)
            for name in ("host", "rank", "device"):
                if found.get(name) is not None:
                    cols[name] = found[name]
            if found.get("pid") is not None:
                cols["host_pid"] = found["pid"]
            cols["identity"] = found.get("identity")
            done[id(row)] = replace(row, cols=cols)
        return done[id(row)]

    return replace(occ, items=[(s, one(r)) for s, r in occ.items], trigger=one(occ.trigger),
                   key_steps=[(s, one(r)) for s, r in occ.key_steps])


def _captures(occ: Occurrence, context: set[str]) -> dict[str, str]:
    """First non-empty value per name: step records in order, then context records, latest
    first (the context record nearest to the first step is the most telling)."""
    steps = [(s, r) for s, r in occ.items if s not in context]
    extra = [(s, r) for s, r in reversed(occ.items) if s in context]
    out: dict[str, str] = {}
    for step, row in steps + extra:
        for name, value in row.caps.get(step, {}).items():
            if value and name not in out:
                out[name] = _text(value)
    return out


def _scope(rows: list[Row], lang: str = "en") -> str:
    """``process 4127 on host worker-0 (rank 0)``: who wrote the trigger, in words."""
    def first(name: str) -> Any:
        return next((r.cols[name] for r in rows if r.cols.get(name) not in (None, "")), None)

    pid, host, rank = first("host_pid") or first("pid"), first("host"), first("rank")
    if first("identity") == "assumed":
        path = first("path") or words(lang, "the input")
        return words(lang, "{path} (taken as one process: it names no process)", path=path)
    return scope_words(pid, host, rank, lang)


def _evidence(step: str, row: Row) -> Evidence:
    c = row.cols
    line, count = c["line"] or 0, c["line_count"] or 1
    before = c.get("context_before") or ()
    after = c.get("context_after") or ()
    return Evidence(
        path=c["path"] or "", line=line, ts=c["ts"], message=c["message"] or "",
        step=step, level=c["level"], module=c["module"], pid=c["pid"], rank=c["rank"],
        host=c["host"], device=c["device"], line_count=count,
        # the lines around the record, as the parse workers took them (``ingest.contextlines``)
        context_before=tuple(zip(range(line - len(before), line), before, strict=True)),
        context_after=tuple(zip(range(line + count, line + count + len(after)), after,
                                strict=True)),
    )


def _distinct(values: Any) -> tuple:
    return tuple(sorted({v for v in values if v is not None and v != ""}))


def _text(value: Any) -> str:
    if isinstance(value, datetime):
        text = value.isoformat(sep=" ")
    elif isinstance(value, list | tuple):
        text = ",".join(str(v) for v in value)
    else:
        text = str(value)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"
