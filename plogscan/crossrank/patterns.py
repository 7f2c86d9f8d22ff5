"""The record shapes cross-rank analysis reads, as regular expressions.

Every pattern here matches a message body (the text after the CANN header and the
``[file:line]``/thread prefix) in the shapes HCCL, the runtime and torch_npu really write
(formats.md §1.2, §3, §5, §7 rows 7-12, §9). ``PREFILTER`` is one RE2 alternation of literals
that every shape below contains: it runs vectorized over a whole record batch, and only the
few rows it finds are read with the Python patterns.
"""

from __future__ import annotations

import re

# One literal (or a tiny RE2 fragment) per shape; a row none of them hits is never looked at.
_LITERALS = (
    r"SetupAgent", r"InitRootInfo", r"hcclCommInitInfo", r"Key Info\]", r"groupRank information",
    r"\]\[[0-9]+\]hcom init", r"Entry-Hccl", r"remote rank", r"remoteRank", r"remoteUserrank",
    r"dstRank", r"socket establish timeout", r"base information is", r"opData information is",
    r"crimer rank", r"Cluster Exception Location", r"Lost Occurred", r"Stuck Occurred",
    r"ROCE CQE ERROR", r"set by default", r"set by environment", r"is set, timeOut",
    r"ExecTimeOut is set", r"is set to default value", r"environmental variable", r"is not set",
    r"get ASCEND_", r"HcclCommResume", r"attr init success", r"==> ",
    r"\|  ",  # a LINK_ERROR_INFO table row (literals only: RE2 keeps the scan fast)
)
PREFILTER = "|".join(_LITERALS)

# "==> worker-0/process_log/run/plog/plog-1_2.log <==": the header `tail` prints before each
# file of a pasted concatenation. It may end a record's message (a continuation line).
SEGMENT = re.compile(r"(?m)^==> (?P<name>.+?) <==[ \t]*$")

# key[value] pairs, the way HCCL prints identities: rankNum[3], rank[0], logicDevId[0]...
PAIR = re.compile(r"\b([A-Za-z][A-Za-z_]*)\[([^\[\]]*)\]")
# The lines that announce a rank in a communicator (any of them; pairs are read from the line).
ANNOUNCE = re.compile(
    r"SetupAgent rankNum\[|Entry-HcclCommInitRootInfo\w*:|HcclCommInitRootInfo\w* success"
    r"|hcclCommInitInfo:|\[Communicator Key Info\]|\[LocalRank Key Info\]"
    r"|groupRank information is group:\[|\]\[\d+\]hcom init"
)
GROUP_COLON = re.compile(r"group:\[(?P<group>[^\]]*)\]")
# hccl-<pid>-<n>-<stamp>-<name>: a communicator id whose last part is the group name
COMM_ID = re.compile(r"^hccl-\d+-\d+-\d+-(?P<name>.+)$")
BRACKET_COMM_ID = re.compile(r"\[(hccl-\d+-\d+-\d+-[^\]]+)\]")

# LINK_ERROR_INFO data row: |  dest_ip(rank)  |  src_ip(rank)  |  Role  |  Status  |, a line
# of the table's record (the rows of a table are one record), or a record of its own. Newer
# HCCL builds add port columns: |  dest_ip(rank)  |  dest_port  |  src_ip(rank)  |  src_port  |
# MyRole  |  Status  |  TlsStatus  |.
LINK_ROW = re.compile(
    r"(?m)^[ \t]*\|[ \t]*(?P<dest_ip>[0-9A-Fa-f:.]+)\((?P<dest_rank>\d+)\)[ \t]*\|"
    r"(?:[ \t]*\d+[ \t]*\|)?[ \t]*"
    r"(?P<src_ip>[0-9A-Fa-f:.]+)\((?P<src_rank>\d+)\)[ \t]*\|(?:[ \t]*\d+[ \t]*\|)?"
    r"[ \t]*(?P<role>\w+)[ \t]*\|[ \t]*(?P<status>[^|\n]*?)[ \t]*\|"
)
# Notify Wait para information: remote rank:[3] / remote rank:[local]
REMOTE_RANK = re.compile(r"remote rank:\s*\[(?P<peer>[^\]]+)\]")
# EI0002: "...has not received the Notify record from remote rank [1]" / "[unknown]"
EI0002_REMOTE = re.compile(r"from remote rank \[(?P<peer>[^\]]+)\]")
# AI CPU task exception base information: type:NOTIFY WAIT, localRank:1, remoteRank:0
AICPU_BASE = re.compile(
    r"base information is .*?type:(?P<type>[A-Z_ ]+?), localRank:(?P<local>\d+), "
    r"remoteRank:(?P<peer>\d+)"
)
TRANSPORT = re.compile(
    r"remoteUserrank\[(?P<peer>\d+)\]-remote_?[Ii]p_?[Aa]ddr\[(?P<ip>[^\]]*)\]")
SOCKET_WAIT = re.compile(r"wait socket establish timeout, role\[\d+\] rank\[(?P<peer>\d+)\]")
DST_RANK = re.compile(r"fails to connect to dstRank \(server (?P<ip>[^,\s]+), "
                      r"device ID (?P<device>\d+)\)")
TAG = re.compile(r"tag\[(?P<tag>[^\]]*)\]")

# Op position of a failed task: tag and index (host task exception) or opIndex (AI CPU).
BASE_INFO = re.compile(
    r"base information is streamID:\[\d+\], taskID\[\d+\], taskType\[(?P<type>[^\]]*)\], "
    r"tag\[(?P<tag>[^\]]*)\](?:, index\[(?P<index>\d+)\])?"
)
OPDATA = re.compile(
    r"opData information is tag:(?P<tag>[^,]*), group:(?P<group>[^,]*), opIndex:(?P<index>\d+)"
)

# HCCL cluster heartbeat: who is the culprit (crimer), who noticed (informer).
CRIMER = re.compile(
    r"crimer rank \[(?P<crimer>[^\]]+)\] status\[(?P<status>[^\]]+)\] "
    r"by informer rank \[(?P<informer>[^\]]+)\]"
)
LOCATION = re.compile(
    r"Cluster Exception Location\[IP/ID\]:\[(?P<crimer>[^\]]+)\]"
    r"(?:.*?Discoverer:\[(?P<informer>[^\]]+)\])?(?:.*?ExceptionType:\[(?P<status>[^\]]+)\])?"
)
LOST_PAIR = re.compile(
    r"server:(?P<crimer>[0-9A-Fa-f:.]+/\d+), server:(?P<informer>[0-9A-Fa-f:.]+/\d+), "
    r"(?P<status>Heartbeat Lost Occurred|Stuck Occurred|Error CQE Occurred)"
)
CQE_REMOTE = re.compile(r"\[ROCE CQE ERROR\].*?remoteIP\{server\[(?P<crimer>[^\]]+)\]")

# Collective entry logs (HCCL_ENTRY_LOG_ENABLE=1): Entry-HcclAllReduce: tag[...], count[..]...
ENTRY = re.compile(r"Entry-Hccl(?P<op>[A-Za-z]+):\s*tag\[(?P<tag>[^\]]*)\]")
ENTRY_COUNT = re.compile(r"\bcount\[(?P<count>\d+)\]")
ENTRY_DTYPE = re.compile(r"\bdataType\[(?P<dtype>[^\]]*)\]")
# Entry-Hccl<Op> names that are not collectives of a communicator's sequence.
NOT_COLLECTIVE = re.compile(r"^(?:Comm|Get|Set|Create|Destroy|Init|Finalize|Group)")

# Settings each process prints ([HCCL_ENV] dump and older shapes, formats.md §9).
SETTINGS = (
    re.compile(r"(?P<key>HCCL_[A-Z0-9_]+) set by (?P<source>default|environment)"
               r"(?: variable)? to \[(?P<value>[^\]]*)\](?P<unit>[A-Za-z]*)"),
    re.compile(r"environmental variable (?P<key>HCCL_[A-Z0-9_]+) is set, "
               r"timeOut\[(?P<value>[^\]]*)\]"),
    re.compile(r"(?P<key>ExecTimeOut) is set to timeOut\[(?P<value>[^\]]*)\]"),
    re.compile(r"(?P<key>HCCL_[A-Z0-9_]+) is set to default value \[(?P<value>[^\]]*)\]"
               r"(?P<unit>[A-Za-z]*)"),
    re.compile(r"environmental variable (?P<key>HCCL_[A-Z0-9_]+) is \[(?P<value>[^\]]*)\]"),
    re.compile(r"(?P<key>HCCL_[A-Z0-9_]+) is not set(?P<value>)"),
)
# Each SETTINGS pattern holds one of these literals outside any optional part, so a message
# with neither holds no setting (most messages: the patterns are not run on them).
SETTINGS_LITERALS = ("HCCL_", "ExecTimeOut")
ASCEND_ENV = re.compile(r"(?P<key>ASCEND_[A-Z0-9_]+) \[(?P<value>[^\]]*)\]")
KEY_ALIASES = {"ExecTimeOut": "HCCL_EXEC_TIMEOUT"}

# A process's lifetime markers.
RESUME = re.compile(r"HcclCommResume\w*\s*:?\s*success", re.IGNORECASE)
PROCESS_START = re.compile(r"attr init success")

# A record that reports a failure elsewhere, not on its own rank (torch_npu's remote tag).
REMOTE_REPORT = re.compile(r"SUSPECT REMOTE ERROR")

# Timeouts: what marks a waiting rank (victim) rather than a failing one.
TIMEOUT_TEXT = re.compile(
    r"notify wait|time[sd]? ?out(?! or trap)|no connect|EI000[26]|get socket timeout"
    r"|\b50704[678]\b|\b107019\b", re.IGNORECASE)
WAIT_TASK_TYPES = frozenset({"NOTIFY WAIT", "Notify Wait", "WAIT", "NOTIFY_WAIT"})


def ip_of(text: str | None) -> str | None:
    """The IP part of ``10.0.0.1%eth0`` or ``10.0.0.1``; None when there is none."""
    if not text:
        return None
    head = text.split("%", 1)[0].strip()
    return head if re.fullmatch(r"[0-9A-Fa-f:.]*[0-9][0-9A-Fa-f:.]*", head) and (
        "." in head or ":" in head) else None


def int_or_none(text: str | None, limit: int = 1 << 31) -> int | None:
    """``text`` as a non-negative int below ``limit`` (4294967295 and the like mean "none")."""
    if text is None:
        return None
    text = text.strip()
    if not text.isdigit():
        return None
    value = int(text)
    return value if value < limit and value != 0xFFFFFFFF else None
