"""Cross-rank root cause on real multi-rank logs that nobody here wrote.

The trees (``shared/corpus/trees``, in their directory layout) and the same text pasted as one
file with ``==> path <==`` headers (``shared/corpus/real`` files 11, 14 and 17) must give the
root devices a peer tool's own tests expect (the trees' ``MANIFEST.md``), named as
``<host> device-<id>`` (the physical id when logged). A mutual wait names both devices before
any other; the chain runs from a victim to the root, and a cycle repeats its first hop. The
corpus is never copied in: without it these tests are reported as skipped.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from tests.corpus_path import corpus_dir, pasted_corpus_dir, trees_dir

TREES = trees_dir()
REAL = corpus_dir()

# (input paths relative to the trees dir, suspects in order, chain, verdict)
TREE_CASES = {
    "mutual-wait": (["st_event_timeout_testcase/worker-0", "st_event_timeout_testcase/worker-1"],
                    ["worker-1 device-0", "worker-0 device-0"],
                    ["worker-1 device-0", "worker-0 device-0", "worker-1 device-0"]),
    "worker-1-alone": (["st_event_timeout_testcase/worker-1"], ["worker-1 device-0"],
                       ["worker-1 device-0", "124.0.0.21"]),
    "aicpu-notify": (["st_aicpu_notify_testcase/worker-0", "st_aicpu_notify_testcase/worker-1"],
                     ["worker-0 device-11"], ["worker-1 device-3", "worker-0 device-11"]),
    "index-mismatch": (["rc_122/w_1"], ["w_1 device-1"], None),
}
REAL_CASES = {
    "11_hccl_link_error_no_connect_2workers.log": TREE_CASES["mutual-wait"][1:],
    "14_hccl_aicpu_task_exception_sdma_notify_2workers.log": TREE_CASES["aicpu-notify"][1:],
    "17_hccl_notify_wait_index_mismatch_4ranks.log": TREE_CASES["index-mismatch"][1:],
}


def _check(document: dict, suspects: list[str], chain: list[str] | None) -> None:
    rc = document["root_cause"]
    assert rc["verdict"] == "localized"
    names = [s["label"] for s in rc["suspects"]]
    assert names[:len(suspects)] == suspects, names
    if len(suspects) > 1:  # a mutual wait: both, before any other device
        assert set(names[:len(suspects)]) == set(suspects)
    if chain is not None:
        assert [h["label"] for h in rc["chain"]] == chain
    assert not {v["label"] for v in rc["victims"]} & set(suspects)
    # every finding carries its identity now: ranks are known on every tree
    assert all(f["scope"]["ranks"] for f in document["findings"])


@pytest.mark.skipif(TREES is None, reason="real multi-rank trees not present beside the checkout")
@pytest.mark.parametrize("case", sorted(TREE_CASES))
def test_trees_give_the_root_devices_their_manifest_expects(diagnose_cli, case: str) -> None:
    assert TREES is not None
    paths, suspects, chain = TREE_CASES[case]
    _check(diagnose_cli.json(*(TREES / p for p in paths), exit_codes=(1,)), suspects, chain)


@pytest.mark.skipif(REAL is None, reason="real-log corpus not present beside the checkout")
@pytest.mark.parametrize("name", sorted(REAL_CASES))
def test_pasted_concatenations_split_into_their_files(diagnose_cli, name: str) -> None:
    assert REAL is not None
    suspects, chain = REAL_CASES[name]
    _check(diagnose_cli.json(REAL / name, exit_codes=(1,)), suspects, chain)


@pytest.mark.skipif(TREES is None, reason="real multi-rank trees not present beside the checkout")
def test_worker_1_alone_says_what_is_missing_and_what_points_nowhere(diagnose_cli) -> None:
    assert TREES is not None
    document = diagnose_cli.json(TREES / "st_event_timeout_testcase/worker-1", exit_codes=(1,))
    assert document["missing"]["ranks"] == [0]
    assert any("124.0.0.21" in a for a in document["missing"]["advice"])
    # rank 2 waits for rank 3 of a 3-rank communicator: noted, not followed
    assert any("rank 3 is not in communicator" in n for n in document["root_cause"]["notes"])


@pytest.mark.skipif(TREES is None, reason="real multi-rank trees not present beside the checkout")
def test_aicpu_tree_clock_offset_from_the_rendezvous(diagnose_cli) -> None:
    assert TREES is not None
    document = diagnose_cli.json(TREES / "st_aicpu_notify_testcase", exit_codes=(1,))
    (offset,) = document["clock"]["offsets"]
    assert document["clock"]["reference"] == "worker-0"  # one rank each: ties go by name
    assert offset["host"] == "worker-1" and offset["basis"] == "rendezvous"
    assert abs(offset["offset_us"] + 15_200_000) < 100_000  # its SetupAgent is 15.2 s earlier
    # two rendezvous records of one rank per host: reported, too few pairs to move a record
    assert offset["pairs"] == 2 and offset["applied"] is False
    evidence = [e for f in document["findings"] for e in f["evidence"]]
    assert all(e["ts_aligned"] == e["ts"] for e in evidence)
    roles = {(f["rule"], tuple(f["scope"]["hosts"])): f["rank_role"] for f in document["findings"]}
    assert roles[("FWK005", ("worker-1",))] == "victim"


@pytest.mark.skipif(TREES is None, reason="real multi-rank trees not present beside the checkout")
def test_one_hand_edited_pair_does_not_draw_equal_stamps_minutes_apart(diagnose_cli) -> None:
    """The two hosts' SetupAgent records are stamped ten minutes apart, their link timeouts in
    the same second: one pair is too weak an estimate to move anything."""
    assert TREES is not None
    document = diagnose_cli.json(TREES / "st_event_timeout_testcase", exit_codes=(1,))
    (offset,) = document["clock"]["offsets"]
    assert abs(offset["offset_us"]) == 600_000_000 and offset["applied"] is False
    links = [datetime.fromisoformat(e["ts_aligned"]) for f in document["findings"]
             if f["category"] == "hccl-link-timeout" for e in f["evidence"]]
    assert links and max(links) - min(links) < timedelta(seconds=1)


PASTED = pasted_corpus_dir()
# Pasted excerpts of several shapes, and the waits each shows: (kind, whom it waits for).
PASTED_WAITS = {
    "issues/I03_vllm-ascend-13482-hccl-aicpu-timeout-heartbeat.log": {
        ("heartbeat", "192.168.0.15/6"), ("notify", "rank 3")},  # and its own stream
    "issues/I17_vllm-ascend-3162-ei0009-transport-init.log": {("socket", "172.16.0.114")},
    "issues2/V18_vllm-ascend-9447-glm51-a3-2node-socket-link-timeout.log": {
        ("socket", "10.20.0.31")},
    "issues2/V29_vllm-ascend-2754-ei0007-qp-alloc-exhausted-interleaved.log": {
        ("socket", "192.168.1.3")},
    "real/22_doc_torch_npu_troubleshooting_cases.log": {("heartbeat", "90.90.92.240/1")},
    "real/20_doc_hccl_fault_diag_task_exec_stage.log": {
        ("heartbeat", "127.10.0.2/2"), ("heartbeat", "127.10.0.1/1"), ("roce", "127.11.0.2")},
}


@pytest.mark.skipif(PASTED is None or REAL is None,
                    reason="pasted excerpts not beside the checkout")
@pytest.mark.parametrize("name", sorted(PASTED_WAITS))
def test_every_wait_a_pasted_excerpt_shows_is_an_edge(diagnose_cli, name: str) -> None:
    assert PASTED is not None
    document = diagnose_cli.json(PASTED.parent / name, exit_codes=(1,))
    graphs = [document["root_cause"]["graph"], *(a["root_cause"]["graph"]
                                                 for a in document["attempts"])]
    edges = {(e["kind"], e["to"]) for g in graphs for e in g["edges"]}
    assert PASTED_WAITS[name] <= edges, edges


@pytest.mark.skipif(PASTED is None, reason="pasted excerpts not beside the checkout")
def test_ranks_of_one_paste_wait_on_the_tcp_store_of_rank_0(diagnose_cli) -> None:
    assert PASTED is not None
    name = "issues2/V38_vllm-ascend-2248-multinode-c10d-waitforinput-1800s.log"
    result = diagnose_cli(PASTED.parent / name, "--format", "json", "--quiet")
    document = json.loads(result.stdout)
    edges = document["root_cause"]["graph"]["edges"]
    assert {e["kind"] for e in edges} == {"rendezvous"}
    assert len({e["from"] for e in edges}) == 6 and {e["to"] for e in edges} == {
        "7.150.11.200 rank 0"}
    assert document["root_cause"]["verdict"] == "undetermined"  # rank 0 waited on it too


@pytest.mark.skipif(PASTED is None, reason="pasted excerpts not beside the checkout")
def test_the_stuck_location_of_a_heartbeat_is_the_first_suspect_and_its_reporter_a_victim(
        diagnose_cli) -> None:
    assert PASTED is not None
    name = "I03_vllm-ascend-13482-hccl-aicpu-timeout-heartbeat.log"
    rc = diagnose_cli.json(PASTED / name, exit_codes=(1,))["root_cause"]
    first = rc["suspects"][0]
    assert (first["label"], first["present"]) == ("192.168.0.15/6", False)
    assert any(r["signal"] == "heartbeat" and "192.168.0.15/6" in r["text"]
               for r in first["reasons"])
    assert [v["rank"] for v in rc["victims"]] == [3]
