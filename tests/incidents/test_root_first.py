"""The root first: the top finding is the earliest specific cause in the logs; wrapper codes,
Python tracebacks, the code tables' reading of a record and downstream timeouts fold under it
(rules/README.md, "The root first").

Each excerpt is written here in the shape users paste it, and diagnosed with the built-in
rules; the answer (the root of the first incident) and what folds under it are checked.
"""

from __future__ import annotations

from pathlib import Path

from plogscan.model import Diagnosis
from tests.helpers import diagnosed


def _diagnosed_text(tmp_path: Path, text: str, name: str = "pasted.log") -> Diagnosis:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return diagnosed([str(path)], fail_on="never", lang="en")


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
    diagnosis = _diagnosed_text(tmp_path, (
        "[ERROR] RUNTIME(4101,python3):2026-02-03-10:00:01.100.200 [stream.cc:901]4101 "
        "StreamSynchronize: not allow to synchronize captured stream, stream_id=7\n"
        "[ERROR] ASCENDCL(4101,python3):2026-02-03-10:09:01.100.200 [stream.cpp:120]4101 "
        "aclrtSynchronizeStream: synchronize stream failed, runtime result = 507014\n"))
    assert _top(diagnosis) == ("GRAPH001", "acl-graph")
    assert "AIT001" in _folded(diagnosis)


def test_a_timeout_before_the_other_fault_is_not_its_consequence(tmp_path: Path) -> None:
    diagnosis = _diagnosed_text(tmp_path, (
        "[ERROR] ASCENDCL(4101,python3):2026-02-03-10:00:01.100.200 [stream.cpp:120]4101 "
        "aclrtSynchronizeStream: synchronize stream failed, runtime result = 507014\n"
        "[ERROR] RUNTIME(4101,python3):2026-02-03-10:09:01.100.200 [stream.cc:901]4101 "
        "StreamSynchronize: not allow to synchronize captured stream, stream_id=7\n"))
    assert _top(diagnosis) == ("AIT001", "aicore-timeout")
    assert "AIT001" not in {i.rule for i in diagnosis.incidents[1:]} | _folded(diagnosis)


def test_the_specific_cause_under_a_wrapper_code_leads(tmp_path: Path) -> None:
    """EZ9999 is the wrapper; the line under it names the cause, and the code tables' reading
    of the same record folds under the rule that explains it."""
    diagnosis = _diagnosed_text(tmp_path, (
        "RuntimeError: call aclnnGeluQuant failed, detail:EZ9999: Inner Error!\n"
        "EZ9999[PID: 20431] 2026-08-11-02:13:44.101.552 AclNN_Inner_Error(EZ9999):  Do not find "
        "tiling func of GeluQuant!\n"
        "        TraceBack (most recent call last):\n"
        "        Check NnopbaseExecutorDoTiling(executor) failed, error code is 561002\n"))
    assert _top(diagnosis) == ("OPS006", "missing-kernel")
    assert {"RT003", "PY001"} <= _folded(diagnosis)
    assert len(diagnosis.incidents) == 1


def test_a_traceback_folds_under_the_cause_below_it(tmp_path: Path) -> None:
    diagnosis = _diagnosed_text(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "/opt/app/infer.py", line 88, in <module>\n'
        "    out = model(batch)\n"
        "torch.OutOfMemoryError: NPU out of memory. Tried to allocate 4.00 GiB (NPU 0; 60.96 GiB "
        "total capacity; 58.10 GiB already allocated)\n"))
    assert _top(diagnosis) == ("MEM001", "device-oom")
    assert "PY001" in _folded(diagnosis)


def test_a_python_exception_alone_is_the_answer(tmp_path: Path) -> None:
    diagnosis = _diagnosed_text(tmp_path, (
        "Traceback (most recent call last):\n"
        '  File "/opt/app/serve.py", line 12, in <module>\n'
        "    cfg = CONFIGS[name]\n"
        "KeyError: 'decoder.layers.0.mlp.gate'\n"))
    assert _top(diagnosis) == ("PY001", "python-error")


def test_the_tables_reading_of_a_code_leads_a_wrapper_symptom(tmp_path: Path) -> None:
    """No rule is written for a stream-mode call the chip does not support, but its code is
    documented: that reading ranks before the framework's wrapper (a symptom)."""
    diagnosis = _diagnosed_text(tmp_path, (
        "[ERROR] HCCL(812,python):2026-04-02-19:40:03.552.905 [comm_base.cc:311] [812]set "
        "stream mode failed, runtime result = 207000\n"
        "[ERROR] 2026-04-02-19:40:04 (PID:812, Device:0, RankID:0) ERR02200 DIST call hccl api "
        "failed.\n"))
    assert _top(diagnosis) == ("CODE001", "env-config")


def test_a_specific_code_reading_leads_a_wrapper_code_reading(tmp_path: Path) -> None:
    """Two codes the tables read: the wrapper's (runtime-error), logged first, ranks after the
    one that says what failed."""
    diagnosis = _diagnosed_text(tmp_path, (
        "EE1001: 2026-05-01-08:00:00.100.200 The argument is invalid.Reason: rtGetDevMsg "
        "execute failed\n"
        "Call aclInit(nullptr) failed : 507008 at file runtime.cc line 88\n"))
    assert _top(diagnosis) == ("CODE001", "env-config")
    categories = {f.category for f in diagnosis.findings if f.rule == "CODE001"}
    assert categories == {"env-config", "runtime-error"}


def test_a_lost_heartbeat_leads_the_device_that_then_cannot_be_opened(tmp_path: Path) -> None:
    """The device stopped answering first; failing to open it again is what followed."""
    diagnosis = _diagnosed_text(tmp_path, (
        "[ERROR] RUNTIME(5120,python3):2026-03-01-08:00:01.100.200 [device.cc:1201]5120 "
        "ReportHeartBeat: Device lost heartbeat, device_id=3\n"
        "[ERROR] RUNTIME(5120,python3):2026-03-01-08:00:05.100.200 [device.cc:300]5120 Open: "
        "open device 3 failed, runtime result = 507033\n"))
    assert _top(diagnosis)[1] == "heartbeat-lost"
    assert "DEV001" in _folded(diagnosis)


def test_a_vector_core_exception_leads_its_wrappers(tmp_path: Path) -> None:
    diagnosis = _diagnosed_text(tmp_path, (
        "[ERROR] RUNTIME(812,python):2026-04-02-19:40:03.552.610 [device_error_proc.cc:1100]812 "
        "ProcessStarsCoreErrorInfo: The error from device(chipId:0, dieId:0), serial number is 2, "
        "there is an aivec error exception, core id is 11, error code = 0x10\n"
        "[ERROR] RUNTIME(812,python):2026-04-02-19:40:03.552.800 [api_impl.cc:1830]812 "
        "StreamSynchronize: sync failed, runtime result = 507035\n"
        "EZ9999: Inner Error!\n"
        "RuntimeError: ACL stream synchronize failed, error code:507035\n"))
    assert _top(diagnosis) == ("AIC001", "aicore-exception")
    assert {"RT003", "PY001"} <= _folded(diagnosis)


def test_a_collective_timeout_leads_the_runtime_code_that_reports_it(tmp_path: Path) -> None:
    diagnosis = _diagnosed_text(tmp_path, (
        "[ERROR] HCCL(9001,python):2026-05-01-10:00:00.100.000 [task_exception_handler.cc:600]"
        "[9001][TaskExceptionHandler][Callback]Task run failed, base information is streamID:[3], "
        "taskID[88], taskType[Notify Wait], tag[AllReduce_10.0.0.1%enp_60000_0_1700000000], "
        "AllReduce.\n"
        "[ERROR] RUNTIME(9001,python):2026-05-01-10:00:00.200.000 [api_impl.cc:1830]9001 "
        "StreamSynchronize: sync failed, runtime result = 507048\n"
        "RuntimeError: ACL stream synchronize failed, error code:507048\n"))
    assert _top(diagnosis)[1] == "hccl-notify-timeout"
    assert {"CODE001", "PY001"} <= _folded(diagnosis)


def test_a_failed_capture_call_leads_the_reading_of_its_code(tmp_path: Path) -> None:
    """507899 alone reads as a driver error; the call that returned it says a graph capture
    failed, which is the answer, and the code folds under it."""
    diagnosis = _diagnosed_text(tmp_path, (
        "[ERROR] ASCENDCL(2201,python):2026-03-01-10:00:00.100.000 [model.cpp:500]2201 "
        "aclmdlRICaptureEnd: capture end failed, runtime result = 507899\n"
        "RuntimeError: capture_end: NPU function error: "
        "c10_npu::acl::AclmdlRICaptureEnd(capture_stream_, &model_ri), error code is 507899\n"))
    assert _top(diagnosis) == ("GRAPH003", "acl-graph")
    assert {"CODE001", "RT002", "PY001"} <= _folded(diagnosis)
    assert len(diagnosis.incidents) == 1
