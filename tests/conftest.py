"""Shared pytest setup: the environment of every run, whole-output golden files, and the
fixtures that tests in several folders use.

``golden.check("reports/flagship.txt", text)`` compares ``text`` byte for byte with
``tests/golden/reports/flagship.txt``. Run ``pytest --update-goldens`` to (re)write the golden
files from the current output, then review the diff before committing it.

``diagnose_cli`` runs ``plogscan diagnose`` in process as the command line does
(``tests.helpers.DiagnoseCli``); ``terminal`` runs plogscan on real pseudo-terminals
(``tests.pty_run.run_plogscan``); ``at_repo_root`` makes the checkout the working directory,
for tests that name ``samples/...`` or ``rules/...`` as a user in the checkout would.

Every property test draws the same examples in every suite run (hypothesis derandomized, the
``ci`` profile of ``tests.fuzzing``): a run fails for a change, never for a new draw.
``PLOGSCAN_FUZZ=long`` draws new examples, as many as each test asks for.
"""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, SAMPLES_DIR, DiagnoseCli
from tests.pty_run import run_plogscan

try:  # the floor-versions run installs only what its tests import, hypothesis not among it
    from hypothesis import settings
except ImportError:
    pass
else:
    from tests.fuzzing import PROFILE

    settings.register_profile("plogscan", derandomize=PROFILE == "ci")
    settings.load_profile("plogscan")  # the parent of every test's own settings

GOLDEN_DIR = Path(__file__).parent / "golden"
FLAGSHIP = SAMPLES_DIR / "ccu-reuse-before-mc2"

# Reports follow the locale; the goldens are English whatever the developer's LANG is.
os.environ["PLOGSCAN_LANG"] = "en"
# The extraction cache of every command the tests run (in-process or as a child process) goes
# to a temporary directory, never to the user's own cache.
_CACHE = tempfile.mkdtemp(prefix="plogscan-test-cache-")
os.environ["PLOGSCAN_CACHE"] = _CACHE
os.environ["XDG_CACHE_HOME"] = _CACHE


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_CACHE, ignore_errors=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="Rewrite tests/golden/** from the current output instead of comparing.")


class Golden:
    """Compares output with a golden file, or rewrites the file under --update-goldens."""

    def __init__(self, update: bool) -> None:
        self.update = update

    def check(self, name: str, actual: str) -> None:
        path = GOLDEN_DIR / name
        data = actual.encode("utf-8")
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            return
        if not path.exists():
            pytest.fail(f"missing golden file {path}; run pytest --update-goldens and review it")
        expected = path.read_bytes()
        if expected != data:
            diff = "".join(difflib.unified_diff(
                expected.decode("utf-8", "replace").splitlines(keepends=True),
                actual.splitlines(keepends=True), f"golden/{name}", "actual"))
            pytest.fail(f"output differs from golden/{name} "
                        f"(pytest --update-goldens rewrites it):\n{diff[:6000]}")


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    return Golden(request.config.getoption("--update-goldens"))


@pytest.fixture
def every_file_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every file's extraction in the cache, the tiny plogs of the samples included
    (by default a plog under ``STORE_MIN_BYTES`` is parsed again instead): for the tests of
    the per-file entries."""
    from plogscan.ingest import stored

    monkeypatch.setattr(stored, "STORE_MIN_BYTES", 0)


@pytest.fixture
def flagship_logs(tmp_path: Path) -> Path:
    """A copy of the flagship sample (the reuse line, then the MC2 fault) that a test may
    change: the cache tests touch, rewrite and add files."""
    target = tmp_path / "logs"
    shutil.copytree(FLAGSHIP, target)
    return target


@pytest.fixture
def at_repo_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The checkout as the working directory for the test (a module uses it throughout with
    ``pytestmark = pytest.mark.usefixtures("at_repo_root")``)."""
    monkeypatch.chdir(REPO_ROOT)
    return REPO_ROOT


@pytest.fixture(scope="session")
def diagnose_cli() -> DiagnoseCli:
    """``diagnose_cli(*args)`` runs ``plogscan diagnose ARGS`` in process and returns click's
    result; ``diagnose_cli.json(*args)`` returns the parsed JSON report."""
    return DiagnoseCli()


@pytest.fixture(scope="session")
def terminal():  # type: ignore[no-untyped-def]
    """``terminal(argv, cols=..., env=...)`` runs plogscan with its streams on real
    pseudo-terminals (``tests.pty_run.run_plogscan``)."""
    return run_plogscan
