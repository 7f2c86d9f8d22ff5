"""The root first: the top finding is the earliest specific cause in the logs; wrapper codes,
Python tracebacks, the code tables' reading of a record and downstream timeouts fold under it
(rules/README.md, "The root first").

Each excerpt is written here in the shape users paste it, and diagnosed with the built-in
rules; the answer (the root of the first incident) and what folds under it are checked.
"""

from __future__ import annotations

from pathlib import Path

from plogscan.diagnose import run
from plogscan.model import Diagnosis


def _diagnose(tmp_path: Path, text: str, name: str = "pasted.log") -> Diagnosis:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return run([str(path)], fail_on="never", lang="en")


def _top(diagnosis: Diagnosis) -> tuple[str, str]:
    root = next(f for f in diagnosis.findings if f.id == diagnosis.incidents[0].root)
    return root.rule, root.category


def _folded(diagnosis: Diagnosis) -> set[str]:
    """The rules of the first incident's other findings."""
    incident = diagnosis.incidents[0]
    return {f.rule for f in diagnosis.findings if f.id in incident.symptoms}


def test_a_capture_failure_leads_its_downstream_timeout(tmp_path: Path) -> None:
    """The timeout (a critical rule) came after the capture violation in the same process: it is
    what waiting on the broken graph looked like."""
    diagnosis = _diagnose(tmp_path, (
        "[ERROR] RUNTIME(4101,python3):2026-02-03-10:00:01.100.200 [stream.cc:901]4101 "
        "StreamSynchronize: not allow to synchronize captured stream, stream_id=7\n"
        "[ERROR] ASCENDCL(4101,python3):2026-02-03-10:09:01.100.200 [stream.cpp:120]4101 "
        "aclrtSynchronizeStream: synchronize stream failed, runtime result = 507014\n"))
    assert _top(diagnosis) == ("GRAPH001", "acl-graph")
    assert "AIT001" in _folded(diagnosis)


def test_a_timeout_before_the_other_fault_is_not_its_consequence(tmp_path: Path) -> None:
    diagnosis = _diagnose(tmp_path, (
        "[ERROR] ASCENDCL(4101,python3):2026-02-03-10:00:01.100.200 [stream.cpp:120]4101 "
        "aclrtSynchronizeStream: synchronize stream failed, runtime result = 507014\n"
        "[ERROR] RUNTIME(4101,python3):2026-02-03-10:09:01.100.200 [stream.cc:901]4101 "
        "StreamSynchronize: not allow to synchronize captured stream, stream_id=7\n"))
    assert _top(diagnosis) == ("AIT001", "aicore-timeout")
    assert "AIT001" not in {i.rule for i in diagnosis.incidents[1:]} | _folded(diagnosis)


def test_the_specific_cause_under_a_wrapper_code_leads(tmp_path: Path) -> None:
    """EZ9999 is the wrapper; the line under it names the cause, and the code tables' reading
    of the same record folds under the rule that explains it."""
    diagnosis = _diagnose(tmp_path, (
        "RuntimeError: call aclnnGeluQuant failed, detail:EZ9999: Inner Error!\n"
        "EZ9999[PID: 20431] 2026-08-11-02:13:44.101.552 AclNN_Inner_Error(EZ9999):  Do not find "
        "tiling func of GeluQuant!\n"
        "        TraceBack (most recent call last):\n"
        "        Check NnopbaseExecutorDoTiling(executor) failed, error code is 561002\n"))
    assert _top(diagnosis) == ("OPS006", "missing-kernel")
    assert {"RT003", "PY001"} <= _folded(diagnosis)
    assert len(diagnosis.incidents) == 1


def test_a_traceback_folds_under_the_cause_below_it(tmp_path: Path) -> None:
    diagnosis = _diagnose(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "/opt/app/infer.py", line 88, in <module>\n'
        "    out = model(batch)\n"
        "torch.OutOfMemoryError: NPU out of memory. Tried to allocate 4.00 GiB (NPU 0; 60.96 GiB "
        "total capacity; 58.10 GiB already allocated)\n"))
    assert _top(diagnosis) == ("MEM001", "device-oom")
    assert "PY001" in _folded(diagnosis)


def test_a_python_exception_alone_is_the_answer(tmp_path: Path) -> None:
    diagnosis = _diagnose(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "/opt/app/serve.py", line 12, in <module>\n'
        "    cfg = CONFIGS[name]\n"
        "KeyError: 'decoder.layers.0.mlp.gate'\n"))
    assert _top(diagnosis) == ("PY001", "python-error")


def test_the_tables_reading_of_a_code_leads_a_wrapper_symptom(tmp_path: Path) -> None:
    """No rule is written for a stream-mode call the chip does not support, but its code is
    documented: that reading ranks before the framework's wrapper (a symptom)."""
    diagnosis = _diagnose(tmp_path, (
        "[ERROR] HCCL(812,python):2026-04-02-19:40:03.552.905 [comm_base.cc:311] [812]set "
        "stream mode failed, runtime result = 207000\n"
        "[ERROR] 2026-04-02-19:40:04 (PID:812, Device:0, RankID:0) ERR02200 DIST call hccl api "
        "failed.\n"))
    assert _top(diagnosis) == ("CODE001", "env-config")


def test_a_specific_code_reading_leads_a_wrapper_code_reading(tmp_path: Path) -> None:
    """Two codes the tables read: the wrapper's (runtime-error), logged first, ranks after the
    one that says what failed."""
    diagnosis = _diagnose(tmp_path, (
        "EE1001: 2026-05-01-08:00:00.100.200 The argument is invalid.Reason: rtGetDevMsg "
        "execute failed\n"
        "Call aclInit(nullptr) failed : 507008 at file runtime.cc line 88\n"))
    assert _top(diagnosis) == ("CODE001", "env-config")
    categories = {f.category for f in diagnosis.findings if f.rule == "CODE001"}
    assert categories == {"env-config", "runtime-error"}
