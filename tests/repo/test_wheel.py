"""The built wheel carries everything plogscan needs at run time, wherever the files live.

The wheel is built from the checkout and installed into an empty directory of its own; the
installed package then runs outside the checkout (its own formats, rules, code tables, report
assets and schema, nothing read from the source tree) and gives the same report as the
checkout does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
SAMPLE = ROOT / "samples" / "ccu-reuse-before-mc2"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the built wheel, the directory it is installed in)."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=600)
    (wheel,) = out.glob("plogscan-*.whl")
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=600)
    return wheel, target


def _run(args: list[str], cwd: Path, site: Path | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "PLOGSCAN_LANG": "en"}
    env.pop("PYTHONPATH", None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run([sys.executable, "-m", "plogscan", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_every_data_file_of_the_package_is_in_the_wheel(installed: tuple[Path, Path]) -> None:
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    # Compiled modules are not data: the checkout may hold those of other interpreters too.
    data = [p.relative_to(ROOT).as_posix() for p in (ROOT / "plogscan").rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc", ".so", ".pyd")]
    assert data, "the package has data files (formats, code tables, assets, schema)"
    assert sorted(set(data) - names) == []
    rules = [p.relative_to(ROOT / "rules").as_posix() for p in (ROOT / "rules").rglob("*.yaml")]
    assert sorted(f"plogscan/_rules/{r}" for r in rules if f"plogscan/_rules/{r}" not in names) \
        == []


def test_the_installed_package_runs_outside_the_checkout(installed: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    _, site = installed
    probe = subprocess.run(
        [sys.executable, "-c", "import plogscan; print(plogscan.__file__)"], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True, text=True,
        check=True, timeout=60)
    assert Path(probe.stdout.strip()).is_relative_to(site)
    for args in (["rules", "check"], ["explain", "507916", "EI0002"]):
        done = _run(args, tmp_path, site)
        assert done.returncode == 0, done.stderr
    wheel_report = _run(["diagnose", "-q", str(SAMPLE), "--format", "json"], tmp_path, site)
    checkout_report = _run(["diagnose", "-q", str(SAMPLE), "--format", "json"], tmp_path, None)
    assert wheel_report.returncode == checkout_report.returncode == 1, wheel_report.stderr
    assert wheel_report.stdout == checkout_report.stdout
    html = _run(["diagnose", "-q", str(SAMPLE), "--output-dir", str(tmp_path / "out")],
                tmp_path, site)
    assert html.returncode == 1, html.stderr
    assert (tmp_path / "out" / "report.html").stat().st_size > 10_000
