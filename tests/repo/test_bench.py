"""Tests of the benchmark tools in ``bench/``: the synthetic tree generator, the naive baseline
parser and the ``run.py`` driver (no timing is checked, only what they produce)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

BENCH = REPO_ROOT / "bench"
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402
import naive_parser  # noqa: E402

# The CANN header regex of formats.md §1.1, written out here rather than imported, so that the
# generator is checked against the documented grammar and not against itself.
CANN_HEADER = re.compile(
    r"^\[(?P<level>[A-Z]+|\d+)\]\s?(?P<module>[A-Za-z0-9_]+)\((?P<pid>-?\d+),(?P<pname>[^)]*)\):"
    r"\s?(?P<ts>\d{4}-\d{2}-\d{2}[- ]\d{2}:\d{2}:\d{2}\.\d{3}\.\d{3})\s?(?P<body>.*)$"
)
CONTINUATION = re.compile(r"^(?:[ \t]|<exception_print>)")
STAMP = r"\d{17}"
WORKER_LAYOUT = [
    re.compile(rf"^worker-(?P<rank>\d+)/process_log/debug/plog/plog-(?P<pid>\d+)_{STAMP}\.log$"),
    re.compile(rf"^worker-(?P<rank>\d+)/process_log/run/plog/plog-(?P<pid>\d+)_{STAMP}\.log$"),
    re.compile(
        rf"^worker-(?P<rank>\d+)/process_log/debug/device-(?P<dev>\d+)/"
        rf"device-(?P<pid>\d+)_{STAMP}\.log$"
    ),
    re.compile(r"^worker-(?P<rank>\d+)/job/train_rank(?P=rank)\.log$"),
]
ROTATE = 256 * 1024
SIZE = 6_000_000


def _config(out: Path, **overrides) -> generate.Config:
    values = {"size": SIZE, "ranks": 2, "debug_share": 0.7, "error_density": 0.01, "seed": 7,
              "rotate": ROTATE}
    values.update(overrides)
    return generate.Config(out=out, **values)


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A ~6 MB two-rank tree with small rotation, and the generator's per-file stats."""
    root = tmp_path_factory.mktemp("bench-tree")
    stats = generate.generate(_config(root), jobs=1)
    return root, stats


def _cann_files(root: Path, stats) -> list[Path]:
    return [root / s.path for s in stats if s.kind != "stdout"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("123", 123), ("512KiB", 512 * 1024), ("200MiB", 200 << 20), ("1GiB", 1 << 30),
     ("1.5GB", 1_500_000_000), ("4gib", 4 << 30)],
)
def test_parse_size_accepts_bytes_and_units(text, expected):
    assert generate.parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "GiB", "12XB", "-1MiB", "1 2"])
def test_parse_size_rejects_nonsense_with_the_valid_units(text):
    with pytest.raises(ValueError, match="KiB"):
        generate.parse_size(text)


def test_same_seed_gives_the_same_bytes_whatever_the_parallelism(tmp_path, tree):
    root, _ = tree
    again = tmp_path / "again"
    generate.generate(_config(again), jobs=2)
    assert _digests(again) == _digests(root)


def test_another_seed_gives_other_bytes(tmp_path, tree):
    root, _ = tree
    other = tmp_path / "other"
    generate.generate(_config(other, seed=8), jobs=1)
    assert _digests(other) != _digests(root)


def test_tree_has_the_requested_size_and_true_stats(tree):
    root, stats = tree
    total = sum(s.bytes for s in stats)
    assert SIZE <= total <= SIZE + 2 * 4 * 2048  # each of 2 x 4 streams ends at most a record over
    for s in stats:
        data = (root / s.path).read_bytes()
        assert s.bytes == len(data)
        assert s.lines == data.count(b"\n")
        assert data.endswith(b"\n")
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert on_disk == {s.path for s in stats}


def test_files_follow_the_cann_layout_and_rotate(tree):
    _, stats = tree
    streams: Counter = Counter()
    for s in stats:
        matches = [m for m in (p.match(s.path) for p in WORKER_LAYOUT) if m]
        assert len(matches) == 1, s.path
        match = matches[0]
        if "dev" in match.groupdict():
            assert int(match["dev"]) == int(match["rank"]) % 8
        if s.kind != "stdout":
            assert s.bytes <= ROTATE, s.path
            streams[(match["rank"], s.kind)] += 1
    assert {rank for rank, _ in streams} == {"0", "1"}
    assert {kind for _, kind in streams} == {"plog-debug", "plog-run", "device-app"}
    # debug plogs are ~2.0 MB per rank at a 256 KiB rotation size: several files each
    assert all(streams[(rank, "plog-debug")] >= 5 for rank in ("0", "1"))


def test_modelarts_layout(tmp_path):
    stats = generate.generate(_config(tmp_path, size=200_000, layout="modelarts"), jobs=1)
    paths = [s.path for s in stats]
    assert any(re.fullmatch(r"modelarts-job-[0-9a-f]{8}/ascend/process_log/rank_1/debug/plog/"
                            rf"plog-\d+_{STAMP}\.log", p) for p in paths)
    assert any(re.fullmatch(r"modelarts-job-([0-9a-f]{8})/modelarts-job-\1-proc-rank-0-device-0"
                            r"\.txt", p) for p in paths)


def test_every_line_is_a_cann_header_or_a_continuation(tree):
    root, stats = tree
    for s in stats:
        if s.kind == "stdout":
            continue
        headers = 0
        for line in (root / s.path).read_text(encoding="utf-8").splitlines():
            assert len(line) <= generate.MAX_LINE
            if CANN_HEADER.match(line):
                headers += 1
            else:
                assert CONTINUATION.match(line), f"{s.path}: {line[:120]!r}"
        assert headers == s.records, s.path


def test_timestamps_never_go_backwards_within_a_file(tree):
    root, stats = tree
    for path in _cann_files(root, stats):
        stamps = [m["ts"].replace(" ", "-") for m in map(CANN_HEADER.match,
                  path.read_text(encoding="utf-8").splitlines()) if m]
        assert stamps == sorted(stamps), path


def test_levels_modules_and_anomalies(tree):
    root, stats = tree
    levels: Counter = Counter()
    modules: set[str] = set()
    debug_levels: Counter = Counter()
    anomalies: Counter = Counter()
    lengths: Counter = Counter()
    continued = 0
    for s in stats:
        if s.kind == "stdout":
            continue
        for line in (root / s.path).read_text(encoding="utf-8").splitlines():
            m = CANN_HEADER.match(line)
            if not m:
                continued += 1
                continue
            levels[m["level"]] += 1
            modules.add(m["module"])
            if s.kind != "plog-run":
                debug_levels[m["level"]] += 1
            anomalies["no space after level"] += line[len(m["level"]) + 2] != " "
            anomalies["space in timestamp"] += m["ts"][10] == " "
            anomalies["empty process name"] += m["pname"] == ""
            lengths[len(line) == generate.MAX_LINE] += 1
    assert set(levels) == {"DEBUG", "INFO", "WARNING", "ERROR", "EVENT"}
    assert {"HCCL", "RUNTIME", "GE", "ASCENDCL", "TDT", "ATRACE", "PROFILING", "DRV", "IDEDD",
            "CCECPU", "HCCP"} <= modules
    total = sum(debug_levels.values())
    assert debug_levels["DEBUG"] / total == pytest.approx(0.7, abs=0.02)
    assert debug_levels["ERROR"] / total == pytest.approx(0.01, abs=0.004)
    assert all(count > 0 for count in anomalies.values()), anomalies
    assert len(anomalies) == 3
    assert lengths[True] > 0
    assert continued > 0


def test_run_logs_hold_only_info_and_event(tree):
    root, stats = tree
    for s in stats:
        if s.kind == "plog-run":
            text = (root / s.path).read_text(encoding="utf-8")
            found = {m["level"] for m in map(CANN_HEADER.match, text.splitlines()) if m}
            assert found <= {"INFO", "EVENT"}


def test_stdout_carries_job_shapes(tree):
    root, stats = tree
    text = "".join((root / s.path).read_text(encoding="utf-8") for s in stats
                   if s.kind == "stdout")
    assert re.search(r"^\[rank[01]\]:\[W\d{4} ", text, re.M)
    assert re.search(r"\(PID:\d+, Device:[01], RankID:[01]\)", text)
    assert re.search(r"^E[A-Z]\d{4}: \[PID: \d+\] ", text, re.M)


def test_naive_parser_on_handwritten_lines(tmp_path):
    sample = tmp_path / "plog-4242_20250101000000000.log"
    sample.write_text(
        "not a header before any record\n"
        "[INFO] GE(4242,python3):2025-01-01-00:00:00.000.001 [a.cc:1]4242 F:first\n"
        "    node[0] detail\n"
        "<exception_print>dump\n"
        "\n"
        "[ERROR]HCCL(4242,):2025-01-01 00:00:00.000.002 [b.cc:2] [4243]second\n"
        "stray text\n",
        encoding="utf-8",
    )
    frame = naive_parser.parse_file(sample)
    assert list(frame.columns) == naive_parser.COLUMNS
    assert len(frame) == 4
    assert frame["level"].isna().tolist() == [True, False, False, True]
    assert frame["line"].tolist() == [1, 2, 6, 7]
    assert frame["message"].iloc[1] == (
        "[a.cc:1]4242 F:first\n    node[0] detail\n<exception_print>dump")
    assert frame["proc"].iloc[2] == ""
    assert int(frame["pid"].iloc[2]) == 4242


def test_naive_parser_counts_every_generated_record(tree):
    root, stats = tree
    rows = sum(len(naive_parser.parse_file(root / s.path)) for s in stats)
    assert rows == sum(s.records for s in stats)


def test_run_py_measures_both_baselines_on_an_existing_tree(tree, tmp_path):
    root, stats = tree
    before = _digests(root)
    out = tmp_path / "numbers.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--tree", str(root), "--tools", "grep,naive",
         "--json", str(out)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "grep -c ''" in proc.stdout and "naive re + DataFrame" in proc.stdout
    report = json.loads(out.read_text())
    results = {r["tool"]: r for r in report["results"]}
    assert results["grep"]["rows"] == sum(s.lines for s in stats) == report["tree"]["lines"]
    assert results["naive"]["rows"] == sum(s.records for s in stats)
    assert all(r["status"] == "ok" and r["peak_rss_mb"] > 0 for r in results.values())
    assert report["tree"]["bytes"] == sum(s.bytes for s in stats)
    assert report["tree"]["generated"] is False
    assert _digests(root) == before  # an existing tree is never touched


def test_the_suite_cluster_leaves_the_measured_environment_as_it_was():
    """Dask sets malloc and thread settings in the environment of the process that starts a
    LocalCluster; the runs the suite measures must not inherit them."""
    import suite

    before = dict(os.environ)
    with suite.local_cluster(True) as address:
        assert address is not None and address.startswith("tcp://127.0.0.1:")
        assert dict(os.environ) == before


def test_the_suite_shows_the_median_time_and_the_highest_peak_of_repeated_runs():
    import suite

    runs = [suite.Measured("diagnose", s, r, True) for s, r in ((3.0, 250), (9.0, 240),
                                                                (4.0, 270))]
    shown = suite.combined(runs)
    assert (shown.seconds, shown.rss_mb, shown.ok, shown.runs) == (4.0, 270, True, 3)
    failed = suite.Measured("diagnose", 1.0, 10, False, "exit 2: boom")
    assert suite.combined([runs[0], failed, runs[1]]) is failed  # a failure is not hidden
    assert suite.combined([runs[1]]) is runs[1]


def test_a_ratio_of_repeated_tools_is_the_median_of_the_ratios_of_each_round():
    import suite

    def runs(tool: str, seconds: tuple[float, ...]) -> list:
        return [suite.Measured(tool, s, 100, True) for s in seconds]

    cell = suite.CellResult(suite.Cell("512m", "8 ranks", 1, ()), 1, 1, 1)
    # the machine slowed down in the second round: each pair still says 4x, 4x, 5x
    cell.runs = {"diagnose": runs("diagnose", (4.0, 8.0, 5.0)),
                 "keyword": runs("keyword", (1.0, 2.0, 1.0)),
                 "grep": runs("grep", (0.5,))}
    cell.results = {tool: suite.combined(measured) for tool, measured in cell.runs.items()}
    assert cell.ratio("diagnose", "keyword") == 4.0  # the medians alone would give 5.0
    assert cell.ratio("grep", "keyword") == 0.5  # one run: the ratio of the figures
    assert cell.ratio("naive", "keyword") is None
    target, = suite.targets({"512m": cell})[:1]
    assert target.measured == "5.00 s vs 1.00 s: 4.0x (the median of 3 rounds' ratios)"
    assert target.met is False
    assert target.takes == "3.00 s in all"  # no fixed start measured to tell it against


def _cell(name: str, nbytes: int, files: int = 1, **seconds: float):
    import suite

    cell = suite.CellResult(suite.Cell(name, name, nbytes, ()), files, nbytes, 1)
    cell.results = {tool: suite.Measured(tool, s, 100, True) for tool, s in seconds.items()}
    return cell


def test_a_missed_target_says_what_meeting_it_would_take_from_the_fixed_start():
    import suite

    floor = _cell("floor", 0, diagnose=0.5, keyword=0.01)
    cells = {"floor": floor,
             # 3 x 1 s leaves 2.5 s past the fixed start for 500 MB: 200 MB/s; diagnose did
             # 500 MB in 5.5 - 0.5 s
             "512m": _cell("512m", 500 * suite.MB, diagnose=5.5, keyword=1.0),
             # 3 x 0.1 s is less than the fixed start
             "pids": _cell("pids", 70 * suite.MB, diagnose=4.0, keyword=0.1),
             # met: nothing to say
             "2g": _cell("2g", 2000 * suite.MB, diagnose=2.5, keyword=1.0),
             "files": _cell("files", 3 * suite.MB, files=20_000, diagnose=3.0),
             "onefile": _cell("onefile", 3 * suite.MB, diagnose=1.0)}
    found = {t.name: t for t in suite.targets(cells)}
    t = found["diagnose <= 3x keyword grep (512m)"]
    assert not t.met and t.takes == ("3.00 s in all: past the fixed start (0.50 s), 200 MB/s "
                                     "of input, where diagnose does 100 MB/s")
    t = found["diagnose <= 3x keyword grep (pids)"]
    assert not t.met and t.takes.startswith("0.30 s in all, less than the fixed start alone")
    t = found["diagnose <= 4x keyword grep (2g)"]
    assert t.met and t.takes == ""
    t = found["20,000 small files within 2x one file of the same bytes (diagnose)"]
    assert not t.met and t.takes == ("at most 50 us a file more than one file's run, where "
                                     "diagnose spends 100 us")


def test_the_suite_repeats_the_compared_tools(tmp_path, monkeypatch):
    import suite

    monkeypatch.setattr(suite, "BENCH", tmp_path)  # its trees and reports go here
    cell = suite.Cell("onefile", "one file", 20_000, ("grep", "keyword", "diagnose"))
    result = suite.measure_cell(cell, 20_000, cell.tools, None, repeat=2)
    runs = {tool: m.runs for tool, m in result.results.items()}
    assert runs == {"grep": 1, "keyword": 2, "diagnose": 2}
    assert all(m.ok and m.seconds and m.rss_mb for m in result.results.values())


def _timed(name: str, nbytes: int, rounds: dict[str, tuple[float, ...]]):
    """A cell whose tools ran in rounds with these seconds (and 100 MB, 2 CPU-seconds)."""
    import suite

    cell = suite.CellResult(suite.Cell(name, name, nbytes, ()), 1, nbytes, 1)
    cell.runs = {tool: [suite.Measured(tool, s, 100, True, cpu=2.0) for s in seconds]
                 for tool, seconds in rounds.items()}
    cell.results = {tool: suite.combined(runs) for tool, runs in cell.runs.items()}
    return cell


def test_the_speed_targets_of_the_big_and_dense_trees_with_their_baselines_and_gaps():
    import suite

    gb = 2000 * suite.MB
    cells = {
        "floor": _timed("floor", 0, {"diagnose": (0.6, 0.6), "imports": (0.3, 0.5)}),
        # 2000 MB: ingest 5 s (400 MB/s), diagnose 10 s (200 MB/s), keyword 2 s
        "2g": _timed("2g", gb, {"keyword": (2.0, 2.0), "grep": (1.0,), "ingest": (5.0, 5.0),
                                "diagnose": (10.0, 10.0), "ingest1": (9.0, 9.0),
                                "diagnose1": (14.0, 14.0)}),
        "dense2g": _timed("dense2g", gb, {"keyword": (4.0, 4.0), "diagnose": (8.0, 8.0)}),
    }
    found = {t.name: t for t in suite.targets(cells, cores=2)}
    t = found["ingest >= 300 MB/s (2g)"]
    assert t.met and t.measured == ("400 MB/s (5.00 s); keyword `grep -rcE` 1000 MB/s, "
                                    "`grep -c ''` 2000 MB/s")
    t = found["diagnose >= 250 MB/s (2g)"]
    assert not t.met and t.takes == ("8.00 s in all: past the fixed start (0.60 s), 270 MB/s "
                                     "of input, where diagnose does 213 MB/s")
    assert found["diagnose <= 4x keyword grep (2g)"].measured == (
        "10.00 s vs 2.00 s: 5.0x (the median of 2 rounds' ratios)")
    assert found["diagnose <= 4x keyword grep (dense2g)"].met  # 2x
    assert found["diagnose >= 250 MB/s (dense2g)"].met  # 250 MB/s
    # 9 s against 5 s is 1.8x; 14 s against 10 s is 1.4x: 1 s serial would give 1.6x
    t = found["ingest --workers 2 (the default) >= 1.6x --workers 1 (2g)"]
    assert t.met and t.measured == "9.00 s vs 5.00 s: 1.80x (the median of 2 rounds' ratios)"
    t = found["diagnose --workers 2 (the default) >= 1.6x --workers 1 (2g)"]
    assert not t.met and t.takes == ("at most 3.50 s of the 14.00 s one worker takes serial "
                                     "(the main process's share and the fixed start), the "
                                     "rest parallel: 6.00 s serial now")
    # the fixed start: 0.6 s against imports of 0.3 and 0.5 s, 2.0x and 1.2x: 1.6x
    t = found["fixed start <= 1.5x the import of numpy, pyarrow and hyperscan"]
    assert not t.met and t.measured.endswith(": 1.6x")
    assert "diagnose peak RSS <= 1 GB (dense2g)" in found
    assert not any(name.startswith("ingest >= 150") and "2g" in name for name in found)


def test_the_scaling_predicts_a_host_of_more_cores_from_one_worker_and_the_default():
    import suite

    assert suite.amdahl(14.0, 10.0, 2) == (6.0, 8.0)
    assert suite.amdahl(10.0, 10.5, 2) is None  # more workers were not faster
    cell = _timed("2g", 2000 * suite.MB, {"diagnose": (10.0,), "diagnose1": (14.0,)})
    assert suite.predicted(cell, "diagnose", 2, hosts=(64,)) == (
        "diagnose: 6.00 s serial + 250 MB/s a core in parallel (8.00 s on one core); "
        "predicted: 64 cores 6.12 s (327 MB/s)")
    assert suite.predicted(cell, "ingest", 2) == ""
    assert cell.results["diagnose"].core_rate(cell.bytes) == 1000.0  # 2000 MB in 2 CPU-s
    text = suite.render_markdown([cell], {"platform": "p", "cpu": "c", "nproc": "2",
                                          "memory": "m", "python": "3", "pyarrow": "a",
                                          "plogscan": "0", "rss_probe": "r"}, False, "now")
    assert "## Scaling with cores" in text and "| MB/s a core |" in text


def test_the_cells_are_chosen_by_name_or_group():
    import suite

    assert [c.name for c in suite.select_cells("speed")] == ["2g", "dense2g", "floor"]
    assert [c.name for c in suite.select_cells("floor,dense")] == [
        "dense512m", "dense2g", "floor"]
    dense = {c.name: c for c in suite.CELLS}["dense2g"]
    assert (dense.reuse_share, dense.error_density) == (0.25, 0.09)
    assert {c.name: c for c in suite.CELLS}["2g"].reuse_share == suite.REUSE_SHARE == 0.06
    assert all(name in suite.QUICK for name in (c.name for c in suite.CELLS))


def test_a_quick_dense_cell_and_the_fixed_start_run_every_new_tool(tmp_path, monkeypatch):
    """The new tools on tiny trees: one worker beside the default, their CPU time, the
    import baseline of the fixed start, and the dense tree's options reaching the generator."""
    import suite

    monkeypatch.setattr(suite, "BENCH", tmp_path)
    dense = suite.Cell("dense512m", "dense", 60_000, ("keyword", "ingest", "diagnose",
                                                     "ingest1", "diagnose1"), **suite.DENSE)
    result = suite.measure_cell(dense, 60_000, dense.tools, None)
    assert all(m.ok and m.seconds and m.cpu for m in result.results.values()), result.results
    assert result.results["diagnose1"].note == "same findings and accounting"
    floor = {c.name: c for c in suite.CELLS}["floor"]
    result = suite.measure_cell(floor, 0, floor.tools, None, repeat=2)
    assert result.results["imports"].ok and result.results["imports"].runs == 2
    assert result.ratio("diagnose", "imports")
    tree = tmp_path / "dense-tree"
    suite.generate_tree(dense, 400_000, tree)
    text = b"".join(p.read_bytes() for p in tree.rglob("*.log"))
    assert text.count(b"Already have context") > text.count(b"\n") // 20


def test_the_thread_split_bounds_the_speed_up_and_runs_a_command(tmp_path):
    import threads

    # one worker: at least its 6 s; two: at least 9 s / 2 (the main thread's 2 s fits in it)
    split = {"plogscan-parse": 6.0, "MainThread": 2.0, "plogscan-read": 1.0}
    assert threads.speedup_bound(split) == pytest.approx(6.0 / 4.5)
    assert threads.speedup_bound({"plogscan-parse": 1.0, "MainThread": 3.0}) == 1.0
    assert threads.speedup_bound({"plogscan-parse": 8.0, "MainThread": 1.0}) == pytest.approx(
        8.0 / 4.5)
    sample = REPO_ROOT / "samples" / "ccu-reuse-before-mc2"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "threads.py"), "diagnose", str(sample), "--no-cache",
         "--format", "json", "-q", "-o", str(tmp_path / "r.json"), "--workers", "1"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(BENCH.parent)})
    assert proc.returncode == 1, proc.stderr  # the sample's findings
    assert json.loads((tmp_path / "r.json").read_text())["findings"]
    assert re.search(r"^  plogscan-parse +\d+\.\d\d s", proc.stderr, re.M), proc.stderr
    assert re.search(r"^  MainThread +\d+\.\d\d s", proc.stderr, re.M)
    assert "two cores against one worker: at most" in proc.stderr
