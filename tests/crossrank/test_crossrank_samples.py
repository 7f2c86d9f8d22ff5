"""The multi-rank samples name their documented suspect first and mark their victims.

Each ``samples/<name>/README.md`` (written by ``samples/_multirank.py``) states the expected
suspect, victims and chain; this test holds the same expectations and checks them through the
CLI, as a user would run it. The clock-skew sample must recover its host's offset within
100 ms and order the errors by aligned time where the written times point at the wrong rank;
the restart sample gives two attempts, each with its own verdict.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.helpers import REPO_ROOT

REPO = REPO_ROOT

# sample -> (verdict, first suspect, victims (ranks), chain or None, rank_roles by rule)
EXPECTED = {
    "notify-wait-cascade": (
        "localized", "node-b device-1", [0, 1, 2, 3, 4, 6, 7],
        ["node-b device-0", "node-a device-3", "node-a device-2", "node-a device-1",
         "node-a device-0", "node-b device-3", "node-b device-2", "node-b device-1"],
        {"OOB001": "root-cause", "AIC001": "root-cause", "HCCL001": "victim"}),
    "link-chain-silent-rank": (
        "localized", "worker-1 device-5", [r for r in range(16) if r != 13],
        ["worker-0 device-0", "worker-0 device-3", "worker-0 device-4", "worker-1 device-4",
         "worker-1 device-5"], {"HCCL007": "victim"}),
    "op-index-mismatch": ("localized", "node-c device-2", [0, 1, 3], None, {}),
    "clock-skew-earliest-error": (
        "localized", "host-1 device-3", [r for r in range(16) if r not in (3, 12)], None,
        {"OOB001": "root-cause", "SDMA001": "root-cause"}),
    "restart-two-attempts": ("localized", "node-e device-0", [0, 1, 3], None,
                             {"MEM001": "root-cause", "HW001": None}),
    "notify-wait-undetermined": ("undetermined", None, [0, 1, 2, 3], [], {"HCCL001": "victim"}),
}
SKEW_US = -6_400_000


pytestmark = pytest.mark.usefixtures("at_repo_root")


@pytest.mark.parametrize("sample", sorted(EXPECTED))
def test_sample_names_its_suspect_first_and_marks_its_victims(diagnose_cli, sample: str) -> None:
    verdict, suspect, victims, chain, roles = EXPECTED[sample]
    document = diagnose_cli.json(f"samples/{sample}", exit_codes=(1,))
    rc = document["root_cause"]
    assert rc["verdict"] == verdict
    if suspect is None:
        assert rc["suspects"] == []
    else:
        assert rc["suspects"][0]["label"] == suspect
        assert rc["suspects"][0]["confidence"] > 0.5
        assert all(r["evidence"] for r in rc["suspects"][0]["reasons"]
                   if r["signal"] != "silent-rank")
    assert sorted(v["rank"] for v in rc["victims"]) == victims
    if chain is not None:
        assert [h["label"] for h in rc["chain"]] == chain
        if chain:
            assert chain[-1] == suspect
    for rule, role in roles.items():
        found = {f["rank_role"] for f in document["findings"] if f["rule"] == rule}
        wanted = {role} if role is not None else {None, "root-cause", "victim"}
        assert found and found <= wanted, (rule, found)
    ranks = {f["rule"]: f["scope"]["ranks"] for f in document["findings"]}
    assert all(ranks.values()), ranks  # identity in every finding's scope


def test_the_readme_states_what_the_test_expects() -> None:
    for sample, (verdict, suspect, _victims, chain, _roles) in EXPECTED.items():
        text = (REPO / "samples" / sample / "README.md").read_text(encoding="utf-8")
        assert f"**{verdict}**" in text, sample
        if suspect:
            assert f"`{suspect}`" in text, sample
        if chain:
            assert " → ".join(chain[-2:]) in " ".join(text.split()), sample


def test_clock_skew_sample_recovers_the_offset_and_orders_by_aligned_time(diagnose_cli) -> None:
    document = diagnose_cli.json("samples/clock-skew-earliest-error", exit_codes=(1,))
    clock = document["clock"]
    assert clock["reference"] == "host-1"
    (offset,) = clock["offsets"]
    assert offset["host"] == "host-2" and offset["pairs"] >= 1
    assert abs(offset["offset_us"] - SKEW_US) < 100_000, offset
    assert offset["uncertainty_us"] < 100_000
    assert offset["applied"] and offset["pairs"] >= 3  # the collectives every rank entered
    suspects = [s["label"] for s in document["root_cause"]["suspects"]]
    assert suspects[:2] == ["host-1 device-3", "host-2 device-4"]
    # the naive answer: the earliest ERROR record by written time is rank 12's
    errors = [(e["ts"], e["rank"]) for f in document["findings"] for e in f["evidence"]
              if e["level"] == "ERROR" and f["rule"] in ("OOB001", "AIC001", "SDMA001")]
    assert min(errors)[1] == 12
    aligned = [(e["ts_aligned"], e["rank"]) for f in document["findings"]
               for e in f["evidence"] if e["level"] == "ERROR"
               and f["rule"] in ("OOB001", "AIC001", "SDMA001")]
    assert min(aligned)[1] == 3
    reasons = {r["signal"] for r in document["root_cause"]["suspects"][0]["reasons"]}
    assert "earliest-error" in reasons


def test_a_given_offset_overrides_the_estimate_and_can_flip_the_answer(diagnose_cli) -> None:
    document = diagnose_cli.json("samples/clock-skew-earliest-error", "--clock-offset", "host-2=0",
                                 exit_codes=(1,))
    (offset,) = document["clock"]["offsets"]
    assert offset == {"host": "host-2", "offset_us": 0, "uncertainty_us": 0, "pairs": 0,
                      "basis": "override", "applied": True}
    first = document["root_cause"]["suspects"][0]
    # on unaligned clocks rank 12's error looks 5.6 s earlier
    assert any(r["signal"] == "earliest-error" for r in first["reasons"]) is (
        first["label"] == "host-2 device-4")
    other = diagnose_cli.json("samples/clock-skew-earliest-error", "--clock-reference", "host-2",
                              exit_codes=(1,))
    assert other["clock"]["reference"] == "host-2"
    assert abs(other["clock"]["offsets"][0]["offset_us"] + SKEW_US) < 100_000


def test_restart_sample_has_two_attempts_each_with_its_own_verdict(diagnose_cli) -> None:
    document = diagnose_cli.json("samples/restart-two-attempts", exit_codes=(1,))
    attempts = document["attempts"]
    assert [a["id"] for a in attempts] == [1, 2]
    assert all(a["failed"] for a in attempts)
    first, second = (a["root_cause"] for a in attempts)
    assert first["verdict"] == second["verdict"] == "localized"
    assert first["suspects"][0]["label"] == "node-d device-1"
    assert second["suspects"][0]["label"] == "node-e device-0"
    assert not set(attempts[0]["pids"]) & set(attempts[1]["pids"])
    assert datetime.fromisoformat(attempts[0]["last_ts"]) < datetime.fromisoformat(
        attempts[1]["first_ts"])
    # the top-level verdict is the last attempt that failed; chains stay inside it
    assert document["root_cause"] == second
    pids = set(attempts[1]["pids"])
    assert all(s["pid"] in pids for s in second["suspects"])


def test_op_index_sample_finds_the_first_divergence_by_sequence(diagnose_cli) -> None:
    document = diagnose_cli.json("samples/op-index-mismatch", exit_codes=(1,))
    mismatch = document["collectives"]["first_mismatch"]
    assert mismatch["seq"] == 42 and mismatch["kind"] == "missing"
    assert mismatch["odd_ranks"] == [2] and mismatch["by_rank"]["2"] is None
    assert mismatch["by_rank"]["0"] == {"op": "AllReduce", "count": 4194304, "dtype": "float32"}
    (comm,) = document["collectives"]["communicators"]
    assert comm["ranks"] == [0, 1, 2, 3] and comm["collectives"] == 42
    signals = {r["signal"] for r in document["root_cause"]["suspects"][0]["reasons"]}
    assert {"index-mismatch", "collective-mismatch"} <= signals


def test_unknown_hosts_in_clock_options_are_clear_errors(diagnose_cli) -> None:
    for args in (["--clock-reference", "nowhere"], ["--clock-offset", "nowhere=1.5"]):
        result = diagnose_cli("samples/op-index-mismatch", "--quiet", *args)
        assert result.exit_code == 2
        assert "nowhere" in result.stderr and "node-c" in result.stderr
        assert "Traceback" not in result.stderr
    bad = diagnose_cli("samples/op-index-mismatch", "--clock-offset", "node-c:3")
    assert bad.exit_code == 2 and "HOST=SECONDS" in bad.stderr


def test_the_multirank_samples_are_what_their_generator_writes() -> None:
    """The trees in samples/ are reproducible byte for byte from samples/_multirank.py."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(REPO / "samples" / "_multirank.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_findings_name_their_attempt(diagnose_cli) -> None:
    document = diagnose_cli.json("samples/restart-two-attempts", exit_codes=(1,))
    attempts = {a["id"]: set(a["pids"]) for a in document["attempts"]}
    for finding in document["findings"]:
        assert finding["attempt"] in attempts
        assert set(finding["scope"]["pids"]) <= attempts[finding["attempt"]], finding["rule"]
    assert {f["attempt"] for f in document["findings"] if f["rule"] == "HW001"} == {1}
    assert {f["attempt"] for f in document["findings"] if f["rule"] == "MEM001"} == {2}


def test_an_address_a_rank_announced_is_never_missing(diagnose_cli) -> None:
    """Rank 1's run plog says hostIp[10.20.31.12] and deviceLogicId[1]; rank 0's heartbeat
    names 10.20.31.12/1: that is rank 1, whose out-of-memory is the root, with its device."""
    document = diagnose_cli.json("samples/notify-timeout-two-hosts", exit_codes=(1,))
    assert document["missing"] == {"ranks": [], "hosts": [], "advice": []}
    rc = document["root_cause"]
    first = rc["suspects"][0]
    assert (first["label"], first["rank"], first["device"], first["end"]) == (
        "worker-1 device-1", 1, 1, "error")
    assert {(e["kind"], e["to"]) for e in rc["graph"]["edges"]} == {
        ("notify", "worker-1 device-1"), ("heartbeat", "worker-1 device-1")}
    assert [v["rank"] for v in rc["victims"]] == [0]
