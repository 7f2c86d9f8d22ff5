"""User rule files, baselines and salt files are data, never code, and cost bounded work.

Each hostile file goes through the real command line and gives one located error (file and,
where it has one, line), exit 2, no traceback, quickly: a "billion laughs" alias bomb, a
recursive alias, a ``!!python/...`` tag that would run a command, a file over the size limit,
a FIFO where a file is expected, an over-long regex, a regex RE2 cannot compile within its
program budget, a baseline nested 100,000 deep. A pathological regex (``(a+)+$`` over a
megabyte of ``a``) runs under RE2 and finishes (a generous child timeout guards against a
hang; nothing is timed).
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, run_child, run_cli

ROOT = REPO_ROOT
SAMPLE = ROOT / "samples" / "hostile-text"
RULE = """\
id: USR001
name: user.all-a
title: A line of nothing but a
category: runtime-error
level: error
status: stable
description: In {{scope}}, a line of a.
remediation:
  - Look at it.
match:
  - message|re: '{pattern}'
by: [host, rank, pid]
"""


def run(*args: object) -> tuple[int, str]:
    result = run_cli(*args)
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stderr


def _laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 "lol"']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + "\n" + RULE.format(pattern="x")


@pytest.mark.parametrize(("name", "text", "message", "line"), [
    ("laughs.yaml", _laughs(), "the document expands to more than 100,000 values", None),
    ("recursive.yaml", "a: &x [*x]\n" + RULE.format(pattern="x"),
     "values nested more than 64 levels deep", 1),
    ("python.yaml", "!!python/object/apply:os.system ['touch {marker}']\n",
     "tag '!!python/object/apply:os.system' is not allowed", 1),
    ("long-regex.yaml", RULE.format(pattern="a" * 5000), "regex of 5,000 characters: at most "
     "4,096", 11),
    ("big-repeat.yaml", RULE.format(pattern="((a{100}){100}){100}"),
     "invalid repetition size", 11),
])
def test_hostile_rule_files_give_one_located_error(tmp_path: Path, name: str, text: str,
                                                   message: str, line: int | None) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / name
    path.write_text(text.replace("{marker}", str(marker)))
    done = run_child("rules", "check", path)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr, done.stderr
    assert f"{path}:{line if line else ''}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not marker.exists()  # no code ran


def test_size_and_kind_of_data_files_are_checked_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(2 << 20)  # sparse: 2 MiB of NULs
    code, err = run("rules", "check", big)
    assert code == 2 and "larger than the 1,048,576 bytes a data file may have" in err, err
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    done = run_child("rules", "check", fifo)  # reading it would wait for a writer
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    baseline = tmp_path / "baseline.json"
    with open(baseline, "wb") as handle:
        handle.truncate(65 << 20)
    code, err = run("diagnose", SAMPLE, "--baseline", baseline, "-q")
    assert code == 2 and "larger than the 67,108,864 bytes" in err, err


def test_a_deeply_nested_baseline_is_an_error(tmp_path: Path) -> None:
    baseline = tmp_path / "deep.json"
    baseline.write_text("[" * 100_000 + "]" * 100_000)
    code, err = run("diagnose", SAMPLE, "--baseline", baseline, "-q")
    assert code == 2 and "nests its values too deeply" in err and str(baseline) in err, err


def test_salt_files_are_bounded_too(tmp_path: Path) -> None:
    big = tmp_path / "salt"
    with open(big, "wb") as handle:
        handle.truncate(1 << 20)
    code, err = run("events", SAMPLE, "--redact-salt", big, "-q")
    assert code == 2 and "cannot read salt file" in err and "larger than" in err, err
    fifo = tmp_path / "salt-pipe"
    os.mkfifo(fifo)
    done = run_child("events", SAMPLE, "--redact-salt", fifo, "-q")
    assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr


def test_a_pathological_regex_finishes_under_re2(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "all_a.yaml").write_text(RULE.format(pattern="(a+)+$"))
    log = tmp_path / "plog-1_20260302101500000.log"
    log.write_text("[ERROR] GE(1,python):2026-03-02-10:15:01.123.456 [a.cc:1][tid:1] "
                   + "a" * (1 << 20) + "\n")
    done = run_child("diagnose", log, "--rules", rules, "--format", "json", "-q",
                     "--max-line-bytes", "2M", timeout=600)
    assert done.returncode == 1, done.stderr
    assert '"rule": "USR001"' in done.stdout


def test_rule_files_cannot_reach_python(tmp_path: Path) -> None:
    """Every tag that would build a Python object is refused by the safe loader."""
    for tag in ("!!python/object/new:os.system [x]", "!!python/name:os.system",
                "!!python/module:os", "!!binary aGVsbG8="):
        path = tmp_path / "tag.yaml"
        path.write_text(f"id: {tag}\n")
        code, err = run("rules", "check", path)
        assert code == 2 and str(path) in err, (tag, err)


def test_rule_loading_does_not_block_on_a_slow_reader(tmp_path: Path) -> None:
    """A rule directory holding a FIFO is walked without opening it."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "all_a.yaml").write_text(RULE.format(pattern="x"))
    os.mkfifo(rules / "waiting.yaml")
    result: list[subprocess.CompletedProcess[str]] = []
    thread = threading.Thread(target=lambda: result.append(
        run_child("rules", "check", rules)))
    thread.start()
    thread.join(180)
    assert result and "Traceback" not in result[0].stderr, "rules check blocked on a FIFO"
