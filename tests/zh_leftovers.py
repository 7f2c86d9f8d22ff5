"""Find the English that a Chinese report still contains, once the data is taken out.

A report is made of data (what came from the logs: messages, paths, hosts, captures; and what
came from rule and code data: titles, descriptions, remediation, code meanings, ids, names,
categories) and of plogscan's own fixed words. ``leftovers(output, data)`` removes every data
string from a report's visible text and returns the Latin words of three or more letters that
remain, except the few that Ascend's own Chinese documentation keeps in Latin letters
(``ALLOWED``). A translated report leaves none.

Removal is exact (the data string as the report shows it: neutralized, Markdown-unescaped, HTML
text), longest first. Two report behaviours are allowed for: a line cut with ``…`` keeps the
start of a data string, and a path cut from the left keeps its end; such a fragment counts as
data when it is a prefix (or suffix) of a data string.
"""

from __future__ import annotations

import bisect
import html
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser

from plogscan.catalog.rule import RuleSet
from plogscan.model import BaselineOutcome, Diagnosis
from plogscan.textsafe import neutralize

# Kept in Latin letters by Ascend/CANN Chinese documentation, and why:
ALLOWED = frozenset({
    "rank", "pid",  # "rank ID", "pid": the docs never translate them
    "hccl", "cann", "npu",  # product and component names
    "plogscan",  # the tool's name
    "json",  # a format name ("见 JSON 报告")
    "utf", "nul", "mib", "min",  # UTF-8, the NUL byte, units (MiB, min on chart ticks)
})
# Log levels as plogs print them (upper case only): "没有 DEBUG 记录".
LEVELS = frozenset({"DEBUG", "INFO", "WARNING", "ERROR", "EVENT"})
# Written as they are typed or as the logs name them: options and their values, commands,
# HCCL task names, paths and environment variables.
VERBATIM = re.compile(
    r"--[a-z][a-z-]*(?: (?:json|error|critical|warning|info|never|text|markdown|html))?"
    r"|py-spy dump|npu-smi info|Notify Wait"
)
_TOKEN = re.compile(r"\S+")
_PATHLIKE = re.compile(r"[/$_]")  # a path, an environment variable, an identifier
_LATIN = re.compile(r"[A-Za-z]{3,}")
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
_MIN_FRAGMENT = 6  # characters of a data string's end kept after an ellipsis
_LONG_START = 20  # characters of a data string's start that count as data where it was cut
_CUT_ENDS = "\n…\x00（"  # what follows a cut: a line end, an ellipsis, the report's "（此处另有"


def _variants(value: str) -> Iterator[str]:
    yield value
    yield neutralize(value)
    yield neutralize(value, keep_newlines=False)
    for line in value.split("\n"):
        yield line
        yield neutralize(line, keep_newlines=False)


def data_strings(diagnosis: Diagnosis, rules: RuleSet | None = None) -> set[str]:
    """Every text of ``diagnosis`` that comes from the logs or from rule and code data (with
    ``rules``, the rule set it was made with: its localized texts). Descriptions and
    ``missing`` notes of the engine's findings are not data as a whole: only the rule's
    template pieces and the values filled into them are."""
    out: set[str] = set()

    def add(*values: object) -> None:
        for value in values:
            if isinstance(value, str) and _LATIN.search(value):
                out.update(v for v in _variants(value) if _LATIN.search(v))

    for rule in (rules or ()):
        add(rule.id, rule.name, rule.title, rule.category, *rule.remediation,
            *rule.references, *rule.links, *rule.explains, *rule.show)
        add(*_description_pieces(rule.description))
        add(*(role for role, _ in rule.roles()))
        if rule.requires is not None:
            add(*rule.requires.advice)
    for info in diagnosis.rules_evaluated:
        add(info.id, info.name, info.title, info.category, *info.remediation, *info.references)
        add(*_description_pieces(info.description))
    outcome = diagnosis.baseline or BaselineOutcome()
    for finding in (*diagnosis.findings, *outcome.suppressed):
        add(finding.rule, finding.name, finding.title, finding.category, finding.fingerprint,
            finding.id, *finding.remediation, *finding.references, *finding.links,
            *finding.explains, *finding.scope.hosts)
        for name, value in finding.captures:
            add(name, value)
        if rules is None:  # a hand-made diagnosis: its texts are data
            add(finding.description, *finding.missing)
            add(*(s.reason for s in diagnosis.inputs.skipped))
        for ev in finding.evidence:
            add(ev.path, f"{ev.path}:{ev.line}", ev.message, ev.level, ev.module,
                ev.host, *(t for _, t in ev.context_before), *(t for _, t in ev.context_after))
            if ev.step != "match":  # the implicit step of single rules is a fixed word
                add(ev.step)
    for incident in diagnosis.incidents:
        add(incident.id, incident.rule, incident.title, incident.category,
            *(v.label for v in incident.victims))
    for entry in outcome.expired:
        add(*(str(v) for v in vars(entry).values() if v is not None))
    for fingerprint, reason in outcome.suppressed_reasons.items():
        add(fingerprint, reason)
    for proc in diagnosis.processes:
        add(proc.host, *proc.levels)
    for event in diagnosis.events:
        add(event.message, event.path, f"{event.path}:{event.line}", event.host, event.module,
            event.level, *event.codes)
    inputs = diagnosis.inputs
    add(*inputs.paths, *(f.path for f in inputs.files), *(f.kind for f in inputs.files),
        *(s.path for s in inputs.skipped), *(p for f in inputs.files for p in f.problems))
    for code, meaning in (diagnosis.codes or {}).items():
        add(code, meaning)
    for t in diagnosis.unexplained or []:
        example = t.example
        add(t.template, t.module, example.path, example.message, f"{example.path}:{example.line}")
    add(*_crossrank_data(diagnosis))
    return out


def _crossrank_data(diagnosis: Diagnosis) -> Iterator[str]:
    xr = diagnosis.crossrank
    if xr is None:
        return
    causes = [xr.root_cause, *(a.root_cause for a in xr.attempts)]
    for rc in causes:
        for s in rc.suspects:
            yield from (s.label, s.host or "", s.host_ip or "", s.communicator or "")
            for r in s.reasons:
                yield r.signal
                yield from (f"{e.path}:{e.line}" for e in r.evidence)
        yield from (v.label for v in rc.victims)
        yield from (h.label for h in rc.chain)
        yield from (h.ip or "" for h in rc.chain)
    for a in xr.attempts:
        yield from a.hosts
    clock = xr.clock
    yield clock.reference or ""
    yield from (o.host for o in clock.offsets)
    yield from (f.host for f in clock.flags)
    yield from (f.kind for f in clock.flags)
    yield from (c.communicator for c in xr.collectives.communicators)
    if xr.collectives.first_mismatch is not None:
        yield xr.collectives.first_mismatch.communicator
    for m in xr.config.mismatches:
        yield m.key
        yield from (v.value for v in m.values)
    yield from (t.key for t in xr.config.too_short)
    yield from xr.missing.hosts


def _description_pieces(description: str) -> list[str]:
    """A rule's description as data: its text between placeholders, and also between what
    the description may leave out around an unknown value (an item of a parenthesized list,
    a ``[[...]]`` clause), so that a sentence with a clause left out is still matched."""
    whole = re.split(r"\{[A-Za-z_][A-Za-z0-9_]*\}", description)
    pieces = re.split(r"\{[A-Za-z_][A-Za-z0-9_]*\}|\[\[|\]\]|[()（）,，;；、]", description)
    return [*whole, *(p.strip() for p in pieces)]


def leftovers(output: str, data: Iterable[str]) -> list[str]:
    """The Latin words of ``output`` that are neither data nor allowed, in order of first
    appearance (each once)."""
    ordered = sorted({d for d in data if d}, key=len, reverse=True)
    text = output
    for value in ordered:  # long data first (whole, or its start where a line was cut)
        if len(value) >= _LONG_START:
            text = _without_start_of(value, text)
    text = _cut_fragments(text, ordered)  # then the pieces around ellipses, then short data
    for value in ordered:
        if value in text:  # a whole word, not the "plog" of "plogscan"
            text = re.sub(r"(?<![A-Za-z])" + re.escape(value) + r"(?![A-Za-z])", "\x00", text)
    text = VERBATIM.sub("\x00", text)
    text = _TOKEN.sub(lambda m: "\x00" if _PATHLIKE.search(m.group()) else m.group(), text)
    text = _PLACEHOLDER.sub("\x00", text)  # rule templates as written (SARIF descriptors)
    found: list[str] = []
    for word in _LATIN.findall(text):
        if word.lower() in ALLOWED or word in LEVELS or word in found:
            continue
        found.append(word)
    return found


def _cut_fragments(text: str, data: list[str]) -> str:
    """Take out what remains of data strings around the ellipses of cut lines: the start of
    one before an ellipsis (a line cut to the terminal width), the end of one after it (a path
    cut from the left)."""
    ordered = sorted(data)
    long_data = [d for d in data if len(d) >= _MIN_FRAGMENT]
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if not _LATIN.search(line):
            continue
        pieces = line.split("…")
        for i in range(len(pieces) - 1):
            pieces[i] = _without_data_start(pieces[i], ordered)
        for i in range(1, len(pieces)):
            token = re.match(r"\S*", pieces[i]).group()
            if len(token) >= _MIN_FRAGMENT and any(token in d for d in long_data):
                pieces[i] = pieces[i][len(token):]
        lines[n] = "…".join(pieces)
    return "\n".join(lines)


def _without_start_of(value: str, text: str) -> str:
    """``text`` without every occurrence of ``value``, or of a start of it of ``_LONG_START``
    or more characters where the text was cut (at a line end, an ellipsis, or the "（"
    of the report's own words after it): a tooltip keeps only the start of a message."""
    key = value[:_LONG_START]
    at = text.find(key)
    while at >= 0:
        k = len(key)
        while at + k < len(text) and k < len(value) and text[at + k] == value[k]:
            k += 1
        end = at + k
        if k == len(value) or end == len(text) or text[end] in _CUT_ENDS:
            text = text[:at] + "\x00" + text[end:]
        at = text.find(key, at + 1)
    return text


def _without_data_start(piece: str, ordered: list[str]) -> str:
    """``piece`` without its longest tail that begins some data string (``ordered``: the
    data strings sorted)."""
    for start in range(max(len(piece) - 400, 0), len(piece) - 2):
        tail = piece[start:]
        i = bisect.bisect_left(ordered, tail)
        if i < len(ordered) and ordered[i].startswith(tail) and _LATIN.search(tail):
            return piece[:start]
    return piece


# ---------------------------------------------------------------- what each format shows


def markdown_text(markdown: str) -> str:
    """Markdown as a reader sees it: outside code, escapes and entities undone and the tags
    the report writes left out; code blocks and spans as they are, without their fences."""
    out, fence = [], None
    for line in markdown.split("\n"):
        opener = re.match(r"(`{3,})[a-z]*$", line)
        if fence is None and opener:
            fence = opener.group(1)
            continue
        if fence is not None:
            if line == fence:
                fence = None
            else:
                out.append(line)
            continue
        parts = re.split(r"((?<!\\)`[^`]*`)", line)  # code spans; "\\`" is an escaped tick
        out.append("".join(p[1:-1] if p.startswith("`") else _unescape(p) for p in parts))
    return "\n".join(out)


def _unescape(text: str) -> str:
    text = re.sub(r"</?(?:details|summary|sub)>", "\n", text)
    return html.unescape(re.sub(r"\\([\\`*_{}\[\]()#+\-.!|~=>@])", r"\1", text))


class _Visible(HTMLParser):
    """The text a browser shows, plus the ``title`` and ``aria-label``/``placeholder``
    attributes (tooltips and what a screen reader says); never script or style."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if value and (name in ("title", "aria-label", "placeholder")
                          or name.startswith("data-word-")):
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1
        self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(document: str) -> str:
    parser = _Visible()
    parser.feed(document)
    return "".join(parser.parts)


def junit_text(document: str) -> str:
    """Every text and attribute value of the JUnit document but the machine ones."""
    root = ET.fromstring(document)
    parts = []
    for element in root.iter():
        parts.append(element.text or "")
        parts += [v for k, v in element.attrib.items() if k in ("message",)]
    return "\n".join(parts)


def sarif_text(document: str) -> str:
    """The human texts of a SARIF log: messages, descriptions, help."""
    parts: list[str] = []

    def walk(node: object, key: str = "") -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "text" and isinstance(v, str) and key in (
                        "message", "shortDescription", "fullDescription", "help"):
                    parts.append(v)
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)

    walk(json.loads(document))
    return "\n".join(parts)


# Keys of the JSON report whose values are human text that follows the report language.
JSON_TEXT_KEYS = frozenset({"text", "notes", "advice", "detail", "what", "missing",
                            "description"})


def json_text(document: str) -> str:
    parts: list[str] = []

    def walk(node: object, key: str = "") -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and key in JSON_TEXT_KEYS:
            parts.append(node)

    walk(json.loads(document))
    return "\n".join(parts)
