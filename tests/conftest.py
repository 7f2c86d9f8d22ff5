"""Shared pytest setup: whole-output golden files.

``golden.check("reports/flagship.txt", text)`` compares ``text`` byte for byte with
``tests/golden/reports/flagship.txt``. Run ``pytest --update-goldens`` to (re)write the golden
files from the current output, then review the diff before committing it.
"""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).parent / "golden"
FLAGSHIP = Path(__file__).resolve().parent.parent / "samples" / "ccu-reuse-before-mc2"

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


SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"
SAMPLE_NAMES = sorted(p.name for p in SAMPLES_DIR.iterdir()
                      if p.is_dir() and not p.name.startswith(("_", ".")))


class SampleReports:
    """Every bundled sample diagnosed once per language, and each report format rendered once,
    on first use: the scans over all outputs share these runs instead of diagnosing again."""

    FORMATS = ("text", "text-details", "text-all", "text-narrow", "text-wide", "markdown",
               "html", "json", "sarif", "junit")

    def __init__(self) -> None:
        self._diagnoses: dict[tuple[str, str], object] = {}
        self._outputs: dict[tuple[str, str, str], str] = {}

    def diagnosis(self, sample: str, lang: str):
        from tests.helpers import diagnosed

        key = (sample, lang)
        if key not in self._diagnoses:
            self._diagnoses[key] = diagnosed([str(SAMPLES_DIR / sample)], lang=lang)
        return self._diagnoses[key]

    def output(self, sample: str, lang: str, fmt: str) -> str:
        from plogscan.report import render

        key = (sample, lang, fmt)
        if key not in self._outputs:
            diagnosis = self.diagnosis(sample, lang)
            text_options = {"text": {}, "text-details": {"details": True},
                            "text-all": {"show_all": True}, "text-narrow": {"width": 60},
                            "text-wide": {"width": 400, "details": True}}
            if fmt in text_options:
                self._outputs[key] = render(diagnosis, "text",  # type: ignore[arg-type]
                                            **text_options[fmt])
            else:
                self._outputs[key] = render(diagnosis, fmt)  # type: ignore[arg-type]
        return self._outputs[key]


@pytest.fixture(scope="session")
def sample_reports() -> SampleReports:
    return SampleReports()
