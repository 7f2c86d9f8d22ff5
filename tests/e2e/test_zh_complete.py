"""Chinese reports are Chinese throughout: every fixed word of every format, for every sample.

Three checks, each able to fail on its own:

* the visible text of every report of every sample (and of the report fixtures: baseline,
  hostile text, not_evaluable, clean), rendered with ``lang="zh"``, keeps no Latin word once
  the data is taken out (``zh_leftovers``), but the short list of terms Ascend's Chinese
  documentation keeps in Latin;
* no report, and no stage that writes sentences into the results (cross-rank, engine), asks a
  catalogue for a text that has no Chinese while every sample is diagnosed and rendered
  (``plogscan.lang.missing_translations``);
* read from the source: every text the code asks a catalogue for literally (report, HTML
  template, cross-rank stage, engine) has its Chinese with the same placeholders, and every
  reason ingest can give for skipping a file matches a translated pattern.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import pytest

from plogscan.catalog.ruleset import load_rules
from plogscan.compare.words import WORDS as COMPARE_WORDS
from plogscan.crossrank.words import WORDS as CROSSRANK_WORDS
from plogscan.engine.words import WORDS as ENGINE_WORDS
from plogscan.lang import missing_translations
from plogscan.report import i18n, render
from tests import zh_leftovers as z
from tests.helpers import REPO_ROOT, diagnosed
from tests.report_fixtures import FIXTURES

REPO = REPO_ROOT
PACKAGE = REPO / "plogscan"
SAMPLES = sorted(p.name for p in (REPO / "samples").iterdir() if p.is_dir())
WIDE = 30_000  # no line of the terminal report wraps: data stays whole
FORMATS = ("text", "all", "verbose", "markdown", "html", "junit", "sarif", "json")


def _visible(diagnosis, fmt: str) -> str:
    """What a reader of one format sees (for JSON: its human text values)."""
    if fmt in ("text", "all", "verbose"):
        return render(diagnosis, "text", width=WIDE, show_all=fmt == "all",
                      verbose=fmt == "verbose")
    shown = {"markdown": z.markdown_text, "html": z.html_text, "junit": z.junit_text,
             "sarif": z.sarif_text, "json": z.json_text}[fmt]
    return shown(render(diagnosis, fmt))


@lru_cache(maxsize=1)
def _zh_runs() -> tuple[dict, set]:
    """Every sample diagnosed and rendered in Chinese, with the catalogue misses of it all."""
    rules = load_rules([]).localized("zh")
    out = {}
    with missing_translations() as missed:
        for name in SAMPLES:
            diagnosis = diagnosed([str(REPO / "samples" / name)], lang="zh", rules=rules)
            out[name] = (diagnosis, {fmt: _visible(diagnosis, fmt) for fmt in FORMATS},
                         z.data_strings(diagnosis, rules))
        for name, make in FIXTURES.items():
            diagnosis = replace(make(), lang="zh")
            out[f"fixture:{name}"] = (diagnosis, {fmt: _visible(diagnosis, fmt)
                                                  for fmt in FORMATS}, z.data_strings(diagnosis))
        missed = set(missed)
    return out, missed


@pytest.mark.parametrize("name", [*SAMPLES, *(f"fixture:{n}" for n in FIXTURES)])
def test_chinese_reports_leave_no_english_word(name: str) -> None:
    _, outputs, data = _zh_runs()[0][name]
    found = {fmt: words for fmt in FORMATS if (words := z.leftovers(outputs[fmt], data))}
    assert not found, f"{name}: untranslated words by format: {found}"


def test_no_report_asks_for_a_text_without_chinese() -> None:
    missed = _zh_runs()[1]
    assert not missed, "texts without a Chinese translation:\n" + "\n".join(
        f"  [{catalogue}] {english!r}" for catalogue, _, english in sorted(missed))


def test_the_samples_exercise_the_chinese_sections() -> None:
    """The leftover check means something only if the sections it reads are there."""
    runs = _zh_runs()[0]
    text = "".join(outputs["all"] for _, outputs, _ in runs.values())
    for heading in ("根因定位", "等待链", "无法判定：缺少证据", "已被基线屏蔽", "未解释的错误",
                    "日志读取情况", "读取有问题的文件", "错误码", "时钟", "受害者"):
        assert heading in text, heading
    html = "".join(outputs["html"] for _, outputs, _ in runs.values())
    for heading in ("概要", "rank × 时间", "日志记录", "捕获的字段", "由此引发", "基线"):
        assert heading in html, heading


# ------------------------------------------------------------ the checks can fail


def test_the_leftover_check_finds_an_untranslated_heading(monkeypatch) -> None:
    diagnosis, _, data = _zh_runs()[0]["ccu-reuse-before-mc2"]
    monkeypatch.delitem(i18n.UI["zh"], "Evidence")
    words = z.leftovers(_visible(diagnosis, "all"), data)
    assert words == ["Evidence"]
    assert z.leftovers(_visible(replace(diagnosis, lang="en"), "markdown"), data)


def test_the_leftover_check_finds_an_untranslated_cross_rank_sentence(monkeypatch) -> None:
    monkeypatch.delitem(CROSSRANK_WORDS["zh"], "{text}: a real error, not a timeout; it outranks "
                        "every rank that only waited")
    rules = load_rules([]).localized("zh")
    with missing_translations() as missed:
        diagnosis = diagnosed([str(REPO / "samples" / "notify-wait-cascade")], lang="zh",
                        rules=rules)
    assert ("crossrank", "zh", "{text}: a real error, not a timeout; it outranks every rank "
            "that only waited") in missed
    words = z.leftovers(_visible(diagnosis, "all"), z.data_strings(diagnosis, rules))
    assert {"outranks", "waited"} <= set(words)


def test_the_miss_recorder_sees_a_removed_translation(monkeypatch) -> None:
    monkeypatch.delitem(i18n.UI["zh"], "{n} skipped")
    with missing_translations() as missed:
        render(replace(FIXTURES["flagship"](), lang="zh"), "text")
    assert missed == {("report", "zh", "{n} skipped")}
    with missing_translations() as missed:
        render(FIXTURES["flagship"](), "text")  # English asks no table
    assert missed == set()


# ------------------------------------------------------------ read from the source


def _strings(node: ast.AST, constants: dict[str, str]) -> list[str]:
    """The texts an argument can be: a literal, either branch of ``a if c else b``, a
    module constant, literals joined with ``+``; [] when it is computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body, constants) + _strings(node.orelse, constants)
    if isinstance(node, ast.Name) and node.id in constants:
        return [constants[node.id]]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _strings(node.left, constants), _strings(node.right, constants)
        return [a + b for a in left for b in right]
    return []


def _asked(package: str, calls: dict[str, tuple[int, ...]]) -> dict[str, str]:
    """English text -> where the code of ``package`` asks a catalogue for it, for calls
    ``name(...)`` whose arguments at the given positions are texts."""
    found: dict[str, str] = {}
    for path in sorted((PACKAGE / package).rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                     for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            for position in calls.get(name, ()):
                if position < len(node.args):
                    for text in _strings(node.args[position], constants):
                        found.setdefault(text, f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def _template_texts() -> dict[str, str]:
    source = (PACKAGE / "report" / "assets" / "report.html.j2").read_text("utf-8")
    return {m.group(1): "report.html.j2" for m in re.finditer(r'\bt\("((?:[^"\\]|\\.)*)"',
                                                               source)}


CATALOGUES = {
    "report": (lambda: {**_asked("report", {"tr": (1,), "count": (2, 3)}), **_template_texts()},
               i18n.UI),
    "crossrank": (lambda: _asked("crossrank", {"say": (1,)}), CROSSRANK_WORDS),
    "engine": (lambda: _asked("engine", {"words": (1,)}), ENGINE_WORDS),
    "compare": (lambda: _asked("compare", {"say": (1,), "count": (2, 3)}), COMPARE_WORDS),
}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("catalogue", sorted(CATALOGUES))
def test_every_text_the_code_asks_for_has_chinese(catalogue: str) -> None:
    asked, tables = CATALOGUES[catalogue]
    texts = asked()
    assert len(texts) > 10, "the scan found nothing: has the calling convention changed?"
    missing = {text: where for text, where in texts.items() if text not in tables["zh"]}
    assert not missing, "no Chinese for:\n" + "\n".join(f"  {w}: {t!r}"
                                                        for t, w in missing.items())


@pytest.mark.parametrize("catalogue", sorted(CATALOGUES))
def test_every_chinese_text_keeps_the_placeholders(catalogue: str) -> None:
    table = CATALOGUES[catalogue][1]["zh"]
    wrong = {k: v for k, v in table.items() if _fields(k) != _fields(v)}
    assert not wrong, f"placeholders differ: {wrong}"
    same = {k for k, v in table.items() if v == k and re.search(r"[a-z]{3}", k)}
    assert same <= {"Rank", "rank {ranks}"}, f"translated as the English itself: {same}"


def test_the_enumerations_the_reports_show_have_chinese() -> None:
    """Texts the code passes as values rather than literals: verdicts, the root-cause
    verdicts, clock bases, divergence kinds, the verdict-line words, table headings."""
    table = i18n.UI["zh"]
    for text in ("match", "not_evaluable", "localized", "ambiguous", "undetermined",
                 "rendezvous", "collective-entry", "heartbeat", "override", "missing", "op",
                 "count", "dtype", "FAIL", "ERROR", "PASS", "RANK", "HOST", "PID", "DEV",
                 "LOG LEVELS", "RANKS", "DEVS", "PROCS"):
        assert text in table, text
    for text in ("op", "count", "dtype"):
        assert text in CROSSRANK_WORDS["zh"], text


def _reason_shapes() -> dict[str, str]:
    """Every skip reason and file problem ingest can write, with its values replaced by
    ``7``: the texts of ``Skipped(path, reason)``, ``problems.append(text)`` and the
    ``return`` of its reason helpers, read from its source."""
    found: dict[str, str] = {}
    constants: dict[str, str] = {}
    trees = {path: ast.parse(path.read_text("utf-8"))
             for path in sorted((PACKAGE / "ingest").rglob("*.py"))}
    for tree in trees.values():
        constants.update({t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                          and isinstance(n.value, ast.Constant)
                          and isinstance(n.value.value, str) for t in n.targets
                          if isinstance(t, ast.Name)})

    def shape(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return constants.get(node.id)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                if isinstance(value, ast.Constant):
                    parts.append(str(value.value))
                else:
                    inner = value.value if isinstance(value, ast.FormattedValue) else value
                    parts.append(shape(inner) if isinstance(inner, ast.Name) and
                                 inner.id in constants else "7")
            return "".join(parts)
        return None

    for path, tree in trees.items():
        for node in ast.walk(tree):
            texts = []
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name == "Skipped" and len(node.args) > 1:
                    texts.append(node.args[1])
                if name == "append" and isinstance(func, ast.Attribute) and \
                        getattr(func.value, "attr", None) == "problems":
                    texts += node.args
            if isinstance(node, ast.FunctionDef) and node.name in ("failure", "_stat_failure"):
                texts += [r.value for r in ast.walk(node)
                          if isinstance(r, ast.Return) and r.value is not None]
            for text_node in texts:
                for candidate in ([text_node.body, text_node.orelse]
                                  if isinstance(text_node, ast.IfExp) else [text_node]):
                    text = shape(candidate)
                    if text is not None:
                        found.setdefault(text, f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_the_ingest_patterns_fill_their_templates() -> None:
    for pattern, template in i18n.INGEST["zh"]:
        assert set(re.compile(pattern).groupindex) == _fields(template), pattern


def test_every_reason_ingest_gives_has_chinese() -> None:
    shapes = _reason_shapes()
    assert len(shapes) > 15, "the scan found nothing: has ingest's wording changed shape?"
    untranslated = {text: where for text, where in shapes.items()
                    if i18n.ingest_text("zh", text) == text}
    assert not untranslated, "no Chinese pattern for:\n" + "\n".join(
        f"  {w}: {t!r}" for t, w in untranslated.items())
    assert i18n.ingest_text("zh", "corrupt archive: bad header (after 3 members)") == \
        "归档文件已损坏：bad header（已读取 3 个成员之后）"
    assert i18n.ingest_text("en", "not a log file (.md)") == "not a log file (.md)"


def test_limit_reasons_read_whole_in_chinese(tmp_path: Path) -> None:
    """What a limit stopped reads in Chinese down to its detail (the limits' own sentences,
    as ingest writes them when each limit bites), with only numbers, paths and options left."""
    import gzip

    from plogscan.ingest.limits import Limits
    from plogscan.ingest.pipeline import Ingest

    line = b"[ERROR] HCCL(1,python):2024-01-01-00:00:00.000.000 [a.cc:1] [1][1] x\n"
    deep = tmp_path / "deep" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "plog-1_1.log").write_bytes(line)
    for n in (5, 6, 9):  # the last one in walk order is past --max-files
        (tmp_path / f"plog-{n}_1.log").write_bytes(line)
    (tmp_path / "plog-00_1.log.gz.gz").write_bytes(gzip.compress(gzip.compress(line)))
    (tmp_path / "plog-1_1.log.gz").write_bytes(gzip.compress(line * 2000))
    (tmp_path / "plog-7_1.log").write_bytes(b"x" * 5000 + b"\n" + line)
    ingest = Ingest(workers=1, limits=Limits(files=5, depth=1, nesting=1,
                                             decompressed_bytes=4096, line_bytes=1024))
    list(ingest.batches([str(tmp_path)]))
    summary = ingest.summary
    texts = [s.reason for s in summary.skipped] + [p for f in summary.files for p in f.problems]
    wanted = ("--max-files", "--max-depth", "--max-nesting", "decompressed", "longer than")
    for word in wanted:
        assert any(word in t for t in texts), (word, texts)
    for text in texts:
        shown = i18n.ingest_text("zh", text)
        data = {str(tmp_path), "KiB",
                *(m for m in re.findall(r"\S*plog-\S+|--max-[a-z-]+", text))}
        assert not z.leftovers(shown, data), (text, shown)


def test_stderr_while_reading_is_chinese(diagnose_cli, tmp_path: Path) -> None:
    """With --lang zh the lines diagnose writes to stderr about what it could not read (the
    grouped skips, the problems inside files, the reports it wrote) are Chinese too."""


    good = b"[ERROR] HCCL(1,python):2024-01-01-00:00:00.000.000 [a.cc:1] [1][1] x\n"
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "README.md").write_text("notes\n")
    (logs / "notes.txt").write_bytes(b"\x00\x01\x02" * 400)
    for n in range(2):
        (logs / f"plog-{n}_1.log").write_bytes(b"\xff\xfe bad \x00" + good)
    out = tmp_path / "out"
    result = diagnose_cli(logs, "--lang", "zh", "--workers", "1", "-q", "--output-dir", out)
    assert result.exit_code in (0, 1), result.output
    stderr = result.stderr
    assert "跳过了" in stderr and "已写入" in stderr, stderr
    data = {str(tmp_path), "UTF-8", "NUL", "README.md"}
    assert not z.leftovers(stderr.replace("plogscan:", ""), data), stderr


@pytest.mark.parametrize(("argv", "english"), [
    (["diagnose", "{tmp}/notes"], "nothing could be read from the given paths"),
    (["explain", "9999999"], "unknown code '9999999'"),
    (["rules", "show", "NO_SUCH_RULE"], "no rule 'NO_SUCH_RULE'"),
    (["diagnose", "{tmp}/plog-1_1.log", "-o", "{tmp}/plog-1_1.log"],
     "refusing to overwrite the input file"),
])
def test_errors_follow_the_language(tmp_path: Path, argv: list[str], english: str) -> None:
    """A command's error (message, help and labels) is Chinese under --lang zh, English
    otherwise; only data (paths, codes, ids, options) stays in Latin letters."""
    from click.testing import CliRunner

    from plogscan.cli import cli

    (tmp_path / "README.md").write_text("notes\n")
    (tmp_path / "notes").mkdir()  # a tree of notes only: nothing in it is a log
    (tmp_path / "notes" / "README.md").write_text("notes\n")
    (tmp_path / "plog-1_1.log").write_bytes(
        b"[ERROR] HCCL(1,python):2024-01-01-00:00:00.000.000 [a.cc:1] [1][1] x\n")
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    plain = CliRunner(env={"PLOGSCAN_LANG": "en"}).invoke(cli, [*args, "--lang", "en"])
    chinese = CliRunner().invoke(cli, [*args, "--lang", "zh"])
    assert plain.exit_code == chinese.exit_code == 2
    assert english in plain.stderr and "error: " in plain.stderr
    assert "错误：" in chinese.stderr, chinese.stderr
    error = chinese.stderr[chinese.stderr.index("错误："):]
    data = {str(tmp_path), "9999999", "NO_SUCH_RULE", ".parquet", "plogscan explain --help"}
    data |= set(re.findall(r"\b[A-Z]+[0-9]+\b|EI9999|EL9999|EZ9999", error))
    assert not z.leftovers(error, data), error
