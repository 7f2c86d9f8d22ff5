"""How the reports read, over every output of every bundled sample in both languages.

One diagnosis per sample and language, each format rendered once (``sample_reports`` in
``conftest``), then scanned for what a reader should never meet: a wrong plural ("1 ranks"), a
rank said twice ("worker-1 rank 1 (rank 1)"), an empty "(-)", a placeholder for a value the
record lacks ("code ?"), a fact-sheet id where a public source belongs ("formats.md", "[H-"),
a Chinese line broken inside a Latin term or code. Then the cross-rank verdict: the terminal,
Markdown, HTML and JSON reports name the same suspects and the same chain.
"""

from __future__ import annotations

import html
import json
import re
from itertools import pairwise

import pytest

from plogscan.report.verdict import chain_text, crossrank_verdict
from tests.report.conftest import SAMPLE_NAMES, SampleReports

LANGS = ("en", "zh")
BAD = {
    "a singular count with a plural noun": re.compile(
        r"(?<![\d,.])1 (?:ranks|records|files|lines|pairs|templates|processes|findings|hosts"
        r"|collectives|devices|pids)\b"),
    "a rank said twice": re.compile(r"\brank (\d+)\b[^\n<>]{0,12}?[(（]rank \1[)）]"),
    "an empty parenthesis": re.compile(r"[(（]-[)）]"),
    "a placeholder for a missing code": re.compile(r"(?:code|错误码) \?"),
    "a fact-sheet id": re.compile(r"formats\.md|\[H-\d"),
}
_LATIN_END = re.compile(r"[A-Za-z0-9_]+$")
_LATIN_START = re.compile(r"^\s*([A-Za-z0-9_]+)")
CONTEXT = 10  # characters either side of a break that place it in the unwrapped report


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("sample", SAMPLE_NAMES)
def test_no_output_holds_awkward_words(sample_reports: SampleReports, sample: str, lang: str):
    found = []
    for fmt in SampleReports.FORMATS:
        output = sample_reports.output(sample, lang, fmt)
        if fmt == "sarif":  # its rule catalogue shows each rule's template as written
            output = json.dumps(json.loads(output)["runs"][0]["results"], ensure_ascii=False)
        for what, pattern in BAD.items():
            for m in pattern.finditer(output):
                found.append(f"{fmt}: {what}: …{output[max(m.start() - 60, 0):m.end() + 20]}…")
    assert found == [], "\n".join(found[:20])


def latin_breaks(narrow: str, wide: str, width: int) -> list[str]:
    """Line breaks of ``narrow`` between two characters of ``[A-Za-z0-9_]`` that ``wide`` (the
    same report, unwrapped) writes with nothing between them: a break at a space is fine, one
    inside a term is not. A term longer than half a line may be folded."""
    lines = narrow.splitlines()
    cuts = []
    for first, second in pairwise(lines):
        end, start = _LATIN_END.search(first), _LATIN_START.match(second)
        if end is None or start is None or len(end.group() + start.group(1)) >= width // 2:
            continue
        tail, head = first.rstrip()[-CONTEXT:], second.strip()[:CONTEXT]
        if tail + head in wide and tail + " " + head not in wide:
            cuts.append(f"{first!r} / {second!r}")
    return cuts


@pytest.mark.parametrize("sample", SAMPLE_NAMES)
def test_chinese_lines_never_break_inside_a_latin_term(sample_reports: SampleReports,
                                                       sample: str):
    wide = sample_reports.output(sample, "zh", "text-wide")
    for fmt, width in (("text", 80), ("text-narrow", 60)):
        narrow = sample_reports.output(sample, "zh", fmt)
        assert latin_breaks(narrow, wide, width) == [], fmt


def test_the_break_check_can_fail():
    wide = "对端 rank 10 在等待 NOTIFY WAIT 超时"
    assert latin_breaks("对端\nrank 10 在等待 NOTIFY\nWAIT 超时", wide, 80) == []
    assert latin_breaks("它在等待 NOTI\nFY WAIT", "它在等待 NOTIFY WAIT", 80) == \
        ["'它在等待 NOTI' / 'FY WAIT'"]


def _json_verdict(sample_reports: SampleReports, sample: str) -> tuple[list[str], list[str]]:
    rc = json.loads(sample_reports.output(sample, "en", "json"))["root_cause"]
    return [s["label"] for s in rc["suspects"]], [h["label"] for h in rc["chain"]]


def _terminal(text: str) -> tuple[list[str], str] | None:
    if "ROOT CAUSE · " not in text:
        return None
    section = text[text.index("ROOT CAUSE · "):]
    section = section[:section.index("\n\n")]
    suspects = re.findall(r"^  \d+\. (.+?)  ", section, re.M)
    chain = re.search(r"^  Chain +(.+)$", section, re.M)
    return suspects, chain.group(1) if chain else ""


def _markdown(text: str) -> tuple[list[str], str] | None:
    if "### Root cause · " not in text:
        return None
    section = text[text.index("### Root cause · "):]
    section = section[:section.index("\n|")] if "\n|" in section else section
    suspects = [re.sub(r"\\(.)", r"\1", s) for s in re.findall(r"^\d+\. \*\*(.+?)\*\*",
                                                                section, re.M)]
    chain = re.search(r"^- \*\*Chain:\*\* (.+)$", section, re.M)
    return suspects, re.sub(r"\\(.)", r"\1", chain.group(1)) if chain else ""


def _html(document: str) -> tuple[list[str], str] | None:
    summary = document[document.index('<section id="summary"'):document.index("</section>")]
    if '<dd class="crossrank' not in summary:
        return None
    suspects = [html.unescape(s) for s in re.findall(r'<strong class="suspect">(.+?)</strong>',
                                                     summary)]
    chain = re.search(r'<dd class="chain">(.+?)</dd>', summary)
    return suspects, html.unescape(chain.group(1)) if chain else ""


@pytest.mark.parametrize("sample", SAMPLE_NAMES)
def test_every_format_names_the_same_suspects_and_chain(sample_reports: SampleReports,
                                                        sample: str):
    """Where an attempt failed, each format shows the JSON report's suspects in its order (the
    terminal may list fewer and count the rest) and its chain; where none did, none shows a
    cross-rank verdict."""
    suspects, chain = _json_verdict(sample_reports, sample)
    judged = crossrank_verdict(sample_reports.diagnosis(sample, "en")) is not None
    expected_chain = chain_text(chain, "en") if chain else ""
    shown = {
        "terminal": _terminal(sample_reports.output(sample, "en", "text-wide")),
        "markdown": _markdown(sample_reports.output(sample, "en", "markdown")),
        "html": _html(sample_reports.output(sample, "en", "html")),
    }
    for fmt, found in shown.items():
        if not judged:
            assert found is None, (fmt, found)
            continue
        assert found is not None, fmt
        names, chain_shown = found
        assert names == suspects[:len(names)] and (names or not suspects), (fmt, names, suspects)
        assert len(names) == len(suspects) or fmt == "terminal", (fmt, names, suspects)
        assert chain_shown == expected_chain, (fmt, chain_shown, expected_chain)


def test_multi_rank_samples_are_compared(sample_reports: SampleReports):
    """The comparison above is not vacuous: multi-rank samples have a verdict with a chain."""
    chains = [s for s in ("link-chain-silent-rank", "notify-wait-cascade")
              if _json_verdict(sample_reports, s)[1]]
    assert chains == ["link-chain-silent-rank", "notify-wait-cascade"]
