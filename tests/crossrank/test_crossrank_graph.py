"""The wait graph, edge by edge, and each rule of the decision, on logs written here in the
shapes HCCL, torch and pasted excerpts really have (docs/crossrank.md).

Extraction: a ``LINK_ERROR_INFO`` table read from separate row records and from one multi-line
record, in both column layouts; ``[rankN]:`` pastes of several ranks; a table of abnormal
devices from the heartbeat; the connection detector's result; P2P, RoCE, root-info and TCP-store
waits. Identity: the file's pid owns its records; a line pid of its own only with an identity of
its own; a job's stdout joins the process of its rank; an announced address is never missing.
Decision: one case per rule, and the graph's cap.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.catalog.ruleset import load_rules
from plogscan.crossrank import patterns as p
from plogscan.crossrank.anchors import read_anchor
from plogscan.crossrank.graph import Edge, WaitGraph
from plogscan.crossrank.identity import Identities, Identity, ProcessKey
from plogscan.crossrank.resolve import Node
from plogscan.crossrank.rootcause import MAX_EDGES, graph_view
from plogscan.crossrank.summary import StreamKey, Summary
from plogscan.report.json_report import document
from tests.helpers import diagnosed

T0 = datetime(2026, 6, 2, 14, 0, 0)
RULES = load_rules([])
KEY = StreamKey("x.log", 0, 7)


def ts(t: datetime) -> str:
    return f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"


def rec(pid: int, t: datetime, body: str, level: str = "INFO", module: str = "HCCL") -> str:
    return f"[{level}] {module}({pid},python3):{ts(t)} [x.cc:1] [{pid}]{body}\n"


def read(message: str) -> dict[str, list]:
    found: dict[str, list] = {}

    class Sink:
        def add(self, name: str, item: object) -> None:
            found.setdefault(name, []).append(item)
    read_anchor(Sink(), KEY, 10, None, message)
    return found


def diagnose(root: Path, files: dict[str, str]) -> dict:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return document(diagnosed([str(root)], rules=RULES, context_lines=0, workers=1))


# ---------------------------------------------------------------------- extraction

OLD_HEADER = "   |  dest_ip(rank_id)  |  src_ip(rank_id)   |   Role   |   Status   |"
NEW_HEADER = ("   |  dest_ip(user_rank)  |   dest_port   |  src_ip(user_rank)   |   src_port   "
              "|   MyRole   |   Status   |    TlsStatus   |")


@pytest.mark.parametrize("rows", [
    ["   |  10.1.0.7(5)   |   10.1.0.3(1)   |  client  | time out |"],
    ["   |  10.1.0.7(5)  |  16666  |   10.1.0.3(1)   |  3221  |  client  | time out |  "
     "DISABLE  | LinkInfo"],
])
def test_a_link_table_row_is_a_socket_wait_alone_or_joined_with_its_header(rows) -> None:
    header = OLD_HEADER if rows[0].count("|") < 7 else NEW_HEADER
    joined = "\n".join(["   ____LINK_ERROR_INFO____", "   |  comm error, device[1]", header,
                        "   |-----|-----|", *rows, "   ________"])
    for message in (rows[0], joined):
        (wait,) = read(message)["waits"]
        assert (wait.kind, wait.peer_ip, wait.peer_rank) == ("socket", "10.1.0.7", 5)
        assert (wait.local_ip, wait.local_rank) == ("10.1.0.3", 1)
        assert "client" in wait.detail and "time out" in wait.detail
    assert read(joined)["waits"][0].line == 14  # the row's own line in the record


def test_a_header_that_lists_the_source_first_is_followed() -> None:
    message = "|  src_ip(rank_id)  |  dest_ip(rank_id)  |  Role  |  Status  |\n" \
              "|  10.1.0.3(1)  |  10.1.0.7(5)  |  server  |  no connect  |"
    (wait,) = read(message)["waits"]
    assert (wait.peer_ip, wait.peer_rank, wait.local_rank) == ("10.1.0.7", 5, 1)


def test_the_own_rank_of_a_socket_wait_is_an_identity_not_a_peer() -> None:
    found = read("[Wait][LinkEstablish]wait socket establish timeout, role[1] rank[6] "
                 "timeout[120 s]")
    assert "waits" not in found
    (own,) = found["announces"]
    assert (own.kind, own.rank) == ("own-rank", 6)


def test_the_connection_detector_names_server_and_device() -> None:
    found = read("This node (server 10.2.0.5, device ID 2) detects that srcRank (server "
                 "10.2.0.5, device ID 2) fails to connect to dstRank (server 10.2.0.9, device "
                 "ID 4,6). Continue to analyze the fault based on the logs of srcRank and dstRank.")
    assert [(w.kind, w.peer_host, w.peer_device) for w in found["waits"]] == [
        ("socket", "10.2.0.9", 4), ("socket", "10.2.0.9", 6)]
    (node,) = found["announces"]
    assert (node.server_ip, node.phy_device) == ("10.2.0.5", 2)


@pytest.mark.parametrize("message", [
    "[Wait][P2PConnected]connected p2p timeout, timeout:120 s. local logicDevid:1, remote "
    "physic id:6.",
    "[Create][DestSockets]Enable P2P Failed, src devicePhyId[1], dst devicePhyId[6], ret[4]",
])
def test_p2p_waits_name_a_device_of_the_same_host(message: str) -> None:
    (wait,) = read(message)["waits"]
    assert (wait.kind, wait.peer_device, wait.peer_host) == ("p2p", 6, None)


def test_a_heartbeat_table_gives_every_location() -> None:
    message = ("there are(is) 2 abnormal device(s):\n"
               "    Cluster Exception Location[IP/ID]:[10.3.0.2/1], Arrival Time:[Mon Jun  1 "
               "10:00:00 2026], Discoverer:[10.3.0.1/0], ExceptionType:[Heartbeat Lost "
               "Occurred], Possible Reason:1. Process has exited\n"
               "    Cluster Exception Location[IP/ID]:[10.3.0.4/7], Arrival Time:[Mon Jun  1 "
               "10:00:01 2026], ExceptionType:[Stuck Occurred], Possible Reason:1.Host process "
               "is stuck")
    beats = read(message)["heartbeats"]
    assert [(b.culprit, b.status, b.informer) for b in beats] == [
        ("10.3.0.2/1", "Heartbeat Lost Occurred", "10.3.0.1/0"),
        ("10.3.0.4/7", "Stuck Occurred", None)]
    older = read("[HCCL_TRACE]rank [10.3.0.1/0]: rank [10.3.0.2/1] status[LOST] by rank "
                 "[10.3.0.1/0]")["heartbeats"]
    assert [(b.culprit, b.status) for b in older] == [("10.3.0.2/1", "LOST")]
    legacy = read("serverId[10.3.0.8], deviceId[2], Heartbeat Lost Occurred, Possible Reason: "
                  "1. Process has exited")["heartbeats"]
    assert [b.culprit for b in legacy] == ["10.3.0.8/2"]


def test_roce_rendezvous_and_store_waits() -> None:
    cqe = read("[HeartbeatAbnormal][ROCE CQE ERROR]cqe error status[12], time:[2026-06-01 "
               "10:00:00.1],localInfo{server[10.4.0.1],deviceId[10.4.0.1],deviceIp[10.5.0.1]}, "
               "remoteIP{server[10.4.0.2],deviceId[10.4.0.2],deviceIp[10.5.0.2]}")["waits"]
    assert [(w.kind, w.peer_ip, w.peer_host) for w in cqe] == [("roce", "10.5.0.2", "10.4.0.2")]
    agent = read("[TopoInfoExchangeAgent][Setup]TopoExchangeAgent: connect server[10.4.0.9 : "
                 "60000] failed")["waits"]
    assert [(w.kind, w.peer_host) for w in agent] == [("rendezvous", "10.4.0.9")]
    failed = read('TopoDetect ERROR occur !!! fault_type[1], fault_info["Failed to connect '
                  'agent[2,5,]"]')["waits"]
    assert [w.peer_rank for w in failed] == [2, 5]
    roster = read("[DisplayConnectionedRank]connected rankinfo[LINE 0]: [0000000000000000],"
                  "[0000000000000003];")["rosters"]
    assert roster[0].ranks == (0, 3)
    store = read("[c10d] waitForInput: socket SocketImpl(fd=7, addr=[::ffff:10.6.0.3]:4100, "
                 "remote=[::ffff:10.6.0.1]:29500) timed out after 1800000ms")
    assert [(w.kind, w.peer_host) for w in store["waits"]] == [("rendezvous", "10.6.0.1")]
    assert store["announces"][0].server_ip == "10.6.0.3"


def test_a_copy_task_that_names_its_remote_is_a_fault_not_a_wait() -> None:
    found = read("Task run failed, base information is streamID:[3], taskID[9], "
                 "taskType[Memcpy], tag[AllGather_g], remote rank:[2]")
    assert "waits" not in found and found["faults"][0].text == "Memcpy"


def test_a_paste_of_several_ranks_gives_each_rank_its_waits(tmp_path: Path) -> None:
    paste = "".join(
        f"[rank{r}]: EI0006: {ts(T0)} Getting socket times out. Reason: Remote Rank did not send "
        f"the data in time.\n[rank{r}]: Transport init error. Reason: [Create][DestLink]Create "
        f"Dest error! createLink para:rank[{r}]-localUserrank[{r}]-localIpAddr[10.7.0.{r}], "
        f"dst_rank[3]-remoteUserrank[3]-remote_ip_addr[10.7.0.3]\n" for r in (0, 1, 2))
    doc = diagnose(tmp_path, {"job.log": paste})
    graph = doc["root_cause"]["graph"]
    assert sorted((e["from"], e["to"], e["kind"]) for e in graph["edges"]) == [
        (f"rank {r}", "10.7.0.3", "socket") for r in (0, 1, 2)]
    first = doc["root_cause"]["suspects"][0]
    assert (first["label"], first["present"], first["end"]) == ("10.7.0.3", False, "missing")


# ---------------------------------------------------------------------- identity


def setup(pid: int, rank: int, dev: int, t: datetime = T0, host_ip: str = "10.8.0.1",
          size: int = 4) -> str:
    return rec(pid, t, f"[HCCL_TRACE]SetupAgent rankNum[{size}], rank[{rank}], rootInfo "
               f"identifier[g_1], server[{host_ip}%eth0], logicDevId[{dev}], phydevId[{dev}], "
               f"deviceIp[10.9.0.{10 + rank}]")


def notify(pid: int, t: datetime, peer: str, index: int = 7) -> str:
    return (rec(pid, t, "[TaskExceptionHandler][Callback]Task run failed, base information is "
                f"streamID:[3], taskID[40], taskType[Notify Wait], tag[AllReduce_g_1], "
                f"index[{index}], AlgType(level 0-1-2):[null-null-ring].", "ERROR")
            + rec(pid, t, "[TaskExceptionHandler][Callback]Task run failed, para information is "
                  f"notify id:[0x1], stage:[ffffffff], remote rank:[{peer}].", "ERROR")
            + rec(pid, t, "[TaskExceptionHandler][Callback]Task run failed, groupRank information"
                  " is group:[g_1], rankSize[4], rankId[0].", "ERROR"))


def _ids(files: dict[str, str]) -> Identities:
    from plogscan.crossrank.gather import Gatherer
    from plogscan.ingest.textinput import parse_files

    g = Gatherer()
    for batch in parse_files(files).to_batches():
        g.consume(batch)
    return Identities(g.summary())


def test_the_file_pid_owns_records_whose_line_pid_was_rewritten() -> None:
    ids = _ids({f"w/plog-parser-{4100 + r}-1.log": setup(903, r, r) for r in range(3)})
    assert sorted((k.pid, i.rank, i.device) for k, i in ids.processes.items()) == [
        (4100, 0, 0), (4101, 1, 1), (4102, 2, 2)]


def test_the_process_table_lists_the_processes_the_files_name(tmp_path: Path) -> None:
    files = {f"w_2/plog-parser-{4100 + r}-1.log": setup(903, r, r) for r in range(3)}
    doc = diagnose(tmp_path, files)
    assert [(p["pid"], p["rank"], p["device"]) for p in doc["processes"]] == [
        (4100, 0, 0), (4101, 1, 1), (4102, 2, 2)]


def test_a_line_pid_with_its_own_identity_is_a_process_of_its_own() -> None:
    text = setup(5100, 0, 0) + setup(5177, 1, 1) + rec(5177, T0, "unrelated")
    ids = _ids({"w/plog-5100_20260602140000000.log": text})
    assert sorted((k.pid, i.rank) for k, i in ids.processes.items()) == [(5100, 0), (5177, 1)]
    quiet = _ids({"w/plog-5100_20260602140000000.log": setup(5100, 0, 0) +
                  rec(5177, T0, "a line of another pid that says nothing of itself")})
    assert [k.pid for k in quiet.processes] == [5100]


def test_a_stdout_file_without_pids_joins_the_process_of_its_rank() -> None:
    files = {f"worker-1/rank_{r}/process_log/run/plog/plog-{6000 + r}_20260602140000000.log":
             setup(6000 + r, r, r) for r in (2, 3)}
    files["worker-1/rank_3/train.log"] = "Traceback (most recent call last):\nRuntimeError: x\n"
    ids = _ids(files)
    assert sorted(k.pid for k in ids.processes) == [6002, 6003]
    owner = ids.of_record("worker-1/rank_3/train.log", 1, None, 3)
    assert owner is not None and owner.pid == 6003


# ---------------------------------------------------------------------- the decision


def _job(tmp_path: Path, bodies: dict[int, str], host: str = "node-a") -> dict:
    files = {f"{host}/process_log/run/plog/plog-{7000 + r}_20260602140000000.log":
             setup(7000 + r, r, r) + body for r, body in bodies.items()}
    return diagnose(tmp_path, files)


def test_rule_heartbeat_a_located_process_outranks_its_reporter(tmp_path: Path) -> None:
    t = T0 + timedelta(minutes=30)
    beat = rec(7000, t, "[TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:"
               "[10.8.0.1/3], Arrival Time:[Tue Jun  2 14:29:00 2026], ExceptionType:[Stuck "
               "Occurred], Possible Reason:1.Host process is stuck", "ERROR")
    doc = _job(tmp_path, {0: notify(7000, t, "local") + beat, 1: "", 2: "", 3: ""})
    rc = doc["root_cause"]
    first = rc["suspects"][0]
    assert (first["rank"], first["end"], first["present"]) == (3, "heartbeat", True)
    assert [v["rank"] for v in rc["victims"]] == [0]


def test_rule_own_stream_a_rank_waiting_only_on_itself_is_its_own_root(tmp_path: Path) -> None:
    doc = _job(tmp_path, {0: notify(7000, T0 + timedelta(minutes=5), "local")})
    first = doc["root_cause"]["suspects"][0]
    assert (first["rank"], first["end"]) == (0, "own-stream")
    assert doc["root_cause"]["verdict"] == "localized"


def test_rule_missing_every_wait_leads_to_a_rank_not_collected(tmp_path: Path) -> None:
    t = T0 + timedelta(minutes=5)
    doc = _job(tmp_path, {0: notify(7000, t, "3"), 1: notify(7001, t, "3"),
                          2: notify(7002, t, "1")})
    rc = doc["root_cause"]
    first = rc["suspects"][0]
    assert (first["label"], first["end"], first["present"]) == ("rank 3", "missing", False)
    assert [v["rank"] for v in rc["victims"]] == [0, 1, 2]
    assert first["confidence"] > 0.5  # three ranks agree
    assert any("collect" in a and "rank 3" in a for a in doc["missing"]["advice"])


def test_an_address_a_process_announced_is_never_missing(tmp_path: Path) -> None:
    t = T0 + timedelta(minutes=5)
    row = rec(7000, t, "   |  10.8.0.2(1)   |   10.9.0.10(0)   |  client  | time out |", "ERROR")
    local = rec(7001, T0, "[HCCL_ENV] HCCL_SOCKET_IFNAME=eth0, local address 10.8.0.2")
    files = {"node-a/process_log/run/plog/plog-7000_20260602140000000.log": setup(7000, 0, 0)
             + row,
             "node-b/process_log/run/plog/plog-7001_20260602140000000.log": local}
    doc = diagnose(tmp_path, files)
    assert doc["missing"]["hosts"] == []
    first = doc["root_cause"]["suspects"][0]
    assert (first["host"], first["present"], first["end"]) == ("node-b", True, "silent")


def test_rule_link_one_failed_link_to_a_peer_outside_names_both_ends(tmp_path: Path) -> None:
    row = rec(7000, T0 + timedelta(minutes=3),
              "   |  10.9.0.99(1)   |   10.9.0.10(0)   |  server  | no connect |", "ERROR")
    rc = _job(tmp_path, {0: row})["root_cause"]
    assert [(s["rank"], s["end"], s["present"]) for s in rc["suspects"]] == [
        (0, "link", True), (1, "link", False)]
    assert [h["label"] for h in rc["chain"]] == ["node-a device-0", "10.9.0.99"]


def test_the_graph_keeps_at_most_its_cap_shared_among_kinds() -> None:
    keys = [ProcessKey("h", p) for p in range(MAX_EDGES + 50)]
    edges = [Edge(k, Node(None, rank=1), "notify", ("a", n)) for n, k in enumerate(keys)]
    edges += [Edge(keys[0], Node(None, rank=2), "heartbeat", ("b", 1))]
    ids = Identities(Summary())
    ids.processes = {k: Identity(k, "h", None, None, None, None, None, k.pid, "path", (), None,
                                 (), None, None, 0, 0) for k in keys}
    view = graph_view(ids, WaitGraph(edges))
    assert len(view.edges) == MAX_EDGES and view.truncated == 51
    assert {e.kind for e in view.edges} == {"notify", "heartbeat"}
    assert [e.kind for e in view.edges] == sorted(e.kind for e in view.edges)  # grouped


def test_root_info_agents_wait_for_the_server_their_set_up_named(tmp_path: Path) -> None:
    """Agents that could not reach the root-info server wait for the process on the host their
    ``HcclCommInitRootInfo`` named (``host ip[..]``): here rank 0, silent after its set-up."""
    files = {}
    for r in range(3):
        pid = 8000 + r
        text = rec(pid, T0, f"Entry-HcclCommInitRootInfo:ranks[4], rank[{r}], rootinfo: host "
                   f"ip[10.1.1.1] port[60000] nicDeploy[1] identifier[g9], deviceLogicId[{r}]")
        text += rec(pid, T0, f"[HCCL_ENV] HCCL_SOCKET_IFNAME=eth0, local address 10.1.1.{r + 1}")
        if r:
            text += rec(pid, T0 + timedelta(minutes=2), "[InitGroupStage][RanktableDetect]topo "
                        "exchange agent get socket timeout! timeout[120]", "ERROR")
        files[f"host-{r}/plog-{pid}_20260602140000000.log"] = text
    rc = diagnose(tmp_path, files)["root_cause"]
    assert [(s["label"], s["end"]) for s in rc["suspects"]] == [("host-0 device-0", "silent")]
    assert sorted((e["from"], e["kind"]) for e in rc["graph"]["edges"]) == [
        ("host-1 device-1", "rendezvous"), ("host-2 device-2", "rendezvous")]


_GATED = [(p.RENDEZVOUS_LITERALS, (p.CONNECT_SERVER, p.TOPO_AGENT, p.FAILED_AGENTS, p.TOPO_SERVER,
                                   p.CONNECTED, p.NEED_RANKS, p.STORE_WAIT)),
          (p.HEARTBEAT_LITERALS, (p.CRIMER, p.TRACE_RANK, p.LOCATION, p.LOST_PAIR,
                                  p.SERVER_DEVICE))]


@pytest.mark.parametrize(("literals", "pattern"),
                         [(lits, pat) for lits, pats in _GATED for pat in pats],
                         ids=lambda v: getattr(v, "pattern", "literals")[:30])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_message_without_the_literals_is_skipped_safely(literals, pattern, data) -> None:
    """The patterns run only on messages holding one of their literals: whatever a pattern
    matches holds one."""
    text = data.draw(st.from_regex(pattern, fullmatch=False))
    assert any(lit in text for lit in literals), text
