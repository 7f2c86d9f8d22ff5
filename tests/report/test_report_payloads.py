"""Report safety, format by format, against the payload corpus (``payloads.py``).

Every payload goes into the message of a record that a rule turns into a finding (so it lands
in evidence, the description's captures, context lines, the events table and the unexplained
templates) and some into file names (so they land in paths). Then:

* HTML: the only script is plogscan's own (hashed in the CSP); no element or attribute comes
  from log text (no event handler, no remote or ``javascript:`` URL); each payload is shown as
  text, exactly as ``neutralize`` writes it;
* Markdown: no link, image or raw HTML from log text; each payload's fence holds (the fenced
  evidence still contains the payload, and the document has no heading or table from it);
* JSON and SARIF: valid JSON carrying each payload exactly;
* JUnit XML: well-formed XML with one test case per rule and no element from log text;
* CSV (``events --format csv``): every row has every column, and no cell a spreadsheet would
  run as a formula;
* terminal text and table output: no raw control, escape or bidi character.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from plogscan.cli import cli
from plogscan.ingest.sources import printable
from plogscan.report.html import _asset
from plogscan.schema import TABLE_SCHEMA
from plogscan.textsafe import neutralize
from tests.payloads import NAME_PAYLOADS, PAYLOADS

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                    "\u2066-\u2069]")
FORMULA = ("=", "+", "-", "@", "\t", "\r")
# The HTML a Markdown report writes itself: collapsed sections and the footer.
OWN_HTML = re.compile(r"(?:\s|</?details>|<summary>[^<>]*</summary>|</?sub>)*")


def _record(pid: int, payload: str) -> str:
    flat = payload.replace("\n", " ").replace("\r", " ")
    return (f"[ERROR] HCCL({pid},python):2026-03-02-10:15:01.{pid % 1000:03d}.456 [op.cc:1]"
            f"[tid:7] EI0002: The wait execution of the Notify register times out. remote rank "
            f"[{flat}] tag[{flat}]")


@pytest.fixture(scope="module")
def outputs(diagnose_cli, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("payloads") / "logs"
    plogs = root / "debug" / "plog"
    plogs.mkdir(parents=True)
    lines = [_record(5000 + i, p) for i, p in enumerate(PAYLOADS)]
    # no pid in the name (older CANN): each line's pid is a process of its own
    (plogs / "plog_20260302101500000.log").write_text("\n".join(lines) + "\n", "utf-8")
    for i, name in enumerate(NAME_PAYLOADS):
        (root / f"{name}-plog-{7000 + i}_20260302101500000.log").write_text(
            _record(7000 + i, f"file {i}") + "\n", "utf-8")
    found: dict[str, str] = {}
    for fmt in ("text", "json", "markdown", "sarif", "junit", "html"):
        result = diagnose_cli(root, "--format", fmt, "-v", "-q", "--workers", "1")
        assert result.exit_code == 1, result.stderr
        found[fmt] = result.stdout
        found[f"{fmt} stderr"] = result.stderr
    for fmt in ("csv", "table", "jsonl"):
        result = CliRunner().invoke(cli, ["events", str(root), "--format", fmt, "-q",
                                          "--workers", "1"])
        assert result.exit_code == 0, result.stderr
        found[f"events {fmt}"] = result.stdout
    return found


def test_the_corpus_is_big_enough() -> None:
    assert len(PAYLOADS) >= 35 and len(NAME_PAYLOADS) >= 7


class _Document(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._script = False

    def handle_data(self, data: str) -> None:
        (self.scripts if self._script else self.text).append(data)


def test_html(outputs: dict[str, str]) -> None:
    doc = _Document()
    doc.feed(outputs["html"])
    assert doc.scripts == [_asset("report.js")]
    for tag, attrs in doc.tags:
        assert tag not in ("img", "iframe", "svg:script", "base", "object", "embed", "form"), tag
        for key, value in attrs:
            assert not key.startswith("on"), (tag, key, value)
            if key in ("href", "src", "action", "xlink:href"):
                assert value is None or re.match(r"#|data:,?$", value), (tag, key, value)
    metas = [dict(a) for t, a in doc.tags if t == "meta"]
    assert not [m for m in metas if m.get("http-equiv", "").lower() == "refresh"]
    text = "".join(doc.text)
    for payload in PAYLOADS:
        assert neutralize(payload.replace("\n", " ").replace("\r", " ")) in text, payload


def _tokens(markdown: str) -> list:
    out = []

    def walk(items):  # type: ignore[no-untyped-def]
        for token in items:
            out.append(token)
            walk(token.children or [])

    walk(MarkdownIt("commonmark").enable("table").parse(markdown))
    return out


def test_markdown(outputs: dict[str, str]) -> None:
    tokens = _tokens(outputs["markdown"])
    for token in tokens:
        assert token.type not in ("image", "link_open"), token
        if token.type in ("html_inline", "html_block"):  # plogscan's own markup only
            assert OWN_HTML.fullmatch(token.content), token
    headings = [t for t in tokens if t.type == "heading_open"]
    assert all(t.tag in ("h2", "h3") for t in headings)
    fenced = "".join(t.content for t in tokens if t.type == "fence")
    shown = [p for p in PAYLOADS if neutralize(p.replace("\n", " ").replace("\r", " ")) in fenced]
    assert len(shown) >= 5  # the detailed findings' evidence, fenced whole


@pytest.mark.parametrize("fmt", ["json", "sarif", "events jsonl"])
def test_json_formats(outputs: dict[str, str], fmt: str) -> None:
    text = outputs[fmt]
    documents = ([json.loads(line) for line in text.splitlines()] if fmt == "events jsonl"
                 else [json.loads(text)])
    assert len(text.splitlines()) == text.count("\n")  # no line separator left raw
    flat = json.dumps(documents, ensure_ascii=False)
    strings: list[str] = []

    def walk(item: object) -> None:
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, dict):
            for key, value in item.items():
                walk(key)
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk(documents)
    joined = "\n".join(strings)
    for payload in PAYLOADS:  # the exact text, not an escaped copy
        assert payload.replace("\n", " ").replace("\r", " ") in joined or fmt == "sarif", payload
    assert '"injected": true' not in flat.replace('\\"', "")


def test_junit(outputs: dict[str, str]) -> None:
    root = ET.fromstring(outputs["junit"].encode("utf-8"))
    rules = json.loads(outputs["json"])["rules_evaluated"]
    cases = root.findall(".//testcase")
    names = {f"{r['id']} {r['name']}" for r in rules}
    assert len(cases) >= len(rules)  # one per rule, and one per incident
    for case in cases:  # none made from log text
        assert re.sub(r"^I\d+ ", "", case.get("name") or "") in names, case.get("name")
    text = "".join(root.itertext())
    assert "alert(1)" in text and not UNSAFE.search(text)


def test_csv(outputs: dict[str, str]) -> None:
    rows = list(csv.reader(io.StringIO(outputs["events csv"])))
    assert rows[0] == TABLE_SCHEMA.names
    assert len(rows) > len(PAYLOADS)
    for row in rows[1:]:
        assert len(row) == len(TABLE_SCHEMA.names), row
        for cell in row:
            assert not cell.startswith(FORMULA), cell
    assert any(cell.startswith("'=HYPERLINK") or "'=HYPERLINK" in cell or "=HYPERLINK" in cell
               for row in rows for cell in row)


@pytest.mark.parametrize("fmt", ["text", "events table", "events csv", "text stderr",
                                 "html", "markdown", "junit", "json", "sarif"])
def test_nothing_reaches_a_terminal_raw(outputs: dict[str, str], fmt: str) -> None:
    assert not UNSAFE.findall(outputs[fmt]), fmt


def test_file_names_are_inert_everywhere(outputs: dict[str, str]) -> None:
    sarif = json.loads(outputs["sarif"])
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in sarif["runs"][0]["results"] for loc in result.get("locations", [])]
    assert uris and all(re.fullmatch(r"[A-Za-z0-9%._~/:!*'()@=+-]+", uri) for uri in uris), uris
    paths = [f["path"] for f in json.loads(outputs["json"])["inputs"]["file_stats"]]
    doc = _Document()
    doc.feed(outputs["html"])
    shown = "".join(doc.text)
    for name in NAME_PAYLOADS:
        assert any(printable(name) in p for p in paths), name  # JSON: as ingest shows names
        assert neutralize(name) in shown, name  # HTML: as text
