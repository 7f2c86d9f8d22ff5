"""Discovery and classification of inputs: kinds, path hints, walks, globs, archives, bad input.

Every log line below was written for these tests in the shapes of formats.md (pids, times and
names are made up). Trees and archives are built in ``tmp_path``.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import random
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path

import pytest

from plogscan.ingest.classify import classify
from plogscan.ingest.sniff import HEAD_BYTES, iter_inputs
from plogscan.ingest.sources import Skipped, Source
from plogscan.pathhints import path_hints
from plogscan.schema import SourceKind
from tests.forked import run_forked

K = SourceKind

# ---------------------------------------------------------------------------------------------
# Heads in the real shapes.

DEBUG_PLOG = (
    b"[ERROR] RUNTIME(30417,python3):2025-09-11-08:30:15.123.456 [stars_engine.cc:1553]30417 "
    b"ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=1, stream_id=4, task_id=7, "
    b"sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0\n"
    b"[ERROR] ASCENDCL(30417,python3):2025-09-11-08:30:15.200.001 [stream.cpp:120]30417 "
    b"aclrtSynchronizeStream: [INIT][DEFAULT]synchronize stream failed, runtime result = 507035\n"
)
RUN_PLOG = (
    b"[INFO] ATRACE(30417,python3):2025-09-11-08:29:00.124.468 [trace_attr.c:190](tid:30417) "
    b"attr init success, timeout=0ms.\n"
    b"[INFO] HCCL(30417,python3):2025-09-11-08:29:01.004.120 [externalinput.cc:407] [30417]"
    b"HCCL_CONNECT_TIMEOUT set by environment to [240]s\n"
    b"[EVENT] TDT(30417,python3):2025-09-11-08:29:01.104.001 [tsd_client.cpp:310][TsdClient] "
    b"open process success logicDeviceId[1]\n"
)
DEVICE_APP_LOG = (
    b"[INFO] CCECPU(8812,aicpu_scheduler):2025-09-11-08:29:03.714.696 [main.cpp:317][main]"
    b"[tid:8812] Start para. deviceId=1, hostPid=30417\n"
    b"[ERROR] HCCL(8812,aicpu_scheduler):2025-09-11-08:31:11.763.467 [aicpu_hccl_sqcq.cc:330] "
    b"[8901]Task {devId: 1 streamId: 12 sqId: 40 cqId: 77 type: 2} run failed of exception\n"
    b"[INFO] HCCP(9020,hccp_service.bin):2025-09-11-08:29:04.133.826 [rs_ssl.c:1529]tid:9020,"
    b"rs_ssl_init(1529) : TLS SWITCH (0)\n"
)
FIRMWARE_LOG = (
    b"[ERROR] TSCH(-1,null):2025-09-11-00:12:03.198.791 5121 (dieid:0,cpuid:0) "
    b"[stars_interrupt.c:3942] proc_stars_acc_exception_inner: rtsq_id=3, stream_id=4, "
    b"task_id=7, error_type=8, pid=30417\n"
    b"[EVENT] LPM(-1,null):2025-09-11-00:14:32.219.203 (dieid:0) [acg_cpm.c 221] Cpu profile[0] "
    b"Core[0]Cpm live data[40][40]\n"
    b"[EVENT] MCU(-1,null):1970-01-01-00:00:21.148.578 [mcu_agent.c:135] mcu_agent_log_set: "
    b"set log level=2\n"
    b"[3100]\n"
)
DEVICE_OS_LOG = (
    b"[ERROR] KERNEL(5123,sklogd):2025-09-11-00:15:05.169.860 [klogd.c:247][12028.756669] "
    b"[ascend] [ERROR] [tsdrv] [tsdrv_hb_cq_callback 332] <kworker/0:3:1983> receive ts "
    b"exception msg, excep_code=0xb4060006, devid=1 tsid=0\n"
    b"[INFO] TDT(5266,tsdaemon):2025-09-11-00:15:08.746.841 [tsd_common.cpp:918][StartRspProc]"
    b"[tid:1301] [TSDaemon] start response\n"
)
EVENT_LOG = (
    b"[EVENT] DRV(3523,dms_poll_task):2025-09-11-04:23:58.786.543 [dms_event.c:1399]"
    b"[fault_manager][30561.377842] event_id=0x80cb8009; device_id=1; node_type=0x65[AIV]; "
    b"severity=1[Warning]; assertion=1[Event occur]; event_serial_num=412\n"
)
HOST_KERNEL_LOG = (
    b"[2025-09-11-07:54:27.371626] [ascend] [uda] [INFO] [uda_host_ns_init_work 125] "
    b"<kworker/2:1:231:231:4> Ns info. (ns=1)\n"
)
MESSAGES_LOG = (
    b"Sep 11 08:38:31 gpu-host-7 kernel: [ 2197.584409] [ascend] [ERROR] [drv_soft_fault] "
    b"[heart_beat_judge 318] <kworker/5:1H:3936> Heartbeat lost! (device=3)\n"
    b"Sep 11 08:38:32 gpu-host-7 systemd[1]: Started Session 12 of user ops.\n"
)
HISTORY_LOG = (
    b"[2025-09-11-01:10:56.177575] system exception code [0xB4060006]: ModuleName [TS], "
    b"ExceptionReason [TS_EXCEPTION], TimeStamp [20250911011056-159304001].\n"
)
SLOGDLOG = b"2025-09-11 19:54:54.608[INFO] log_path_mgr.c:88: logWorkspace = /var/log/npu/slog.\n"

STDOUT_HEADS = {
    "torch_npu code line": b"[ERROR] 2025-09-11-08:31:48 (PID:40112, Device:2, RankID:5) "
    b"ERR00100 PTA call acl api failed\n",
    "rank prefix": b"[rank3]:[E911 08:31:20.678676591 ProcessGroupHCCL.cpp:1693] [Rank 3] "
    b"HCCL watchdog thread terminated with exception\n",
    "error manager code": b"EZ9999: Inner Error!\n"
    b"EZ9999[PID: 40112] 2025-09-11-08:31:05.147.557 (EZ9999):  The error from device(chipId:2,"
    b" dieId:0), serial number is 3\n",
    "EI0002 block": b"EI0002: [PID: 40112] 2025-09-11-08:31:23.586.187 The wait execution of "
    b"the Notify register times out.\n",
    "symbolic error manager": b"[PID: 40112] 2025-09-11-08:31:31.094.189 "
    b"Memory_Allocation_Failure(EL0004): Failed to allocate memory.\n",
    "traceback": b"Traceback (most recent call last):\n"
    b'  File "train.py", line 12, in <module>\n    main()\n',
    "runtime error": b"RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:"
    b"401 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048\n",
    "ray prefix": b"(train pid=8121) step 10 loss 2.31\n",
    "vllm worker": b"(Worker_TP3 pid=2712) ERROR 09-11 05:45:09 [multiproc_executor.py:990] "
    b"worker failed\n",
    "c10 warning": b"[W compiler_depend.ts:120] Warning: NPU warning, error code is 507048\n",
    "mindspore header": b"[WARNING] ME(612:281473062022111,MainProcess):2025-09-11-03:52:26.782."
    b"379 [mindspore/train/model.py:1079] dataset sink mode\n",
}


def _head_with_noise(head: bytes) -> bytes:
    """A few lines of unrelated job output around the telling line, as real stdout has."""
    return b"loading config from /data/job.yaml\nworld size 8\n" + head + b"done\n"


# ---------------------------------------------------------------------------------------------
# classify


@pytest.mark.parametrize(
    ("path", "head", "kind"),
    [
        ("log/debug/plog/plog-30417_20250911083015123.log", DEBUG_PLOG, K.PLOG_DEBUG),
        ("log/run/plog/plog-30417_20250911082900124.log", RUN_PLOG, K.PLOG_RUN),
        ("log/security/plog/plog-30417_20250911082900001.log", RUN_PLOG, K.PLOG_SECURITY),
        ("worker-0/process_log/run/plog/plog-30417-1757579340.log", RUN_PLOG, K.PLOG_RUN),
        ("2020-12-24-01-13-01/slog/plog/plog_20201224011051563.log", RUN_PLOG, K.PLOG),
        ("w_1/plog-parser-69311-1.log", DEBUG_PLOG, K.PLOG),
        ("collection/plog-30417_20250911083015123.log", DEBUG_PLOG, K.PLOG),
        ("captured.txt", DEBUG_PLOG, K.PLOG),  # CANN headers, no telling path
        ("run_plog.tar.gz!plog/plog-1_2.log", RUN_PLOG, K.PLOG_RUN),
        ("log/debug/device-1/device-30417_20250911082903714.log", DEVICE_APP_LOG, K.DEVICE_APP),
        ("some/dump.log", DEVICE_APP_LOG, K.DEVICE_APP),  # aicpu_scheduler / hccp processes
        (
            "dev-os-0/application/run/device-app-30417/device-app-30417_20250911082903714.log",
            DEVICE_APP_LOG,
            K.DEVICE_APP,
        ),
        (
            "dfx/log/device/dev-os-1/firmware/debug/device-1/device-1_20250911001203198.log",
            FIRMWARE_LOG,
            K.DEVICE_FW,
        ),
        ("tsch.txt", FIRMWARE_LOG, K.DEVICE_FW),  # negative firmware pids
        ("plog-30417_20250911083015123.log", FIRMWARE_LOG, K.DEVICE_FW),  # content wins
        (
            "dev-os-1/system/run/device-os/device-os_20250911001505169.log",
            DEVICE_OS_LOG,
            K.DEVICE_OS,
        ),
        ("device_side.log", DEVICE_OS_LOG, K.DEVICE_OS),  # KERNEL(…,sklogd) via klogd
        ("dev-os-1/system/run/event/event_20250911042358786.log", EVENT_LOG, K.EVENT),
        ("faults.log", EVENT_LOG, K.EVENT),
        ("dfx/log/host/driver/host_kernel.log", HOST_KERNEL_LOG, K.SYSLOG),
        ("dfx/log/host/message/messages", MESSAGES_LOG, K.SYSLOG),
        ("hisi_logs/device-1/history.log", HISTORY_LOG, K.SYSLOG),
        ("dev-os-1/slogd/slogdlog", SLOGDLOG, K.SYSLOG),
        ("kernel.txt", MESSAGES_LOG, K.SYSLOG),  # content alone
        ("host_kernel.log", DEBUG_PLOG, K.PLOG),  # content wins over a system log name
        ("notes.txt", b"meeting at ten\nbring the numbers\n", None),
        ("train.out", b"epoch 1 loss 2.3\nepoch 2 loss 2.1\n", None),
    ],
)
def test_classify_kinds(path: str, head: bytes, kind: SourceKind | None) -> None:
    assert classify(path, head) == kind


@pytest.mark.parametrize("shape", sorted(STDOUT_HEADS))
def test_classify_stdout_shapes(shape: str) -> None:
    assert classify("job/train_rank3.log", _head_with_noise(STDOUT_HEADS[shape])) == K.STDOUT


def test_stdout_in_a_plog_directory_is_stdout() -> None:
    # jobs often redirect stdout into log/plog/worker_<rank>.log (formats.md §4)
    head = _head_with_noise(STDOUT_HEADS["traceback"])
    assert classify("log/run/plog/worker_0.log", head) == K.STDOUT


def test_cann_lines_printed_to_stdout_make_stdout() -> None:
    # ASCEND_LOG_PRINT_TO_STDOUT=1: plog records interleaved with Python output
    head = DEBUG_PLOG + STDOUT_HEADS["traceback"] + STDOUT_HEADS["runtime error"]
    assert classify("job/output.txt", head) == K.STDOUT
    # ...but a file CANN itself wrote keeps its kind whatever its continuation lines look like
    assert classify("debug/plog/plog-30417_20250911083015123.log", head) == K.PLOG_DEBUG


def test_name_is_the_fallback_when_no_line_has_a_known_shape() -> None:
    text = b'  {\n    "Abs": {\n  }\n'
    assert classify("run/plog/plog-30417_20250911082900124.log", text) == K.PLOG_RUN
    assert classify("event/event_20250911042358786.log", text) == K.EVENT
    assert classify("dfx/log/host/message/messages", text) == K.SYSLOG
    assert classify("dump/notes.log", text) is None


def test_a_plog_name_with_stdout_content_is_stdout() -> None:
    head = _head_with_noise(STDOUT_HEADS["traceback"])
    assert classify("plog-30417_20250911083015123.log", head) == K.STDOUT


def test_firmware_and_app_device_files_are_told_apart_by_their_directory() -> None:
    unknown = b"no header here\n"
    assert classify("x/device-2/device-2_20250911001203198.log", unknown) == K.DEVICE_FW
    assert classify("x/device-2/device-30417_20250911001203198.log", unknown) == K.DEVICE_APP
    assert classify("firmware/debug/device-2_20250911001203198.log", unknown) == K.DEVICE_FW


def test_compression_suffix_does_not_hide_the_name() -> None:
    assert classify("a/run/plog/plog-1_2.log.gz", b"plain words\n") == K.PLOG_RUN


def test_classify_tolerates_nul_and_invalid_utf8() -> None:
    head = DEBUG_PLOG.replace(b"Task run", b"Task \x00\xff\xfe run") + b"\xb4\xed\xce\xf3\n"
    assert classify("mixed.log", head) == K.PLOG


# ---------------------------------------------------------------------------------------------
# path_hints


@pytest.mark.parametrize(
    ("path", "hints"),
    [
        (
            "worker-1/process_log/run/plog/plog-26251_20250124110315736.log",
            ("worker-1", None, None, 26251),
        ),
        ("worker_0/debug/device-3/device-1365_20250806230935123.log", ("worker_0", None, 3, 1365)),
        ("w_1/plog-parser-69311-1.log", ("w_1", None, None, 69311)),
        ("node-a7/rank_3/debug/plog/plog-77_20250101010101010.log", ("node-a7", 3, None, 77)),
        ("job/rank3/stdout.log", (None, 3, None, None)),
        ("job/rank-3/stdout.log", (None, 3, None, None)),
        ("job/rank_12.log", (None, 12, None, None)),
        ("st/modelarts-job-testdt-proc-rank-1-device-1.txt", (None, 1, 1, None)),
        (
            "modelarts-job-4f2a/ascend/process_log/rank_5/debug/plog/plog-9_20250101010101010.log",
            ("modelarts-job-4f2a", 5, None, 9),
        ),
        (
            "modelarts-job-4f2a-worker-2/ascend/process_log/rank_5/run/plog/x.log",
            ("modelarts-job-4f2a-worker-2", 5, None, None),
        ),
        (
            "dfx/log/device/dev-os-0/firmware/debug/device-2/device-2_20250507195454620.log",
            (None, None, 2, None),
        ),
        (
            "slog/dev-os-1/system/run/device-os/device-os_20250508071308747.log",
            (None, None, 1, None),
        ),
        ("debug/device-app-4242/device-app-4242_20250101010101010.log", (None, None, None, 4242)),
        ("debug/device-app-4242/slog.log", (None, None, None, 4242)),  # the directory's pid
        ("10.0.3.7/log/run/plog/plog-5_20250101010101010.log", ("10.0.3.7", None, None, 5)),
        ("logs/worker-1.tar.gz!run/plog/plog-8_20250101010101010.log", ("worker-1", None, None, 8)),
        ("x.tgz!run/plog/plog-1_2.log", (None, None, None, 1)),
        ("plain.log", (None, None, None, None)),
        # a host directory higher up loses to a nearer one; 'frank3' is not a rank
        ("node-1/worker-4/frank3/out.log", ("worker-4", None, None, None)),
    ],
)
def test_path_hints(path: str, hints: tuple[object, ...]) -> None:
    assert path_hints(path) == hints


def test_device_dir_beats_dev_os() -> None:
    assert path_hints("slog/dev-os-0/debug/device-5/device-5_20250101010101010.log")[2] == 5
    assert path_hints("slog/dev-os-6/debug/device-os/x.log")[2] == 6


# ---------------------------------------------------------------------------------------------
# iter_inputs helpers


def collect(paths: list[str]) -> list[tuple[str, object, bytes | None, str | None]]:
    """Read every item as a consumer would: (path, kind or skip reason, data, read error)."""
    out: list[tuple[str, object, bytes | None, str | None]] = []
    for item in iter_inputs(paths):
        if isinstance(item, Skipped):
            out.append((item.path, item.reason, None, None))
            continue
        src, stream = item
        assert isinstance(src, Source)
        data, error = read_all(stream)
        out.append((src.path, src.kind, data, error))
    return out


def read_all(stream: io.IOBase, size: int = 4096) -> tuple[bytes, str | None]:
    parts: list[bytes] = []
    try:
        while chunk := stream.read(size):
            parts.append(chunk)
    except (EOFError, zlib.error, OSError) as exc:
        return b"".join(parts), type(exc).__name__
    return b"".join(parts), None


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def noisy_text(n_lines: int, seed: int = 7) -> bytes:
    """Plog lines with enough variety that gzip cannot squeeze them to nothing."""
    rnd = random.Random(seed)
    lines = []
    for i in range(n_lines):
        lines.append(
            f"[INFO] HCCL(30417,python3):2025-09-11-08:29:{i % 60:02d}.{rnd.randrange(1000):03d}."
            f"{rnd.randrange(1000):03d} [hccl_comm.cc:{rnd.randrange(9999)}] [30417]"
            f"tag {rnd.getrandbits(64):016x} size {rnd.randrange(1 << 30)}\n"
        )
    return "".join(lines).encode()


def tar_bytes(members: list[tuple[str, bytes]], mode: str = "w") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tf:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 1_700_000_000
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def zip_bytes(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# Walks and globs


def test_directory_walk_is_recursive_sorted_and_accounts_for_everything(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write(root / "run/plog/plog-2_20250101010101010.log", RUN_PLOG)
    write(root / "debug/plog/plog-2_20250101010101011.log", DEBUG_PLOG)
    write(root / "debug/device-0/device-2_20250101010101012.log", DEVICE_APP_LOG)
    write(root / "a.log", FIRMWARE_LOG)
    write(root / "README.md", b"how these logs were collected\n")
    write(root / "empty.log", b"")
    write(root / "core.bin", bytes(range(256)) * 64)
    write(root / "events.parquet", b"PAR1 not really")
    write(root / ".DS_Store", b"\x00\x00\x00\x01Bud1")
    write(root / "__MACOSX/._a.log", b"\x00\x05\x16\x07")
    items = collect([str(root)])
    got = [(p[len(str(root)) + 1 :], k) for p, k, _, _ in items]
    assert got == [
        ("README.md", "not a log file (.md)"),
        ("a.log", K.DEVICE_FW),
        ("core.bin", "binary file"),
        ("debug/device-0/device-2_20250101010101012.log", K.DEVICE_APP),
        ("debug/plog/plog-2_20250101010101011.log", K.PLOG_DEBUG),
        ("empty.log", "empty file"),
        ("events.parquet", "parquet event table (use plogscan events)"),
        ("run/plog/plog-2_20250101010101010.log", K.PLOG_RUN),
    ]
    assert items[1][2] == FIRMWARE_LOG


def test_source_carries_hints_and_size(tmp_path: Path) -> None:
    path = write(tmp_path / "worker-3/rank_5/debug/plog/plog-881_20250101010101010.log", DEBUG_PLOG)
    gen = iter_inputs([str(path)])
    item = next(gen)  # the stream lives until the generator moves on
    assert not isinstance(item, Skipped)
    src, stream = item
    assert src == Source(str(path), K.PLOG_DEBUG, "worker-3", 5, None, 881, len(DEBUG_PLOG))
    assert stream.read() == DEBUG_PLOG


def test_display_path_keeps_the_users_spelling(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path / "logs/run/plog/plog-2_20250101010101010.log", RUN_PLOG)
    monkeypatch.chdir(tmp_path)
    assert [i[0] for i in collect(["logs/"])] == ["logs/run/plog/plog-2_20250101010101010.log"]


def test_globs(tmp_path: Path) -> None:
    write(tmp_path / "b/run/plog/plog-2_20250101010101010.log", RUN_PLOG)
    write(tmp_path / "a/debug/plog/plog-1_20250101010101010.log", DEBUG_PLOG)
    write(tmp_path / "a/notes.md", b"not matched by the pattern\n")
    items = collect([str(tmp_path / "**" / "*.log"), str(tmp_path / "missing-*.log")])
    assert [(p, k) for p, k, _, _ in items] == [
        (str(tmp_path / "a/debug/plog/plog-1_20250101010101010.log"), K.PLOG_DEBUG),
        (str(tmp_path / "b/run/plog/plog-2_20250101010101010.log"), K.PLOG_RUN),
        (str(tmp_path / "missing-*.log"), "no file matches this pattern"),
    ]


def test_glob_matching_a_directory_walks_it_once(tmp_path: Path) -> None:
    write(tmp_path / "w/run/plog/plog-2_20250101010101010.log", RUN_PLOG)
    items = collect([str(tmp_path / "w" / "**")])
    assert [k for _, k, _, _ in items] == [K.PLOG_RUN]


def test_missing_path(tmp_path: Path) -> None:
    assert collect([str(tmp_path / "nope.log")]) == [
        (str(tmp_path / "nope.log"), "No such file or directory", None, None)
    ]


def test_same_file_twice_is_read_once(tmp_path: Path) -> None:
    path = write(tmp_path / "run/plog/plog-2_20250101010101010.log", RUN_PLOG)
    items = collect([str(path), str(tmp_path)])
    assert items[0][1] == K.PLOG_RUN
    assert items[1] == (str(path), f"duplicate: same file as {path}", None, None)
    assert len(items) == 2


def test_symlink_loops_do_not_hang(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root / "a/run/plog/plog-2_20250101010101010.log", RUN_PLOG)
    (root / "a/up").symlink_to("..")  # a/up -> tree: an ancestor
    (root / "self").symlink_to("self")  # ELOOP
    items = collect([str(root)])
    assert [(p[len(str(root)) + 1 :], k) for p, k, _, _ in items] == [
        ("a/run/plog/plog-2_20250101010101010.log", K.PLOG_RUN),
        ("a/up", "symlink loop"),
        ("self", "symlink loop"),
    ]


def test_broken_symlink_and_fifo(tmp_path: Path) -> None:
    (tmp_path / "gone.log").symlink_to(tmp_path / "nowhere.log")
    os.mkfifo(tmp_path / "pipe.log")
    items = collect([str(tmp_path)])
    assert [(Path(p).name, k) for p, k, _, _ in items] == [
        ("gone.log", "broken symlink"),
        ("pipe.log", "not a regular file"),
    ]


def _unreadable_tree(base: Path) -> tuple[Path, Path]:
    secret = write(base / "secret/plog-2_20250101010101010.log", RUN_PLOG)
    locked = write(base / "locked.log", RUN_PLOG)
    locked.chmod(0)
    (base / "secret").chmod(0)
    return locked, secret.parent


def _skips_as(user: int | None, base: Path) -> list[tuple[str, str]]:
    """The skips of ``iter_inputs([base])`` computed in a forked child running as ``user``."""

    def body(write_fd: int) -> int:
        items = iter_inputs([str(base)])
        lines = [f"{i.path}\t{i.reason}" for i in items if isinstance(i, Skipped)]
        os.write(write_fd, "\n".join(lines).encode())
        return 0

    code, out = run_forked(user, body)
    assert code == 0, out
    return [tuple(line.split("\t")) for line in out.splitlines()]


def test_unreadable_file_and_directory() -> None:
    # Root ignores permission bits, so under root the walk runs in a child that became 'nobody'.
    user = 65534 if os.geteuid() == 0 else None
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)
        base = Path(tmp) / "logs"
        base.mkdir(mode=0o755)
        locked, secret = _unreadable_tree(base)
        try:
            skips = _skips_as(user, base)
        finally:
            secret.chmod(0o755)
        assert skips == [
            (str(locked), "unreadable: Permission denied"),
            (str(secret), "unreadable: Permission denied"),
        ]


def test_hostile_file_names_are_escaped(tmp_path: Path) -> None:
    write(tmp_path / "run\n\x1b[31m.log", RUN_PLOG)
    ((path, _kind, _, _),) = collect([str(tmp_path)])
    assert path == str(tmp_path) + "/run\\x0a\\x1b[31m.log"


# ---------------------------------------------------------------------------------------------
# Binary and text sniffing


def test_binary_and_nearly_text(tmp_path: Path) -> None:
    # A log after a NUL run is read (the NULs are dropped later, and counted); a file of
    # nothing but random bytes is read when it is named or placed like a log (its bytes are
    # counted as not text, see analysis.unreadable), and skipped as binary otherwise.
    write(tmp_path / "a.log", b"\x00" * 3000 + RUN_PLOG)
    write(tmp_path / "b.log", random.Random(3).randbytes(8192))
    tolerant = RUN_PLOG + b"\x00\x00 stray NULs \xff\xfe and GBK \xb4\xed\xce\xf3\n" + RUN_PLOG
    write(tmp_path / "c.log", tolerant)
    write(tmp_path / "d.dat", b"\x00" * 3000 + RUN_PLOG)
    items = collect([str(tmp_path)])
    assert [(Path(p).name, k) for p, k, _, _ in items] == [
        ("a.log", K.PLOG),
        ("b.log", K.STDOUT),
        ("c.log", K.PLOG),
        ("d.dat", "binary file"),
    ]
    assert items[0][2] == b"\x00" * 3000 + RUN_PLOG
    assert items[2][2] == tolerant


def test_error_at_the_end_of_a_long_stdout_is_found(tmp_path: Path) -> None:
    banner = b"".join(b"iteration %d loss %.3f\n" % (i, 1 / (i + 1)) for i in range(9000))
    assert len(banner) > 2 * HEAD_BYTES
    text = banner + STDOUT_HEADS["traceback"] + STDOUT_HEADS["runtime error"]
    write(tmp_path / "train.log", text)
    write(tmp_path / "train2.log.gz", gzip.compress(text))
    items = collect([str(tmp_path)])
    assert [(Path(p).name, k) for p, k, _, _ in items] == [
        ("train.log", K.STDOUT),
        ("train2.log.gz", K.STDOUT),
    ]
    assert items[0][2] == text
    assert items[1][2] == text


# ---------------------------------------------------------------------------------------------
# Compression and archives


def test_gz_file_is_decompressed_and_classified_without_its_suffix(tmp_path: Path) -> None:
    body = noisy_text(2000)
    path = write(tmp_path / "run/plog/plog-3_20250101010101010.log.gz", gzip.compress(body))
    odd = write(tmp_path / "stdout.bin", gzip.compress(STDOUT_HEADS["traceback"]))
    items = collect([str(path), str(odd)])
    assert items == [
        (str(path), K.PLOG_RUN, body, None),
        (str(odd), K.STDOUT, STDOUT_HEADS["traceback"], None),  # found by magic bytes
    ]


def test_empty_gz_is_an_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path / "plog-3_20250101010101010.log.gz", gzip.compress(b""))
    assert collect([str(path)]) == [(str(path), "empty file", None, None)]


def test_truncated_gz_is_readable_up_to_the_cut(tmp_path: Path) -> None:
    body = noisy_text(6000)
    packed = gzip.compress(body)
    path = write(
        tmp_path / "run/plog/plog-3_20250101010101010.log.gz", packed[: len(packed) * 2 // 3]
    )
    ((_, kind, data, error),) = collect([str(path)])
    assert kind == K.PLOG_RUN
    assert error is not None
    assert HEAD_BYTES < len(data) < len(body)
    assert body.startswith(data)
    # read() without a size: the readable part first, the error on the next call
    gen = iter_inputs([str(path)])
    item = next(gen)
    assert not isinstance(item, Skipped)
    stream = item[1]
    assert stream.read() == data
    with pytest.raises((EOFError, OSError, zlib.error)):
        stream.read()


def test_gz_broken_from_the_start_is_skipped(tmp_path: Path) -> None:
    path = write(tmp_path / "x.log.gz", b"\x1f\x8b\x08\x00" + b"\xff" * 40)
    ((_, reason, _, _),) = collect([str(path)])
    assert reason.startswith("corrupt data: ")


@pytest.mark.parametrize(
    ("name", "mode"), [("x.tar", "w"), ("x.tar.gz", "w:gz"), ("x.tgz", "w:gz")]
)
def test_tar_archives(tmp_path: Path, name: str, mode: str) -> None:
    members = [
        ("./run/plog/plog-1_2.log", RUN_PLOG),
        ("debug/device-0/device-1_20250101010101010.log", DEVICE_APP_LOG),
        ("README.txt", b"collected by ops\n"),
    ]
    path = write(tmp_path / name, tar_bytes(members, mode))
    assert collect([str(path)]) == [
        (f"{path}!run/plog/plog-1_2.log", K.PLOG_RUN, RUN_PLOG, None),
        (
            f"{path}!debug/device-0/device-1_20250101010101010.log",
            K.DEVICE_APP,
            DEVICE_APP_LOG,
            None,
        ),
        (f"{path}!README.txt", "unknown format: no line matches a known log shape", None, None),
    ]


def test_archive_member_source(tmp_path: Path) -> None:
    path = write(
        tmp_path / "worker-2.tgz", tar_bytes([("run/plog/plog-1_2.log", RUN_PLOG)], "w:gz")
    )
    (item,) = list(iter_inputs([str(path)]))
    assert not isinstance(item, Skipped)
    assert item[0] == Source(
        f"{path}!run/plog/plog-1_2.log", K.PLOG_RUN, "worker-2", None, None, 1, len(RUN_PLOG)
    )


def test_zip_archive(tmp_path: Path) -> None:
    members = [
        ("asys/dfx/log/host/cann/debug/plog/plog-4_20250101010101010.log", DEBUG_PLOG),
        ("__MACOSX/asys/._plog-4_20250101010101010.log", b"\x00\x05\x16\x07junk"),
        ("asys/dfx/log/device/dev-os-0/system/run/event/event_20250101010101010.log", EVENT_LOG),
    ]
    path = write(tmp_path / "collect.zip", zip_bytes(members))
    assert collect([str(path)]) == [
        (f"{path}!{members[0][0]}", K.PLOG_DEBUG, DEBUG_PLOG, None),
        (f"{path}!{members[2][0]}", K.EVENT, EVENT_LOG, None),
    ]


def test_nested_gz_in_tar_gz(tmp_path: Path) -> None:
    body = noisy_text(500)
    members = [("plog/plog-1_20250101010101010.log.gz", gzip.compress(body))]
    path = write(tmp_path / "run_plog.tar.gz", tar_bytes(members, "w:gz"))
    assert collect([str(path)]) == [
        (f"{path}!plog/plog-1_20250101010101010.log.gz", K.PLOG_RUN, body, None)
    ]


def test_zip_inside_tar_and_tar_inside_zip(tmp_path: Path) -> None:
    inner_zip = zip_bytes([("debug/plog/plog-5_20250101010101010.log", DEBUG_PLOG)])
    outer = write(tmp_path / "outer.tar", tar_bytes([("inner.zip", inner_zip)]))
    inner_tar = tar_bytes([("run/plog/plog-6_20250101010101010.log", RUN_PLOG)], "w:gz")
    other = write(tmp_path / "other.zip", zip_bytes([("w_2.tgz", inner_tar)]))
    assert collect([str(outer), str(other)]) == [
        (
            f"{outer}!inner.zip!debug/plog/plog-5_20250101010101010.log",
            K.PLOG_DEBUG,
            DEBUG_PLOG,
            None,
        ),
        (f"{other}!w_2.tgz!run/plog/plog-6_20250101010101010.log", K.PLOG_RUN, RUN_PLOG, None),
    ]


def test_truncated_tar_gz_keeps_the_members_before_the_cut(tmp_path: Path) -> None:
    bodies = [noisy_text(1500, seed) for seed in range(3)]
    names = [f"run/plog/plog-{i}_20250101010101010.log" for i in range(3)]
    packed = tar_bytes(list(zip(names, bodies, strict=True)), "w:gz")
    path = write(tmp_path / "cut.tgz", packed[: len(packed) // 2])
    items = collect([str(path)])
    assert items[0] == (f"{path}!{names[0]}", K.PLOG_RUN, bodies[0], None)
    last_path, last_reason, _, _ = items[-1]
    assert last_path == str(path)
    assert isinstance(last_reason, str) and last_reason.startswith("corrupt archive: ")
    # the member cut in the middle reads up to the cut, then raises
    cut = [i for i in items[1:-1] if i[3] is not None]
    assert len(cut) == 1 and bodies[1].startswith(cut[0][2])


def test_tar_with_a_garbage_header_is_reported(tmp_path: Path) -> None:
    raw = bytearray(tar_bytes([("a/plog-1_2.log", RUN_PLOG), ("b/plog-3_4.log", DEBUG_PLOG)]))
    second = 512 + (len(RUN_PLOG) + 511) // 512 * 512
    raw[second : second + 512] = b"this is not a tar header " * 20 + b"x" * 12
    path = write(tmp_path / "bad.tar", bytes(raw))
    assert collect([str(path)]) == [
        (f"{path}!a/plog-1_2.log", K.PLOG, RUN_PLOG, None),
        (str(path), "corrupt archive: invalid header (after 1 member)", None, None),
    ]


def test_corrupt_zip(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.zip", b"PK\x03\x04" + b"\x01" * 200)
    ((p, reason, _, _),) = collect([str(path)])
    assert p == str(path)
    assert reason.startswith("corrupt archive: ")


def test_zip_member_with_bad_crc_raises_oserror_while_reading(tmp_path: Path) -> None:
    body = noisy_text(3000)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("run/plog/plog-1_2.log", body)
    raw = bytearray(buf.getvalue())
    offset = raw.index(body[-200:])  # flip a byte near the end of the stored member
    raw[offset] ^= 0x20
    path = write(tmp_path / "crc.zip", bytes(raw))
    ((_, kind, data, error),) = collect([str(path)])
    assert kind == K.PLOG_RUN
    assert error == "OSError"
    assert HEAD_BYTES <= len(data) < len(body)
    assert body.startswith(data)


def test_small_zip_member_with_bad_crc_is_skipped(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("run/plog/plog-1_2.log", RUN_PLOG)
    raw = buf.getvalue().replace(b"attr init success", b"attr init SUCCESS")
    path = write(tmp_path / "crc.zip", raw)
    ((p, reason, _, _),) = collect([str(path)])
    assert p == f"{path}!run/plog/plog-1_2.log"
    assert reason == "corrupt data: Bad CRC-32 for file 'run/plog/plog-1_2.log'"


def test_empty_and_junk_archives(tmp_path: Path) -> None:
    empty_tar = write(tmp_path / "a.tar", tar_bytes([]))
    empty_zip = write(tmp_path / "b.zip", zip_bytes([]))
    trailing = write(tmp_path / "c.tar", tar_bytes([("plog-1_2.log", RUN_PLOG)]) + b"extra" * 4000)
    assert collect([str(empty_tar), str(empty_zip), str(trailing)]) == [
        (str(empty_tar), "empty archive", None, None),
        (str(empty_zip), "empty archive", None, None),
        (f"{trailing}!plog-1_2.log", K.PLOG, RUN_PLOG, None),
        (
            str(trailing),
            "corrupt archive: data after the end-of-archive marker was ignored (after 1 member)",
            None,
            None,
        ),
    ]


def test_archive_links_are_not_followed(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        link = tarfile.TarInfo("run/plog/latest.log")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tf.addfile(link)
    path = write(tmp_path / "links.tar", buf.getvalue())
    assert collect([str(path)]) == [
        (f"{path}!run/plog/latest.log", "link inside archive: not followed", None, None)
    ]


def test_hostile_member_names_are_escaped(tmp_path: Path) -> None:
    path = write(tmp_path / "evil.tar", tar_bytes([("../../run\x1b[2J.log", RUN_PLOG)]))
    ((p, kind, _, _),) = collect([str(path)])
    assert p == f"{path}!../../run\\x1b[2J.log"
    assert kind == K.PLOG


def test_stream_is_closed_when_the_generator_moves_on(tmp_path: Path) -> None:
    write(tmp_path / "a/plog-1_20250101010101010.log", RUN_PLOG)
    write(tmp_path / "b/plog-2_20250101010101010.log", RUN_PLOG)
    gen = iter_inputs([str(tmp_path)])
    first = next(gen)
    assert not isinstance(first, Skipped)
    first[1].read()
    next(gen)
    assert first[1].closed
    gen.close()


def test_corpus_style_concatenation_is_a_plog(tmp_path: Path) -> None:
    # a `tail -n +1` concatenation: '==> path <==' markers between plogs of two workers
    text = (
        b"==> worker-0/process_log/run/plog/plog-2_20250101010101010.log <==\n"
        + RUN_PLOG
        + b"\n==> worker-1/process_log/debug/plog/plog-3_20250101010101010.log <==\n"
        + DEBUG_PLOG
    )
    assert classify("incident.log", text) == K.PLOG


def test_bz2_xz_and_unsupported_compression(tmp_path: Path) -> None:
    xz = write(tmp_path / "a/run/plog/plog-1_20250101010101010.log.xz", lzma.compress(RUN_PLOG))
    tbz = write(
        tmp_path / "b/w_3.tar.bz2", tar_bytes([("debug/plog/plog-2_3.log", DEBUG_PLOG)], "w:bz2")
    )
    bz = write(tmp_path / "c/stdout.log.bz2", bz2.compress(STDOUT_HEADS["traceback"]))
    zst = write(tmp_path / "d/plog-1_2.log.zst", b"\x28\xb5\x2f\xfd" + b"\x00" * 64)
    assert collect([str(tmp_path)]) == [
        (str(xz), K.PLOG_RUN, RUN_PLOG, None),
        (f"{tbz}!debug/plog/plog-2_3.log", K.PLOG_DEBUG, DEBUG_PLOG, None),
        (str(bz), K.STDOUT, STDOUT_HEADS["traceback"], None),
        (str(zst), "unsupported compression: zstd (unpack it first)", None, None),
    ]


def test_archive_bombs_by_nesting_stop(tmp_path: Path) -> None:
    data = RUN_PLOG
    for _ in range(12):
        data = gzip.compress(data)
    path = write(tmp_path / "deep.log.gz", data)
    ((p, reason, _, _),) = collect([str(path)])
    assert p == str(path)
    assert reason.startswith("archive nested too deeply")


def test_only_nul_bytes(tmp_path: Path) -> None:
    """A plog of NULs only (preallocated, never written) is read, for its NULs to be counted;
    named like a tar it is an empty archive."""
    path = write(tmp_path / "plog-1_20250101010101010.log", b"\x00" * 5000)
    assert collect([str(path)]) == [(str(path), K.PLOG, b"\x00" * 5000, None)]
    tar = write(tmp_path / "empty.tar", b"\x00" * 10240)
    assert collect([str(tar)]) == [(str(tar), "empty archive", None, None)]
