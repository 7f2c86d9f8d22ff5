"""Unexplained errors: ERROR records no finding explains, clustered into templates.

A new failure mode has no rule yet, so its records would be lost among the ones the rules
explain. ``Unexplained`` watches the same batches the engine reads (like ``Overview``) and
turns the line that names each ERROR record (its first line; a table's title and first data
row, a traceback's exception line: ``plogscan.headline``) into a template the way Drain-style
miners do: error codes are kept, then timestamps, paths, IP addresses, hex values and ids, and
numbers are masked. A record named by structure alone (a table's ruler or column header that
no table took in) is no error of its own and is left out. Masking runs vectorized over the
ERROR rows of a batch (``pyarrow.compute.replace_substring_regex``); grouping is done by
Arrow, and only the small set of distinct templates of a batch is merged in Python.

Memory is bounded: at most ``max_templates`` templates are kept (the earliest-seen ones);
records of templates pushed out are counted in ``overflow_records``. Each template keeps at
most ``MAX_MEMBERS`` ranks and as many processes (host and pid): past that, a template's
process count is that many, a lower bound (``members_dropped`` counts what was left out), and
its ranks are those it kept. After the scan,
``result(findings)`` drops every template that a finding's evidence also produces (it is
explained) and ranks the rest by how early they first appeared, then on how few ranks: a
new root cause usually shows first, on one rank.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import pyarrow as pa
import pyarrow.compute as pc

from plogscan.headline import headlines, structure
from plogscan.model import Finding, UnexplainedExample, UnexplainedTemplate

RankOf = Callable[[str, int], "int | None"]  # a process's rank, by host and pid

MAX_TEMPLATES = 5000
MAX_MEMBERS = 1024  # ranks, and processes, kept per template
KEEP = 100  # templates handed to the reports
LINE_CHARS = 500  # first-line characters looked at (and shown as the example)
_KEEP_MARK = "QQKEEPQQ"  # a word prefix no mask matches; protects codes, removed at the end
_SEP = "[^A-Za-z0-9]"  # what separates tokens (``_`` too, as Drain3's default masks treat it)

# (RE2 pattern, replacement, passes). RE2 has no look-around, so a separator before a token
# is captured and put back; where the separator after it is consumed too, a second pass catches
# the neighbour (``a1,b2`` -> ``<HEX>,<HEX>``).
MASKS: tuple[tuple[str, str, int], ...] = (
    # keep codes: ACL ``507035``, error-manager ``EI0002``, torch_npu ``ERR02200`` (first:
    # ``mask(keep_codes=False)`` leaves it out)
    (rf"(^|{_SEP})([125]0[0-9]{{4}}|[EW][0-9A-Z][0-9]{{4}}|ERR[0-9]{{5}})({_SEP}|$)",
     rf"\1{_KEEP_MARK}\2\3", 2),
    (r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}[-T ][0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:[.:,][0-9]+)*", "<TS>", 1),
    (r"(^|[^0-9])[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?", r"\1<TS>", 1),
    (r"[\w.~-]*(?:/[\w.~-]+){2,}/?", "<PATH>", 1),
    (r"(^|[^0-9.])[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?::[0-9]+)?", r"\1<IP>", 1),
    (r"0[xX][0-9a-fA-F]+", "<HEX>", 1),
    (rf"(^|{_SEP})(?:[0-9]+[a-fA-F]|[a-fA-F]+[0-9])[0-9a-fA-F]*({_SEP}|$)", r"\1<HEX>\2", 2),
    # a number after a separator; a unit may follow (``100ms`` -> ``<NUM>ms``)
    (rf"(^|{_SEP})-?[0-9]+(?:\.[0-9]+)*", r"\1<NUM>", 1),
    (r"[ \t\f\v]{2,}|[\t\f\v]", " ", 1),
    (r"^ | $", "", 1),
    (_KEEP_MARK, "", 1),
)


def first_lines(messages: pa.Array) -> pa.Array:
    """The line that names each message (``plogscan.headline``), cut to ``LINE_CHARS``
    characters."""
    return pc.utf8_slice_codeunits(headlines(messages), 0, LINE_CHARS)


def mask(lines: pa.Array, keep_codes: bool = True) -> pa.Array:
    """Templates of first lines: codes kept, variable parts masked (vectorized). Without
    ``keep_codes`` a number that looks like a code is masked as any other number."""
    out = lines
    for pattern, replacement, passes in MASKS if keep_codes else MASKS[1:]:
        for _ in range(passes):
            out = pc.replace_substring_regex(out, pattern, replacement)
    return out


def named_lines(messages: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """``first_lines`` of the messages and their templates (``mask``), each distinct message
    worked on once: an error repeated on every step and rank is one."""
    if isinstance(messages, pa.ChunkedArray):
        messages = messages.combine_chunks()
    encoded = pc.dictionary_encode(messages)
    lines = first_lines(encoded.dictionary)
    return lines.take(encoded.indices), mask(lines).take(encoded.indices)


def template_of(message: str) -> str:
    """The template of one message (the same masking, for tests and small inputs)."""
    return mask(first_lines(pa.array([message], pa.large_string())))[0].as_py() or ""


@dataclass
class _Template:
    count: int
    first_ts: datetime | None
    last_ts: datetime | None
    ranks: set[int] = field(default_factory=set)
    processes: set[str] = field(default_factory=set)
    module: str | None = None
    path: str = ""
    line: int = 0
    example_ts: datetime | None = None
    message: str = ""


def _earlier(a: datetime | None, b: datetime | None) -> bool:
    """``a`` is earlier than ``b`` (a missing time counts as latest)."""
    return a is not None and (b is None or a < b)


def _order(item: tuple[str, _Template]) -> tuple:
    """Earliest first, then fewest ranks (processes when no rank is known), most frequent."""
    text, t = item
    spread = len(t.ranks) if t.ranks else len(t.processes)
    return (t.first_ts is None, t.first_ts or datetime.min, spread, -t.count, text)


class Unexplained:
    """Template statistics of the ERROR records of every batch, in bounded memory."""

    def __init__(self, max_templates: int = MAX_TEMPLATES) -> None:
        self.max_templates = max_templates
        self._templates: dict[str, _Template] = {}
        self.overflow_records = 0  # records of templates not kept
        self.overflow_templates = 0  # templates pushed out (one may be counted again)
        self.members_dropped = 0  # ranks and processes not kept past a template's cap

    @property
    def template_count(self) -> int:
        return len(self._templates)

    def consume(self, batch: pa.RecordBatch) -> None:
        """Fold one event batch in."""
        table = pa.Table.from_batches([batch])
        errors = table.filter(pc.fill_null(pc.equal(table.column("level"), "ERROR"), False))
        if errors.num_rows == 0:
            return
        lines, templates = named_lines(errors.column("message"))
        said = pc.invert(structure(lines))
        if not pc.all(said).as_py():
            errors, lines = errors.filter(said), lines.filter(said)
            templates = templates.filter(said)
            if errors.num_rows == 0:
                return
        process = pc.binary_join_element_wise(
            pc.fill_null(errors.column("host"), ""),
            pc.fill_null(pc.cast(errors.column("pid"), pa.string()), ""), "|")
        rows = pa.table({
            "template": templates, "ts": errors.column("ts"), "rank": errors.column("rank"),
            "process": process, "module": errors.column("module"), "path": errors.column("path"),
            "line": errors.column("line"), "message": lines,
        })
        order = pc.sort_indices(rows, sort_keys=[("ts", "ascending"), ("path", "ascending"),
                                                 ("line", "ascending")])  # nulls sort last
        grouped = rows.take(order).group_by("template", use_threads=False).aggregate([
            ("template", "count"), ("ts", "min"), ("ts", "max"), ("rank", "distinct"),
            ("process", "distinct"), ("module", "first"), ("path", "first"),
            ("line", "first"), ("ts", "first"), ("message", "first")])
        for g in grouped.to_pylist():  # one row per distinct template in this batch
            self._merge(g)
        if len(self._templates) > self.max_templates:
            self._shrink()

    def _merge(self, g: dict) -> None:
        text = g["template"] or ""
        t = self._templates.get(text)
        if t is None:
            t = self._templates[text] = _Template(
                count=g["template_count"], first_ts=g["ts_min"], last_ts=g["ts_max"],
                module=g["module_first"], path=g["path_first"] or "", line=g["line_first"] or 0,
                example_ts=g["ts_first"], message=g["message_first"] or "")
            self._add_members(t, g)
            return
        t.count += g["template_count"]
        self._add_members(t, g)
        if g["ts_max"] is not None and (t.last_ts is None or g["ts_max"] > t.last_ts):
            t.last_ts = g["ts_max"]
        example_key = (g["ts_first"] is None, g["ts_first"] or datetime.min,
                       g["path_first"] or "", g["line_first"] or 0)
        if example_key < (t.example_ts is None, t.example_ts or datetime.min, t.path, t.line):
            t.module, t.path, t.line = g["module_first"], g["path_first"] or "", g["line_first"]
            t.example_ts, t.message = g["ts_first"], g["message_first"] or ""
        if _earlier(g["ts_min"], t.first_ts):
            t.first_ts = g["ts_min"]

    def _add_members(self, t: _Template, g: dict) -> None:
        """A batch's distinct ranks and processes of a template, up to ``MAX_MEMBERS`` each."""
        for members, found in ((t.ranks, g["rank_distinct"]), (t.processes, g["process_distinct"])):
            found = found or ()
            room = MAX_MEMBERS - len(members)
            if len(found) <= room:
                members.update(found)
                continue
            for value in found:  # at most MAX_MEMBERS kept; the batch's rest is counted
                if len(members) >= MAX_MEMBERS:
                    break
                members.add(value)
            self.members_dropped += len(set(found) - members)

    def _shrink(self) -> None:
        """Keep the ``max_templates`` earliest templates; count what is pushed out."""
        ranked = sorted(self._templates.items(), key=_order)
        for _text, t in ranked[self.max_templates:]:
            self.overflow_records += t.count
            self.overflow_templates += 1
        self._templates = dict(ranked[: self.max_templates])

    def result(self, findings: Sequence[Finding] = (), keep: int = KEEP,
               rank_of: RankOf | None = None) -> tuple[UnexplainedTemplate, ...]:
        """The unexplained templates, ranked, at most ``keep`` of them. ``rank_of`` gives the
        rank of a process (host, pid) as the cross-rank stage resolved it: a template's
        ranks are those of its processes then, where every one of them has one (the
        records' own ranks are the parser's, and many records name none)."""
        explained = explained_templates(ev.message for f in findings for ev in f.evidence)
        remaining = [(text, t) for text, t in self._templates.items() if text not in explained]
        if rank_of is not None:
            for _text, t in remaining:
                t.ranks = _resolved_ranks(t, rank_of)
        remaining.sort(key=_order)
        return tuple(_as_template(text, t) for text, t in remaining[:keep])


def _resolved_ranks(t: _Template, rank_of: RankOf) -> set[int]:
    """The ranks of a template's processes where each has one, else those joined with the
    ranks its records named."""
    resolved: set[int] = set()
    whole = True
    for process in t.processes:
        host, _, pid = process.rpartition("|")
        rank = rank_of(host, int(pid)) if pid.isdigit() else None
        if rank is None:
            whole = False
        else:
            resolved.add(rank)
    return resolved if whole and resolved else resolved | t.ranks


def explained_templates(messages: Iterable[str]) -> set[str]:
    """The templates of evidence messages: an ERROR template among them is explained."""
    texts = list(dict.fromkeys(messages))
    if not texts:
        return set()
    return {t for t in mask(first_lines(pa.array(texts, pa.large_string()))).to_pylist() if t}


def _as_template(text: str, t: _Template) -> UnexplainedTemplate:
    return UnexplainedTemplate(
        template=text, count=t.count, ranks=tuple(sorted(t.ranks)),
        processes=len(t.processes), first_ts=t.first_ts, last_ts=t.last_ts, module=t.module,
        example=UnexplainedExample(path=t.path, line=t.line, ts=t.example_ts,
                                   message=t.message))
