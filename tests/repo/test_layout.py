"""The package tree reads as the pipeline, and imports run one way down it.

Every module's imports (module-level and the ones inside functions alike) are read from its
source. A module may import its own layer and the layers below, never one above; ``report``
sees results only, never the parser, the ingest stage or the event table; the import graph
has no cycle; modules stay small; ``plogscan/`` itself holds few plain modules, so a new
stage gets a package of its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "plogscan"
TESTS = PACKAGE.parent / "tests"
# The test folders that no one package owns (tests/README.md says what each holds).
CROSS_CUTTING_TESTS = {"e2e", "repo", "adversarial"}

# Top to bottom. Each name is a top-level module or package of plogscan.
LAYERS: list[set[str]] = [
    {"cli", "__main__", "api"},  # the command line and the library functions
    {"compare"},  # two runs, each diagnosed and read: above the pipeline it calls
    {"pipeline", "baseline"},
    {"report"},
    {"incidents"},
    {"crossrank", "analysis", "redact"},
    {"engine", "codes"},
    {"catalog"},  # the rules as data: below the matcher and the code tables that name them
    {"table"},
    {"ingest"},
    {"cache"},  # what ingest keeps for reruns: it sees no stage above it
    {"parse"},
    {"__init__", "model", "errors", "schema", "lang", "console", "textsafe", "headline",
     "datafile", "outputs", "memory", "pathhints"},
]
# Imports that a layer may not make although they run down the list.
FORBIDDEN = {"report": {"parse", "ingest", "table", "cache"},
             "catalog": {"table", "ingest", "cache", "parse"}}
MAX_LINES = 600
LONG_LINES = 400  # past this a module says at its top why (a "Long module:" paragraph)
MAX_PLAIN_MODULES = 12


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The module file an imported name lives in: the longest known module prefix."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> set[str]:
    """The plogscan modules that ``module`` imports, anywhere in its source."""
    path = MODULES[module]
    tree = ast.parse(path.read_text("utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import name``: a submodule when one exists, else the package itself.
            names = [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            if name.split(".")[0] != "plogscan":
                continue
            target = _resolve(name)
            if target is not None and target != module:
                found.add(target)
    return found


GRAPH = {module: _imports(module) for module in MODULES}


def _top(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def _layer(module: str) -> int:
    top = _top(module)
    for index, names in enumerate(LAYERS):
        if top in names:
            return index
    raise AssertionError(f"{module}: top-level name {top!r} is in no layer of {__name__}")


def test_every_module_belongs_to_a_layer() -> None:
    for module in MODULES:
        _layer(module)


def test_imports_run_down_the_layers() -> None:
    upward = [f"{module} imports {target}" for module, targets in GRAPH.items()
              for target in sorted(targets) if _layer(target) < _layer(module)]
    assert not upward, "imports that run up the layers:\n" + "\n".join(upward)


def test_report_sees_results_not_inputs() -> None:
    bad = [f"{module} imports {target}" for module, targets in GRAPH.items()
           for target in sorted(targets)
           if _top(target) in FORBIDDEN.get(_top(module), set())]
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle() -> None:
    assert _cycles(GRAPH) == []


def test_the_cycle_check_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size(module: str) -> None:
    path = MODULES[module]
    text = path.read_text("utf-8")
    lines = text.count("\n")
    assert lines <= MAX_LINES, f"{path}: {lines} lines (at most {MAX_LINES}): split it"
    if lines > LONG_LINES:
        docstring = ast.get_docstring(ast.parse(text)) or ""
        assert "Long module:" in docstring, (
            f"{path}: {lines} lines; past {LONG_LINES} a module says at its top why "
            "(a 'Long module:' paragraph in its docstring), or is split")


def test_few_plain_modules_at_the_top() -> None:
    plain = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(plain) <= MAX_PLAIN_MODULES, (
        f"{len(plain)} plain modules in plogscan/ (at most {MAX_PLAIN_MODULES}): {plain}; "
        "give the new stage a package")


def test_every_package_says_what_comes_in_and_goes_out() -> None:
    for init in sorted(PACKAGE.rglob("__init__.py")):
        docstring = ast.get_docstring(ast.parse(init.read_text("utf-8"))) or ""
        assert docstring, f"{init}: a package's __init__ has a docstring"
        if init.parent == PACKAGE:
            continue
        assert "Must not import" in docstring, (
            f"{init}: the docstring says what the package must not import")


def test_tests_mirror_the_packages() -> None:
    """Each test module sits in ``tests/<package>/`` for the package it tests, or in one of the
    folders that no one package owns; each folder is a package with a conftest of its own."""
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    at_top = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert at_top == [], (
        f"test modules at the top of tests/: {at_top}; each goes in tests/<package>/")
    folders = sorted({p.parent for p in TESTS.rglob("test_*.py")})
    assert folders
    for folder in folders:
        where = folder.relative_to(TESTS)
        assert len(where.parts) == 1, f"tests/{where}: test folders are one level deep"
        assert where.name in packages | CROSS_CUTTING_TESTS, (
            f"tests/{where}/ is neither a plogscan package ({', '.join(sorted(packages))}) nor one "
            f"of the shared test folders ({', '.join(sorted(CROSS_CUTTING_TESTS))})")
        for needed in ("__init__.py", "conftest.py"):
            assert (folder / needed).is_file(), f"tests/{where}/ has no {needed}"


def test_no_package_init_loads_pyarrow() -> None:
    """Importing a package is cheap: heavy modules load with the module that needs them.
    (``plogscan.schema`` is the Arrow schema itself.)"""
    packages = sorted(name for name, path in MODULES.items()
                      if path.name == "__init__.py" and name not in ("plogscan.schema",))
    script = ("import importlib, json, sys\n"
              "loaded = {}\n"
              "for name in json.loads(sys.argv[1]):\n"
              "    before = 'pyarrow' in sys.modules\n"
              "    importlib.import_module(name)\n"
              "    loaded[name] = not before and 'pyarrow' in sys.modules\n"
              "print(json.dumps(loaded))\n")
    import json
    import subprocess
    import sys

    heavy = []
    for name in packages:  # one interpreter each: what one package pulls in, alone
        done = subprocess.run([sys.executable, "-c", script, json.dumps([name])],
                              capture_output=True, text=True, timeout=120, check=True)
        if json.loads(done.stdout)[name]:
            heavy.append(name)
    assert heavy == []
