"""The HTML report: self-contained, locked down by its CSP, deterministic, small, and checked in a
real headless Chromium (Debian's ``chromium`` driven by Playwright through ``executable_path``;
``.ci/install-browser.sh`` installs both). Without a working browser the browser tests fail.
"""

from __future__ import annotations

import base64
import hashlib
import os
import random
import re
from dataclasses import replace
from datetime import datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest

from plogscan.model import (
    Diagnosis,
    EventRow,
    Evidence,
    FileStats,
    Finding,
    IngestSummary,
    Level,
    ProcessInfo,
    Scope,
    Verdict,
)
from plogscan.report import html as html_report
from plogscan.report import ranks, swimlane
from tests.helpers import SAMPLES_DIR
from tests.report_fixtures import (
    FIXTURES,
    HOSTILE_MESSAGES,
    flagship_diagnosis,
    hostile_diagnosis,
)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
URL_ATTRS = {"src", "href", "action", "formaction", "poster", "srcset", "data", "xlink:href",
             "background", "manifest", "ping", "cite", "longdesc", "codebase", "archive"}
FORBIDDEN_JS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                "new Function", "srcdoc")


class _Tags(HTMLParser):
    """Every start tag with its attributes, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags_of(document: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(document)
    return parser.tags


def inline_script(document: str) -> str:
    scripts = re.findall(r"<script>(.*?)</script>", document, flags=re.DOTALL)
    assert len(scripts) == 1, "exactly one inline script expected"
    return scripts[0]


def csp_of(document: str) -> dict[str, list[str]]:
    metas = [a for t, a in tags_of(document)
             if t == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy"]
    assert len(metas) == 1, "one CSP meta tag expected"
    directives = (metas[0]["content"] or "").split(";")
    return {d.split()[0]: d.split()[1:] for d in directives if d.strip()}


def expected_ranks(d: Diagnosis) -> set[int]:
    ranks = {p.rank for p in d.processes} | {e.rank for e in d.events}
    ranks |= {i.rank for f in d.findings for i in f.evidence}
    return {r for r in ranks if r is not None}


def big_diagnosis(ranks: int = 16, events: int = 30_000) -> Diagnosis:
    """A large job: ``ranks`` ranks, ``events`` error/warning rows, a finding per rank."""
    t0 = datetime(2026, 3, 18, 10, 0, 0)
    rows = []
    for i in range(events):
        rank = i % ranks
        rows.append(EventRow(
            t0 + timedelta(milliseconds=37 * i), "ERROR" if i % 3 else "WARNING", "HCCL",
            40000 + rank, rank, f"node-{rank // 8}", rank % 8, "plog-run",
            f"logs/node-{rank // 8}/rank_{rank}/run/plog/plog-{40000 + rank}_20260318.log", i,
            f"[TaskExceptionHandler][Callback]Task run failed, streamID:[{i % 97}], "
            f"taskID[{i}], taskType[Notify Wait], tag[AllReduce_{rank}], wait timeout "
            f"remote rank [{(rank + 1) % ranks}] index[{i % 11}]"))
    findings = []
    for rank in range(ranks):
        ev = tuple(Evidence(r.path, r.line, r.ts, r.message, f"step{k}", r.level, r.module, r.pid,
                            r.rank, r.host, r.device,
                            context_before=tuple((r.line - j, "x" * 200) for j in (3, 2, 1)))
                   for k, r in enumerate(rows[rank:rank + ranks * 8:ranks]))
        findings.append(Finding(
            f"{rank:016x}", "HCCL010", "hccl.notify-wait-timeout", "HCCL notify wait timeout",
            "hccl-notify-timeout", Level.ERROR, Verdict.MATCH, "Notify wait timed out.",
            Scope(hosts=(ev[0].host,), ranks=(rank,), pids=(ev[0].pid,)), ev[0].ts, ev[-1].ts,
            ev, ("Find the rank that failed first.",)))
    files = tuple(FileStats(p, "plog-run", 10_000_000, 50_000, 49_000)
                  for p in sorted({r.path for r in rows}))
    procs = tuple(ProcessInfo(f"node-{r // 8}", 40000 + r, r, r % 8, ("ERROR", "WARNING"),
                              t0, t0 + timedelta(seconds=1200)) for r in range(ranks))
    return Diagnosis(IngestSummary(("logs",), files, ()), tuple(findings), processes=procs,
                     events=tuple(rows), exit_code=1)


# ----------------------------------------------------------------- plain (no browser) tests


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_self_contained_and_csp(name):
    document = html_report.render(FIXTURES[name]())
    tags = tags_of(document)
    for tag, attrs in tags:
        for attr, value in attrs.items():
            if attr in URL_ATTRS:
                assert value is not None and (value.startswith("#") or value.startswith("data:")), \
                    f"<{tag} {attr}={value!r}> points outside the file"
            assert not re.match(r"\s*(https?:|//|javascript:)", value or "", re.I), (tag, attr)
    assert not any(t == "script" and "src" in a for t, a in tags)
    assert not any(t == "link" and a.get("rel") != "icon" for t, a in tags)
    assert not re.search(r"url\((?!#)|@import", re.search(r"<style>(.*?)</style>", document,
                                                            re.DOTALL).group(1))
    policy = csp_of(document)
    assert policy["default-src"] == ["'none'"]
    assert policy["img-src"] == ["data:"]
    digest = base64.b64encode(hashlib.sha256(inline_script(document).encode()).digest()).decode()
    assert policy["script-src"] == [f"'sha256-{digest}'"]
    assert document.index("Content-Security-Policy") < document.index("<style>")


def test_script_builds_no_markup_from_strings():
    script = inline_script(html_report.render(flagship_diagnosis()))
    for needle in FORBIDDEN_JS:
        assert needle not in script, needle


def test_hostile_text_is_escaped_in_the_markup():
    document = html_report.render(hostile_diagnosis())
    assert "<img" not in document and "<script>alert" not in document
    assert not any(t == "img" or any(a.startswith("on") for a in attrs)
                   for t, attrs in tags_of(document))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in document
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in document
    assert "\x1b" not in document and "\u202e" not in document and "\x00" not in document
    assert "\\x1b[2J" in document  # control characters shown as escapes, not dropped


def test_deterministic_whatever_the_input_order():
    d = flagship_diagnosis()
    shuffled = list(d.events), list(d.findings)
    random.Random(7).shuffle(shuffled[0])
    random.Random(7).shuffle(shuffled[1])
    other = replace(d, events=tuple(shuffled[0]), findings=tuple(shuffled[1]))
    assert html_report.render(d) == html_report.render(flagship_diagnosis())
    assert html_report.render(d) == html_report.render(other)


def test_verbose_opens_every_evidence_block_and_untimed_records_are_counted():
    d = flagship_diagnosis()
    evidence = sum(len(f.evidence) for f in d.findings)
    assert html_report.render(d).count('<details class="evidence">') == evidence
    verbose = html_report.render(d, verbose=True)
    assert verbose.count('<details class="evidence" open>') == evidence
    assert "2 records without a timestamp are not drawn." in verbose


def test_size_limit_and_row_cap_on_a_large_job():
    d = big_diagnosis()
    document = html_report.render(d)
    assert len(document.encode("utf-8")) < 2 * 1024 * 1024
    rows = document.count('<tr data-level="')
    assert rows == html_report.MAX_EVENT_ROWS
    assert f"{rows} of {len(d.events)} shown" in document
    cited = {(i.path, i.line) for f in d.findings for i in f.evidence}
    assert all(f">{p}:{n}<" in document for p, n in cited)  # evidence rows are kept first
    assert document.count("data-lane-kind=\"rank\"") == 16


def test_summary_verdict_answer_and_first_failing_rank():
    document = html_report.render(flagship_diagnosis())
    assert "4 findings: 2 critical, 2 error" in document
    assert '<code>CCU001</code> <a href="#finding-1">Cached CCU context reused' in document
    assert "<strong>ranks 0, 1 · devices 0, 1 · host node-a</strong>" in document
    assert "Root-cause rank" not in document  # one verdict: the answer, no second sentence
    clean = html_report.render(FIXTURES["clean"]())
    assert '<p class="verdict">clean</p>' in clean
    assert 'class="answer"' not in clean
    # rank 3 fails first: without a cross-rank verdict the spread arrows leave its lane
    d = big_diagnosis(ranks=4, events=40)
    later = timedelta(seconds=5)
    late = [replace(f, first_ts=f.first_ts + later, evidence=tuple(
        replace(e, ts=e.ts + later) for e in f.evidence)) if 3 not in f.scope.ranks else f
        for f in d.findings]
    events = [replace(e, ts=e.ts + later) if e.rank != 3 else e for e in d.events]
    d = replace(d, findings=tuple(late), events=tuple(events))
    assert ranks.root_cause(d)[0] == 3
    chart = swimlane.layout(d, (3, d.findings[3].evidence[0].ts))
    spread = [a for a in chart.arrows if a.kind == "spread"]
    assert {a.y1 for a in spread} == {chart.lanes[3].y} and len(spread) == 3


def test_swimlane_lanes_markers_arrows_and_axis():
    d = flagship_diagnosis()
    chart = swimlane.layout(d, None)
    assert [lane.key for lane in chart.lanes] == ["rank 0", "rank 1"]
    assert chart.undrawn == 2  # the two torch_npu lines without a timestamp
    sequence = [a for a in chart.arrows if a.kind == "sequence"]
    assert sequence and all(a.x1 <= a.x2 for a in sequence)
    assert [t.label for t in chart.ticks][:3] == ["0 ms", "200 ms", "400 ms"]
    assert {m.kind for m in chart.markers} >= {"error", "step"}
    # lane key without a rank: host and pid, else the file path
    base = d.events[0]
    orphans = (replace(base, rank=None, pid=999, host="node-z"),
               replace(base, rank=None, pid=None, host=None, path="stdout.log"))
    chart = swimlane.layout(replace(d, events=d.events + orphans), None)
    assert [lane.key for lane in chart.lanes][2:] == ["node-z pid 999", "stdout.log"]
    # a 5-minute span between two errors gets minute ticks
    error = d.events[-3]
    assert error.level == "ERROR" and error.ts is not None
    long = replace(d, events=(error, replace(error, ts=error.ts + timedelta(minutes=5), line=9)),
                   findings=())
    assert swimlane.layout(long, None).ticks[-1].label == "5 min"


# ----------------------------------------------------------------- real browser tests


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as err:
        pytest.fail(f"Playwright for Python is missing ({err}): run .ci/install-browser.sh",
                    pytrace=False)
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} not found: run .ci/install-browser.sh (Debian package chromium)",
                    pytrace=False)
    manager = sync_playwright().start()
    try:
        context = manager.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM,
            headless=True, args=CHROMIUM_FLAGS)
    except Exception as err:
        manager.stop()
        pytest.fail(f"could not start {CHROMIUM} headless: {err}", pytrace=False)
    yield context
    context.close()
    manager.stop()


class Loaded:
    """A report opened in the browser, with everything it did while loading."""

    def __init__(self, context, path: Path) -> None:
        self.url = path.as_uri()
        self.requests: list[str] = []
        self.console_errors: list[str] = []
        self.dialogs: list[str] = []
        self.page = page = context.new_page()
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.console_errors.append(f"uncaught: {e}"))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.add_init_script("window.__calls = []; ['alert', 'confirm', 'prompt'].forEach("
                             "function (n) { window[n] = function (m) { "
                             "window.__calls.push(n + ':' + m); }; });")
        page.goto(self.url, wait_until="load")
        page.wait_for_timeout(100)  # let any stray onerror/onload handler run

    def visible_rows(self) -> int:
        return self.page.locator("#events-table tbody tr:visible").count()


def open_report(browser, tmp_path, diagnosis: Diagnosis) -> Loaded:
    path = tmp_path / "report.html"
    path.write_text(html_report.render(diagnosis), encoding="utf-8")
    return Loaded(browser, path)


@pytest.mark.parametrize("name", ["flagship", "hostile", "not_evaluable", "clean"])
def test_browser_loads_offline_without_errors(browser, tmp_path, name):
    loaded = open_report(browser, tmp_path, FIXTURES[name]())
    assert loaded.console_errors == []
    outside = [u for u in loaded.requests if u != loaded.url and not u.startswith("data:")]
    assert outside == [], f"network requests: {outside}"
    assert loaded.page.locator(".controls:visible").count() == (1 if name != "clean" else 0)
    loaded.page.close()


@pytest.mark.parametrize("name", ["flagship", "hostile"])
def test_browser_swimlane_has_one_lane_per_rank(browser, tmp_path, name):
    diagnosis = FIXTURES[name]()
    page = open_report(browser, tmp_path, diagnosis).page
    ranks = expected_ranks(diagnosis)
    assert page.locator("svg.swimlane [data-lane]").count() == len(ranks)
    assert page.locator('svg.swimlane [data-lane-kind="rank"]').count() == len(ranks)
    assert page.locator("svg.swimlane").bounding_box()["height"] > 0
    page.close()


def test_browser_events_filter_and_sort(browser, tmp_path):
    diagnosis = flagship_diagnosis()
    loaded = open_report(browser, tmp_path, diagnosis)
    page = loaded.page
    total = len(diagnosis.events)
    assert loaded.visible_rows() == total
    page.fill("#events-filter", "CCU TASK PRINT")
    assert loaded.visible_rows() == sum("ccu task print" in e.message for e in diagnosis.events)
    assert page.text_content("#events-count") == f"2 of {total} rows shown"
    page.fill("#events-filter", "")
    page.select_option("#events-level", "ERROR")
    assert loaded.visible_rows() == sum(e.level == "ERROR" for e in diagnosis.events)
    page.fill("#events-filter", "rank_1/")
    assert loaded.visible_rows() == sum(e.level == "ERROR" and "rank_1/" in e.path
                                        for e in diagnosis.events)
    page.select_option("#events-level", "")
    page.fill("#events-filter", "")
    page.click("#events-table th:nth-child(7) button")  # Location, ascending
    first = page.locator("#events-table tbody tr td:nth-child(7)").all_text_contents()
    assert first == sorted(first, key=lambda s: (s.rsplit(":", 1)[0], int(s.rsplit(":", 1)[1])))
    page.click("#events-table th:nth-child(7) button")  # descending
    assert page.locator("#events-table tbody tr td:nth-child(7)").all_text_contents() == \
        first[::-1]
    assert loaded.console_errors == []
    page.close()


def test_browser_chinese_report_speaks_chinese(browser, tmp_path):
    """The script's own words (row count, copy button) come from the page in its language."""
    diagnosis = replace(flagship_diagnosis(), lang="zh")
    loaded = open_report(browser, tmp_path, diagnosis)
    page = loaded.page
    total = len(diagnosis.events)
    assert page.get_attribute("html", "lang") == "zh-CN"
    assert page.text_content("#events-count") == f"显示 {total} / {total} 行"
    page.fill("#events-filter", "CCU TASK PRINT")
    assert page.text_content("#events-count") == f"显示 2 / {total} 行"
    button = page.locator("button.copy >> nth=0")
    assert button.text_content() == "复制"
    button.click()
    page.wait_for_timeout(100)
    assert button.text_content() in ("已复制", "复制失败")
    assert "rows shown" not in page.inner_text("body") and "Copy" not in page.inner_text("body")
    assert loaded.console_errors == []
    page.close()


def test_browser_hostile_text_is_shown_and_runs_nothing(browser, tmp_path):
    loaded = open_report(browser, tmp_path, hostile_diagnosis())
    page = loaded.page
    text = page.inner_text("body")
    assert HOSTILE_MESSAGES[0] == "<script>alert(1)</script>"
    assert "<script>alert(1)</script>" in text
    assert '"><img src=x onerror=alert(1)>' in text
    page.fill("#events-filter", '"><img src=x onerror=alert(1)>')  # filtering injects nothing
    assert loaded.visible_rows() == 1
    page.click("button.copy >> nth=0")
    page.wait_for_timeout(100)
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 1
    assert page.evaluate("Array.from(document.querySelectorAll('*')).some(function (el) {"
                         " return Array.from(el.attributes).some(function (a) {"
                         " return a.name.indexOf('on') === 0; }); })") is False
    assert page.evaluate("window.__calls") == []
    assert loaded.dialogs == []
    assert loaded.console_errors == []
    page.close()


def test_browser_print_and_narrow_layout(browser, tmp_path):
    page = open_report(browser, tmp_path, flagship_diagnosis()).page
    context_block = page.locator("details.evidence pre.context").first
    assert not context_block.is_visible()  # collapsed on screen
    page.emulate_media(media="print")
    assert context_block.is_visible()  # expanded on paper
    assert page.locator("button.copy:visible, .controls:visible").count() == 0
    page.emulate_media(media="screen")
    page.set_viewport_size({"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.close()


# ----------------------------------------------------------------- the bundled samples

SAMPLES = SAMPLES_DIR


def test_bundled_samples_render_small_and_clean_in_the_browser(browser, tmp_path):
    """Every sample, through the real pipeline: under 2 MB, loads offline without errors, one
    lane per rank, and the hostile-text sample's payloads show as text and execute nothing."""
    from tests.helpers import diagnosed

    samples = sorted(p for p in SAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_"))
    assert samples, f"no samples under {SAMPLES}"
    for sample in samples:
        diagnosis = diagnosed([str(sample)])
        document = html_report.render(diagnosis)
        assert len(document.encode("utf-8")) < 2 * 1024 * 1024, sample.name
        loaded = open_report(browser, tmp_path, diagnosis)
        page = loaded.page
        assert loaded.console_errors == [], sample.name
        assert [u for u in loaded.requests if u != loaded.url and not u.startswith("data:")] == []
        ranks = expected_ranks(diagnosis)
        assert page.locator('svg.swimlane [data-lane-kind="rank"]').count() == len(ranks)
        assert page.locator("img").count() == 0 and page.locator("script").count() == 1
        assert page.evaluate("window.__calls") == [] and loaded.dialogs == []
        if sample.name == "hostile-text":
            text = page.inner_text("body")
            assert "<script>alert(1)</script>" in text, sample.name
            assert '"><img src=x onerror=alert(1)>' in text, sample.name
        page.close()


def test_browser_chart_marks_match_the_legend_and_labels_never_overlap(browser, tmp_path):
    """The densest sample's chart: every kind of mark drawn has its legend key drawn the same
    way, step marks are labelled by rule id, no two visible labels overlap, and a label left
    out for room shows while its mark is pointed at."""
    from tests.helpers import diagnosed

    diagnosis = diagnosed([str(SAMPLES / "link-chain-silent-rank")])
    page = open_report(browser, tmp_path, diagnosis).page
    drawn = set(page.eval_on_selector_all(
        "svg.swimlane .m", "els => els.map(e => e.tagName + '.' + e.classList[1])"))
    legend = set(page.eval_on_selector_all(
        ".legend .m", "els => els.map(e => e.tagName + '.' + e.classList[1])"))
    assert drawn and drawn <= legend, (drawn, legend)
    labels = page.eval_on_selector_all(
        "svg.swimlane .step-label", "els => els.filter(e => getComputedStyle(e).display !== "
        "'none').map(e => { const r = e.getBoundingClientRect(); "
        "return [e.textContent, r.left, r.top, r.right, r.bottom]; })")
    assert labels and all(re.fullmatch(r"[A-Z]+\d+( \S+)?", text) for text, *_ in labels)
    for i, (text_a, *a) in enumerate(labels):
        for text_b, *b in labels[i + 1:]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, f"labels overlap: {text_a} {a} / {text_b} {b}"
    hidden = page.locator("g.mark-hover")
    if hidden.count():
        label = hidden.first.locator(".step-label")
        assert not label.is_visible()
        hidden.first.locator("path").hover()
        assert label.is_visible()
    assert "more characters]" not in page.content()
    page.close()
