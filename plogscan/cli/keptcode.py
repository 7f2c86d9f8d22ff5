"""What Python compiles at every start of a command, compiled once and kept between runs:
the methods ``dataclasses`` writes, and regular expressions.

Creating a dataclass writes the source of each method it generates (``__init__``,
``__repr__``, ``__eq__``; for a frozen class ``__setattr__``, ``__delattr__`` and
``__hash__``) and compiles it: a command creates about 140 classes on its way in, some 750
small compiles and about 50 ms. Its modules and the libraries they load also compile about 120
regular expressions, parsed by ``re``'s own Python code, and makes a few large ones of its
line formats at run time (the sniff's: 15 ms): another 25 ms. Both results depend
on nothing but their source (and the Python that compiled them), so they can be kept the way
Python keeps a module's bytecode. The command line installs ``KeptCode`` in front of both
(``dataclasses``' ``exec``, ``re``'s compiler); it looks each source up among what an earlier
run kept (``plogscan.datafile.compiled``, one file for this Python) and compiles only what it
has not seen; when that took a run more than a few milliseconds, the set is written back as
the process exits.

A method comes from the same code compiled under the same name (``<string>``) without the
caller's ``__future__`` flags, run in the same namespaces; a pattern from the same program
``re`` would hand its engine (which validates it). Nothing here may fail a command: a missing,
unreadable or altered file, or a Python whose ``dataclasses`` or ``re`` work another way,
means compiling as before. Code that imports plogscan as a library is left as it is.
"""

from __future__ import annotations

import _sre  # re's engine, which validates every program it is given
import array
import atexit
import builtins
import contextlib
import dataclasses
import marshal
import re
import sys
import time
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

from plogscan.datafile import compiled

KIND = "python-code"
FORM = "1"  # of what the file holds: another form is another file
MAX_KEPT = 4096  # entries of each kind kept at most
MAX_AGE = 8  # writes an entry stays without a run that used it (each command's are used)
# The file is written again when a run spent this much CPU time compiling what it did not
# find there (Python's tokenizer makes its pattern of a set's items, in another order every
# run: about 1 ms, so not alone).
REWRITE_SECONDS = 0.005
PatternKey = tuple[str | bytes, int]  # (pattern, flags) as given to ``re.compile``
# What ``_sre.compile`` takes after the pattern, the program as bytes (its machine words)
Program = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]


class KeptCode:
    """Dataclass methods and regular expressions, from kept code when seen before."""

    def __init__(self, methods: dict[str, CodeType], patterns: dict[PatternKey, Program],
                 compile_pattern: Callable[..., re.Pattern],
                 ages: dict[str, dict] | None = None) -> None:
        self.methods = methods
        self.patterns = patterns
        self.ages = ages or {}  # per kind, the writes since a run last used an entry
        self.used_methods: dict[str, CodeType] = {}
        self.used_patterns: dict[PatternKey, Program] = {}
        self.new = 0  # entries compiled by this run and kept
        self.new_seconds = 0.0  # and the CPU time their compiling took
        self._compile_pattern = compile_pattern  # ``re``'s own, for what it cannot keep

    def exec(self, source: Any, globals: dict | None = None, locals: Any = None, /) -> None:
        """``exec`` as ``dataclasses`` calls it (always with its namespaces)."""
        if globals is None:  # as exec does: its caller's namespaces
            caller = sys._getframe(1)
            globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
        if isinstance(source, str):
            code = self.methods.get(source)
            if not isinstance(code, CodeType):
                begun = time.thread_time()
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self.methods[source] = code
                self.new += 1
                self.new_seconds += time.thread_time() - begun
            self.used_methods[source] = code
            source = code
        builtins.exec(source, globals, locals)

    def compile(self, pattern: Any, flags: int = 0) -> re.Pattern:
        """``re``'s compiler: the engine's program for ``pattern`` kept, or made now (and
        kept when a module's code compiles it as it is imported, or plogscan compiles it
        from its own data, ``compiled.own_patterns``: never a pattern that a run makes of
        what it reads)."""
        if not isinstance(pattern, (str, bytes)) or flags & re.DEBUG:
            return self._compile_pattern(pattern, flags)
        key = (pattern, int(flags))
        program = self.patterns.get(key)
        if program is None:
            begun = time.thread_time()
            try:
                program = _program(pattern, int(flags))
            except re.error:
                raise
            except Exception:  # what ``_program`` does not foresee: ``re`` says it
                return self._compile_pattern(pattern, flags)
            if _importing(sys._getframe(1)) or compiled.compiling_own_patterns():
                self.patterns[key] = program
                self.new += 1
                self.new_seconds += time.thread_time() - begun
        if key in self.patterns:
            self.used_patterns[key] = program
        try:
            return _sre.compile(pattern, *_arguments(program))
        except Exception:  # a kept program that does not load: ``re`` compiles it
            self.patterns.pop(key, None)
            self.used_patterns.pop(key, None)
            return self._compile_pattern(pattern, flags)

    def payload(self) -> bytes:
        """This run's entries first, then the others known that a run used within the last
        ``MAX_AGE`` writes, up to ``MAX_KEPT`` of each kind; and their ages."""
        methods, method_ages = _aged(self.used_methods, self.methods,
                                     self.ages.get("methods", {}))
        patterns, pattern_ages = _aged(self.used_patterns, self.patterns,
                                       self.ages.get("patterns", {}))
        return marshal.dumps({"methods": methods, "patterns": patterns,
                              "ages": {"methods": method_ages, "patterns": pattern_ages}})


def _importing(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs for the import of a module: the nearest module code it was
    called from is not the program's own (``__main__``) nor missing (another thread)."""
    while frame is not None:
        if frame.f_code.co_name == "<module>":
            return frame.f_globals.get("__name__") != "__main__"
        frame = frame.f_back
    return False


def _aged(used: dict, known: dict, ages: dict) -> tuple[dict, dict]:
    """The entries to write (``used`` first) and the ages of those not used."""
    kept, kept_ages = dict(list(used.items())[:MAX_KEPT]), {}
    for key, value in known.items():
        if len(kept) >= MAX_KEPT:
            break
        age = ages.get(key, 0) + 1
        if key not in kept and age <= MAX_AGE:
            kept[key] = value
            kept_ages[key] = age
    return kept, kept_ages


def _compiler() -> Any:
    return getattr(re, "_compiler", None) or getattr(re, "sre_compile", None)


_WORD = {2: "H", 4: "I", 8: "Q"}[_sre.CODESIZE]  # the engine's machine word


def _arguments(program: Program) -> tuple:
    """``_sre.compile``'s arguments after the pattern, of a program."""
    flags, code, groups, groupindex, indexgroup = program
    return flags, array.array(_WORD, code).tolist(), groups, groupindex, indexgroup


def _program(pattern: str | bytes, flags: int) -> Program:
    """What ``re``'s compiler hands ``_sre.compile`` for ``pattern`` (its last steps)."""
    compiler = _compiler()
    parser = getattr(compiler, "_parser", None) or compiler.sre_parse
    parsed = parser.parse(pattern, flags)
    code = array.array(_WORD, compiler._code(parsed, flags)).tobytes()
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex,
            tuple(indexgroup))


def _works_as_expected() -> bool:
    """Whether this Python's ``dataclasses`` compiles its methods with ``exec`` (from
    ``_create_fn`` up to 3.12, ``_FuncBuilder`` from 3.13) and ``re``'s compiler has the
    steps ``_program`` repeats, giving the pattern ``re`` gives."""
    owners = ((dataclasses, "_create_fn"),
              (getattr(dataclasses, "_FuncBuilder", None), "add_fns_to_class"))
    if not any("exec" in getattr(getattr(owner, name, None), "__code__", compile(
            "", "", "exec")).co_names for owner, name in owners):
        return False
    try:
        probe = r"(?P<a>x+)(y)?\d{2,}"
        made = _sre.compile(probe, *_arguments(_program(probe, re.I)))
        same = _compiler().compile(probe, re.I)
        return (made.flags, made.groups, made.groupindex) == (
            same.flags, same.groups, same.groupindex) and made.match("XX12").span() == (0, 4)
    except Exception:
        return False


def _known() -> tuple[dict[str, CodeType], dict[PatternKey, Program], dict[str, dict]]:
    """The methods, patterns and ages an earlier run kept (all empty when none)."""
    payload = compiled.read_kept(KIND, _parts())
    try:
        known = marshal.loads(payload) if payload is not None else {}
        methods, patterns = known.get("methods", {}), known.get("patterns", {})
        ages = known.get("ages", {})
        if all(isinstance(part, dict) for part in (methods, patterns, ages)):
            return methods, patterns, ages
    except Exception:  # another version's form, or damaged: compile afresh
        pass
    return {}, {}, {}


def _parts() -> list[str | bytes]:
    return [KIND, FORM, sys.version, str(_sre.MAGIC)]


def keep_compiled_code() -> KeptCode | None:
    """From now on in this process, create dataclasses and regular expressions from kept
    code; the hook (the one already there when called again), or None when this Python
    works another way."""
    compiler = _compiler()
    hook = getattr(getattr(compiler, "compile", None), "__self__", None)
    if isinstance(hook, KeptCode):
        return hook
    if compiler is None or "exec" in vars(dataclasses) or not _works_as_expected():
        return None
    methods, patterns, ages = _known()
    hook = KeptCode(methods, patterns, compiler.compile, ages)
    dataclasses.exec = hook.exec  # type: ignore[attr-defined]  # shadows the builtin there
    compiler.compile = hook.compile
    atexit.register(_write_back, hook)
    return hook


def _write_back(hook: KeptCode) -> None:
    if hook.new_seconds < REWRITE_SECONDS:
        return
    with contextlib.suppress(Exception):  # not written only means compiling next time
        compiled.store_kept(KIND, _parts(), hook.payload())
