"""Small files parsed in groups give exactly what parsing each file alone gives: the same
records in the same order and the same accounting, whatever the files hold."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from plogscan.ingest import pipeline
from plogscan.ingest.pipeline import Ingest
from plogscan.report import render
from tests.helpers import diagnosed

HEADER = "[{level}] HCCL({pid},python3):2026-03-02-10:15:{sec:02d}.{ms:03d}.000 [x.cc:1] [7]"
CASES = {
    "plain": lambda i: HEADER.format(level="INFO", pid=100 + i, sec=i % 60, ms=i) + "ok\n",
    "continuation-first": lambda i: "    continued detail\n" + HEADER.format(
        level="ERROR", pid=7, sec=1, ms=i) + "Notify wait timeout\n  detail line\n",
    "blank-edges": lambda i: "\n\n" + HEADER.format(level="WARNING", pid=8, sec=2, ms=i)
    + "warn\n\n\n",
    "crlf-nul": lambda i: HEADER.format(level="INFO", pid=9, sec=3, ms=i) + "a\x00b\r\n",
    "no-final-newline": lambda i: HEADER.format(level="DEBUG", pid=10, sec=4, ms=i) + "x",
    "long-line": lambda i: HEADER.format(level="INFO", pid=11, sec=5, ms=i) + "y" * 1100 + "\n",
    "bad-utf8": lambda i: (HEADER.format(level="ERROR", pid=12, sec=6, ms=i)
                           + "bad \xff byte\n").encode("latin-1").decode("latin-1"),
    "glued": lambda i: HEADER.format(level="INFO", pid=13, sec=7, ms=i) + "a" + HEADER.format(
        level="ERROR", pid=13, sec=7, ms=i) + "507916 glued\n",
    "only-blank": lambda i: "\n \n",
    "bad-timestamp": lambda i: "[ERROR] HCCL(14,python3):2026-13-45-99:15:07.000.000 [x.cc:1] "
    "[7]odd time\n",
}


def _tree(root: Path, names: list[str], per_kind: int = 6) -> Path:
    for name in names:
        for i in range(per_kind):
            folder = root / "rank_0" / "process_log" / "debug" / "plog"
            folder.mkdir(parents=True, exist_ok=True)
            text = CASES[name](i)
            data = text.encode("latin-1") if name == "bad-utf8" else text.encode()
            (folder / f"plog-{1000 + i}_2026030210{len(names):02d}{i:05d}{name[:3]}.log"
             ).write_bytes(data)
    job = root / "job"
    job.mkdir(exist_ok=True)
    (job / "train.log").write_text("Traceback (most recent call last):\n  File x\n"
                                   "RuntimeError: EI0002 timeout\n")
    return root


def _ingest(paths: list[str], grouped: bool, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(pipeline, "SMALL_FILE_BYTES", 256 << 10 if grouped else 0)
    ingest = Ingest(workers=2)
    table = pa.Table.from_batches(list(ingest.batches(paths)))
    return table, ingest.summary


@pytest.mark.parametrize("names", [[name] for name in CASES] + [list(CASES)])
def test_groups_equal_files_alone(names: list[str], tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "logs", names)
    alone, alone_summary = _ingest([str(root)], False, monkeypatch)
    grouped, grouped_summary = _ingest([str(root)], True, monkeypatch)
    assert grouped_summary == alone_summary
    assert grouped.to_pylist() == alone.to_pylist()
    for stats in grouped_summary.files:
        assert stats.lines == stats.record_lines + stats.blank_lines


def test_diagnosis_of_many_small_files_is_unchanged(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "logs", list(CASES), per_kind=40)
    monkeypatch.setattr(pipeline, "SMALL_FILE_BYTES", 0)
    alone = render(diagnosed([str(root)]), "json")
    monkeypatch.setattr(pipeline, "SMALL_FILE_BYTES", 256 << 10)
    assert render(diagnosed([str(root)]), "json") == alone


def test_plain_small_files_take_the_joined_parse(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from plogscan.ingest import smallfiles

    calls: list[int] = []
    alone = smallfiles._alone
    monkeypatch.setattr(smallfiles, "_alone", lambda *a: calls.append(1) or alone(*a))
    root = _tree(tmp_path / "logs", ["plain", "long-line", "crlf-nul", "blank-edges"])
    ingest = Ingest(workers=1)
    rows = sum(b.num_rows for b in ingest.batches([str(root / "rank_0")]))
    assert rows > 20 and not calls


def test_small_stdout_files_with_colour_codes(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    job = tmp_path / "logs" / "job"
    job.mkdir(parents=True)
    for i in range(8):
        (job / f"train_rank{i}.log").write_text(
            f"\x1b[31m[rank{i}]:[E ProcessGroupHCCL.cpp:1] EI0002 timeout\x1b[0m\n"
            f"[rank{i}]:Traceback (most recent call last):\n"
            f"[rank{i}]:  File \"train.py\", line {i}, in <module>\n"
            f"[rank{i}]:RuntimeError: {'z' * (1030 if i % 3 == 0 else 10)}\n")
    alone, alone_summary = _ingest([str(tmp_path / "logs")], False, monkeypatch)
    grouped, grouped_summary = _ingest([str(tmp_path / "logs")], True, monkeypatch)
    assert grouped_summary == alone_summary
    assert grouped.to_pylist() == alone.to_pylist()


def test_a_group_hands_on_its_records_and_facts_in_one_chunk(tmp_path: Path) -> None:
    root = _tree(tmp_path / "logs", ["plain", "blank-edges", "bad-utf8"], per_kind=20)
    from plogscan.catalog.ruleset import load_rules
    from plogscan.engine.selector import Selector

    ingest = Ingest(workers=1)
    batches = list(ingest.batches([str(root / "rank_0")]))
    assert len(ingest.summary.files) == 60
    assert len(batches) == 1 and batches[0].num_rows == 60
    facts: list[pa.Table] = []  # what diagnose's reduced parse hands on besides the records
    reduced = Ingest(workers=1, reducer=Selector(load_rules([])), on_facts=facts.append)
    list(reduced.batches([str(root / "rank_0")]))
    assert facts and all(table.column(0).num_chunks == 1 for table in facts)


@pytest.mark.parametrize("joined", [True, False])
def test_a_group_pickles_its_records_once_not_once_per_file(tmp_path: Path, joined: bool):
    """What a group's task hands back crosses to the main process (or from a cluster's
    worker) pickled: each file's records must not carry the whole group's buffers."""
    import pickle

    from plogscan.catalog import load_rules
    from plogscan.engine.selector import Selector
    from plogscan.ingest.smallfiles import parse_files
    from plogscan.parse.results import FileContext

    files = []
    for i in range(300):
        path = tmp_path / f"plog-{i}_1.log"
        body = CASES["plain"](i) * 20 if joined else CASES["continuation-first"](i) * 20
        path.write_text(body)
        files.append((FileContext(path=str(path), kind="plog"), str(path), None))
    size = sum(p.stat().st_size for p in tmp_path.iterdir())
    for reducer in (None, Selector(load_rules([]))):
        group = parse_files(files, None, encoded=True, reducer=reducer)
        assert len(group.files) == 300
        assert sum(f.records for f in group.files) == group.records.num_rows
        assert len(pickle.dumps(group)) < 4 * size


def test_a_small_file_the_walk_read_whole_is_not_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk's sniff reads a small file whole; its group parses those bytes instead of
    opening the file a second time. A file longer than the sniffed head is read by its
    group's worker through the walk's descriptor, without opening it again; both give what
    each file parsed alone gives."""
    import builtins

    from plogscan.ingest import smallfiles
    from plogscan.ingest.sniff import HEAD_BYTES

    root = _tree(tmp_path / "logs", ["plain", "continuation-first", "bad-utf8"])
    folder = root / "rank_0" / "process_log" / "debug" / "plog"
    longer = folder / "plog-77_20260302101500000.log"
    longer.write_text(CASES["plain"](1) * (HEAD_BYTES // len(CASES["plain"](1)) + 2))
    opened: list[str] = []
    monkeypatch.setattr(smallfiles, "open", lambda path, *a, **k: opened.append(path) or
                        builtins.open(path, *a, **k), raising=False)  # noqa: SIM115
    grouped, grouped_summary = _ingest([str(root)], True, monkeypatch)
    assert opened == []
    assert longer.stat().st_size > HEAD_BYTES
    alone, alone_summary = _ingest([str(root)], False, monkeypatch)
    assert grouped_summary == alone_summary
    assert grouped.to_pylist() == alone.to_pylist()


def _rank_dirs(root: Path, ranks: int) -> Path:
    """A job tree as ranks lay it out: each rank's stdout (a text kind) sorted before its
    plogs, so that the walk alternates between text and plog files."""
    for rank in range(ranks):
        base = root / f"worker-{rank}"
        (base / "job").mkdir(parents=True)
        (base / "job" / f"train_rank{rank}.log").write_text(
            f"[rank{rank}]:Traceback (most recent call last):\n"
            f"[rank{rank}]:RuntimeError: EI0002 timeout on rank {rank}\n")
        plogs = base / "process_log" / "debug" / "plog"
        plogs.mkdir(parents=True)
        for name in ("plain", "continuation-first", "bad-timestamp"):
            (plogs / f"plog-{100 + rank}_20260302101500{name[:3]}.log").write_text(
                CASES[name](rank))
    return root


def test_text_and_plog_files_of_one_group_are_parsed_apart_in_file_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from plogscan.ingest import batching, smallfiles

    groups: list[int] = []
    parse = smallfiles.parse_files
    monkeypatch.setattr(batching, "parse_files", lambda files, *a, **k: groups.append(
        len(files)) or parse(files, *a, **k))
    root = _rank_dirs(tmp_path / "logs", 6)
    grouped, grouped_summary = _ingest([str(root)], True, monkeypatch)
    assert groups == [24]  # one group, not one per change of kind
    alone, alone_summary = _ingest([str(root)], False, monkeypatch)
    assert grouped_summary == alone_summary
    assert grouped.to_pylist() == alone.to_pylist()
    monkeypatch.setattr(pipeline, "SMALL_FILE_BYTES", 0)
    plain = render(diagnosed([str(root)]), "json")
    monkeypatch.setattr(pipeline, "SMALL_FILE_BYTES", 256 << 10)
    assert render(diagnosed([str(root)]), "json") == plain


def _skim_head(level: str, pid: int, ts: str, module: str = "GE") -> str:
    return f"[{level}] {module}({pid},python3):{ts} [graph.cc:12]{pid + 1} "


SKIM_LINES = {  # lines a skimming parse must account for as the whole parse does
    "plain": lambda i: _skim_head("DEBUG", 4100 + i % 3, f"2026-02-03-10:00:{i % 60:02d}.000.100")
    + "UpdateTensorDesc: tensor desc updated",
    "rule literal": lambda i: _skim_head("DEBUG", 4100, "2026-02-03-10:01:00.000.100", "HCCL")
    + "Already have context, skip create, ctxSize is 6",
    "error": lambda i: _skim_head("ERROR", 4101, "2026-02-03-10:01:01.000.100", "RUNTIME")
    + "Stream Synchronize failed, ErrCode=507916",
    "continuation": lambda i: "    node[0] name=MatMul_1 type=MatMul stream=12",
    "invalid date": lambda i: _skim_head("DEBUG", 4102, "2026-13-45-10:00:01.000.100")
    + "month thirteen",
    "epoch clock": lambda i: _skim_head("DEBUG", 4102, "1970-01-01-00:00:07.000.100")
    + "device clock never set",
    "blank": lambda i: "",
}


def _skim_file(i: int, shape: str) -> str:
    """A plog of plain DEBUG lines (the skim skips them) with lines of ``shape`` among them;
    ``continuation-first`` files open with the continuation of the previous file's last
    record, so that their group cannot be parsed as one buffer."""
    lines = [SKIM_LINES["plain"](i + k) for k in range(30)]
    if shape == "continuation-first":
        lines.insert(0, SKIM_LINES["continuation"](i))
    else:
        lines[7 + i % 5] = SKIM_LINES[shape](i)
        lines[20] = SKIM_LINES[shape](i)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("shapes", [[name] for name in SKIM_LINES]
                         + [list(SKIM_LINES), [*SKIM_LINES, "continuation-first"]])
def test_a_skimmed_group_gives_what_its_whole_parse_gives(
        shapes: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """diagnose's reduced parse skims a group's buffer before parsing it: its kept records,
    facts and per-file accounting are those of the same group parsed whole, and those of
    each file parsed alone."""
    from plogscan.catalog import load_rules
    from plogscan.engine.selector import Selector
    from plogscan.ingest import joined
    from plogscan.ingest.smallfiles import GroupOutcome, parse_files
    from plogscan.parse.results import FileContext

    files = []
    for i in range(24):
        path = tmp_path / f"plog-{i}_1.log"
        path.write_text(_skim_file(i, shapes[i % len(shapes)]))
        files.append((FileContext(path=str(path), kind="plog", host="worker-1", rank=i % 4),
                      str(path), None))
    reducer = Selector(load_rules([]))
    skims: list[object] = []
    skim = joined.skim_and_parse
    monkeypatch.setattr(joined, "skim_and_parse",
                        lambda *a: skims.append(skim(*a)) or skims[-1])
    skimmed = parse_files(files, None, encoded=True, reducer=reducer)
    assert skims and skims[0] is not None  # the group was skimmed
    monkeypatch.setattr(joined, "skim_and_parse", lambda *a: None)
    whole = parse_files(files, None, encoded=True, reducer=reducer)
    each = [parse_files([f], None, encoded=True, reducer=reducer) for f in files]
    alone = GroupOutcome(pa.concat_tables([g.records for g in each]),
                         pa.concat_tables([g.facts for g in each]),
                         [g.files[0] for g in each])
    for other in (whole, alone):
        assert skimmed.records.to_pylist() == other.records.to_pylist()
        assert skimmed.facts.to_pylist() == other.facts.to_pylist()
        assert skimmed.files == other.files
    assert sum(f.records for f in skimmed.files) == skimmed.records.num_rows
