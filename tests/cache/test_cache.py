"""The extraction cache: a rerun of unchanged files reads the cache and gives the same report;
changed files are parsed again; the directory is private and capped; ``plogscan cache``."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.cache.store import DATABASE
from plogscan.cli import cli
from plogscan.report import render
from tests.helpers import diagnosed


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != "README.md")


def _json(diagnosis) -> str:
    return render(diagnosis, "json")


@pytest.mark.usefixtures("every_file_stored")
@pytest.mark.parametrize("whole", [True, False], ids=["whole-result", "per-file"])
def test_rerun_reads_the_cache_and_gives_the_same_report(logs: Path, tmp_path: Path,
                                                         whole: bool) -> None:
    """A rerun over unchanged inputs reuses the whole earlier result; without it
    (``reuse_result=False``, as when other files changed) each file's entry is reused."""
    cache = tmp_path / "cache"
    plain = diagnosed([str(logs)])
    first = diagnosed([str(logs)], cache=cache)
    second = diagnosed([str(logs)], cache=cache, reuse_result=whole)
    assert first.cache.reused_files == 0
    assert not first.cache.reused_result
    assert second.cache.reused_result is whole
    assert second.cache.reused_files == len(second.inputs.files) > 0
    assert _json(plain) == _json(first) == _json(second)
    assert second.findings and second.findings[0].rule == "CCU001"


def test_cache_is_private(logs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "private"
    diagnosed([str(logs)], cache=cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE((cache / DATABASE).stat().st_mode) == 0o600


@pytest.mark.usefixtures("every_file_stored")
def test_changed_file_is_parsed_again(logs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    diagnosed([str(logs)], cache=cache)
    target = next(p for p in _files(logs) if "debug" in str(p))
    with target.open("a", encoding="utf-8") as handle:
        handle.write("[ERROR] HCCL(1,python3):2025-03-14-08:00:59.000.000 [x.cc:1] [1]"
                     "brand new failure text\n")
    again = diagnosed([str(logs)], cache=cache)
    assert again.cache.reused_files == len(again.inputs.files) - 1
    assert _json(again) == _json(diagnosed([str(logs)]))
    assert "brand new failure text" in _json(again)


@pytest.mark.usefixtures("every_file_stored")
def test_same_size_and_time_but_other_content_is_parsed_again(logs: Path,
                                                              tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    diagnosed([str(logs)], cache=cache)
    target = next(p for p in _files(logs) if b"Already have context" in p.read_bytes())
    before = target.stat()
    data = target.read_bytes()
    changed = data.replace(b"Already have context", b"Already have CONTEXT", 1)
    assert changed != data and len(changed) == len(data)
    target.write_bytes(changed)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    again = diagnosed([str(logs)], cache=cache)
    assert again.cache.reused_files == len(again.inputs.files) - 1
    assert _json(again) == _json(diagnosed([str(logs)]))


def test_other_rules_use_other_entries(logs: Path, tmp_path: Path) -> None:
    from plogscan.catalog import load_rules
    from plogscan.catalog.rule import RuleSet

    cache = tmp_path / "cache"
    diagnosed([str(logs)], cache=cache)
    rules = load_rules([])
    fewer = RuleSet(tuple(r for r in rules if r.id != "CCU001"))
    other = diagnosed([str(logs)], cache=cache, rules=fewer)
    assert other.cache.reused_files == 0
    assert all(f.rule != "CCU001" for f in other.findings)


@pytest.mark.usefixtures("every_file_stored")
def test_cap_evicts_least_recently_used(logs: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from plogscan.cache.store import info

    cache = tmp_path / "cache"
    monkeypatch.setenv("PLOGSCAN_CACHE_MAX", "1")  # nothing fits
    diagnosed([str(logs)], cache=cache)
    assert info(cache, 1).entries == 0
    monkeypatch.setenv("PLOGSCAN_CACHE_MAX", "1G")
    diagnosed([str(logs)], cache=cache)
    assert info(cache, 1 << 30).entries == len(_files(logs))


@pytest.mark.usefixtures("every_file_stored")
def test_cli_cache_info_clear_and_no_cache(diagnose_cli, logs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cli-cache"
    runner = CliRunner()
    off = diagnose_cli(logs, "--no-cache", "--cache", cache, "--quiet")
    assert off.exit_code == 1, off.output
    assert not cache.exists()
    on = diagnose_cli(logs, "--cache", cache, "--quiet")
    assert on.exit_code == 1
    shown = runner.invoke(cli, ["cache", "info", "--cache", str(cache)])
    assert shown.exit_code == 0
    assert f"entries:   {len(_files(logs))} files" in shown.output
    assert "of at most 2 GiB (PLOGSCAN_CACHE_MAX" in shown.output  # the cap in binary units
    assert "MB" not in shown.output
    cleared = runner.invoke(cli, ["cache", "clear", "--cache", str(cache)])
    assert cleared.exit_code == 0 and f"removed {len(_files(logs))} entries" in cleared.output
    assert "entries:   0 files" in runner.invoke(cli, ["cache", "info", "--cache",
                                                         str(cache)]).output


def test_suite_never_uses_the_user_cache() -> None:
    assert "plogscan-test-cache-" in os.environ["PLOGSCAN_CACHE"]


def test_a_use_is_noted_at_most_once_an_hour(logs: Path, tmp_path: Path) -> None:
    """Noting a use rewrites the entry's row (SQLite reads its payload again): a rerun within
    the hour leaves recent entries as they are and notes only the older ones."""
    import sqlite3

    cache = tmp_path / "cache"
    diagnosed([str(logs)], cache=cache)
    with sqlite3.connect(cache / DATABASE) as db:
        db.execute("UPDATE entries SET used = used - 7200 WHERE rowid = "
                   "(SELECT min(rowid) FROM entries)")
        before = dict(db.execute("SELECT rowid, used FROM entries"))
    again = diagnosed([str(logs)], cache=cache, reuse_result=False)
    assert again.cache.reused_files == len(before)
    with sqlite3.connect(cache / DATABASE) as db:
        after = dict(db.execute("SELECT rowid, used FROM entries"))
    old = min(before)
    assert after[old] > before[old] + 3600
    assert {k: v for k, v in after.items() if k != old} == {
        k: v for k, v in before.items() if k != old}


def test_a_rerun_sniffs_no_file_again_and_loads_no_line_formats(
        logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kind sniffed from a file's name and head is kept: a rerun over unchanged files
    neither sniffs them nor loads the line formats (nothing is parsed); a file whose head
    changed is sniffed again. The walk may run in a child process (``walkchild``), so what
    is sniffed and loaded is noted in a file."""
    import sqlite3

    from plogscan.cache.store import clear
    from plogscan.ingest import classify as classify_module
    from plogscan.parse import formatcheck

    cache = tmp_path / "cache"
    first = diagnosed([str(logs)], cache=cache)
    noted = tmp_path / "noted.txt"
    real_classify, real_load = classify_module.classify, formatcheck.load_formats

    def note(what: str) -> None:
        with noted.open("a") as out:
            out.write(what + "\n")

    def counted(path: str, head: bytes):
        note(path)
        return real_classify(path, head)

    def loaded():
        note("formats loaded")
        return real_load()

    def seen() -> list[str]:
        return noted.read_text().splitlines() if noted.exists() else []

    monkeypatch.setattr(classify_module, "classify", counted)
    monkeypatch.setattr(formatcheck, "load_formats", loaded)
    formatcheck.builtin_formats.cache_clear()
    second = diagnosed([str(logs)], cache=cache)
    assert seen() == []
    assert _json(second) == _json(first)
    target = next(p for p in _files(logs) if "debug" in str(p))
    target.write_bytes(b"[ERROR] HCCL(1,python3):2025-03-14-08:00:59.000.000 [x.cc:1] [1]"
                       b"a new first line\n" + target.read_bytes())
    third = diagnosed([str(logs)], cache=cache)
    assert [s for s in seen() if s != "formats loaded"] == [str(target)]
    assert "formats loaded" in seen()  # to sniff and parse the changed file
    assert _json(third) == _json(diagnosed([str(logs)], cache=None))
    clear(cache)
    with sqlite3.connect(cache / DATABASE) as db:
        assert db.execute("SELECT count(*) FROM kinds").fetchone()[0] == 0


def test_eviction_takes_the_least_recently_used_rows_of_every_table(tmp_path: Path) -> None:
    import sqlite3

    from plogscan.cache.store import CacheStore, evict

    store = CacheStore(tmp_path / "cache", "ns", 1 << 30)
    store.close()
    with sqlite3.connect(tmp_path / "cache" / DATABASE) as db:
        rows = [("entries", "old entry", 1.0, 100), ("results", "old result", 2.0, 100),
                ("kinds", "old kind", 3.0, 100), ("entries", "new entry", 10.0, 100),
                ("results", "new result", 11.0, 100), ("kinds", "new kind", 12.0, 100)]
        for table, path, used, size in rows:
            if table == "entries":
                db.execute("INSERT INTO entries VALUES ('ns', ?, 0, 0, '', ?, ?, '{}', x'')",
                           (path, used, size))
            elif table == "results":
                db.execute("INSERT INTO results VALUES ('ns', ?, '', ?, ?, x'')",
                           (path, used, size))
            else:
                db.execute("INSERT INTO kinds VALUES ('ns', ?, '', ?, ?)", (path, used, size))
        assert evict(db, 300) == 1  # one entry and two other rows out: 600 -> 300 bytes
        left = {path for table in ("entries", "results", "kinds")
                for (path,) in db.execute(f"SELECT path FROM {table}")}
    assert left == {"new entry", "new result", "new kind"}


def test_reused_extractions_wait_for_their_digests_in_groups_bounded_by_bytes(tmp_path: Path
                                                                              ) -> None:
    """Stored extractions are held until a digest task confirms them: the group goes to the
    pool at 256 files or at ``REUSE_BYTES``, so large reused files are not all held at once."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow as pa

    from plogscan.cache.entries import FileKey, Stored
    from plogscan.ingest.batching import Batcher, Reuse
    from plogscan.ingest.chunks import FileState
    from plogscan.model import FileStats
    from plogscan.parse.results import FileContext
    from plogscan.schema.facts import FACTS_SCHEMA

    records = pa.table({"message": ["x" * 1000] * 1000})  # about 1 MB
    inflight: deque = deque()
    with ThreadPoolExecutor(1) as pool:
        batcher = Batcher(None, pool, inflight)
        batcher.REUSE_BYTES = 5 * records.nbytes
        for i in range(12):
            path = tmp_path / f"plog-{i}.log"
            path.write_text("x\n")
            stats = FileStats(path=str(path), kind="plog", bytes=2)
            with path.open("rb") as stream:
                batcher.reuse(FileState(FileContext(path=str(path), kind="plog")),
                              FileKey(str(path), 2, 0),
                              Stored("digest", stats, records, FACTS_SCHEMA.empty_table()),
                              stream)
            assert len(batcher.reused) < 5  # never more than the bytes allow
        batcher.flush()
    assert len(inflight) == 12 and all(isinstance(item, Reuse) for item in inflight)
    assert len({id(item.digest) for item in inflight}) == 3  # 5 + 5 + 2


@pytest.mark.parametrize("codec", ["zstd", "none"])
def test_an_entry_reads_back_as_it_was_stored_batch_by_batch(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            codec: str) -> None:
    """Entries are stored compressed (zstd) where pyarrow has it, raw where it has not; both
    read back equal, several batches and empty tables included, and an entry one process
    compressed is a miss for a process that cannot decompress it, never an error."""
    import pyarrow as pa

    from plogscan.cache import store as store_module
    from plogscan.cache.entries import FileKey, Stored
    from plogscan.model import FileStats
    from plogscan.schema import EVENT_SCHEMA
    from plogscan.schema.facts import FACTS_SCHEMA

    if codec == "none":
        monkeypatch.setattr(store_module, "_CODEC", None)
    template = {name: None for name in EVENT_SCHEMA.names}
    first = pa.Table.from_pylist([{**template, "message": f"hcom init {i}", "line": i}
                                  for i in range(3)], schema=EVENT_SCHEMA)
    second = pa.Table.from_pylist([{**template, "message": "timeout or trap", "line": 9}],
                                  schema=EVENT_SCHEMA)
    records = pa.concat_tables([first, second])  # two batches, as a parse hands them on
    key = FileKey("/logs/plog-1.log", 10, 20, "ctx")
    entry = Stored("digest", FileStats(path="/logs/plog-1.log", kind="plog-debug"), records,
                   FACTS_SCHEMA.empty_table())
    store = store_module.CacheStore(tmp_path / "cache", "ns", 1 << 30)
    store.save(key, entry)
    found = store.find(key)
    assert found is not None
    assert found.records.equals(records) and found.records.num_rows == 4
    assert found.facts.equals(FACTS_SCHEMA.empty_table())
    assert found.stats == entry.stats and found.digest == "digest"
    if codec == "zstd":
        monkeypatch.setattr(store_module, "_CODEC", None)
        assert store.find(key) is None
    store.close()


def test_plogs_cheaper_to_parse_again_are_not_kept(logs: Path, tmp_path: Path) -> None:
    """By default a plog or device log under ``STORE_MIN_BYTES`` is parsed again on a rerun
    instead of kept (its entry costs more than its parse in a small-file group); job stdout,
    whose groups often fall back to one file at a time, and larger logs are kept. The
    reports stay those of a run without the cache."""
    from plogscan.cache.store import info
    from plogscan.ingest.stored import STORE_MIN_BYTES

    files = _files(logs)
    kept = [p for p in files if p.stat().st_size >= STORE_MIN_BYTES or p.name.startswith("train")]
    assert 0 < len(kept) < len(files)  # the sample has both kinds
    cache = tmp_path / "cache"
    first = diagnosed([str(logs)], cache=cache)
    assert info(cache, 1 << 30).entries == len(kept)
    again = diagnosed([str(logs)], cache=cache, reuse_result=False)
    assert again.cache.reused_files == len(kept)
    assert _json(first) == _json(again) == _json(diagnosed([str(logs)]))


def test_the_kinds_a_walk_in_a_child_looks_up_are_copied_up_to_a_limit(tmp_path: Path) -> None:
    from plogscan.cache.store import CacheStore

    store = CacheStore(tmp_path / "cache", "ns", 1 << 30)
    for i in range(3):
        store.save_kind(f"key{i}", "plog")
    other = CacheStore(tmp_path / "cache", "other", 1 << 30)
    other.save_kind("theirs", "stdout")
    found = store.kinds_found(3)
    assert found is not None and sorted(found) == ["key0", "key1", "key2"]
    assert {kind for kind, _ in found.values()} == {"plog"}
    assert store.kinds_found(2) is None  # more than asked for: the walk stays in process
    store.kind_used("key0", 0.0)  # long ago: noted as used now
    again = store.kinds_found(3)
    assert again is not None and again["key0"][1] > found["key0"][1]
