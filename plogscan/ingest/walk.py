"""Discovery and classification of input files: what to read, what it is, and why not.

``iter_inputs`` turns the paths a user typed (files, directories, globs, ``.gz``/``.bz2``/``.xz``
files, ``.tar``/``.tar.gz``/``.tgz``/``.zip`` archives, in any mix and nesting) into one
deterministic sequence of readable logs and skipped files. Every log comes with its ``Source``
(display path, kind, path hints, size) and a stream of its *decompressed* bytes from the start.

Standard input and pipes
    ``-`` reads the standard input (shown as ``<stdin>``); a FIFO or character device named as
    an argument (``<(zcat run.log.gz)``, ``/dev/stdin``) is read as a stream too. Inside a
    directory walk such files are skipped as ``not a regular file``: reading one could block.

Order
    Arguments in the order given; a directory walk in sorted name order, depth first (so the
    whole walk is sorted by path); glob matches sorted; archive members in archive order.

Archives
    Read in place, never extracted to disk, so no member name can escape anywhere. A tar is read
    in stream mode, member by member, in one pass: a big ``.tar.gz`` is decompressed once, not
    once per member. A zip on disk is read through ``zipfile``; a zip nested in another archive
    or in a gzip stream is held in memory up to ``SPOOL_LIMIT`` bytes. Compression and archive
    type come from magic bytes, not from the name, so ``run_plog.tar.gz`` containing
    ``plog/plog-1_2.log.gz`` works, and so does a gzip file without a ``.gz`` suffix.
    A member's display path is ``archive!member`` (``x.tgz!run/plog/plog-1_2.log``); nested
    archives chain the separator (``a.zip!b.tar!c.log``).

Nothing is skipped silently, with one exception: operating-system and version-control clutter
(``.DS_Store``, ``Thumbs.db``, ``desktop.ini``, AppleDouble ``._*`` files, ``__MACOSX/``, and the
``.git``/``.hg``/``.svn`` directories) is dropped without a word when found inside a directory
walk or an archive, because it never holds logs and would drown the real skip reasons. Such a
file named explicitly by the user is treated like any other file. Everything else that is not
read becomes a ``Skipped`` with a short reason: ``not found``, ``empty file``, ``binary file``,
``unreadable: <OS reason>``, ``symlink loop``, ``duplicate: same file as <path>``, ``not a regular
file``, ``corrupt archive: <reason>``, ``unknown format: ...`` and a few more.

Streams
    The stream handed out with a ``Source`` is valid until the generator advances. Reading it
    can raise only ``OSError`` (which includes ``gzip.BadGzipFile``), ``EOFError`` or
    ``zlib.error``; every byte that could be decoded before such an error is returned first
    (a truncated ``.gz`` reads up to the cut, then raises). Other decoder errors (bad zip CRC,
    broken tar member, xz corruption) are turned into ``OSError("corrupt data: ...")``.

Binary sniffing
    Control bytes (NUL and C0 controls other than tab, newlines, form feed and escape) are
    counted in the head. More than 30% makes a ``binary file``. A file with more than 5% that
    also matches no known log shape is reported as binary too. Anything less is text: a log with
    a few NULs or invalid UTF-8 (GBK, garbage bytes) is still a log.

Classification (``classify``): content first, name and path as the fallback; see its docstring.
Path hints (``path_hints``): see its docstring.
"""

from __future__ import annotations

import bz2
import contextlib
import errno
import glob
import gzip
import io
import lzma
import os
import re
import stat
import struct
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import BinaryIO

from plogscan.schema import SourceKind

__all__ = [
    "HEAD_BYTES",
    "Skipped",
    "Source",
    "classify",
    "iter_inputs",
    "path_hints",
]

HEAD_BYTES = 64 * 1024  # bytes sniffed for container type and content
EXTENDED_HEAD_BYTES = 1024 * 1024  # non-seekable text whose head matched nothing: look this far
TAIL_BYTES = 64 * 1024  # seekable text whose head matched nothing: also sniff its tail
SNIFF_LINE_CHARS = 512  # only the start of each line matters to the sniff regexes
SPOOL_LIMIT = 256 * 1024 * 1024  # largest nested zip held in memory
MAX_NESTING = 8  # decompression + archive layers, against archive bombs and self-nesting
BINARY_RATIO = 0.30
SUSPECT_RATIO = 0.05
_CHUNK = 1024 * 1024

PARQUET_REASON = "parquet event table (use plogscan events)"
UNKNOWN_REASON = "unknown format: no line matches a known log shape"
NOT_A_LOG_REASON = "not a log file"
STDIN_PATH = "<stdin>"  # the display path of ``-``
# Files that sit next to logs in collections (notes, scripts, configs, pictures): when their
# content matches no log shape they are skipped as "not a log file" rather than "unknown".
NOT_LOG_SUFFIXES = frozenset({
    ".md", ".rst", ".py", ".sh", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".html",
    ".htm", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".csv", ".xml", ".pb", ".om",
    ".onnx", ".pkl", ".pt", ".pth", ".npy", ".so", ".o",
})


@dataclass(frozen=True)
class Source:
    """One readable log: where it is, what it is, and what its path says about its origin.

    ``size`` is the size of the stored object: bytes on disk for a plain or compressed file,
    the tar member size, or the uncompressed size of a zip member. For a gzip-compressed file
    or member it is the compressed size (the uncompressed size is not known before reading).
    """

    path: str
    kind: SourceKind
    host: str | None
    rank: int | None
    device: int | None
    pid: int | None
    size: int | None


@dataclass(frozen=True)
class Skipped:
    """An input that is not read, with a short human reason."""

    path: str
    reason: str


# --------------------------------------------------------------------------------------------
# Content sniffing: module-level compiled patterns, matched at the start of each head line.

# §1.1 header: [LEVEL] MODULE(pid,pname):YYYY-MM-DD-hh:mm:ss.mmm.uuu
_CANN_HEADER = re.compile(
    r"\[(?:[A-Z]+|\d+)\]\s?(?P<module>[A-Za-z0-9_]+)\((?P<pid>-?\d+),(?P<pname>[^),]*)\):\s?"
    r"\d{4}-\d{2}-\d{2}[- ]\d{2}:\d{2}:\d{2}\.\d{3}\.\d{3}(?P<body>.*)"
)
# §3.4 MindSpore host log: three fields in the parentheses; job stdout, not a CANN plog.
_MINDSPORE_HEADER = re.compile(
    r"\[[A-Z]+\]\s?[A-Z_]+\(\d+[:,][0-9a-fA-F]+,[^)]*\):\d{4}-\d{2}-\d{2}-"
)
# §3.3 framework prefixes that may precede any stdout line: [rank3]:, (train pid=8), [RAW SERVER]
_STDOUT_PREFIX = r"(?:\[rank\d+\]:\s*|\((?:[\w.\-]+ )?pid=\d+\)\s*|\[RAW SERVER\]\s*)"
_STDOUT_LINE = re.compile(
    _STDOUT_PREFIX
    + r"+|"
    + _STDOUT_PREFIX
    + r"*(?:"
    + "|".join(
        [
            # torch_npu PTA code line: [ERROR] 2024-03-07-01:31:48 (PID:1, Device:0, RankID:-1)
            r"\[[A-Z]+\] \d{4}-\d{2}-\d{2}-\d{2}:\d{2}:\d{2}(?:\.\d+)? "
            r"\(PID:\s*\d+, Device:\s*-?\d+, RankID:\s*-?\d+\)",
            # error manager: EZ9999: / EI0002: [PID: / EZ9999[PID: / EL9999  [drv api]
            r"[EWI][0-9A-Z]\d{4}(?::|\[PID:|  )",
            # error manager: [PID: 1] 2025-...  Name(EI0012): / [PID:1]2025-...
            r"\[PID:\s?\d+\]\s?\d{4}-\d{2}-\d{2}-",
            r"\[[A-Z]+\] RecentErrMsg:",
            # Python tracebacks and exception lines (TraceBack is the error-manager spelling)
            r"\s*Trace[Bb]ack \(most recent call last\):",
            r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception):",
            # torch/c10 glog lines: [W compiler_depend.ts:12] / [E508 03:20:31.67 file.cpp:9]
            r"\[[WEIF]\d{0,4}(?: \d{2}:\d{2}:\d{2}\.\d+)? [\w./-]+:\d+\]",
            # vLLM logger: ERROR 09-02 05:45:09 [file.py:987]
            r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2} \[[\w.]+:\d+\]",
            # torch_npu description line after "NPU function error"
            r"\[Error\]: ",
        ]
    )
    + r")"
)
_SYSLOG_LINE = re.compile(
    "|".join(
        [
            # slog/host/host_kernel.log and hisi_logs/.../history.log: [2025-05-07-19:54:27.371626]
            r"\[\d{4}-\d{2}-\d{2}-\d{2}:\d{2}:\d{2}\.\d+\] ",
            # BSD syslog (/var/log/messages): Aug  1 08:38:31 host ...
            r"[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \S+ \S",
            # RFC 3339 syslog: 2025-05-08T09:05:00.123+08:00 host ...
            r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}) \S+ \S",
            # slogd self-log: 2025-05-07 19:54:54.608[INFO] log_path_mgr.c:123:
            r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\[[A-Z]+\] ",
            # dmesg: [ 1197.584409] ...
            r"\[\s*\d+\.\d{6}\] ",
        ]
    )
)
# Device-side hints inside CANN headers.
_FIRMWARE_MODULES = frozenset({"TSCH", "LPM", "MCU", "IMP", "IMU", "TS", "TSDUMP"})
_DEVICE_OS_PNAMES = frozenset({"sklogd", "slogd", "tsdaemon", "dmp_daemon"})
_DEVICE_APP_PNAME_PREFIXES = ("aicpu_", "hccp_service")
_EVENT_BODY = re.compile(r"event_id[=:]|Event id=|\[fault_manager\]")

# --------------------------------------------------------------------------------------------
# Names and paths (§4).

_COMPRESSION_SUFFIX = re.compile(r"\.(?:gz|gzip|bz2|xz)$", re.IGNORECASE)
_ARCHIVE_SUFFIX = re.compile(
    r"\.(?:tar\.gz|tar\.bz2|tar\.xz|tgz|tbz2?|txz|tar|zip|gz|gzip|bz2|xz)$", re.IGNORECASE
)
_TAR_NAME = re.compile(r"\.(?:tar(?:\.(?:gz|bz2|xz))?|tgz|tbz2?|txz)$", re.IGNORECASE)
_PLOG_FILE = re.compile(r"plog(?:-parser)?-(\d+)[-_]\d+\.log")  # plog-<pid>_<ts>, -<ts>, parser
_PLOG_OLD_FILE = re.compile(r"(?:plog|host-\d+)_\d{8,}\.log")  # 2020-era names without a pid
_DEVICE_FILE = re.compile(r"device-(\d+)_\d{8,}\.log")  # firmware <id> or host-app <pid>
_DEVICE_APP_FILE = re.compile(r"device-app-(\d+)_\d{8,}\.log")
_DEVICE_APP_DIR = re.compile(r"device-app-(\d+)")
_DEVICE_OS_FILE = re.compile(r"device-os(?:-\d+)?_\d{8,}\.log")
_EVENT_FILE = re.compile(r"event_\d{8,}\.log")
_SYSLOG_FILE = re.compile(
    r"host_kernel\.log|history\.log|slogdlog(?:\.old)?|messages(?:[.-]\d+)?|syslog(?:\.\d+)?"
    r"|kern\.log(?:\.\d+)?|dmesg(?:\.\d+)?(?:\.log)?",
    re.IGNORECASE,
)
_DEVICE_DIR = re.compile(r"device-(\d+)")
_LOG_CLASS_DIR = re.compile(r"(debug|run|security)(?:[-_]plogs?)?", re.IGNORECASE)
_RANK_TOKEN = re.compile(r"(?<![a-z])rank(?:id)?[-_]?(\d+)(?!\d)", re.IGNORECASE)
_DEVICE_TOKEN = re.compile(r"(?<![a-z])device[-_]?(\d+)(?!\d)", re.IGNORECASE)
_DEV_OS_TOKEN = re.compile(r"(?<![a-z])dev(?:ice)?-os-(\d+)(?!\d)", re.IGNORECASE)
_HOST_DIR = re.compile(
    r"(?:.*[-_.])?worker[-_]?\d+"  # worker-1, worker_0, worker1, <job>-worker-0 (pod names)
    r"|w[-_]\d+"  # w_1 (ascend-fd fixtures)
    r"|node(?:[-_]?\d[\w.-]*|-[a-z][\w.-]*)"  # node-xyz, node01, node_3
    r"|(?:host|server)[-_]?\d[\w.-]*"  # host-3, server01
    r"|(?:ip[-_])?\d{1,3}(?:[._-]\d{1,3}){3}",  # 10.0.0.3, ip-10-0-0-3
    re.IGNORECASE,
)
_MODELARTS_DIR = re.compile(r"modelarts-job-[\w.-]+", re.IGNORECASE)
_MAX_DEVICE_ID = 64  # device ids are small; a larger number in device-<n>_<ts>.log is a pid

_NOISE_FILES = frozenset({".ds_store", "thumbs.db", "desktop.ini"})
_NOISE_DIRS = frozenset({"__macosx", ".git", ".hg", ".svn"})
_GLOB_CHARS = re.compile(r"[*?\[]")
# Controls (C0, DEL, C1), bidi overrides/isolates, line separators and surrogates: what a
# terminal would act on or reorder (the same set as ``plogscan.textsafe``).
_UNSAFE_CHARS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]"
)
_NON_TEXT_BYTES = bytes(
    b for b in range(256) if (b < 32 and b not in b"\t\n\v\f\r\x1b") or b == 127
)


def _split_path(path: str) -> tuple[list[str], str]:
    """Directory components (archive names stripped of their suffix) and the file name."""
    parts = [p for p in re.split(r"[/!]", path) if p not in ("", ".", "..")]
    if not parts:
        return [], ""
    name = parts[-1]
    while _COMPRESSION_SUFFIX.search(name):
        name = _COMPRESSION_SUFFIX.sub("", name)
    return [_ARCHIVE_SUFFIX.sub("", p) for p in parts[:-1]], name


def _plog_kind(dirs: list[str]) -> SourceKind:
    """PLOG_DEBUG/RUN/SECURITY from ``<class>/plog/file`` or ``<class>/file``, else PLOG.

    Only the parent, or the grandparent when the parent is ``plog``, counts: a ``run`` directory
    higher up (``/home/me/run/exp1/...``) says nothing about the log class.
    """
    candidates = dirs[-1:]
    if dirs and dirs[-1].lower() in ("plog", "plogs"):
        candidates = dirs[-2:-1]
    for d in candidates:
        m = _LOG_CLASS_DIR.fullmatch(d)
        if m:
            return {
                "debug": SourceKind.PLOG_DEBUG,
                "run": SourceKind.PLOG_RUN,
                "security": SourceKind.PLOG_SECURITY,
            }[m.group(1).lower()]
    return SourceKind.PLOG


def _device_file_is_firmware(dirs: list[str], number: int) -> bool:
    """Whether ``device-<n>_<ts>.log`` is firmware (n = device id) rather than a host app log.

    The parent directory decides when it is ``device-<m>``: the same number means firmware
    (``device-0/device-0_...``), another means a host pid (``device-0/device-155320_...``).
    Without it, a ``firmware`` or ``dev-os-<n>`` directory means firmware; otherwise a number
    below 64 is taken as a device id.
    """
    parent = _DEVICE_DIR.fullmatch(dirs[-1]) if dirs else None
    if parent:
        return int(parent.group(1)) == number
    if any(d.lower() == "firmware" or _DEV_OS_TOKEN.fullmatch(d) for d in dirs):
        return True
    return number < _MAX_DEVICE_ID


def _name_kind(dirs: list[str], name: str) -> SourceKind | None:
    """The kind a CANN or system file name promises, or None for a name that says nothing."""
    parent = dirs[-1].lower() if dirs else ""
    if _PLOG_FILE.fullmatch(name) or _PLOG_OLD_FILE.fullmatch(name):
        return _plog_kind(dirs)
    if _DEVICE_APP_FILE.fullmatch(name) or _DEVICE_APP_DIR.fullmatch(parent):
        return SourceKind.DEVICE_APP
    if _DEVICE_OS_FILE.fullmatch(name) or parent == "device-os":
        return SourceKind.DEVICE_OS
    if _EVENT_FILE.fullmatch(name):
        return SourceKind.EVENT
    m = _DEVICE_FILE.fullmatch(name)
    if m:
        if _device_file_is_firmware(dirs, int(m.group(1))):
            return SourceKind.DEVICE_FW
        return SourceKind.DEVICE_APP
    if _SYSLOG_FILE.fullmatch(name):
        return SourceKind.SYSLOG
    return None


@dataclass
class _Sniff:
    """What the head lines look like: counts of each known shape."""

    cann: int = 0
    firmware: int = 0  # CANN headers with a negative (firmware) pid
    event: int = 0
    device_os: int = 0
    device_app: int = 0
    stdout: int = 0
    syslog: int = 0
    klogd: bool = False

    @classmethod
    def of(cls, head: bytes) -> _Sniff:
        text = head.replace(b"\x00", b"").decode("utf-8", "replace")
        s = cls()
        for raw in text.split("\n"):
            line = raw[:SNIFF_LINE_CHARS]
            if line.startswith("["):
                m = _CANN_HEADER.match(line)
                if m:
                    s._count_header(*m.groups())
                    continue
                if _MINDSPORE_HEADER.match(line):
                    s.stdout += 1
                    continue
            elif not line.strip():
                continue
            if _STDOUT_LINE.match(line):
                s.stdout += 1
            elif _SYSLOG_LINE.match(line):
                s.syslog += 1
        return s

    def _count_header(self, module: str, pid: str, pname: str, body: str) -> None:
        self.cann += 1
        if pid.startswith("-"):
            self.firmware += 1
            return
        if "vent" in body and _EVENT_BODY.search(body):
            self.event += 1
        if module == "KERNEL" or pname in _DEVICE_OS_PNAMES:
            self.device_os += 1
            if pname in ("sklogd", "klogd") or body.startswith(("[klogd.c:", " [klogd.c:")):
                self.klogd = True
        if pname.startswith(_DEVICE_APP_PNAME_PREFIXES):
            self.device_app += 1

    def device_kind(self) -> SourceKind | None:
        """A device-side kind when the header content says so (a majority, or klogd)."""
        n = self.cann
        if not n:
            return None
        if self.firmware * 2 > n:
            return SourceKind.DEVICE_FW
        if self.event * 2 > n:
            return SourceKind.EVENT
        if self.klogd or self.device_os * 2 > n:
            return SourceKind.DEVICE_OS
        if self.device_app * 2 > n:
            return SourceKind.DEVICE_APP
        return None


_CANN_KINDS = frozenset(k for k in SourceKind if k not in (SourceKind.STDOUT, SourceKind.SYSLOG))


def classify(path: str, head: bytes) -> SourceKind | None:
    """Kind from name, path and a content sniff of the first bytes; None = not a log we know.

    Content wins, name and path are the fallback:

    * Lines with a CANN header ``[LEVEL] MODULE(pid,pname):ts`` make a CANN log. The headers say
      which: mostly negative pids (``TSCH(-1,null)``) → DEVICE_FW; mostly ``event_id=`` bodies →
      EVENT; ``KERNEL(…,sklogd)``/``[klogd.c:…]`` or mostly device daemons → DEVICE_OS; mostly
      ``aicpu_*``/``hccp_service.bin`` processes → DEVICE_APP. Otherwise the file name decides
      among the device kinds (``device-<id>/device-<pid>_<ts>.log`` → DEVICE_APP, ``device-os``,
      ``event_<ts>``, firmware ``device-<id>/device-<id>_<ts>.log``), and a host plog is
      PLOG_DEBUG/RUN/SECURITY when its parent (or the parent of its ``plog`` directory) is
      ``debug``/``run``/``security`` (``run_plog`` from an archive name counts), else PLOG.
    * Lines of a job's stdout/stderr (torch_npu ``(PID:…, Device:…, RankID:…)``, ``[rankN]:``
      or ``(name pid=N)`` prefixes, error-manager lines, Python tracebacks and exception lines,
      c10/glog lines, vLLM lines, MindSpore headers) make STDOUT — even when CANN headers are
      present too (``ASCEND_LOG_PRINT_TO_STDOUT``), unless the file name is a CANN log name
      (``plog-<pid>_<ts>.log`` …): a file CANN wrote cannot be stdout.
    * Host kernel log, ``/var/log/messages``/syslog, bbox ``history.log``, ``slogdlog`` and dmesg
      lines make SYSLOG.
    * When no line has a known shape, a CANN or system log name still decides (the parser
      keeps unknown lines as unparsed records, so nothing is lost); any other name gives None.
    """
    dirs, name = _split_path(path)
    name_kind = _name_kind(dirs, name)
    s = _Sniff.of(head)
    if s.stdout:
        if s.cann and name_kind in _CANN_KINDS:
            return s.device_kind() or name_kind
        if s.syslog > s.stdout + s.cann:
            return SourceKind.SYSLOG
        return SourceKind.STDOUT
    if s.cann and s.cann >= s.syslog:
        kind = s.device_kind()
        if kind is not None:
            return kind
        if name_kind in (
            SourceKind.DEVICE_APP,
            SourceKind.DEVICE_OS,
            SourceKind.EVENT,
            SourceKind.DEVICE_FW,
        ):
            return name_kind
        return _plog_kind(dirs)
    if s.syslog:
        return SourceKind.SYSLOG
    return name_kind


def _first_int(pattern: re.Pattern[str], names: Sequence[str]) -> int | None:
    for n in names:
        m = pattern.search(n)
        if m:
            return int(m.group(1))
    return None


def path_hints(path: str) -> tuple[str | None, int | None, int | None, int | None]:
    """(host, rank, device, pid) hints from a path; content found by the parser wins over them.

    The path is split on ``/`` and the archive separator ``!``; archive names count as
    directories without their suffix (``worker-1.tar.gz!run/...`` → ``worker-1``).

    * host: the nearest directory named like a host: ``worker-1``/``worker_1``/``worker1`` or a
      pod name ending in one (``<job>-worker-0``), ``w_1``, ``node-xyz``/``node01``,
      ``host-3``/``server01``, an IPv4 address (``10.0.0.3``, ``ip-10-0-0-3``); failing those,
      the nearest ``modelarts-job-…`` directory. The directory name is returned as written.
    * rank: ``rank_3``, ``rank3``, ``rank-3``, ``rankid3``, ``proc-rank-3-device-3``; the file
      name first, then the nearest directory.
    * device: a firmware file ``device-<id>_<ts>.log``, else ``device-2``/``device_2``/``device2``
      in the file name or the nearest directory (``device-<n>`` directories hold device logs),
      else the device-OS id of ``dev-os-<n>``/``device-os-<n>`` (one OS per device is the usual
      layout, so it is the weakest hint).
    * pid: the host pid in ``plog-<pid>_<ts>.log``, ``plog-<pid>-<ts>.log``,
      ``plog-parser-<pid>-<0|1>.log``, ``device-<pid>_<ts>.log`` (a host app log: its parent
      is ``device-<id>`` with another id), ``device-app-<pid>_<ts>.log`` and ``device-app-<pid>/``.
    """
    dirs, name = _split_path(path)
    host = next((d for d in reversed(dirs) if _HOST_DIR.fullmatch(d)), None)
    if host is None:
        host = next((d for d in reversed(dirs) if _MODELARTS_DIR.fullmatch(d)), None)
    rank = _first_int(_RANK_TOKEN, [name, *reversed(dirs)])
    device: int | None = None
    pid: int | None = None
    token_names = [name, *reversed(dirs)]
    m = _DEVICE_FILE.fullmatch(name)
    if m:
        token_names = list(reversed(dirs))
        number = int(m.group(1))
        if _device_file_is_firmware(dirs, number):
            device = number
        else:
            pid = number
    for pattern in (_PLOG_FILE, _DEVICE_APP_FILE):
        m = pattern.fullmatch(name)
        if m:
            pid = int(m.group(1))
    if pid is None:
        pid = _first_int(
            _DEVICE_APP_DIR, [d for d in reversed(dirs) if _DEVICE_APP_DIR.fullmatch(d)]
        )
    if device is None:
        device = _first_int(_DEVICE_TOKEN, token_names)
    if device is None:
        device = _first_int(_DEV_OS_TOKEN, [name, *reversed(dirs)])
    return host, rank, device, pid


# --------------------------------------------------------------------------------------------
# Streams.

# Errors a decoder or archive reader raises on bad data. Caught everywhere we read input.
_DATA_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    tarfile.TarError,
    zipfile.BadZipFile,
    struct.error,
    ValueError,
    RuntimeError,
    NotImplementedError,
)
# Errors a consumer of our streams is told to expect; anything else is turned into OSError.
_STREAM_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error)


class _Replay(io.BufferedIOBase):
    """A read-only stream: ``head`` (already read for sniffing), then the rest of ``rest``.

    ``error`` is the exception that stopped the head read, raised once the head is replayed.
    A read that hits an error after some bytes returns those bytes and raises on the next
    call, so the consumer gets every decodable byte. Errors outside ``_STREAM_ERRORS`` are
    raised as ``OSError("corrupt data: ...")``.
    """

    def __init__(
        self, head: bytes, rest: BinaryIO | None, error: BaseException | None = None
    ) -> None:
        super().__init__()
        self._head = head
        self._pos = 0
        self._rest = rest
        self._read_rest: Callable[[int], bytes] | None = None
        if rest is not None:
            self._read_rest = getattr(rest, "read1", None) or rest.read
        self._error = error
        self._pending: BaseException | None = None

    def readable(self) -> bool:
        return True

    def _chunk(self, n: int) -> bytes:
        if self._head:
            out = self._head[self._pos : self._pos + n]
            self._pos += len(out)
            if self._pos >= len(self._head):
                self._head = b""  # replayed: let it go
            return out
        if self._error is not None:
            err, self._error, self._read_rest = self._error, None, None
            raise _as_stream_error(err)
        if self._read_rest is None:
            return b""
        try:
            return self._read_rest(n)
        except _DATA_ERRORS as exc:
            self._read_rest = None
            raise _as_stream_error(exc) from exc

    def read1(self, size: int | None = -1) -> bytes:
        if self._pending is not None:
            err, self._pending = self._pending, None
            raise err
        if size == 0:
            return b""
        return self._chunk(size if size is not None and size > 0 else _CHUNK)

    def read(self, size: int | None = -1) -> bytes:
        if self._pending is not None:
            err, self._pending = self._pending, None
            raise err
        if size == 0:
            return b""
        limit = size if size is not None and size > 0 else None
        parts: list[bytes] = []
        got = 0
        try:
            while limit is None or got < limit:
                chunk = self._chunk(_CHUNK if limit is None else limit - got)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
        except _STREAM_ERRORS as exc:
            if not parts:
                raise
            self._pending = exc
        return b"".join(parts)


def _as_stream_error(exc: BaseException) -> BaseException:
    if isinstance(exc, _STREAM_ERRORS):
        return exc
    return OSError(f"corrupt data: {_describe(exc)}")


def _describe(exc: BaseException) -> str:
    """Short text for an exception: the OS reason, else the message, else the type."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc).strip()
    return text or type(exc).__name__


def _failure(exc: BaseException) -> str:
    """Skip reason for an input that gave no byte at all."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"unreadable: {_describe(exc)}"
    return f"corrupt data: {_describe(exc)}"


def _read_head(stream: BinaryIO, n: int) -> tuple[bytes, BaseException | None]:
    """Up to ``n`` bytes, and the error that stopped the read early (None at EOF or ``n``)."""
    buf = bytearray()
    read = getattr(stream, "read1", None) or stream.read
    try:
        while len(buf) < n:
            chunk = read(n - len(buf))
            if not chunk:
                break
            buf += chunk
    except _DATA_ERRORS as exc:
        return bytes(buf), exc
    return bytes(buf), None


def _is_tar(head: bytes) -> bool:
    """A ustar/GNU header, or a v7 header whose checksum adds up."""
    if len(head) < 512:
        return False
    if head[257:262] == b"ustar":
        return True
    if not head[:1].strip(b"\x00"):
        return False
    try:
        stored = int(head[148:156].strip(b"\x00 ").decode("ascii"), 8)
    except (ValueError, UnicodeDecodeError):
        return False
    return stored == sum(head[:148]) + 8 * 32 + sum(head[156:512])


_BZ2_MAGIC = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")


def _container(head: bytes) -> str | None:
    """The compression or archive format announced by the magic bytes, if any."""
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in _BZ2_MAGIC:
        return "bz2"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08"):
        return "zip"
    if head[:4] == b"PAR1":
        return "parquet"
    if head[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    if head[:6] == b"7z\xbc\xaf\x27\x1c":
        return "7z"
    if head[:6] == b"Rar!\x1a\x07":
        return "rar"
    if _is_tar(head):
        return "tar"
    return None


_DECOMPRESSORS: dict[str, Callable[[BinaryIO], BinaryIO]] = {
    "gzip": lambda f: gzip.GzipFile(fileobj=f, mode="rb"),
    "bz2": lambda f: bz2.BZ2File(f),
    "xz": lambda f: lzma.LZMAFile(f),  # noqa: SIM115 - closed by the caller
}


def _non_text_ratio(head: bytes) -> float:
    if not head:
        return 0.0
    return (len(head) - len(head.translate(None, _NON_TEXT_BYTES))) / len(head)


def _display(text: str) -> str:
    """A path safe to print: control characters and undecodable bytes as ``\\xNN``, other
    unsafe characters (C1 controls, bidi overrides) as ``\\uNNNN``."""

    def esc(m: re.Match[str]) -> str:
        code = ord(m.group(0))
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
            return f"\\x{code - 0xDC00:02x}"
        return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"

    return _UNSAFE_CHARS.sub(esc, text)


def _member_name(name: str) -> str:
    name = name.replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    return name.lstrip("/")


def _is_noise(name: str) -> bool:
    low = name.lower()
    return low in _NOISE_FILES or low.startswith("._")


def _member_is_noise(name: str) -> bool:
    parts = [p for p in name.split("/") if p]
    if not parts:
        return True
    return _is_noise(parts[-1]) or any(p.lower() in _NOISE_DIRS for p in parts[:-1])


class _TarInfo(tarfile.TarInfo):
    """Records why a stream-mode tar stopped, which ``tarfile`` would otherwise hide.

    ``TarFile.next`` treats an invalid, truncated or missing header after the first member as
    the end of the archive. We want those reported as corruption.
    """

    @classmethod
    def fromtarfile(cls, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        try:
            return super().fromtarfile(tarfile_)
        except tarfile.EmptyHeaderError:
            if isinstance(tarfile_, _TarFile):
                tarfile_.header_error = "archive ends without an end-of-archive marker"
            raise
        except (tarfile.InvalidHeaderError, tarfile.TruncatedHeaderError) as exc:
            if isinstance(tarfile_, _TarFile):
                tarfile_.header_error = str(exc) or type(exc).__name__
            raise


class _TarMember(io.RawIOBase):
    """A regular tar member read straight from the archive stream, in order.

    ``tarfile.extractfile`` drops the bytes of a read that hits the end of a truncated archive;
    this reader returns every byte that is there, then raises, so a cut-off ``.tar.gz`` keeps
    the readable part of its last member (as a cut-off ``.gz`` does).
    """

    def __init__(self, fileobj: BinaryIO, offset: int, size: int) -> None:
        super().__init__()
        self._file, self._offset, self._size, self._pos = fileobj, offset, size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        want = min(len(buffer), self._size - self._pos)
        if want <= 0:
            return 0
        self._file.seek(self._offset + self._pos)
        data = self._file.read(want)
        if not data:
            raise tarfile.ReadError("unexpected end of data")
        buffer[: len(data)] = data
        self._pos += len(data)
        return len(data)


class _TarFile(tarfile.TarFile):
    header_error: str | None = None


_Item = tuple[Source, BinaryIO] | Skipped


@dataclass
class _Walker:
    """State of one ``iter_inputs`` run: what was already read, to report duplicates."""

    files: dict[tuple[int, int], str] = field(default_factory=dict)
    dirs: dict[tuple[int, int], str] = field(default_factory=dict)

    # -- file system -------------------------------------------------------------------------

    def argument(self, arg: str) -> Iterator[_Item]:
        if arg == "-" and not os.path.lexists(arg):
            yield from self.stdin()
            return
        if not os.path.lexists(arg) and _GLOB_CHARS.search(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                yield Skipped(_display(arg), "not found: the pattern matches nothing")
                return
            walked: set[str] = set()
            for match in matches:
                if _inside(match, walked):
                    continue  # covered by the walk of a matched directory
                if os.path.isdir(match):
                    walked.add(os.path.normpath(match))
                yield from self.path(match)
            return
        yield from self.path(arg)

    def path(self, path: str) -> Iterator[_Item]:
        shown = _display(path)
        try:
            st = os.stat(path)
        except OSError as exc:
            yield Skipped(shown, _stat_failure(path, exc))
            return
        if stat.S_ISDIR(st.st_mode):
            yield from self.walk(path, st)
        elif stat.S_ISREG(st.st_mode):
            yield from self.file(path, st)
        elif stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode):
            yield from self.pipe(path)  # named by the user: <(zcat x.gz), /dev/stdin
        else:
            yield Skipped(shown, "not a regular file")

    def stdin(self) -> Iterator[_Item]:
        """``-``: the standard input, read once as a stream."""
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            yield Skipped(STDIN_PATH, "unreadable: no standard input")
            return
        yield from self.stream(STDIN_PATH, stream, None, seekable=False, depth=0)

    def pipe(self, path: str) -> Iterator[_Item]:
        """A FIFO or character device named on the command line, read once as a stream (a
        directory walk skips them: reading one could block forever)."""
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed by the with below, after the yield
        except OSError as exc:
            yield Skipped(_display(path), f"unreadable: {_describe(exc)}")
            return
        with f:
            yield from self.stream(_display(path), f, None, seekable=False, depth=0)

    def walk(self, top: str, top_stat: os.stat_result) -> Iterator[_Item]:
        """Depth first, entries sorted by name; a directory already on the path is a loop."""
        ancestors: list[tuple[int, int]] = []
        stack: list[tuple[Iterator[str], tuple[int, int], str]] = []

        def enter(path: str, st: os.stat_result) -> Skipped | None:
            key = (st.st_dev, st.st_ino)
            if key in ancestors:
                return Skipped(_display(path), "symlink loop")
            if key in self.dirs:
                return Skipped(_display(path), f"duplicate: same directory as {self.dirs[key]}")
            try:
                with os.scandir(path) as it:
                    names = sorted(e.name for e in it)
            except OSError as exc:
                return Skipped(_display(path), f"unreadable: {_describe(exc)}")
            self.dirs[key] = _display(path)
            ancestors.append(key)
            stack.append((iter(names), key, path))
            return None

        skipped = enter(top, top_stat)
        if skipped is not None:
            yield skipped
            return
        while stack:
            names, _, directory = stack[-1]
            name = next(names, None)
            if name is None:
                stack.pop()
                ancestors.pop()
                continue
            if _is_noise(name) or name.lower() in _NOISE_DIRS:
                continue
            child = os.path.join(directory, name)
            try:
                st = os.stat(child)
            except OSError as exc:
                yield Skipped(_display(child), _stat_failure(child, exc))
                continue
            if stat.S_ISDIR(st.st_mode):
                skipped = enter(child, st)
                if skipped is not None:
                    yield skipped
            elif stat.S_ISREG(st.st_mode):
                yield from self.file(child, st)
            else:
                yield Skipped(_display(child), "not a regular file")

    def file(self, path: str, st: os.stat_result) -> Iterator[_Item]:
        shown = _display(path)
        key = (st.st_dev, st.st_ino)
        if key in self.files:
            yield Skipped(shown, f"duplicate: same file as {self.files[key]}")
            return
        self.files[key] = shown
        if path.lower().endswith(".parquet"):
            yield Skipped(shown, PARQUET_REASON)
            return
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed by the with below, after the yield
        except OSError as exc:
            yield Skipped(shown, f"unreadable: {_describe(exc)}")
            return
        with f:
            yield from self.stream(shown, f, st.st_size, seekable=True, depth=0)

    # -- streams -----------------------------------------------------------------------------

    def stream(
        self, shown: str, stream: BinaryIO, size: int | None, *, seekable: bool, depth: int
    ) -> Iterator[_Item]:
        """Sniff ``stream`` and yield what it holds: a log, archive members, or a skip."""
        head, err = _read_head(stream, HEAD_BYTES)
        if err is not None and not head:
            yield Skipped(shown, _failure(err))
            return
        fmt = _container(head)
        if fmt == "parquet" or shown.lower().endswith(".parquet"):
            yield Skipped(shown, PARQUET_REASON)
            return
        if fmt in ("zstd", "7z", "rar"):
            yield Skipped(shown, f"unsupported compression: {fmt} (unpack it first)")
            return
        if fmt is not None and depth >= MAX_NESTING:
            yield Skipped(shown, f"archive nested too deeply (more than {MAX_NESTING} levels)")
            return
        if fmt in _DECOMPRESSORS:
            inner = _DECOMPRESSORS[fmt](_Replay(head, stream, err))
            with contextlib.closing(inner):
                yield from self.stream(shown, inner, size, seekable=False, depth=depth + 1)
            return
        if fmt == "zip":
            yield from self.zip(shown, stream, head, err, seekable=seekable, depth=depth)
            return
        if fmt == "tar":
            yield from self.tar(shown, _Replay(head, stream, err), depth=depth)
            return
        if not head:
            yield Skipped(shown, "empty file")
            return
        if not head.strip(b"\x00"):
            empty_tar = _TAR_NAME.search(shown) is not None  # a tar of no member is all zeros
            yield Skipped(shown, "empty archive" if empty_tar else "binary file (only NUL bytes)")
            return
        yield from self.text(shown, stream, head, err, size, seekable=seekable)

    def text(
        self,
        shown: str,
        stream: BinaryIO,
        head: bytes,
        err: BaseException | None,
        size: int | None,
        *,
        seekable: bool,
    ) -> Iterator[_Item]:
        ratio = _non_text_ratio(head)
        if ratio > BINARY_RATIO:
            yield Skipped(shown, "binary file")
            return
        kind = classify(shown, head)
        more = err is None and len(head) >= HEAD_BYTES
        if kind is None and more and seekable and size is not None and size > HEAD_BYTES:
            try:
                stream.seek(max(size - TAIL_BYTES, HEAD_BYTES))
                tail, _ = _read_head(stream, TAIL_BYTES)
            except OSError:
                tail = b""
            kind = classify(shown, head + b"\n" + tail.partition(b"\n")[2])
        elif kind is None and more and not seekable:
            extra, err = _read_head(stream, EXTENDED_HEAD_BYTES - len(head))
            head += extra
            kind = classify(shown, head)
        if kind is None:
            suffix = PurePosixPath(shown).suffix.lower()
            if suffix in NOT_LOG_SUFFIXES:
                yield Skipped(shown, f"{NOT_A_LOG_REASON} ({suffix})")
            else:
                yield Skipped(shown, "binary file" if ratio > SUSPECT_RATIO else UNKNOWN_REASON)
            return
        source = Source(shown, kind, *path_hints(shown), size)
        if seekable:
            try:
                stream.seek(0)
            except OSError as exc:
                yield Skipped(shown, f"unreadable: {_describe(exc)}")
                return
            yield source, stream
        else:
            yield source, _Replay(head, stream, err)

    def zip(
        self,
        shown: str,
        stream: BinaryIO,
        head: bytes,
        err: BaseException | None,
        *,
        seekable: bool,
        depth: int,
    ) -> Iterator[_Item]:
        """Zip members in directory order; a non-seekable zip is held in memory first."""
        source: BinaryIO = stream
        if not seekable:
            if err is not None:
                yield Skipped(shown, f"corrupt archive: {_describe(err)}")
                return
            rest, err = _read_head(stream, SPOOL_LIMIT + 1 - len(head))
            if err is not None:
                yield Skipped(shown, f"corrupt archive: {_describe(err)}")
                return
            if len(head) + len(rest) > SPOOL_LIMIT:
                yield Skipped(
                    shown,
                    f"nested zip archive larger than {SPOOL_LIMIT >> 20} MiB: unpack it first",
                )
                return
            source = io.BytesIO(head + rest)
        try:
            archive = zipfile.ZipFile(source)
            infos = archive.infolist()
        except _DATA_ERRORS as exc:
            yield Skipped(shown, f"corrupt archive: {_describe(exc)}")
            return
        with archive:
            files = [i for i in infos if not i.is_dir()]
            if not files:
                yield Skipped(shown, "empty archive")
                return
            for info in files:
                name = _member_name(info.filename)
                if _member_is_noise(name):
                    continue
                member = f"{shown}!{_display(name)}"
                if info.flag_bits & 0x1:
                    yield Skipped(member, "encrypted archive member")
                    continue
                try:
                    opened = archive.open(info)
                except _DATA_ERRORS as exc:
                    yield Skipped(member, f"corrupt archive member: {_describe(exc)}")
                    continue
                with opened:
                    yield from self.stream(
                        member, opened, info.file_size, seekable=False, depth=depth + 1
                    )

    def tar(self, shown: str, stream: BinaryIO, *, depth: int) -> Iterator[_Item]:
        """Tar members in archive order, in one streaming pass over the (decompressed) bytes."""
        try:
            archive = _TarFile.open(fileobj=stream, mode="r|", tarinfo=_TarInfo, bufsize=_CHUNK)
        except _DATA_ERRORS as exc:
            yield Skipped(shown, f"corrupt archive: {_describe(exc)}")
            return
        count = 0
        with archive:
            while True:
                try:
                    info = archive.next()
                except _DATA_ERRORS as exc:
                    yield Skipped(shown, f"corrupt archive: {_describe(exc)}{_after(count)}")
                    return
                if info is None:
                    break
                archive.members.clear()  # stream mode keeps every TarInfo otherwise
                count += 1
                if info.isdir():
                    continue
                name = _member_name(info.name)
                if _member_is_noise(name):
                    continue
                member = f"{shown}!{_display(name)}"
                if info.issym() or info.islnk():
                    yield Skipped(member, "link inside archive: not followed")
                    continue
                if not info.isreg():
                    yield Skipped(member, "not a regular file")
                    continue
                try:
                    extracted = (archive.extractfile(info) if info.issparse()
                                 else _TarMember(archive.fileobj, info.offset_data, info.size))
                except _DATA_ERRORS as exc:
                    yield Skipped(member, f"corrupt archive member: {_describe(exc)}")
                    continue
                if extracted is None:
                    continue
                yield from self.stream(
                    member, extracted, info.size, seekable=False, depth=depth + 1
                )
            if archive.header_error is not None:
                yield Skipped(shown, f"corrupt archive: {archive.header_error}{_after(count)}")
                return
            trailing = _drain(stream, getattr(archive.fileobj, "buf", b""))
        if trailing is not None:
            yield Skipped(shown, f"corrupt archive: {trailing}{_after(count)}")
        elif count == 0:
            yield Skipped(shown, "empty archive")


def _after(count: int) -> str:
    return f" (after {count} member{'s' if count != 1 else ''})" if count else ""


def _drain(stream: BinaryIO, buffered: object) -> str | None:
    """Read what follows the end-of-archive marker: padding is fine, data or errors are not."""
    if isinstance(buffered, bytes) and buffered.strip(b"\x00"):
        return "data after the end-of-archive marker was ignored"
    try:
        while True:
            chunk = stream.read(_CHUNK)
            if not chunk:
                return None
            if chunk.strip(b"\x00"):
                return "data after the end-of-archive marker was ignored"
    except _DATA_ERRORS as exc:
        return _describe(exc)


def _stat_failure(path: str, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno == errno.ENOENT:
        return "broken symlink" if os.path.islink(path) else "not found"
    return f"unreadable: {_describe(exc)}"


def _inside(path: str, directories: set[str]) -> bool:
    parent = os.path.dirname(os.path.normpath(path))
    while parent and parent not in directories:
        up = os.path.dirname(parent)
        if up == parent:
            return False
        parent = up
    return bool(parent)


def iter_inputs(paths: Sequence[str]) -> Iterator[tuple[Source, BinaryIO] | Skipped]:
    """Expand files, directories (recursive), globs, .gz, .tar, .tar.gz/.tgz, .zip into a
    deterministic sequence. For each readable log yields (Source, stream) where stream yields
    the DECOMPRESSED bytes from the start of the file; the stream is only valid until the
    generator advances (the consumer reads it fully before asking for the next item). Skipped
    items are yielded in order too.

    A path that does not exist but contains ``*``, ``?`` or ``[`` is a glob pattern
    (``glob.glob(recursive=True)``, matches sorted; a matched directory is walked and the
    matches inside it are not repeated). The same file or directory reached twice (named twice,
    or through a symlink) is read once and reported as a duplicate after that. Never raises on
    bad input; see the module docstring for the reasons a file is skipped.
    """
    walker = _Walker()
    for arg in paths:
        yield from walker.argument(os.fspath(arg))
