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
    r"cqe Occurred", r"ROCE CQE ERROR", r"remoteIP", r"by rank \[", r"set by default",
    r"set by environment", r"is set, timeOut", r"ExecTimeOut is set", r"is set to default value",
    r"environmental variable", r"is not set", r"get ASCEND_", r"HcclCommResume",
    r"attr init success", r"==> ",
    # identities: a host or a listening address, a physical device id
    r"hostIp\[", r"local address", r"isten on ip\[", r"devPhyId\[",
    # waits: P2P, root-info rendezvous (both ends), the TCP store of torch
    r"physic id", r"P2P Failed", r"topo exchange", r"connect server\[", r"connect agent\[",
    r"connectFailedAgentIdList", r"connected rankinfo", r"need connect rankNum", r"waitForInput",
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

# LINK_ERROR_INFO table cells: ``|  124.0.0.11(1)  |  ...`` (``ip(rank)``), the header row names
# its columns (``dest_ip(rank_id)``, ``dest_ip(user_rank)``, ``MyRole``...); ``links`` reads them.
TABLE_CELL = re.compile(r"^\s*(?P<ip>[0-9A-Fa-f:.]*[0-9][0-9A-Fa-f:.]*)\((?P<rank>\d+)\)\s*$")
# Notify Wait para information: remote rank:[3] / remote rank:[local] / remote rank: [unknown]
REMOTE_RANK = re.compile(r"remote rank:\s*\[(?P<peer>[^\]]+)\]")
# A task exception names the failed task's type: taskType[Notify Wait], taskType[Memcpy]...
TASK_TYPE = re.compile(r"taskType\[(?P<type>[^\]]+)\]")
# EI0002: "...has not received the Notify record from remote rank [1]" / "[unknown]"
EI0002_REMOTE = re.compile(r"from remote rank:? ?\[(?P<peer>[^\]]+)\]")
# AI CPU task exception base information: type:NOTIFY WAIT, localRank:1, remoteRank:0
AICPU_BASE = re.compile(
    r"base information is .*?type:(?P<type>[A-Z_ ]+?), localRank:(?P<local>\d+), "
    r"remoteRank:(?P<peer>\d+)"
)
# Transport set-up: createLink para:rank[1]-localUserrank[1]-localIpAddr[a], dst_rank[0]-
# remoteUserrank[0]-remote_ip_addr[b]
TRANSPORT = re.compile(
    r"remoteUserrank\[(?P<peer>\d+)\]-remote_?[Ii]p_?[Aa]ddr\[(?P<ip>[^\]]*)\]")
# "wait socket establish timeout, role[r] rank[n]": n is the waiting rank itself (userRank);
# the peers are in the LINK_ERROR_INFO table that follows.
SOCKET_WAIT = re.compile(r"wait socket establish timeout, role\[\d+\] rank\[(?P<rank>\d+)\]")
# CONNECT TIMEOUT DETECT RESULT: srcRank (server A, device ID 1) fails to connect to dstRank
# (server B, device ID 0[,2...])
DST_RANK = re.compile(
    r"(?:srcRank \(server (?P<src_ip>[^,\s]+), device ID (?P<src_device>\d+)\) )?"
    r"fails to connect to dstRank \(server (?P<ip>[^,\s]+), device ID (?P<devices>[\d, ]+)\)")
THIS_NODE = re.compile(r"This node \(server (?P<ip>[^,\s]+), device ID (?P<device>\d+)\)")
# P2P: "[Wait][P2PConnected]connected p2p timeout, timeout:120 s. local logicDevid:0, remote
# physic id:3." and "Enable P2P Failed, src devicePhyId[0], dst devicePhyId[3], ret[..]"
P2P_TIMEOUT = re.compile(r"p2p timeout.*?remote physic id:\s*(?P<device>\d+)", re.IGNORECASE)
P2P_ENABLE = re.compile(r"P2P Failed, src devicePhyId\[(?P<src>\d+)\], dst devicePhyId\["
                        r"(?P<device>\d+)\]")
# Root-info rendezvous: an agent that cannot reach the server, the server waiting for agents.
TOPO_AGENT = re.compile(r"topo exchange agent get socket timeout")
CONNECT_SERVER = re.compile(r"connect server\[\s*(?P<ip>[0-9A-Fa-f:.]+)\s*:\s*\d+\s*\]")
TOPO_SERVER = re.compile(r"topo exchange server get socket timeout")
FAILED_AGENTS = re.compile(r"(?:connect agent|connectFailedAgentIdList)\[(?P<ranks>[\d,\s]*)\]")
CONNECTED = re.compile(r"connected rankinfo\[LINE \d+\]:\s*(?P<ranks>(?:\[\d+\][,;]?\s*)+)")
NEED_RANKS = re.compile(r"need connect rankNum is \[(?P<size>\d+)\]")
# torch's TCP store: "waitForInput: socket SocketImpl(fd=.., addr=[A]:p, remote=[B]:q)"
STORE_WAIT = re.compile(
    r"waitForInput: socket SocketImpl\(.*?addr=\[?(?:::ffff:)?(?P<local>[0-9A-Fa-f:.]+?)\]?:\d+,"
    r"\s*remote=\[?(?:::ffff:)?(?P<ip>[0-9A-Fa-f:.]+?)\]?:\d+\)")
# Each rendezvous pattern holds one of these (the patterns run only on a message with one).
RENDEZVOUS_LITERALS = ("topo exchange", "connect server[", "connect agent[",
                       "connectFailedAgentIdList", "connected rankinfo", "need connect",
                       "waitForInput")
# RoCE: an RDMA operation to the remote failed (ERROR CQE).
CQE_REMOTE = re.compile(
    r"remoteIP\s*(?:\{server\[(?P<host>[^\]]*)\](?:,\s*deviceId\[[^\]]*\])?(?:,\s*deviceIp"
    r"\[(?P<ip>[^\]]*)\])?|:?\s*\[(?P<bare>[^\]]+)\])")
# Addresses a process announces as its own.
LOCAL_ADDRESS = re.compile(r"local address (?P<ip>[0-9A-Fa-f:.]*[0-9][0-9A-Fa-f:.]*)")
LISTEN_ON = re.compile(r"[Ll]isten on ip\[(?P<ip>[^\]%]+)")
TAG = re.compile(r"tag\[(?P<tag>[^\]]*)\]")

# Op position of a failed task: tag and index (host task exception) or opIndex (AI CPU).
BASE_INFO = re.compile(
    r"base information is streamID:\[\d+\], taskID\[\d+\], taskType\[(?P<type>[^\]]*)\], "
    r"tag\[(?P<tag>[^\]]*)\](?:, index\[(?P<index>\d+)\])?"
)
OPDATA = re.compile(
    r"opData information is tag:(?P<tag>[^,]*), group:(?P<group>[^,]*), opIndex:(?P<index>\d+)"
)

# HCCL cluster heartbeat: where it located the failure (the crimer, ``IP/ID``: server IP and
# physical device id) and who noticed it (the informer).
CRIMER = re.compile(
    r"crimer rank \[(?P<crimer>[^\]]+)\] status\[(?P<status>[^\]]+)\] "
    r"by informer rank \[(?P<informer>[^\]]+)\]"
)
TRACE_RANK = re.compile(  # older run logs: rank [self]: rank [crimer] status[..] by rank [..]
    r"rank \[[^\]]+\]:\s*rank \[(?P<crimer>[^\]]+)\] status\[(?P<status>[^\]]+)\] "
    r"by rank \[(?P<informer>[^\]]+)\]"
)
LOCATION = re.compile(
    r"Cluster Exception Location\[IP/ID\]:\[(?P<crimer>[^\]]+)\]"
    r"(?:[^\n]*?Discoverer:\[(?P<informer>[^\]]+)\])?(?:[^\n]*?ExceptionType:\[(?P<status>[^\]]+)"
    r"\])?"
)
LOST_PAIR = re.compile(
    r"server:(?P<crimer>[0-9A-Fa-f:.]+/\d+), server:(?P<informer>[0-9A-Fa-f:.]+/\d+), "
    r"(?P<status>Heartbeat Lost Occurred|Stuck Occurred|Error [Cc][Qq][Ee] Occurred)"
)
SERVER_DEVICE = re.compile(
    r"serverId\[(?P<ip>[^\]]+)\],\s*deviceId\[(?P<id>\d+)\],\s*"
    r"(?P<status>Heartbeat Lost Occurred|Stuck Occurred|Error [Cc][Qq][Ee] Occurred)"
)
# Each heartbeat pattern holds one of these (the patterns run only on a message with one).
HEARTBEAT_LITERALS = ("crimer rank", "] status[", "Exception Location", "Occurred")
# The statuses that locate a failure (the crimer failed); others (a notify wait error, retry
# not supported) report a waiter, not a culprit.
CULPRIT_STATUS = re.compile(r"lost|stuck|cqe", re.IGNORECASE)

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
WAIT_TASK_TYPES = frozenset({"NOTIFY WAIT", "Notify Wait", "WAIT", "NOTIFY_WAIT", "Wait",
                             "Notify Record Wait", "Event Wait", "EVENT WAIT"})


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
