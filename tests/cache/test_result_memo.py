"""The whole result of a run kept in the cache (``cache.memo``): reused only for the same
unchanged inputs, code, rules and options; read back only as plogscan's result types."""

from __future__ import annotations

import io
import os
import pickle
import sqlite3
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.cache.results import _ResultUnpickler, decode, encode
from plogscan.cache.store import DATABASE
from plogscan.cli import cli
from plogscan.ingest.walk import Lister
from plogscan.model.listing import InputListing
from plogscan.report import render
from tests.helpers import diagnosed


def _evidence_file(root: Path) -> Path:
    return next(p for p in sorted(root.rglob("*.log"))
                if b"Already have context" in p.read_bytes())


def _results(cache: Path) -> int:
    with sqlite3.connect(cache / DATABASE) as db:
        return db.execute("SELECT count(*) FROM results").fetchone()[0]


def test_an_unchanged_rerun_reuses_the_result_and_prints_the_same(logs: Path,
                                                                 tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = diagnosed([str(logs)], cache=cache)
    assert _results(cache) == 1
    second = diagnosed([str(logs)], cache=cache)
    assert second.cache.reused_result is True
    for fmt in ("json", "markdown", "sarif", "text"):
        assert render(second, fmt) == render(first, fmt) == render(diagnosed([str(logs)]), fmt)


@pytest.mark.parametrize("change", ["append", "same-size-and-time", "new-file", "chmod-dir"])
def test_any_change_of_the_inputs_runs_again(logs: Path, tmp_path: Path, change: str) -> None:
    cache = tmp_path / "cache"
    diagnosed([str(logs)], cache=cache)
    target = _evidence_file(logs)
    if change == "append":
        with target.open("ab") as handle:
            handle.write(b"[ERROR] HCCL(1,python3):2025-03-14-08:00:59.000.000 [x.cc:1] [1]"
                         b"brand new failure text\n")
    elif change == "same-size-and-time":
        before = target.stat()
        data = target.read_bytes()
        target.write_bytes(data.replace(b"Already have context", b"Already have CONTEXT", 1))
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif change == "new-file":
        (target.parent / "plog-99_20250314080000000.log").write_bytes(
            b"[ERROR] HCCL(99,python3):2025-03-14-08:00:59.000.000 [x.cc:1] [1]late file\n")
    else:
        target.parent.chmod(0o500)  # what the walk may read changed: listed with its mode
    try:
        again = diagnosed([str(logs)], cache=cache)
        assert not again.cache.reused_result
        assert render(again, "json") == render(diagnosed([str(logs)]), "json")
        # The new inputs' result is kept beside the old one, or instead of it when their
        # listing is the same (only the content changed).
        assert _results(cache) == (1 if change == "same-size-and-time" else 2)
    finally:
        target.parent.chmod(0o755)


def test_other_settings_are_other_results(logs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    diagnosed([str(logs)], cache=cache)
    for options in ({"fail_on": "critical"}, {"context_lines": 1}, {"lang": "zh"},
                    {"clock_offsets": (("172.16.40.7", 0.5),)}):
        other = diagnosed([str(logs)], cache=cache, **options)  # type: ignore[arg-type]
        assert not other.cache.reused_result, options
        assert render(other, "json") == render(diagnosed([str(logs)], **options), "json")
        assert diagnosed([str(logs)], cache=cache, **options).cache.reused_result is True


def test_events_out_and_standard_input_are_never_reused(logs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    diagnosed([str(logs)], cache=cache, events_out=str(tmp_path / "events.parquet"))
    assert not (cache / DATABASE).exists() or _results(cache) == 0
    assert not listing(["-"]).memoizable
    assert not listing([str(logs), "-"]).memoizable


def listing(paths: list[str]) -> InputListing:
    return Lister(paths).complete()


def test_the_listing_sees_names_sizes_times_links_and_globs(logs: Path, tmp_path: Path) -> None:
    base = listing([str(logs)])
    assert base.memoizable and list(base.files())
    assert listing([str(logs)]) == base  # deterministic
    target = _evidence_file(logs)
    os.utime(target, ns=(0, 1))
    assert listing([str(logs)]).stat_hash() != base.stat_hash()
    (logs / "link").symlink_to(target)
    linked = listing([str(logs)])
    (logs / "link").unlink()
    (logs / "link").symlink_to(logs)
    assert listing([str(logs)]).stat_hash() != linked.stat_hash()
    (logs / "link").unlink()
    (logs / ".DS_Store").write_bytes(b"noise the walk never reads")
    assert listing([str(logs)]).stat_hash() == listing([str(logs)]).stat_hash()
    pattern = str(logs / "**" / "*.log")
    globbed = listing([pattern])
    assert {e.path for e in globbed.files()} == {str(p) for p in logs.rglob("*.log")}
    (target.parent / "extra.log").write_bytes(b"x\n")
    assert listing([pattern]).stat_hash() != globbed.stat_hash()


def test_a_damaged_or_foreign_entry_is_a_miss(logs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = diagnosed([str(logs)], cache=cache)
    assert decode(encode(first)) == first

    pwned = tmp_path / "pwned"

    class Call:  # a pickle that would call a function when loaded
        def __reduce__(self):
            return (os.mkdir, (str(pwned),))

    hostile = [zlib.compress(pickle.dumps(Call())), b"not zlib",
               zlib.compress(pickle.dumps({"findings": []})),
               zlib.compress(pickle.dumps(first)[:-20])]
    for payload in hostile:
        assert decode(payload) is None
    assert not pwned.exists()
    # A model module's imported names are not classes of the model.
    smuggled = pickle.dumps(first).replace(b"Diagnosis", b"dataclass")
    assert decode(zlib.compress(smuggled)) is None
    with pytest.raises(pickle.UnpicklingError):
        _ResultUnpickler(io.BytesIO(b"")).find_class("plogscan.model.diagnosis", "dataclass")
    with sqlite3.connect(cache / DATABASE) as db:
        db.execute("UPDATE results SET payload = ?", (hostile[0],))
    again = diagnosed([str(logs)], cache=cache)
    assert not again.cache.reused_result
    assert render(again, "json") == render(first, "json")


def test_cli_rerun_in_another_format_and_cache_info(diagnose_cli, logs: Path,
                                                    tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    runner = CliRunner()
    args = [logs, "--cache", cache, "--quiet"]
    first = diagnose_cli(*args, "--format", "markdown")
    again = diagnose_cli(*args, "--format", "markdown")
    assert first.exit_code == again.exit_code == 1
    assert first.output == again.output
    json_first = diagnose_cli(*args, "--format", "json", "--no-cache")
    assert diagnose_cli(*args, "--format", "json").output == json_first.output
    shown = runner.invoke(cli, ["cache", "info", "--cache", str(cache)])
    assert "results:   1 runs" in shown.output
    runner.invoke(cli, ["cache", "clear", "--cache", str(cache)])
    assert _results(cache) == 0
