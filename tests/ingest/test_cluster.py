"""Scale-out on a real ``dask.distributed`` LocalCluster (2 worker processes on loopback):
the same findings and the same line accounting as a local run, through the CLI too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.cli import cli
from plogscan.ingest.pipeline import Ingest
from plogscan.report import render
from tests.helpers import SAMPLES_DIR, diagnosed

distributed = pytest.importorskip("distributed", reason="needs plogscan[distributed]")

SAMPLES = SAMPLES_DIR


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=40) as local:
        yield local


@pytest.fixture
def executor(cluster):
    from plogscan.ingest.cluster import ClusterAddress, connect

    connected = connect(ClusterAddress(cluster.scheduler_address))
    yield connected
    connected.close()


@pytest.mark.parametrize("sample", ["ccu-reuse-before-mc2", "mc2-before-eager", "hostile-text"])
def test_cluster_diagnosis_is_identical(executor, sample: str) -> None:
    paths = [str(SAMPLES / sample)]
    local = diagnosed(paths)
    remote = diagnosed(paths, executor=executor)
    assert render(remote, "json") == render(local, "json")
    assert remote.inputs == local.inputs
    assert remote.findings == local.findings  # evidence and its context lines included


def test_cluster_ingest_accounting_is_identical(executor) -> None:
    paths = [str(SAMPLES)]
    local = Ingest()
    local_rows = sum(b.num_rows for b in local.batches(paths))
    remote = Ingest(executor=executor)
    remote_rows = sum(b.num_rows for b in remote.batches(paths))
    assert remote_rows == local_rows > 0
    assert remote.summary == local.summary
    for stats in remote.summary.files:
        assert stats.lines == stats.record_lines + stats.blank_lines


def test_cli_scheduler_option(diagnose_cli, cluster, tmp_path: Path) -> None:
    sample = str(SAMPLES / "ccu-reuse-before-mc2")
    runner = CliRunner()
    local = diagnose_cli(sample, "--format", "json", "--quiet", "--no-cache")
    remote = diagnose_cli(sample, "--format", "json", "--quiet", "--no-cache", "--scheduler",
                          cluster.scheduler_address, "--workers", "3")
    assert remote.exit_code == local.exit_code == 1
    assert json.loads(remote.stdout) == json.loads(local.stdout)
    assert "do not apply" in remote.stderr
    out = tmp_path / "e.parquet"
    ingested = runner.invoke(cli, ["ingest", sample, "-o", str(out), "--quiet",
                                   "--scheduler", cluster.scheduler_address])
    assert ingested.exit_code == 0, ingested.output
    assert out.stat().st_size > 0


def test_unreachable_scheduler_exits_2(diagnose_cli) -> None:
    result = diagnose_cli(SAMPLES / "ccu-reuse-before-mc2", "--scheduler", "tcp://127.0.0.1:9",
                          "--quiet")
    assert result.exit_code == 2
    assert "cannot reach the Dask scheduler" in result.stderr
    assert "Traceback" not in result.output


def test_address_needs_a_scheme(diagnose_cli) -> None:
    result = diagnose_cli(SAMPLES / "ccu-reuse-before-mc2", "--scheduler", "127.0.0.1:8786",
                          "--quiet")
    assert result.exit_code == 2 and "has no scheme" in result.stderr


def test_missing_extra_exits_2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    # The output's directory is created before the run, so it lies under tmp_path: a test
    # never writes outside its own temporary directory.
    result = CliRunner().invoke(cli, ["ingest", str(SAMPLES / "ccu-reuse-before-mc2"),
                                      "-o", str(tmp_path / "out" / "never.parquet"),
                                      "--scheduler", "tcp://127.0.0.1:9", "--quiet"])
    assert result.exit_code == 2
    assert "plogscan[distributed]" in result.stderr


@pytest.mark.usefixtures("every_file_stored")
def test_cluster_run_uses_and_fills_the_cache(executor, tmp_path: Path) -> None:
    paths = [str(SAMPLES / "ccu-reuse-before-mc2")]
    cache = tmp_path / "cache"
    first = diagnosed(paths, executor=executor, cache=cache)
    second = diagnosed(paths, executor=executor, cache=cache)
    assert first.cache.reused_files == 0
    assert second.cache.reused_files == len(second.inputs.files) > 0
    assert render(second, "json") == render(first, "json") == render(diagnosed(paths), "json")
