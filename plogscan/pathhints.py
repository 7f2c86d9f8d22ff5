"""What a path says about a log: its kind by name (``name_kind``) and its host, rank, device
and pid (``path_hints``).

Paths are split on ``/`` and on the archive separator ``!``; archive names count as directories
without their suffix (``worker-1.tar.gz!run/...`` -> ``worker-1``). The names follow the CANN
layouts of formats.md §4: ``plog-<pid>_<ts>.log`` under ``debug/``/``run/``/``security/``,
``device-<id>/device-<pid>_<ts>.log``, ``device-os``, ``event_<ts>.log``, host kernel logs.
Content found by the parser always wins over these hints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from plogscan.schema import SourceKind

_COMPRESSION_SUFFIX = re.compile(r"\.(?:gz|gzip|bz2|xz)$", re.IGNORECASE)
_ARCHIVE_SUFFIX = re.compile(
    r"\.(?:tar\.gz|tar\.bz2|tar\.xz|tgz|tbz2?|txz|tar|zip|gz|gzip|bz2|xz)$", re.IGNORECASE
)
TAR_NAME = re.compile(r"\.(?:tar(?:\.(?:gz|bz2|xz))?|tgz|tbz2?|txz)$", re.IGNORECASE)
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


@lru_cache(maxsize=256)
def split_path(path: str) -> tuple[tuple[str, ...], str]:
    """Directory components (archive names stripped of their suffix) and the file name. The
    walk asks for each file's three times in a row (its hints, its kind, whether it is placed
    like a log): the latest answers are kept."""
    cut = max(path.rfind("/"), path.rfind("!"))
    name = path[cut + 1:]
    if name in ("", ".", ".."):  # the name is the last real component
        parts = _components(path)
        if not parts:
            return (), ""
        name = parts[-1]
        dirs = tuple(_ARCHIVE_SUFFIX.sub("", p) for p in parts[:-1])
    else:
        dirs = _directories(path[:cut]) if cut >= 0 else ()
    while _COMPRESSION_SUFFIX.search(name):
        name = _COMPRESSION_SUFFIX.sub("", name)
    return dirs, name


@lru_cache(maxsize=4096)
def _directories(head: str) -> tuple[str, ...]:
    """``split_path``'s directory components of ``head``, worked out once for all the files
    of a directory (thousands in a big job)."""
    return tuple(_ARCHIVE_SUFFIX.sub("", p) for p in _components(head))


def _components(path: str) -> list[str]:
    """The parts of a path between ``/`` and the archive separator ``!``, but empty, ``.`` and
    ``..``."""
    return [p for p in re.split(r"[/!]", path) if p not in ("", ".", "..")]


def plog_kind(dirs: Sequence[str]) -> SourceKind:
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


def _device_file_is_firmware(dirs: Sequence[str], number: int) -> bool:
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


@lru_cache(maxsize=256)
def name_kind(dirs: tuple[str, ...], name: str) -> SourceKind | None:
    """The kind a CANN or system file name promises, or None for a name that says nothing
    (kept for the next calls: the walk asks twice a file)."""
    parent = dirs[-1].lower() if dirs else ""
    if _PLOG_FILE.fullmatch(name) or _PLOG_OLD_FILE.fullmatch(name):
        return plog_kind(dirs)
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


def suffix(name: str) -> str:
    """``PurePosixPath(name).suffix`` (from the last dot, unless the name starts or ends with
    it), without building a path object for every file of a walk."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


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
    dirs, name = split_path(path)
    where = _directory_hints(dirs)
    rank = _first_int(_RANK_TOKEN, [name])
    if rank is None:
        rank = where.rank
    device: int | None = None
    pid: int | None = None
    name_has_tokens = True
    m = _DEVICE_FILE.fullmatch(name)
    if m:
        name_has_tokens = False
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
        pid = where.app_pid
    if device is None and name_has_tokens:
        device = _first_int(_DEVICE_TOKEN, [name])
    if device is None:
        device = where.device
    if device is None:
        device = _first_int(_DEV_OS_TOKEN, [name])
    if device is None:
        device = where.dev_os
    return where.host, rank, device, pid


class _DirectoryHints(NamedTuple):
    """What a file's directories hint at, nearest directory first (``path_hints``)."""

    host: str | None
    rank: int | None
    device: int | None
    dev_os: int | None
    app_pid: int | None


@lru_cache(maxsize=4096)
def _directory_hints(dirs: tuple[str, ...]) -> _DirectoryHints:
    """``path_hints``'s part that only the directories decide, worked out once for all the
    files of a directory."""
    nearest = list(reversed(dirs))
    host = next((d for d in nearest if _HOST_DIR.fullmatch(d)), None)
    if host is None:
        host = next((d for d in nearest if _MODELARTS_DIR.fullmatch(d)), None)
    return _DirectoryHints(
        host, _first_int(_RANK_TOKEN, nearest), _first_int(_DEVICE_TOKEN, nearest),
        _first_int(_DEV_OS_TOKEN, nearest),
        _first_int(_DEVICE_APP_DIR, [d for d in nearest if _DEVICE_APP_DIR.fullmatch(d)]))


_ROTATED_LOG = re.compile(r".*\.log(?:[._-]\d+|\.old|\.bak)?", re.IGNORECASE)
_LOG_PREFIX = re.compile(r"(?:plog|device)-", re.IGNORECASE)
_LOG_DIRS = frozenset({"debug", "run"})


def placed_like_a_log(path: str, not_log_suffixes: frozenset[str] = frozenset()) -> bool:
    """Whether a path is named or placed like a log: ``*.log`` (and rotated ``*.log.1``),
    ``plog-*``/``device-*``, a CANN or system log name, or a file directly under ``debug/`` or
    ``run/`` (or their ``plog/``). Such a file is read even when its first bytes are junk."""
    dirs, name = split_path(path)
    if not name:
        return False
    suffix = name[name.rfind("."):].lower() if "." in name else ""
    if suffix in not_log_suffixes:
        return False
    if _ROTATED_LOG.fullmatch(name) or _LOG_PREFIX.match(name) or name_kind(dirs, name):
        return True
    parents = [d.lower() for d in dirs[-2:]]
    if parents and parents[-1] in ("plog", "plogs"):
        parents = parents[:-1]
    return bool(parents) and parents[-1] in _LOG_DIRS


# Captured output that people save under these names ("train.txt", "job.out", "rank0.err"):
# read as a log whatever its lines look like, when it is text.
OUTPUT_SUFFIXES = frozenset({".txt", ".out", ".err", ".stdout", ".stderr"})
# Notes that sit beside logs under such a name: what they say is not a log.
_NOTE_NAME = re.compile(
    r"(?:readme|licen[cs]e|copying|notice|changelog|changes|authors|contributing|"
    r"requirements|constraints)(?:[._-][\w.-]*)?", re.IGNORECASE)


def named_like_output(path: str) -> bool:
    """Whether a file's name says it holds captured output (``*.txt``, ``*.out``, ``*.err``),
    and not a note (``README.txt``, ``requirements.txt``, ``LICENSE.txt``)."""
    _dirs, name = split_path(path)
    return suffix(name).lower() in OUTPUT_SUFFIXES and not _NOTE_NAME.fullmatch(name)


def text_kind_by_place(path: str) -> SourceKind:
    """The kind of a text file whose lines match no known shape, read as a log: a system log
    when its name says so (``messages``, ``syslog``...), else text of job output (its lines
    are records of their own, with the level their words give them); a CANN grammar would
    make all of it one unparsed record."""
    dirs, name = split_path(path)
    return SourceKind.SYSLOG if name_kind(dirs, name) is SourceKind.SYSLOG else SourceKind.STDOUT


def log_kind_by_place(path: str) -> SourceKind:
    """The kind of a log whose content matched no known shape: what its name promises, a host
    plog kind under ``debug/``/``run/``, else job output (``stdout``)."""
    dirs, name = split_path(path)
    kind = name_kind(dirs, name)
    if kind is not None:
        return kind
    plog = plog_kind(dirs)
    return plog if plog is not SourceKind.PLOG else SourceKind.STDOUT
