"""``plogscan`` as a library: read_events, diagnose, explain and rules; what they return,
that they raise instead of printing or exiting, and that ``import plogscan`` stays cheap."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import plogscan
from plogscan.errors import InputError, PlogscanError
from plogscan.model import Diagnosis
from plogscan.model.frames import EVENT_ROW_SCHEMA, FINDING_SCHEMA
from plogscan.report import render
from plogscan.schema import TABLE_SCHEMA
from tests.helpers import REPO_ROOT, run_cli

ROOT = REPO_ROOT
SAMPLES = ROOT / "samples"
CASCADE = SAMPLES / "notify-wait-cascade"


def test_import_loads_neither_pandas_nor_pyarrow() -> None:
    code = ("import sys, plogscan; "
            "print('pandas' in sys.modules, 'pyarrow' in sys.modules, "
            "callable(plogscan.read_events), 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split()
    # neither is loaded by the import; naming a function loads the API, still without pandas
    assert out == ["False", "False", "True", "False"]


def test_the_namespace_names_the_api() -> None:
    assert {"read_events", "diagnose", "explain", "rules"} <= set(dir(plogscan))
    with pytest.raises(AttributeError):
        plogscan.no_such_function  # noqa: B018


def test_read_events_is_the_ingested_table_with_arrow_dtypes(capsys: pytest.CaptureFixture
                                                             ) -> None:
    frame = plogscan.read_events(CASCADE)
    assert list(frame.columns) == TABLE_SCHEMA.names
    for field in TABLE_SCHEMA:
        assert frame[field.name].dtype == pd.ArrowDtype(field.type), field.name
    assert frame.groupby("rank").size().to_dict() == {r: 15 if r == 5 else 14
                                                      for r in range(8)}
    assert set(frame["host"]) == {"node-a", "node-b"}
    assert capsys.readouterr() == ("", "")  # nothing printed


def test_read_events_reads_a_table_and_a_dataset_as_the_logs(tmp_path: Path) -> None:
    table, dataset = tmp_path / "t.parquet", tmp_path / "ds"
    assert run_cli("ingest", CASCADE, "-o", table, "-q").exit_code == 0
    assert run_cli("ingest", CASCADE, "--dataset", dataset, "-q").exit_code == 0
    from_logs = plogscan.read_events(str(CASCADE))
    from_table = plogscan.read_events(table)
    pd.testing.assert_frame_equal(from_logs, from_table)
    from_dataset = plogscan.read_events([dataset])
    key = ["path", "line"]
    pd.testing.assert_frame_equal(
        from_dataset.sort_values(key, ignore_index=True).drop(columns=["ts_aligned"]),
        from_logs.sort_values(key, ignore_index=True).drop(columns=["ts_aligned"]))


def test_read_events_filters_as_events_does() -> None:
    frame = plogscan.read_events(CASCADE, level="ERROR", host="node-b", rank=[5, 6])
    assert len(frame) and set(frame["rank"]) <= {5, 6} and set(frame["level"]) == {"ERROR"}
    cli_rows = run_cli("events", CASCADE, "-q", "--format", "jsonl", "--level", "ERROR",
                       "--host", "node-b", "--rank", "5", "--rank", "6").stdout.splitlines()
    assert len(cli_rows) == len(frame)
    assert len(plogscan.read_events(CASCADE, limit=3)) == 3
    assert len(plogscan.read_events(CASCADE, since=datetime(2030, 1, 1))) == 0
    assert len(plogscan.read_events(CASCADE, grep="aicore error", device=1)) >= 1
    empty = plogscan.read_events(CASCADE, attempt=9)
    assert len(empty) == 0 and list(empty.columns) == TABLE_SCHEMA.names


def test_read_events_raises_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"cannot read .*missing"):
        plogscan.read_events(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="nothing could be read"):
        plogscan.read_events(tmp_path / "empty")
    with pytest.raises(InputError, match="RE2"):
        plogscan.read_events(CASCADE, grep="(?<=x)")
    with pytest.raises(InputError, match="cannot read time"):
        plogscan.read_events(CASCADE, since="yesterday")
    with pytest.raises(InputError, match="no paths"):
        plogscan.read_events([])


@pytest.mark.parametrize("sample", ["notify-wait-cascade", "ccu-reuse-before-mc2",
                                    "restart-two-attempts"])
def test_diagnose_gives_the_findings_of_the_json_report(sample: str) -> None:
    diagnosis = plogscan.diagnose(SAMPLES / sample)
    assert isinstance(diagnosis, Diagnosis)
    cli_json = json.loads(run_cli("diagnose", SAMPLES / sample, "--format", "json", "-q",
                                  "--no-cache").stdout)
    api_json = json.loads(render(diagnosis, "json"))
    assert api_json["findings"] == cli_json["findings"]
    assert api_json["incidents"] == cli_json["incidents"]
    assert api_json["root_cause"] == cli_json["root_cause"]
    assert diagnosis.exit_code == (1 if cli_json["findings"] else 0)


def test_the_diagnosis_as_data_and_frames() -> None:
    diagnosis = plogscan.diagnose(CASCADE)
    assert diagnosis.root_cause is not None
    assert diagnosis.root_cause.verdict == "localized"
    assert [s.label for s in diagnosis.root_cause.suspects][:1] == ["node-b device-1"]
    assert diagnosis.incidents and diagnosis.exit_code == 1
    findings = diagnosis.findings_frame()
    assert list(findings.columns) == FINDING_SCHEMA.names
    assert findings["rule"].tolist() == [f.rule for f in diagnosis.findings]
    for field in FINDING_SCHEMA:
        assert findings[field.name].dtype == pd.ArrowDtype(field.type), field.name
    events = diagnosis.events_frame()
    assert list(events.columns) == EVENT_ROW_SCHEMA.names and len(events) == len(
        diagnosis.events)
    assert set(events["rank"].dropna()) <= set(range(8))
    never = plogscan.diagnose(CASCADE, fail_on="never", lang="zh")
    assert never.exit_code == 0 and never.lang == "zh"


def test_diagnose_raises_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nothing could be read"):
        plogscan.diagnose(tmp_path)
    with pytest.raises(InputError, match="--fail-on"):
        plogscan.diagnose(CASCADE, fail_on="loud")
    with pytest.raises(InputError, match="language"):
        plogscan.diagnose(CASCADE, lang="fr")
    with pytest.raises(InputError, match="no host"):
        plogscan.diagnose(CASCADE, clock_reference="node-z")


def test_explain_and_rules() -> None:
    info = plogscan.explain("507916")
    assert info.name == "ACL_ERROR_RT_CCU_EXCEPTION" and info.category
    assert plogscan.explain("507916", lang="zh").lang == "zh"
    with pytest.raises(plogscan.UnknownCode, match="unknown code") as raised:
        plogscan.explain("not-a-code")
    assert isinstance(raised.value, LookupError) and isinstance(raised.value, PlogscanError)
    rules = plogscan.rules()
    ids = [r.id for r in rules]
    assert ids == sorted(ids) and "CCU001" in ids
    assert len(plogscan.rules(lang="zh")) == len(rules)


def test_the_frames_say_how_to_install_pandas_when_it_is_missing(tmp_path: Path) -> None:
    """Without pandas (hidden here), a DataFrame function says how to install it."""
    blocker = tmp_path / "pandas.py"
    blocker.write_text("raise ImportError('No module named pandas')\n")
    code = ("import plogscan\n"
            "try:\n    plogscan.read_events('samples/notify-wait-cascade')\n"
            "except ImportError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={**_env(), "PYTHONPATH": f"{tmp_path}:{ROOT}"},
                         check=True).stdout
    assert "pip install 'pandas>=2.0'" in out


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_an_empty_frame_keeps_its_columns() -> None:
    from plogscan.model.frames import events_table, findings_table, frame

    assert list(frame(findings_table([])).columns) == FINDING_SCHEMA.names
    assert frame(events_table([])).empty
    assert isinstance(frame(pa.table({"a": [1]}))["a"].dtype, pd.ArrowDtype)


def test_the_readme_notebook_example_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## In Python: notebooks", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["diagnosis"].root_cause.suspects[0].label == "node-b device-1"
    assert scope["events"].groupby("rank").size().index.tolist() == list(range(8))
    assert set(scope["errors"]["rank"]) == {5, 6}
