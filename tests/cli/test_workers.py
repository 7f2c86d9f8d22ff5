"""``--workers`` takes any positive count, on the command line and in the library: a host with
more cores than any fixed cap gets a worker per core, a count past the cores is run with a
warning that says what it costs, and the results do not depend on the count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import plogscan
from plogscan.cli import cli
from plogscan.errors import InputError
from plogscan.ingest.cores import usable_cores, worker_count
from plogscan.pipeline import DiagnoseOptions

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "ccu-reuse-before-mc2"


def _diagnose(*args: str):
    return CliRunner().invoke(cli, ["diagnose", str(SAMPLE), "--format", "json", "-q",
                                    "--no-cache", *args])


def test_a_count_past_the_old_cap_and_the_cores_runs_with_a_warning_and_the_same_report():
    one = _diagnose("--workers", "1")
    many = _diagnose("--workers", "80")
    assert one.exit_code == many.exit_code == 1, many.output
    assert json.loads(many.stdout) == json.loads(one.stdout)
    assert f"more than the {usable_cores()} cores" in many.stderr
    assert "more than the" not in one.stderr


@pytest.mark.parametrize("bad", ["0", "-2", "two"])
def test_a_count_below_one_is_refused_by_the_command_line(bad):
    result = _diagnose("--workers", bad)
    assert result.exit_code == 2
    assert "--workers" in result.stderr


def test_the_help_says_any_count_and_what_a_count_past_the_cores_costs():
    shown = " ".join(CliRunner().invoke(cli, ["diagnose", "--help"]).stdout.split())
    assert "any positive count" in shown and "past the cores" in shown
    assert "1<=x<=64" not in shown


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_the_library_refuses_a_count_that_is_not_positive(bad):
    with pytest.raises(InputError, match="workers"):
        DiagnoseOptions(paths=("logs",), workers=bad)
    with pytest.raises(InputError, match="workers"):
        plogscan.read_events(str(SAMPLE), workers=bad)


def test_the_default_is_one_worker_per_usable_core():
    assert worker_count(None) == usable_cores() >= 1
    assert worker_count(200) == 200
