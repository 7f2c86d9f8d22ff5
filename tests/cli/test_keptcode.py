"""Dataclass methods and regular expressions from kept code: the same classes and patterns as
Python makes itself, read back by a later run instead of compiled, and never a reason for a
command to fail."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from plogscan.cli import keptcode
from plogscan.cli.keptcode import KeptCode
from plogscan.datafile import compiled
from tests.helpers import console_run

PATTERNS = [
    (r"(?P<host>[\w.-]+):(?P<pid>\d+)", 0),
    (r"timeout or trap|(?i:EI\d{4})", 0),
    (r"^\[(ERROR|WARN(?:ING)?)\]\s+(.*?)$", re.MULTILINE),
    (r"(?<=code )\d+(?!\d)", re.IGNORECASE),
    (r"[^\x00-\x7f]+|\u4e2d\u6587", 0),
    (rb"[\x01-\x08]|\xff+(?P<tail>.)", re.DOTALL),
    (r"(a)?(?(1)b|c){2,5}", re.ASCII),
]
SAMPLES = ["worker-0.local:4001", "EI0002 timeout or trap", "[ERROR]  x\n[WARNING] y",
           "code 507916", "中文 ok", "ab" * 3, "cc"]


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))


def _fresh() -> KeptCode:
    return KeptCode({}, {}, compile_pattern=keptcode._compiler().compile)


def _as_imported(hook: KeptCode, pattern: str | bytes, flags: int) -> re.Pattern:
    """``hook.compile`` called as a module's code calls it when the module is imported."""
    code = compile("found = hook.compile(pattern, flags)", "<module>", "exec")
    space = {"__name__": "plogscan.some_module", "hook": hook, "pattern": pattern,
             "flags": flags}
    exec(code, space)
    return space["found"]


def _behaviour(pattern: re.Pattern) -> list[object]:
    out: list[object] = [pattern.pattern, pattern.flags, pattern.groups, pattern.groupindex]
    for sample in SAMPLES:
        text = sample.encode() + b"\xff\xffz" if isinstance(pattern.pattern, bytes) else sample
        out.append([(m.span(), m.groups()) for m in pattern.finditer(text)])
    return out


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_a_kept_pattern_is_the_pattern_re_makes(pattern: str | bytes, flags: int) -> None:
    hook = _fresh()
    made = _as_imported(hook, pattern, flags)
    assert (pattern, flags) in hook.patterns and hook.new == 1
    again = KeptCode({}, dict(hook.patterns), compile_pattern=hook._compile_pattern)
    read_back = again.compile(pattern, flags)
    assert again.new == 0
    assert _behaviour(made) == _behaviour(read_back) == _behaviour(
        keptcode._compiler().compile(pattern, flags))


def test_a_bad_pattern_raises_what_re_raises() -> None:
    with pytest.raises(re.error, match="missing \\), unterminated subpattern"):
        _fresh().compile("(unclosed", 0)


def test_patterns_made_while_running_are_not_kept() -> None:
    """A pattern made of what a run reads (a host name, a user's --grep) never reaches the
    file: only what modules compile as they are imported is kept."""
    hook = _fresh()
    found = hook.compile(re.escape("node-17.cluster"), 0)
    assert found.match("node-17.cluster")
    assert hook.patterns == {} and hook.new == 0


def test_patterns_of_plogscan_own_data_are_kept_when_it_says_so() -> None:
    """The sniff's patterns, made of the line formats at run time, are kept (they take
    15 ms to compile); only inside ``own_patterns``, and only in that thread."""
    hook = _fresh()
    with compiled.own_patterns():
        hook.compile(r"\[(?:ERROR|INFO)\] \w+\(\d+", 0)
        with compiled.own_patterns():
            pass
        seen_elsewhere = []
        worker = threading.Thread(target=lambda: seen_elsewhere.append(
            compiled.compiling_own_patterns()))
        worker.start()
        worker.join()
    hook.compile("after", 0)
    assert list(hook.patterns) == [(r"\[(?:ERROR|INFO)\] \w+\(\d+", 0)]
    assert seen_elsewhere == [False] and not compiled.compiling_own_patterns()


def test_kept_dataclass_methods_make_the_same_class(monkeypatch: pytest.MonkeyPatch) -> None:
    def make(hook: KeptCode) -> type:
        monkeypatch.setattr(dataclasses, "exec", hook.exec, raising=False)

        @dataclasses.dataclass(frozen=True, order=True)
        class Rank:
            host: str
            rank: int = 0
            pids: tuple[int, ...] = dataclasses.field(default=())

        monkeypatch.delattr(dataclasses, "exec")
        return Rank

    first = _fresh()
    made = make(first)
    # Python up to 3.12 compiles each method apart (__init__, __repr__, __eq__, the order,
    # frozen, __hash__); 3.13 compiles them in one source
    assert first.new >= (1 if sys.version_info >= (3, 13) else 5)
    second = KeptCode(dict(first.methods), {}, compile_pattern=first._compile_pattern)
    again = make(second)
    assert second.new == 0 and second.used_methods.keys() == first.methods.keys()
    for cls in (made, again):
        value = cls("worker-0", 3, (7,))
        assert repr(value) == "test_kept_dataclass_methods_make_the_same_class.<locals>." \
                              "make.<locals>.Rank(host='worker-0', rank=3, pids=(7,))"
        assert value == cls("worker-0", 3, (7,)) and value < cls("worker-1")
        assert hash(value) == hash(cls("worker-0", 3, (7,)))
        assert cls("h").pids == ()
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.rank = 4  # type: ignore[misc]
    assert made.__init__.__annotations__ == again.__init__.__annotations__


def test_kept_entries_of_another_form_are_compiled_afresh() -> None:
    """What the file holds passed its digest, so this plogscan wrote it; an entry that is
    still not what this code expects is compiled as Python would, never an error."""
    pattern, flags = PATTERNS[0]
    hook = KeptCode({"x = 1": "not code"}, {(pattern, flags): (0, b"\x00", 0)},
                    compile_pattern=keptcode._compiler().compile)
    assert _behaviour(hook.compile(pattern, flags)) == _behaviour(re.compile(pattern, flags))
    assert (pattern, flags) not in hook.patterns
    space: dict = {}
    hook.exec("x = 1", space, space)
    assert space["x"] == 1 and isinstance(hook.methods["x = 1"], type(compile("", "", "exec")))


def test_a_damaged_file_means_compiling_afresh() -> None:
    compiled.store_kept(keptcode.KIND, keptcode._parts(), b"not marshal data")
    assert keptcode._known() == ({}, {}, {})


def test_entries_no_run_uses_are_dropped_after_a_few_writes() -> None:
    """Patterns that change from run to run (Python's tokenizer makes its own of a set's
    items) and the classes of an older plogscan leave the file after ``MAX_AGE`` writes."""
    hook = _fresh()
    for pattern, flags in PATTERNS[:2]:
        _as_imported(hook, pattern, flags)
    known: tuple = (dict(hook.methods), dict(hook.patterns), {})
    for write in range(1, keptcode.MAX_AGE + 2):
        later = KeptCode(*known[:2], hook._compile_pattern, known[2])
        _as_imported(later, *PATTERNS[0])  # used by every run; PATTERNS[1] by none after
        compiled.store_kept(keptcode.KIND, keptcode._parts(), later.payload())
        known = keptcode._known()
        assert PATTERNS[0] in known[1] and PATTERNS[0] not in known[2]["patterns"]
        if write <= keptcode.MAX_AGE:
            assert known[2]["patterns"][PATTERNS[1]] == write
        else:
            assert PATTERNS[1] not in known[1]


# A command as the console script runs it, told to say what it compiled anew on its way.
RUN = console_run("""from plogscan.cli import keptcode
hook = keptcode.keep_compiled_code()
print("\\nNEW", hook.new, len(hook.used_methods), len(hook.used_patterns))
""")


def test_a_second_start_compiles_nothing_it_kept(tmp_path: Path) -> None:
    plog = tmp_path / "logs" / "plog-4001_20250314080000000.log"
    plog.parent.mkdir()
    plog.write_text("[ERROR] HCCL(4001,python3):2025-03-14-08:00:00.000.100 [hccl_comm.cc:88] "
                    "[4001]HcclAllReduce failed, return code 7\n")

    def run() -> tuple[str, list[int]]:
        done = subprocess.run([sys.executable, "-c", RUN, str(plog.parent)],
                              capture_output=True, text=True, timeout=300, check=True)
        report, counts = done.stdout.rsplit("\nNEW ", 1)
        return report, [int(n) for n in counts.split()]

    first, (new, methods, patterns) = run()
    assert new == methods + patterns and methods > 100 and patterns > 20
    kept = sorted((tmp_path / "xdg" / "plogscan" / "compiled").glob(f"{keptcode.KIND}-*"))
    assert len(kept) == 1
    written = kept[0].read_bytes()
    second, (new_again, methods_again, patterns_again) = run()
    # Python's tokenizer, which numpy.ma's import runs, makes its pattern in another order
    # every run: one pattern new each time, too little to write the file again.
    # (The first run also built the line formats and rules from YAML: more modules.)
    assert new_again <= 1
    assert methods_again > 100 and patterns_again > 20
    assert kept[0].read_bytes() == written
    assert first == second
