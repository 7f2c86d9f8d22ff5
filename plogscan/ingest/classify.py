"""What a readable file is: a CANN plog, a device log, job stdout, a system log, or nothing
known, from its name, path and first bytes.

Binary sniffing
    Control bytes (NUL and C0 controls other than tab, newlines, form feed and escape) are
    counted in the head. More than 30% makes a ``binary file``. A file with more than 5% that
    also matches no known log shape is reported as binary too. Anything less is text: a log with
    a few NULs or invalid UTF-8 (GBK, garbage bytes) is still a log.

Classification (``classify``): content first, name and path as the fallback; see its docstring.
With a ``KindMemo`` (the extraction cache) a kind found before for the same name and head is
taken from it (``remembered_kind``).
The sniff takes the prefixes of the format YAML off each line first (quotes, docker-compose
services, process prefixes, collector timestamps...) and knows the YAML's stdout formats, so a
shape added there is recognised here too.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import numpy as np

from plogscan.datafile.compiled import own_patterns
from plogscan.parse.codescan import codes_in, may_hold_codes
from plogscan.parse.formatcheck import builtin_formats
from plogscan.parse.lineformats import MAX_PREFIXES, Strip
from plogscan.pathhints import name_kind, plog_kind, split_path, suffix
from plogscan.schema import SourceKind

SNIFF_LINE_CHARS = 512  # only the start of each line matters to the sniff regexes
BINARY_RATIO = 0.30
SUSPECT_RATIO = 0.05
_NON_TEXT_BYTES = bytes(
    b for b in range(256) if (b < 32 and b not in b"\t\n\v\f\r\x1b") or b == 127
)


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
# Files whose text is read whenever a line holds a known error code (EZ9999, ERR00100, "error
# code is 507015"...), whatever its shape: pasted logs and captured output. Other files need a
# line of a known shape.
PASTE_SUFFIXES = frozenset({"", ".log", ".txt", ".out", ".err", ".stdout", ".stderr"})
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


@dataclass(frozen=True)
class _Shapes:
    """The format YAML's prefixes and stdout formats as Python regexes for the sniff."""

    prefixes: re.Pattern[str]  # alternatives named p0, p1...
    identity: frozenset[str]  # the alternatives that name a pid or a rank
    formats: re.Pattern[str] | None  # every non-primary format that is not ``alone``
    strips: tuple[Strip, ...]
    line_prefix: re.Pattern[str]  # a prefix after a newline, in a whole text (``re.M``)

    def starts_a_line(self, text: str) -> bool:
        """Whether a prefix may start a line of ``text``. It answers yes wherever ``inner``
        would take one off (``$`` in a prefix ends a line under ``re.M`` as it ends a line
        alone), and perhaps on a few more lines: it only chooses the slower, exact path."""
        return bool(self.prefixes.match(text)) or self.line_prefix.search(text) is not None

    def inner(self, line: str) -> tuple[str, bool]:
        """The line without its prefixes, and whether a prefix naming a process was there."""
        pos, named = 0, False
        for _ in range(MAX_PREFIXES):
            m = self.prefixes.match(line, pos)
            if m is None or m.end() == pos:
                break
            named = named or m.lastgroup in self.identity
            pos = m.end()
        return line[pos:], named


@lru_cache(maxsize=1)
def _shapes() -> _Shapes:
    fset = builtin_formats()
    plain = [_NAMED_GROUP.sub("(?:", p.pattern) for p in fset.prefixes]
    identity = frozenset(f"p{i}" for i, p in enumerate(fset.prefixes)
                         if {"pid", "rank"} & {g.split("_")[0] for g in p.groups})
    others = [_NAMED_GROUP.sub("(?:", f.pattern) for f in fset.formats[1:] if not f.alone]
    with own_patterns():  # of the built-in formats: 15 ms to compile, kept between runs
        prefixes = re.compile("|".join(f"(?P<p{i}>{p})" for i, p in enumerate(plain)))
        formats = re.compile("|".join(f"(?:{p})" for p in others)) if others else None
        # a literal newline first: the search skips from line to line at C speed
        line_prefix = re.compile("\n(?:" + "|".join(f"(?:{p})" for p in plain) + ")", re.M)
    return _Shapes(prefixes, identity, formats, fset.strips, line_prefix)


# The header lines of a whole head, for ``re.split``: ``_CANN_HEADER`` with nothing that can
# cross a newline, the facts ``_Sniff.count_headers`` reads as groups (module, "-" of a
# negative pid, pname, a ``[klogd.c:`` that starts the body, the rest of the body).
_HEADER_LINES = re.compile(
    r"^\[(?:[A-Z]+|\d+)\][^\S\n]?([A-Za-z0-9_]+)\((-?)\d+,([^),\n]*)\):[^\S\n]?"
    r"\d\d\d\d-\d\d-\d\d[- ]\d\d:\d\d:\d\d\.\d\d\d\.\d\d\d"  # faster than \d{4} in re
    r"( ?\[klogd\.c:)?([^\n]*)",
    re.M,
)
_HEADER_GROUPS = 5

# Device-side hints inside CANN headers.
_FIRMWARE_MODULES = frozenset({"TSCH", "LPM", "MCU", "IMP", "IMU", "TS", "TSDUMP"})
_DEVICE_OS_PNAMES = frozenset({"sklogd", "slogd", "tsdaemon", "dmp_daemon"})
_DEVICE_APP_PNAME_PREFIXES = ("aicpu_", "hccp_service")
_EVENT_BODY = re.compile(r"event_id[=:]|Event id=|\[fault_manager\]")


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
    def of(cls, head: bytes, signatures: bool = False, *, line_by_line: bool = False
           ) -> _Sniff:
        """Counts over the head's lines, prefixes taken off; with ``signatures``, a line with
        a known error code counts as stdout whatever its shape.

        When no prefix starts a line, the CANN header lines (most lines of most heads) are
        counted in one regex pass over the whole text (``count_headers``: the sniff of a
        plog head takes about 0.6 of the time); the other lines, and every line of a head
        where a prefix may start one, are judged one by one (``count_line``).
        ``line_by_line`` judges every line alone: the counts are the same (the tests hold
        the two paths to that)."""
        shapes = _shapes()
        head = head.replace(b"\x00", b"")
        for strip in shapes.strips:
            head = strip.apply(head)
        text = _lines_cut(head.decode("utf-8", "replace"), head)
        s = cls()
        rest = (text if line_by_line or shapes.starts_a_line(text)
                else s.count_headers(text))
        unknown = [line for raw in filter(None, rest.split("\n")) if raw.strip()
                   if (line := s.count_line(raw, shapes)) is not None]
        if signatures and unknown and may_hold_codes("\n".join(unknown)):
            s.stdout += sum(1 for line in unknown if codes_in(line))
        return s

    def count_headers(self, text: str) -> str:
        """Count the CANN header lines of ``text`` that no prefix starts; return the text of
        its other lines (each header line left as an empty one)."""
        parts = _HEADER_LINES.split(text)  # text, 5 groups, text, 5 groups, ..., text
        period = _HEADER_GROUPS + 1
        modules, negative, pnames, klogd, bodies = (parts[i::period] for i in range(1, period))
        self.cann += len(modules)
        self.firmware += negative.count("-")
        for (module, n, pname, klogd_body), times in Counter(zip(modules, negative, pnames,
                                                                   klogd, strict=True)).items():
            if not n:
                self._count_process(module, pname, bool(klogd_body), times)
        # "[klogd.c:" holds no part of an event marker, so the rest of the body is enough
        self.event += sum(1 for n, body in zip(negative, bodies, strict=True)
                          if not n and "vent" in body and _EVENT_BODY.search(body))
        return "".join(parts[::period])

    def count_line(self, raw: str, shapes: _Shapes) -> str | None:
        """Count one line of the head (not blank) by its shape; a line of no known shape is
        returned without its prefixes (for the error codes a pasted log is known by)."""
        line, named = shapes.inner(raw[:SNIFF_LINE_CHARS])
        if line.startswith("["):
            m = _CANN_HEADER.match(line)
            if m:
                self._count_header(*m.groups())
                return None
            if _MINDSPORE_HEADER.match(line):
                self.stdout += 1
                return None
        if _STDOUT_LINE.match(line) or named:
            self.stdout += 1
        elif _SYSLOG_LINE.match(line):
            self.syslog += 1
        elif shapes.formats is not None and shapes.formats.match(line):
            self.stdout += 1
        else:
            return line
        return None

    def _count_header(self, module: str, pid: str, pname: str, body: str) -> None:
        self.cann += 1
        if pid.startswith("-"):
            self.firmware += 1
            return
        if "vent" in body and _EVENT_BODY.search(body):
            self.event += 1
        self._count_process(module, pname, body.startswith(("[klogd.c:", " [klogd.c:")), 1)

    def _count_process(self, module: str, pname: str, klogd_body: bool, times: int) -> None:
        """Count ``times`` headers of a process (not firmware) by what its name says."""
        if module == "KERNEL" or pname in _DEVICE_OS_PNAMES:
            self.device_os += times
            if pname in ("sklogd", "klogd") or klogd_body:
                self.klogd = True
        if pname.startswith(_DEVICE_APP_PNAME_PREFIXES):
            self.device_app += times

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


def _lines_cut(text: str, data: bytes) -> str:
    """``text`` (decoded from ``data``) with each line cut to ``SNIFF_LINE_CHARS``
    characters. A line has no more characters than bytes, so when no line of ``data`` is
    longer than that the text is returned as it is, without splitting it."""
    if len(data) <= SNIFF_LINE_CHARS:  # most small files: no call into numpy
        return text
    newlines = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
    bounds = np.concatenate(([-1], newlines, [len(data)]))
    if int(np.diff(bounds).max()) - 1 <= SNIFF_LINE_CHARS:
        return text
    return "\n".join(line[:SNIFF_LINE_CHARS] for line in text.split("\n"))


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
    * The prefixes of the format YAML are taken off each line before its shape is judged (a
      ``> `` quote, a docker-compose service, a process prefix...), and the YAML's stdout
      formats (Python logging, loguru, MindIE, vLLM...) are shapes too. A pasted log
      (``.log``, ``.txt``, ``.out``, no suffix, standard input) is STDOUT when any line holds
      a known error code, whatever its shape.
    * When no line has a known shape, a CANN or system log name still decides (the parser
      keeps unknown lines as unparsed records, so nothing is lost); any other name gives None.
    """
    dirs, name = split_path(path)
    named = name_kind(dirs, name)
    s = _Sniff.of(head, suffix(name).lower() in PASTE_SUFFIXES)
    if s.stdout:
        if s.cann and named in _CANN_KINDS:
            return s.device_kind() or named
        if s.syslog > s.stdout + s.cann:
            return SourceKind.SYSLOG
        return SourceKind.STDOUT
    if s.cann and s.cann >= s.syslog:
        kind = s.device_kind()
        if kind is not None:
            return kind
        if named in (
            SourceKind.DEVICE_APP,
            SourceKind.DEVICE_OS,
            SourceKind.EVENT,
            SourceKind.DEVICE_FW,
        ):
            return named
        return plog_kind(dirs)
    if s.syslog:
        return SourceKind.SYSLOG
    return named


class KindMemo(Protocol):
    """Kinds found earlier (the extraction cache's), by ``kind_key``; "" stands for None."""

    def find_kind(self, key: str) -> str | None: ...

    def save_kind(self, key: str, kind: str) -> None: ...


def kind_key(path: str, head: bytes) -> str:
    """What ``classify`` depends on, as a digest: the name and the head it sniffs."""
    return hashlib.sha256(path.encode("utf-8", "surrogateescape") + b"\0" + head).hexdigest()


def remembered_kind(memo: KindMemo, path: str, head: bytes) -> SourceKind | None:
    """``classify(path, head)``, from ``memo`` when it holds it (else classified and kept
    there): the sniff of a head's lines costs about a millisecond a file, and needs the line
    formats loaded, which a rerun that reads every file from the cache would not need."""
    key = kind_key(path, head)
    found = memo.find_kind(key)
    if found is not None:
        try:
            return SourceKind(found) if found else None
        except ValueError:
            pass  # not a kind this code knows: classified again
    kind = classify(path, head)
    memo.save_kind(key, kind.value if kind is not None else "")
    return kind


def non_text_ratio(head: bytes) -> float:
    if not head:
        return 0.0
    return (len(head) - len(head.translate(None, _NON_TEXT_BYTES))) / len(head)

