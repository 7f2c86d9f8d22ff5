"""``plogscan diff GOOD BAD``: what a failing run logged that a passing run did not.

The founding pair (``samples/mc2-before-eager`` passes, ``samples/ccu-reuse-before-mc2`` fails:
the same job with its two steps in the other order) must name the ``Already have context,
skip create`` record first, before the fault; a run against itself gives no difference; one
error injected into a copy is exactly what the comparison names; renamed hosts, other pids and
shifted clocks make no difference; the JSON document is byte-identical for the same inputs;
log text is inert in every format.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from plogscan.cli import cli
from plogscan.lang import missing_translations
from plogscan.textsafe import neutralize
from tests.helpers import REPO_ROOT
from tests.payloads import PAYLOADS

REPO = REPO_ROOT
GOOD = "samples/mc2-before-eager"
BAD = "samples/ccu-reuse-before-mc2"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                    "\u2066-\u2069]")


def diff(good: str | Path, bad: str | Path, *args: str):
    return CliRunner().invoke(cli, ["diff", str(good), str(bad), "-q", "--workers", "1", *args],
                              catch_exceptions=False)


def document(good: str | Path, bad: str | Path, *args: str) -> dict:
    result = diff(good, bad, "--format", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


pytestmark = pytest.mark.usefixtures("at_repo_root")


@pytest.fixture(scope="module")
def founding() -> dict:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPO)
        return document(GOOD, BAD)


def _ts(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


# ------------------------------------------------------------------ the founding pair


def test_the_founding_pair_names_the_reuse_first_before_the_fault(founding: dict) -> None:
    first = founding["templates"]["bad"][0]
    assert first["template"] == "Already have context, skip create, ctxSize is <NUM>"
    assert first["only"] and first["score"] == 1.0
    assert (first["failing"], first["processes"], first["other_processes"]) == (2, 2, 0)
    where = {(e["path"].rsplit("/", 1)[-1], e["line"]) for e in first["evidence"]}
    assert where == {("plog-276431_20260317140211485.log", 2625),  # the README's key lines
                     ("plog-276432_20260317140211674.log", 2755)}
    fault = next(t for t in founding["templates"]["bad"] if "ccu task print" in t["template"])
    assert _ts(first["first_ts"]) < _ts(fault["first_ts"])


def test_the_pair_differs_only_in_the_order_and_what_follows(founding: dict) -> None:
    """The samples are written from one seed: besides the reuse, BAD logged only the fault
    and its consequences, and GOOD only what its other order and its clean end log."""
    bad = founding["templates"]["bad"]
    reuse = _ts(bad[0]["first_ts"])
    fault = min(_ts(t["first_ts"]) for t in bad[1:] if t["first_ts"])
    assert fault - reuse > timedelta(seconds=2)  # nothing else in between
    assert all(t["only"] and t["score"] == 1.0 for t in bad)
    for t in bad[1:]:  # the fault's records, the stdout traceback (no time) and the exit
        assert t["first_ts"] is None or _ts(t["first_ts"]) >= fault.replace(microsecond=0), t
    divergences = founding["divergences"]
    assert [d["process"] for d in divergences] == [{"rank": 0, "nth": 0}, {"rank": 1, "nth": 0}]
    for d in divergences:  # the two steps in the other order
        assert d["good"]["template"].startswith("step mc2")
        assert d["bad"]["template"].startswith("step eager")
        assert d["first_only_bad"]["template"] == bad[0]["template"]
    good_step = _ts(divergences[0]["good"]["evidence"]["ts"]) - timedelta(seconds=1)
    good = founding["templates"]["good"]
    assert good and all(_ts(t["first_ts"]) > good_step for t in good)
    assert any("no cached resource" in t["template"] for t in good)  # GOOD creates a context
    assert founding["settings"] == [] and founding["unmatched"] == {"bad": [], "good": []}
    assert [f["rule"] for f in founding["findings"]["bad"]][:3] == ["CCU001", "CCU002", "AIC001"]
    assert founding["findings"]["good"] == []
    codes = [c["value"] for c in founding["codes"]["bad"]]
    assert "507916" in codes and founding["codes"]["good"] == []
    assert [v["value"] for v in founding["levels"]["bad"]] == ["ERROR"]


def test_the_text_report_leads_with_the_answer() -> None:
    result = diff(GOOD, BAD)
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    answer = lines.index(next(line for line in lines if line.startswith("ANSWER")))
    assert lines[answer + 2] == "  Already have context, skip create, ctxSize is <NUM>"
    assert "plog-27643" in lines[answer + 3] and "DEBUG HCCL" in lines[answer + 3]
    assert "step eager" in result.stdout.split("LOGGED BY BAD")[0]
    for heading in ("LOGGED BY BAD, NOT BY GOOD", "LOGGED BY GOOD, NOT BY BAD",
                    "WHERE EACH RANK DIVERGES", "FINDINGS ONLY IN BAD",
                    "CODES, LEVELS AND MODULES ONLY IN BAD"):
        assert heading in result.stdout
    only_bad = int(re.search(r"Only BAD logged (\d+) template", result.stdout).group(1))
    assert f"… {only_bad - 10} more" in result.stdout  # --limit 10 by default


def test_the_report_speaks_chinese() -> None:
    with missing_translations() as missed:
        shown = {fmt: diff(GOOD, BAD, "--lang", "zh", "--format", fmt, "--limit", "0")
                 for fmt in ("text", "markdown")}
        shown["same"] = diff(BAD, BAD, "--lang", "zh")
    assert not missed, missed
    assert shown["text"].exit_code == 1
    for fmt in ("text", "markdown"):
        assert "结论" in shown[fmt].stdout and "各 rank 的分歧点" in shown[fmt].stdout
        assert "Already have context, skip create" in shown[fmt].stdout
    assert "没有差异" in shown["same"].stdout


# ------------------------------------------------------------------ no difference


def test_a_run_against_itself_gives_no_difference() -> None:
    result = diff(BAD, BAD)
    assert result.exit_code == 0, result.stdout
    assert "No differences" in result.stdout
    doc = document(BAD, BAD)
    assert doc["differs"] is False
    for key in ("templates", "codes", "levels", "modules", "findings", "unmatched"):
        assert doc[key] == {"bad": [], "good": []}, key
    assert doc["divergences"] == [] and doc["settings"] == []


def test_an_event_table_compares_as_its_logs(tmp_path: Path, founding: dict) -> None:
    table = tmp_path / "good.parquet"
    done = CliRunner().invoke(cli, ["ingest", GOOD, "-o", str(table), "-q"])
    assert done.exit_code == 0, done.stderr
    doc = document(table, BAD)
    assert doc["good"].pop("path") == str(table)
    assert doc == {**founding, "good": {k: v for k, v in founding["good"].items() if k != "path"}}
    assert diff(table, GOOD).exit_code == 0


# ------------------------------------------------------------------ one injected error


INJECTED = "Injected fault: peer link 9 of group sdma_ring lost after 3 retries"


def _inject(source: Path, target: Path) -> Path:
    """A copy of ``source`` with one ERROR record put into rank 1's debug plog, mid-file, in
    the shape and at the time of its neighbour."""
    shutil.copytree(source, target)
    plog = next((target / "rank_1/process_log/debug/plog").glob("plog-*.log"))
    lines = plog.read_text("utf-8").splitlines(keepends=True)
    at = len(lines) // 2
    header = re.match(r"\[[A-Z]+\] \w+\((\d+),([^)]*)\):(\S+)", lines[at])
    assert header is not None
    pid, proc, ts = header.groups()
    lines.insert(at, f"[ERROR] HCCL({pid},{proc}):{ts} [transport_manager.cc:412] [{pid}]"
                     f"{INJECTED}\n")
    plog.write_text("".join(lines), "utf-8")
    return target


def test_one_injected_error_is_exactly_what_the_comparison_names(tmp_path: Path) -> None:
    copy = _inject(REPO / BAD, tmp_path / "bad")
    doc = document(BAD, copy)
    assert doc["differs"] is True
    assert [t["template"] for t in doc["templates"]["bad"]] == [
        "Injected fault: peer link <NUM> of group sdma_ring lost after <NUM> retries"]
    assert doc["templates"]["good"] == []
    only = doc["templates"]["bad"][0]
    assert only["only"] and only["slots"] == [{"rank": 1, "nth": 0}]
    assert only["evidence"][0]["message"] == INJECTED
    assert [d["process"] for d in doc["divergences"]] == [{"rank": 1, "nth": 0}]
    assert doc["divergences"][0]["first_only_bad"]["template"] == only["template"]
    for key in ("codes", "levels", "modules", "findings"):
        assert doc[key] == {"bad": [], "good": []}, key
    back = document(copy, BAD)  # the other way round: only GOOD logged it
    assert [t["template"] for t in back["templates"]["good"]] == [only["template"]]
    assert back["templates"]["bad"] == []


# ------------------------------------------------------------------ other hosts, pids, clocks


_TS = re.compile(r"(\d{4}-\d{2}-\d{2})([- ])(\d{2}:\d{2}:\d{2})")
_FILE_TS = re.compile(r"_(\d{17})\.log$")
SHIFT = timedelta(days=3, hours=5, minutes=7, seconds=11)


def _shifted(match: re.Match[str]) -> str:
    when = datetime.strptime(f"{match[1]} {match[3]}", "%Y-%m-%d %H:%M:%S") + SHIFT
    return f"{when:%Y-%m-%d}{match[2]}{when:%H:%M:%S}"


def _moved(source: Path, target: Path, hosts: dict[str, str]) -> Path:
    """``source`` as another run of the same job would leave it: hosts renamed (in paths and
    in text), every pid another, every clock shifted."""
    names = [p.name for p in source.rglob("*.log")]
    pids = sorted({int(m[1]) for n in names if (m := re.search(r"-(\d+)_\d{17}\.log$", n))})
    new_pid = {str(p): str(p + 40_417) for p in pids}
    pid_re = re.compile(r"(?<![0-9])(" + "|".join(map(re.escape, new_pid)) + r")(?![0-9])")
    host_re = re.compile(r"\b(" + "|".join(map(re.escape, hosts)) + r")\b")
    for path in sorted(source.rglob("*")):
        if not path.is_file() or path.suffix == ".md":
            continue
        rel = host_re.sub(lambda m: hosts[m[1]], str(path.relative_to(source)))
        rel = pid_re.sub(lambda m: new_pid[m[1]], rel)
        if (m := _FILE_TS.search(rel)):
            when = datetime.strptime(m[1][:14], "%Y%m%d%H%M%S") + SHIFT
            rel = rel[:m.start(1)] + f"{when:%Y%m%d%H%M%S}{m[1][14:]}" + rel[m.end(1):]
        text = path.read_text("utf-8")
        text = _TS.sub(_shifted, pid_re.sub(lambda m: new_pid[m[1]], text))
        out = target / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(host_re.sub(lambda m: hosts[m[1]], text), "utf-8")
    return target


@pytest.mark.parametrize(("sample", "hosts"), [
    ("notify-wait-cascade", {"node-a": "node-zz9", "node-b": "node-aa1"}),
    ("ccu-reuse-before-mc2", {"172.16.40.7": "10.3.0.12"}),
])
def test_other_hosts_pids_and_clocks_make_no_difference(tmp_path: Path, sample: str,
                                                        hosts: dict[str, str]) -> None:
    moved = _moved(REPO / "samples" / sample, tmp_path / "moved", hosts)
    assert sorted(p.name for p in moved.rglob("*.log")) != sorted(
        p.name for p in (REPO / "samples" / sample).rglob("*.log"))
    result = diff(REPO / "samples" / sample, moved, "--format", "json")
    doc = json.loads(result.stdout)
    assert result.exit_code == 0, json.dumps({k: doc[k] for k in (
        "templates", "divergences", "codes", "levels", "modules", "settings", "findings",
        "unmatched")}, indent=1)[:4000]
    assert doc["differs"] is False


def test_a_host_named_in_the_text_is_masked(tmp_path: Path) -> None:
    def tree(root: Path, host: str) -> Path:
        plog = root / host / "process_log/run/plog/plog-4242_20260302101500000.log"
        plog.parent.mkdir(parents=True)
        plog.write_text(f"[INFO] HCCL(4242,python):2026-03-02-10:15:00.000.100 [a.cc:1] [4242]"
                        f"rendezvous with server {host} done\n", "utf-8")
        return root

    assert diff(tree(tmp_path / "a", "node-east"), tree(tmp_path / "b", "node-west")
                ).exit_code == 0


# ------------------------------------------------------------------ output contract


def test_json_is_byte_identical_for_the_same_inputs(tmp_path: Path) -> None:
    first = diff(GOOD, BAD, "--format", "json").stdout
    out = tmp_path / "diff.json"
    assert diff(GOOD, BAD, "--format", "json", "-o", str(out)).exit_code == 1
    assert out.read_text("utf-8") == first
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_missing_path_is_exit_2(tmp_path: Path) -> None:
    result = diff(tmp_path / "nope", BAD)
    assert result.exit_code == 2
    assert "cannot read GOOD" in result.stderr and "nope" in result.stderr
    assert "Traceback" not in result.stderr
    assert diff(BAD, tmp_path / "nope").exit_code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    result = diff(empty, BAD)
    assert result.exit_code == 2 and "nothing could be read from GOOD" in result.stderr
    zh = diff(BAD, tmp_path / "nope", "--lang", "zh")
    assert zh.exit_code == 2 and "无法读取 BAD" in zh.stderr


def test_help_teaches_with_examples() -> None:
    result = CliRunner().invoke(cli, ["diff", "--help"])
    assert result.exit_code == 0
    for text in ("plogscan diff samples/mc2-before-eager samples/ccu-reuse-before-mc2",
                 "Exit codes", "--format", "--limit"):
        assert text in result.stdout
    assert "diff" in CliRunner().invoke(cli, ["--help"]).stdout


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("hostile")

    def tree(name: str, payloads: tuple[str, ...]) -> Path:
        plog = root / name / "rank_0/process_log/debug/plog/plog-5000_20260302101500000.log"
        plog.parent.mkdir(parents=True)
        lines = ["[INFO] HCCL(5000,python):2026-03-02-10:15:00.000.100 [a.cc:1] [5000]start"]
        lines += [f"[ERROR] HCCL(5000,python):2026-03-02-10:15:01.{i:03d}.456 [op.cc:1] [5000]"
                  f"remote rank [{p.replace(chr(10), ' ').replace(chr(13), ' ')}]"
                  for i, p in enumerate(payloads)]
        plog.write_text("\n".join(lines) + "\n", "utf-8")
        return root / name

    good, bad = tree("good", ()), tree("bad", PAYLOADS)
    return {fmt: diff(good, bad, "--format", fmt, "--limit", "0").stdout
            for fmt in ("text", "markdown", "json")}


def test_hostile_text_is_escaped_in_markdown(hostile: dict[str, str]) -> None:
    tokens = []

    def walk(items):  # type: ignore[no-untyped-def]
        for token in items:
            tokens.append(token)
            walk(token.children or [])

    walk(MarkdownIt("commonmark").enable("table").parse(hostile["markdown"]))
    assert len([t for t in tokens if t.type == "tr_open"]) > len(PAYLOADS) // 2
    for token in tokens:
        assert token.type not in ("image", "link_open", "html_block"), token
        if token.type == "html_inline":
            assert token.content in ("<sub>", "</sub>"), token
    assert all(t.tag in ("h2", "h3") for t in tokens if t.type == "heading_open")


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_nothing_reaches_a_terminal_raw(hostile: dict[str, str], fmt: str) -> None:
    assert not UNSAFE.findall(hostile[fmt])


def test_json_keeps_the_exact_text(hostile: dict[str, str]) -> None:
    doc = json.loads(hostile["json"])
    messages = {e["message"] for t in doc["templates"]["bad"] for e in t["evidence"]}
    written = {f"remote rank [{p.replace(chr(10), ' ').replace(chr(13), ' ')}]"
               for p in PAYLOADS}
    assert messages <= written  # exactly as logged
    assert len(messages) >= len(PAYLOADS) - 5  # a few payloads share a template
    assert neutralize("\x1b[2J") in hostile["text"]


def test_the_reports_see_the_comparison_only() -> None:
    """``compare.report`` renders results: it imports the comparison's model and words, the
    shared reporters' helpers and vocabulary, never an input or a stage."""
    from tests.repo.test_layout import GRAPH

    allowed = ("plogscan.compare.model", "plogscan.compare.words", "plogscan.compare.report",
               "plogscan.report", "plogscan.model", "plogscan.textsafe", "plogscan.lang")
    reports = [m for m in GRAPH if m.startswith("plogscan.compare.report")]
    assert len(reports) >= 4
    wrong = [f"{m} imports {t}" for m in reports for t in sorted(GRAPH[m])
             if t != "plogscan" and not any(t == a or t.startswith(f"{a}.") for a in allowed)]
    assert not wrong, wrong
    assert "plogscan.compare.differ" in GRAPH["plogscan.compare.pair"]  # the check sees imports


# ------------------------------------------------------------------ settings, rank counts


def test_a_setting_with_another_value_is_named_with_both_values(tmp_path: Path) -> None:
    bigger = tmp_path / "bad"
    shutil.copytree(REPO / BAD, bigger)
    for plog in bigger.glob("rank_*/process_log/run/plog/plog-*.log"):
        text = plog.read_text("utf-8")
        assert "HCCL_BUFFSIZE set by default to [200]MB" in text
        plog.write_text(text.replace("HCCL_BUFFSIZE set by default to [200]MB",
                                     "HCCL_BUFFSIZE set by environment to [400]MB"), "utf-8")
    doc = document(BAD, bigger)
    assert [s["key"] for s in doc["settings"]] == ["HCCL_BUFFSIZE"]
    setting = doc["settings"][0]
    both = [{"rank": 0, "nth": 0}, {"rank": 1, "nth": 0}]
    assert [(v["value"], v["processes"]) for v in setting["good"]] == [("200MB", both)]
    assert [(v["value"], v["processes"]) for v in setting["bad"]] == [("400MB", both)]
    assert "HCCL_BUFFSIZE set by environment to [400]MB" in setting["bad"][0]["evidence"][0][
        "message"]
    assert doc["differs"] is True
    text = diff(BAD, bigger).stdout
    assert "SETTINGS THAT DIFFER (1)" in text and "[400MB]" in text


def test_runs_of_other_rank_counts_compare_rank_by_rank(tmp_path: Path) -> None:
    """GOOD ran on two hosts (8 ranks), BAD on one (4 ranks): the ranks of the host both
    have are compared, the others are named as having no counterpart."""
    half = tmp_path / "one-host"
    shutil.copytree(REPO / "samples/notify-wait-cascade/node-a", half / "node-a")
    doc = document("samples/notify-wait-cascade", half)
    good = {p["process"]["rank"] for p in doc["good"]["processes"]}
    bad = {p["process"]["rank"] for p in doc["bad"]["processes"]}
    assert len(good) == 8 and len(bad) == 4 and bad < good
    assert sorted(s["rank"] for s in doc["unmatched"]["good"]) == sorted(good - bad)
    assert doc["unmatched"]["bad"] == []
    assert doc["divergences"] == [] and doc["templates"]["bad"] == []
    assert {r for t in doc["templates"]["good"] for s in t["slots"] for r in [s["rank"]]} <= \
        good - bad  # only the ranks BAD lacks logged what BAD did not


# ------------------------------------------------------------------ bounded memory


class _OneProcess:
    """A stream map that puts every record in process 0."""

    def column(self, batch):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.zeros(batch.num_rows, np.int32)


def _batch(words: list[str], start: int):  # type: ignore[no-untyped-def]
    import pyarrow as pa

    from plogscan.schema import EVENT_SCHEMA

    n = len(words)
    base = datetime(2026, 1, 1)
    columns = {name: pa.nulls(n, EVENT_SCHEMA.field(name).type) for name in EVENT_SCHEMA.names}
    columns.update({
        "message": pa.array([f"event {w} happened" for w in words], pa.large_string()),
        "ts_aligned": pa.array([base + timedelta(seconds=start + i) for i in range(n)],
                               pa.timestamp("us")),
        "path": pa.array(["a.log"] * n), "line": pa.array(range(start, start + n), pa.int64()),
        "level": pa.array(["INFO"] * n), "module": pa.array(["HCCL"] * n),
        "codes": pa.array([[]] * n, pa.list_(pa.string())),
    })
    return pa.RecordBatch.from_pydict(columns, schema=EVENT_SCHEMA)


def _word(i: int) -> str:
    return "".join("ghijklmnop"[int(d)] for d in str(i))  # a word no mask touches


@pytest.mark.parametrize("fold_rows", [1 << 20, 600])
def test_templates_are_capped_and_what_is_dropped_is_counted(
        monkeypatch: pytest.MonkeyPatch, fold_rows: int) -> None:
    from plogscan.compare import profile

    monkeypatch.setattr(profile, "FOLD_ROWS", fold_rows)  # fold (and cap) once, or as it goes
    builder = profile.ProfileBuilder(_OneProcess(), max_values=100)  # type: ignore[arg-type]
    for start in range(0, 3000, 500):  # 1,500 templates, each logged twice
        builder.consume(_batch([_word(i % 1500) for i in range(start, start + 500)], start))
        held = sum(t.num_rows for t in builder._parts["template"])
        assert held <= 100 + fold_rows
    result = builder.result()
    kept = result.tables["template"]
    assert kept.num_rows == 100  # one process, the 100 templates first seen
    assert set(kept.column("value").to_pylist()) == {f"event {_word(i)} happened"
                                                     for i in range(100)}
    assert sum(kept.column("count").to_pylist()) == 200 and result.records == 3000
    if fold_rows > 3000:
        assert (result.dropped_templates, result.dropped_records) == (1400, 2800)
    else:  # a template seen again after it was pushed out is counted again
        assert result.dropped_templates >= 1400 and result.dropped_records == 2800
