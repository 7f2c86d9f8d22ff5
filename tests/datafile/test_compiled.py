"""Compiled forms kept between runs: read back equal to what was built, built again when the
file is damaged or not the user's own, and never a reason for a run to fail."""

from __future__ import annotations

import os
import pickle
import re
import stat
from pathlib import Path

import hyperscan
import pytest

from plogscan.catalog.ruleset import builtin_rules_dir, loaded_files, rule_files
from plogscan.datafile import compiled
from plogscan.datafile.compiled import compiled_dir, kept, key_of
from plogscan.parse.formatcheck import compiled_formats
from plogscan.parse.lineformats import read_formats
from plogscan.parse.literals import block_database

TEXT = (b"[ERROR] HCCL(1,python):2026-01-01-00:00:00.000.000 [a.cc:1] Already have context, "
        b"skip create\n[ERROR] AICORE timeout or trap 507916\n\x01 notify wait TIMEOUT\n")
EXPRESSIONS = [b"already have context", b"timeout", rb"5079\d\d", b"[\\x01-\\x08]"]
FLAGS = [hyperscan.HS_FLAG_CASELESS, hyperscan.HS_FLAG_CASELESS, 0, 0]


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache directory of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "plogscan" / "compiled"


def _counted(value: object) -> tuple[list[int], object]:
    calls: list[int] = []

    def build() -> object:
        calls.append(1)
        return value

    return calls, build


def _matches(database: object) -> list[tuple[int, int, int]]:
    found: list[tuple[int, int, int]] = []
    database.scan(TEXT, match_event_handler=lambda i, start, end, *_: found.append(
        (i, start, end)), scratch=hyperscan.Scratch(database))
    return found


def _files(directory: Path, kind: str) -> list[Path]:
    return sorted(directory.glob(f"{kind}-*.bin"))


def test_the_directory_follows_xdg_cache_home(own_cache: Path) -> None:
    assert compiled_dir() == own_cache


def test_a_kept_value_is_built_once_then_read_back(own_cache: Path) -> None:
    calls, build = _counted({"a": (1, 2.5, "三")})
    assert kept("test", ["x"], build) == {"a": (1, 2.5, "三")}
    assert kept("test", ["x"], build) == {"a": (1, 2.5, "三")}
    assert calls == [1]
    (path,) = _files(own_cache, "test")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(own_cache.stat().st_mode) == 0o700
    kept("test", ["y"], build)  # other parts: another file
    assert calls == [1, 1] and len(_files(own_cache, "test")) == 2


def test_a_hyperscan_database_read_back_finds_the_same_matches(own_cache: Path) -> None:
    fresh = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    fresh.compile(expressions=EXPRESSIONS, ids=list(range(len(EXPRESSIONS))), flags=FLAGS)
    built = block_database(EXPRESSIONS, FLAGS)
    (path,) = _files(own_cache, "hyperscan")
    read_back = block_database(EXPRESSIONS, FLAGS)
    assert _matches(read_back) == _matches(built) == _matches(fresh)
    assert len(_matches(fresh)) == 5  # two timeouts
    assert path.read_bytes().endswith(hyperscan.dumpb(fresh))  # the serialized database


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage"])
def test_a_damaged_file_is_built_again(own_cache: Path, damage: str) -> None:
    first = _matches(block_database(EXPRESSIONS, FLAGS))
    (path,) = _files(own_cache, "hyperscan")
    data = path.read_bytes()
    damaged = {"flip": data[:-100] + bytes([data[-100] ^ 0xFF]) + data[-99:],
               "truncate": data[: len(data) // 2], "empty": b"",
               "garbage": b"not a database at all"}[damage]
    path.write_bytes(damaged)
    assert _matches(block_database(EXPRESSIONS, FLAGS)) == first
    assert path.read_bytes() == data  # written again, whole


def test_a_payload_that_no_longer_loads_is_built_again(own_cache: Path) -> None:
    calls, build = _counted([1, 2, 3])
    kept("test", ["x"], build)

    def broken(_data: bytes) -> object:
        raise pickle.UnpicklingError("another version's form")

    assert kept("test", ["x"], build, load=broken) == [1, 2, 3]
    assert calls == [1, 1]


def test_a_file_others_may_write_is_not_read(own_cache: Path) -> None:
    calls, build = _counted("value")
    kept("test", ["x"], build)
    (path,) = _files(own_cache, "test")
    path.chmod(0o666)
    assert kept("test", ["x"], build) == "value"
    assert calls == [1, 1]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # replaced by a private one


def test_a_directory_that_cannot_be_written_still_gives_the_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # no directory can be made under it
    calls, build = _counted("value")
    assert kept("test", ["x"], build) == "value"
    assert kept("test", ["x"], build) == "value"
    assert calls == [1, 1]
    assert _matches(block_database(EXPRESSIONS, FLAGS))


def test_a_read_only_directory_still_gives_the_value(own_cache: Path) -> None:
    own_cache.mkdir(parents=True)
    own_cache.chmod(0o500)
    try:
        calls, build = _counted("value")
        assert kept("test", ["x"], build) == "value"
        assert kept("test", ["x"], build) == "value"
        if os.geteuid() != 0:  # root writes whatever the mode says
            assert calls == [1, 1] and not _files(own_cache, "test")
        assert _matches(block_database(EXPRESSIONS, FLAGS))
    finally:
        own_cache.chmod(0o700)


def test_none_and_errors_are_not_kept(own_cache: Path) -> None:
    calls, build = _counted(None)
    assert kept("test", ["x"], build) is None
    assert kept("test", ["x"], build) is None
    assert calls == [1, 1]

    def failing() -> object:
        raise ValueError("bad data")

    with pytest.raises(ValueError, match="bad data"):
        kept("test", ["y"], failing)
    assert not _files(own_cache, "test")


def test_the_files_are_capped(own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiled, "MAX_FILES", 3)
    for n in range(6):
        kept("test", [str(n)], lambda n=n: n)
    assert len(list(own_cache.iterdir())) == 3


def test_the_formats_read_back_equal_the_formats_read() -> None:
    built, read_back = compiled_formats(), compiled_formats()
    assert built == read_back == read_formats()
    assert read_back.start_bytes[1] == read_formats().start_bytes[1]
    assert (read_back.start_bytes[0] == read_formats().start_bytes[0]).all()


def test_the_rules_read_back_equal_the_rules_loaded(own_cache: Path) -> None:
    files = rule_files([builtin_rules_dir()])
    built = loaded_files(files)
    assert len(_files(own_cache, "rules")) == 1
    read_back = loaded_files(files)
    assert [rule for rule, _ in read_back] == [rule for rule, _ in built]
    assert all(rule is not None and not errors for rule, errors in read_back)


def test_a_changed_rule_file_is_loaded_again(tmp_path: Path) -> None:
    source = next(p for p in rule_files([builtin_rules_dir()]) if "hccl" in str(p))
    copy = tmp_path / "rules" / source.name
    copy.parent.mkdir()
    text = source.read_text(encoding="utf-8")
    copy.write_text(text, encoding="utf-8")
    (rule, _), = loaded_files([copy])
    copy.write_text(re.sub(r"(?m)^title: .*$", "title: Another title", text),
                    encoding="utf-8")
    (changed, _), = loaded_files([copy])
    assert changed is not None and changed.title == "Another title" != rule.title


def test_a_file_under_another_files_name_is_not_read(own_cache: Path) -> None:
    kept("test", ["x"], lambda: "x's value")
    kept("test", ["y"], lambda: "y's value")
    x_file, y_file = (own_cache / f"test-{key_of([part])}.bin" for part in "xy")
    os.replace(x_file, y_file)  # y's name, x's content
    calls, build = _counted("rebuilt")
    assert kept("test", ["y"], build) == "rebuilt"
    assert calls == [1]


def test_without_a_home_directory_everything_is_built(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)  # as with no user entry
    monkeypatch.chdir(tmp_path)
    assert compiled_dir() is None
    calls, build = _counted("value")
    assert kept("test", ["x"], build) == kept("test", ["x"], build) == "value"
    assert calls == [1, 1] and not list(tmp_path.iterdir())


def test_a_fifo_in_place_of_a_file_is_not_waited_for(own_cache: Path) -> None:
    own_cache.mkdir(parents=True)
    os.mkfifo(own_cache / f"test-{key_of(['x'])}.bin", 0o600)
    assert kept("test", ["x"], lambda: "value") == "value"
