"""The declared floors are the tested ones: ``constraints-floor.txt`` pins every dependency that
``pyproject.toml`` declares at exactly the lowest version it allows, and the README states them.

The floor-versions run (``scripts/test-floor.sh``) installs those pins on the lowest Python of
``requires-python``, so a floor raised or lowered in one file and not the other would test
versions that are not the declared ones.
"""

from __future__ import annotations

import re
import sys

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.helpers import REPO_ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest's own dependency on Python 3.10
    import tomli as tomllib

ROOT = REPO_ROOT
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _floor(requirement: Requirement) -> Version:
    lows = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
    assert len(lows) == 1, f"{requirement}: give the one lowest version it works with (>=)"
    return lows[0]


def declared_floors() -> dict[str, Version]:
    """Each dependency (runtime and every extra) -> the lowest version pyproject.toml allows."""
    floors: dict[str, Version] = {}
    groups = {"dependencies": PROJECT["dependencies"], **PROJECT["optional-dependencies"]}
    for group, requirements in groups.items():
        for text in requirements:
            requirement = Requirement(text)
            name, low = canonicalize_name(requirement.name), _floor(requirement)
            assert floors.setdefault(name, low) == low, \
                f"{group}: {requirement} has another floor than {name}>={floors[name]} elsewhere"
    return floors


def pinned_floors() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    text = (ROOT / "constraints-floor.txt").read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([0-9][0-9A-Za-z.]*)", line)
        assert match, f"constraints-floor.txt:{number}: {line!r} is not name==version"
        name = canonicalize_name(match[1])
        assert name not in pins, f"constraints-floor.txt:{number}: {name} pinned twice"
        pins[name] = Version(match[2])
    return pins


def test_every_declared_floor_is_pinned_equal() -> None:
    declared, pinned = declared_floors(), pinned_floors()
    assert len(declared) >= 8
    wrong = {name: (str(low), str(pinned.get(name))) for name, low in declared.items()
             if pinned.get(name) != low}
    assert wrong == {}, "pyproject.toml floor vs constraints-floor.txt pin"
    assert sorted(set(pinned) - set(declared)) == [], "pinned but not a declared dependency"


def test_the_floor_python_is_one_the_floor_run_can_read() -> None:
    # scripts/test-floor.sh reads the version after ">=" to find the interpreter.
    assert re.fullmatch(r">=\d+\.\d+", PROJECT["requires-python"].replace(" ", ""))


def test_the_readme_states_the_floors() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    python = PROJECT["requires-python"].replace(" ", "").removeprefix(">=")
    assert f"Python {python}" in readme
    runtime = [Requirement(text) for text in PROJECT["dependencies"]]
    missing = [f"{r.name} {_floor(r)}" for r in runtime
               if not re.search(rf"\b{re.escape(r.name)} {re.escape(str(_floor(r)))}\b", readme)]
    assert missing == [], "the README's supported versions miss these floors"
