"""Many attempts: a report lists at most ``MAX_LISTED`` of them and counts the rest.

An input of many short-lived processes (a node's aggregated plog, a fork storm) is one attempt
per process. The report lists the attempts its findings belong to and the failed ones first,
counts the others (``attempts_omitted``, ``failed_attempts_omitted``), and the terminal report
ends its attempt lines with the count in the report's language. The split of the summary by
attempt gives each attempt what filtering the whole summary would have given it, and the
attempt of a record found by bisection is the one the linear search finds.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

from plogscan.crossrank.attempts import Attempt, Attempts
from plogscan.crossrank.partition import MAX_LISTED, listed

T0 = datetime(2026, 5, 1, 10, 0, 0)
PROCESSES = MAX_LISTED + 44
FAILING = range(5, PROCESSES, 60)  # processes whose device memory allocation fails


def _ts(t: datetime) -> str:
    return f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def _storm(root: Path) -> Path:
    """One host plog in which each process writes one record a second apart, a few of them
    an out-of-memory sequence instead."""
    lines = []
    for i in range(PROCESSES):
        pid, t = 100_000 + i, _ts(T0 + timedelta(seconds=i))
        if i in FAILING:
            lines += [
                f"[ERROR] DRV({pid},python3):{t} [ascend][curpid: {pid}, {pid}][drv][devmm]"
                "[DevMemAllocHugePageManaged 611]DevMemAllocHugePageManaged failed. "
                "(size=2147483648; ret=6)\n",
                f"[ERROR] RUNTIME({pid},python3):{t} [npu_driver.cc:1840]{pid} DevMemAlloc:"
                "[EXEC][EXEC]halMemAlloc failed: device_id=5, size=2147483648, type=2, "
                "env_type=3, drvRetCode=6\n",
                f"[ERROR] ASCENDCL({pid},python3):{t} [memory.cpp:88]{pid} aclrtMalloc: "
                "[EXEC][EXEC]alloc device memory failed, runtime result = 207001\n"]
        else:
            lines.append(f"[INFO] GE({pid},python3):{t} [ge.cc:640]1 Run:done\n")
    # a log gathered from the whole node: no pid in its name, so its lines tell the processes
    path = root / "node-0/process_log/run/node-0-aggregated.log"
    path.parent.mkdir(parents=True)
    path.write_text("".join(lines), encoding="utf-8")
    return root


def test_past_the_cap_attempts_are_counted_and_the_failed_and_named_listed(diagnose_cli,
                                                                            tmp_path) -> None:
    root = _storm(tmp_path)
    document = diagnose_cli.json(root)
    attempts = document["attempts"]
    assert len(attempts) == MAX_LISTED
    assert document["attempts_omitted"] == PROCESSES - MAX_LISTED
    assert document["failed_attempts_omitted"] == 0
    ids = [a["id"] for a in attempts]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    failed_pids = {a["pids"][0] for a in attempts if a["failed"]}
    assert failed_pids == {100_000 + i for i in FAILING}
    named = {f["attempt"] for f in document["findings"]}
    assert named and named <= set(ids)  # every finding's attempt is listed
    # the attempts not named or failed are the first ones, in id order
    rest = [a["id"] for a in attempts if a["id"] not in named and not a["failed"]]
    assert rest == sorted(set(range(1, PROCESSES + 1)) - named - {
        a["id"] for a in attempts if a["failed"]})[:len(rest)]


def test_the_terminal_report_counts_the_attempts_it_does_not_show(diagnose_cli, tmp_path) -> None:
    root = _storm(tmp_path)
    english = diagnose_cli.stdout(root, "--all", "--width", "200")
    shown = 16  # text_rootcause.MAX_ATTEMPTS
    more = PROCESSES - shown
    assert f"… {more} more attempts, 0 of them failed (--format json lists more)" in english
    chinese = diagnose_cli.stdout(root, "--all", "--width", "200", "--lang", "zh")
    assert f"… 另有 {more} 次尝试，其中 0 次失败（--format json 列出更多）" in chinese


def test_listing_puts_named_then_failed_then_the_rest_up_to_the_cap(monkeypatch) -> None:
    import plogscan.crossrank.partition as partition

    monkeypatch.setattr(partition, "MAX_LISTED", 6)
    attempts = tuple(Attempt(n, (), n, n) for n in range(1, 21))
    chosen = [a.id for a in listed(attempts, failed={3, 9, 12, 15}, named={18})]
    assert chosen == [1, 3, 9, 12, 15, 18]
    chosen = [a.id for a in listed(attempts, failed=set(range(1, 21)), named={20})]
    assert chosen == [1, 2, 3, 4, 5, 20]
    # named attempts are listed even past the cap (a finding's attempt is always listed)
    named = set(range(2, 20, 2))
    assert {a.id for a in listed(attempts, failed=set(), named=named)} == named
    assert [a.id for a in listed(attempts[:6], failed=set(), named=set())] == list(range(1, 7))


def test_bisection_finds_the_attempt_the_linear_search_finds() -> None:
    rng = random.Random(7)
    for _ in range(200):
        spans, start = [], rng.randrange(0, 50)
        for _ in range(rng.randrange(1, 12)):
            start += rng.randrange(0, 30)
            last = None if rng.random() < 0.1 else start + rng.randrange(0, 60)
            spans.append((start, last))
        attempts = object.__new__(Attempts)
        attempts.list = tuple(Attempt(n + 1, (), f, la) for n, (f, la) in enumerate(spans))
        Attempts._index(attempts)
        for ts in range(-5, start + 80):
            assert attempts._by_time(ts) == _linear(attempts.list, ts), (spans, ts)


def _linear(attempts: tuple[Attempt, ...], ts: int) -> int:
    """The attempt of a record of no known process at ``ts``, tried attempt by attempt."""
    spans = [a for a in attempts if a.first_ts is not None]
    for a in spans:
        if a.first_ts <= ts <= (a.last_ts or ts):  # type: ignore[operator]
            return a.id
    before = [a for a in spans if (a.first_ts or 0) <= ts]
    return (before[-1] if before else (spans or list(attempts))[0]).id
