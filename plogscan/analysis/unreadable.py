"""Inputs that could not be read as logs, as a finding: ``INPUT001``, an ``evidence-gap`` at
error level, so that a corrupted or incomplete log collection fails a CI hook instead of
passing it.

Two kinds of file make it, from ingest's accounting alone (``IngestSummary``):

* a file found in a tree or an archive that could not be opened or read at all: unreadable
  (``Permission denied``, an I/O error), a corrupt or encrypted archive or member, corrupt
  compressed data, a compression plogscan does not read, or a compressed stream that stopped
  before its end (``read stopped after N bytes``);
* a file read as a log (named on the command line, or named or placed like one) that is not
  text, measured in bytes: NUL bytes, control bytes (``textbytes.CONTROL_BYTES``) and bytes that
  are not UTF-8 (counted as replaced sequences, about one per byte of binary data). The file
  is unreadable when ``NOT_TEXT_SHARE`` of its bytes are such bytes and at least
  ``NOT_TEXT_MIN_BYTES`` of them. Random binary data is about 60% such bytes (a NUL in 256,
  one C0 control in ten, and most bytes of 0x80 and above not forming UTF-8), so two log lines
  followed by a few hundred bytes of garbage pass the share; a real log with a few stray bytes
  (a backspace from a progress bar, a Latin-1 name, a torn NUL) stays far below it, and the
  floor keeps a short file with a handful of them from tripping it.

A path named on the command line that could not be read at all is not this finding: it is an
input error (``IngestSummary.errors``, exit code 2).

The finding has no evidence record (the files are the evidence; its description names them,
the inputs section of every report lists them all) and no process, so it is never folded into
another incident, and the incidents put it after every fault the readable files show
(``incidents.build``): what could not be read never outranks what was found.

Must not import: ``report``, ``cli``, ``diagnose``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from plogscan.lang import Catalogue
from plogscan.model import Finding, IngestSummary, Level, RuleInfo, Scope, Verdict

RULE_ID = "INPUT001"
NAME = "inputs.unreadable"
CATEGORY = "evidence-gap"
LEVEL = Level.ERROR
NOT_TEXT_SHARE = 0.10  # of a file's bytes
NOT_TEXT_MIN_BYTES = 32
MAX_NAMED = 10  # files named in the description; the inputs section lists every one
# What ingest says of a file in a tree or an archive it could not open or read to the end.
UNOPENED = ("unreadable: ", "corrupt archive", "corrupt data: ", "encrypted archive member",
            "unsupported compression: ")
STOPPED = "read stopped after "

TITLE = "Log files that could not be read"
RULE_DESCRIPTION = (
    "Input files that could not be read as logs: not opened, not read to their end, or mostly "
    "not text. Whatever they held is missing from the diagnosis.")
DESCRIPTION = (
    "{n} input files could not be read as logs: {files}. The findings drawn from the other "
    "files stand, but whatever these files held is missing from this diagnosis, so a fault "
    "recorded there is not seen.")
DESCRIPTION_ONE = (
    "An input file could not be read as a log: {files}. The findings drawn from the other "
    "files stand, but whatever this file held is missing from this diagnosis, so a fault "
    "recorded there is not seen.")
REMEDIATION = (
    "Collect these logs again from the machines that wrote them, as the text files the job "
    "wrote: copy the log directories whole after the processes exited (or with asys "
    "collect), not files still being written, and check that the disk was not full.",
    "For an archive or compressed file that cannot be opened, unpack it with its own tool or "
    "collect it again; for a permission error, run plogscan as a user that can read the "
    "files.",
    "A log that is mostly NUL bytes was preallocated or cut short when its process or host "
    "stopped: what it should hold is lost; read the same time span in the logs of the other "
    "ranks and in the job's stdout.",
)

words = Catalogue("unreadable", {"zh": {
    TITLE: "无法读取的日志文件",
    RULE_DESCRIPTION: "无法作为日志读取的输入文件：未能打开、未能读到末尾，或大部分内容不是文本。"
                      "其中的内容没有进入诊断。",
    DESCRIPTION_ONE: "有 1 个输入文件无法作为日志读取：{files}。根据其他文件得出的发现仍然成立，"
                     "但该文件记录的内容没有进入本次诊断，其中记录的故障无法被发现。",
    DESCRIPTION: "有 {n} 个输入文件无法作为日志读取：{files}。根据其他文件得出的发现仍然成立，"
                 "但这些文件记录的内容没有进入本次诊断，其中记录的故障无法被发现。",
    REMEDIATION[0]: "从写出这些日志的机器上重新收集文本日志：在进程退出后整体复制日志目录（或使用 "
                    "asys collect），不要复制仍在写入的文件，并确认磁盘没有写满。",
    REMEDIATION[1]: "无法打开的归档或压缩文件，请用其自身的工具解开或重新收集；"
                    "权限错误时，请以能读取这些文件的用户运行 plogscan。",
    REMEDIATION[2]: "大部分是 NUL 字节的日志是预分配的文件，或在进程、主机停止时被截断："
                    "其中本应记录的内容已经丢失；"
                    "请查看其他 rank 的日志和作业标准输出中同一时间段的记录。",
    "{path}: {what}": "{path}：{what}",
    "{bad:,} of {total:,} bytes are not text": "{total:,} 字节中有 {bad:,} 字节不是文本",
    "{summary} ({parts})": "{summary}（{parts}）",
    "{n:,} NUL": "NUL {n:,}",
    "{n:,} control": "控制字符 {n:,}",
    "{n:,} not UTF-8": "非 UTF-8 {n:,}",
    "could not be opened: {reason}": "无法打开：{reason}",
    "not read to its end: {reason}": "未读到末尾：{reason}",
    "and {n} more (the inputs section lists them)": "另有 {n} 个（见输入部分）",
}})


@dataclass(frozen=True)
class Unreadable:
    """One input file that could not be read as a log, and why."""

    path: str
    reason: str  # ingest's words for a file that was not opened or not read to its end
    bytes: int = 0  # the file's bytes (read as a log)
    nul: int = 0
    control: int = 0
    undecodable: int = 0

    @property
    def not_text(self) -> int:
        return not_text_bytes(self.nul, self.control, self.undecodable)


def not_text_bytes(nul: int, control: int, undecodable: int) -> int:
    """The bytes of a file that are not text: NUL, control and undecodable bytes."""
    return nul + control + undecodable


def mostly_not_text(size: int, not_text: int) -> bool:
    """Whether a file of ``size`` bytes with ``not_text`` such bytes is unreadable as a log
    (see the module docstring for the threshold)."""
    return not_text >= NOT_TEXT_MIN_BYTES and not_text >= NOT_TEXT_SHARE * size


def unreadable_files(inputs: IngestSummary) -> list[Unreadable]:
    """Every file of ``inputs`` that could not be read as a log, in path order."""
    found = [Unreadable(s.path, s.reason) for s in inputs.skipped
             if s.reason.startswith(UNOPENED)]
    for f in inputs.files:
        bad = not_text_bytes(f.nul_bytes, f.control_bytes, f.decode_errors)
        stopped = next((p for p in f.problems if p.startswith(STOPPED)), None)
        if mostly_not_text(f.bytes, bad):
            found.append(Unreadable(f.path, "", f.bytes, f.nul_bytes, f.control_bytes,
                                    f.decode_errors))
        elif stopped is not None:
            found.append(Unreadable(f.path, stopped))
    return sorted(found, key=lambda u: u.path.split("/"))


def rule_info(lang: str = "en") -> RuleInfo:
    """What reports list for the check that makes the finding (SARIF rules, JUnit cases)."""
    return RuleInfo(id=RULE_ID, name=NAME, title=words(lang, TITLE), category=CATEGORY,
                    level=LEVEL, description=words(lang, RULE_DESCRIPTION),
                    remediation=tuple(words(lang, r) for r in REMEDIATION))


def _what(item: Unreadable, lang: str, reason_words: Callable[[str], str]) -> str:
    """What is wrong with one file, in ``lang``."""
    if item.reason.startswith(STOPPED):
        return words(lang, "not read to its end: {reason}", reason=reason_words(item.reason))
    if item.reason:  # "unreadable: Permission denied" says "could not be opened" twice
        return words(lang, "could not be opened: {reason}",
                     reason=reason_words(item.reason.removeprefix("unreadable: ")))
    parts = [words(lang, key, n=n) for key, n in (
        ("{n:,} NUL", item.nul), ("{n:,} control", item.control),
        ("{n:,} not UTF-8", item.undecodable)) if n]
    summary = words(lang, "{bad:,} of {total:,} bytes are not text", bad=item.not_text,
                    total=item.bytes)
    return words(lang, "{summary} ({parts})", summary=summary,
                 parts=("、" if lang == "zh" else ", ").join(parts))


def unreadable_finding(inputs: IngestSummary, lang: str = "en",
                       reason_words: Callable[[str], str] = str) -> Finding | None:
    """The ``INPUT001`` finding for ``inputs``, or None when every file could be read.
    ``reason_words`` puts ingest's reasons in ``lang``."""
    found = unreadable_files(inputs)
    if not found:
        return None
    listed = [words(lang, "{path}: {what}", path=u.path,
                    what=_what(u, lang, reason_words))
              for u in found[:MAX_NAMED]]
    if len(found) > MAX_NAMED:
        listed.append(words(lang, "and {n} more (the inputs section lists them)",
                            n=f"{len(found) - MAX_NAMED:,}"))
    separator = "；" if lang == "zh" else "; "
    key = json.dumps([RULE_ID, [u.path for u in found]], ensure_ascii=True).encode()
    return Finding(
        fingerprint=hashlib.sha256(key).hexdigest()[:16], rule=RULE_ID, name=NAME,
        title=words(lang, TITLE), category=CATEGORY, level=LEVEL, verdict=Verdict.MATCH,
        description=words(lang, DESCRIPTION_ONE if len(found) == 1 else DESCRIPTION,
                          n=f"{len(found):,}", files=separator.join(listed)),
        scope=Scope(), first_ts=None, last_ts=None, evidence=(),
        remediation=tuple(words(lang, r) for r in REMEDIATION),
        captures=(("files", str(len(found))),))
