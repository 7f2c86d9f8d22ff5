"""``--redact``: no sensitive value of any sample reaches any output, the findings stay the same.

Each sample's generator lists what its logs give away (``samples/_generate.py``,
``sensitive_values``). Every command that reads logs runs on every sample with ``--redact``,
and every output is searched for every value: reports in all formats (stdout and
``--output-dir``), ``--events-out`` and ``ingest`` Parquet tables (rows and footer), ``events``
in each format, ``ingest --stats``, and standard error. The redacted report is the plain one
with the originals replaced (the private map says by what), fingerprints apart.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import stat
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from plogscan.redact.redactor import Redactor
from tests.helpers import REPO_ROOT, run_cli

ROOT = REPO_ROOT
SAMPLES = ROOT / "samples"


def _load(name: str, file: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, SAMPLES / file)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module  # their dataclasses look their module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


generator = _load("sample_generator", "_generate.py")
multirank = _load("sample_multirank", "_multirank.py")
NAMES = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())
TWO_HOSTS = "notify-timeout-two-hosts"


def sensitive_values(name: str) -> tuple[str, ...]:
    """What the generator of sample ``name`` lists as its sensitive values."""
    if name in multirank.SCENARIOS:
        return multirank.sensitive_values(name)
    return generator.sensitive_values(name)


def run(*args: object) -> tuple[int, str, str]:
    result = run_cli(*args)
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stdout, result.stderr


def redact_args(name: str) -> list[str]:
    extra = ["--redact-pattern", generator.SECRET_PATTERN] if name == TWO_HOSTS else []
    return ["--redact", *extra]


def parquet_text(path: Path) -> str:
    handle = pq.ParquetFile(path)
    footer = json.dumps({k.decode(): v.decode() for k, v in
                         (handle.metadata.metadata or {}).items()})
    return footer + json.dumps(handle.read().to_pylist(), default=str)


def test_every_sample_lists_its_sensitive_values() -> None:
    assert TWO_HOSTS in NAMES and len(NAMES) >= 5
    for name in NAMES:
        values = sensitive_values(name)
        for value in values:  # each listed value really is in the sample's logs
            assert any(value in p.read_text("utf-8") or value in str(p.relative_to(SAMPLES))
                       for p in (SAMPLES / name).rglob("*.log")), (name, value)
    assert len(generator.sensitive_values(TWO_HOSTS)) == 15


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """Every output of every command on every sample, with --redact: name -> {label: text}."""
    found: dict[str, dict[str, str]] = {}
    for name in NAMES:
        out = tmp_path_factory.mktemp(name)
        sample = SAMPLES / name
        texts: dict[str, str] = {}
        common = [*redact_args(name), "-q", "--workers", 1]
        code, stdout, stderr = run("diagnose", sample, "-v", *common, "--output-dir",
                                   out / "reports", "--events-out", out / "events.parquet",
                                   "--redact-map", out / "map.json")
        assert code in (0, 1), stderr
        texts["diagnose text"], texts["diagnose stderr"] = stdout, stderr
        for report in sorted((out / "reports").iterdir()):
            texts[report.name] = report.read_text("utf-8")
        texts["events-out"] = parquet_text(out / "events.parquet")
        texts["map"] = (out / "map.json").read_text("utf-8")
        assert stat.S_IMODE(os.stat(out / "map.json").st_mode) == 0o600
        for fmt in ("jsonl", "csv", "table"):
            code, stdout, stderr = run("events", sample, "--format", fmt, *common)
            assert code == 0, stderr
            texts[f"events {fmt}"], texts[f"events {fmt} stderr"] = stdout, stderr
        code, stdout, stderr = run("ingest", sample, "-o", out / "e.parquet", "--stats", *common)
        assert code == 0, stderr
        texts["ingest stats"], texts["ingest stderr"] = stdout, stderr
        texts["ingest table"] = parquet_text(out / "e.parquet")
        found[name] = texts
    return found


@pytest.mark.parametrize("name", NAMES)
def test_no_sensitive_value_reaches_any_output(outputs: dict[str, dict[str, str]],
                                               name: str) -> None:
    texts = outputs[name]
    assert len(texts) == 18  # 2 diagnose, 5 reports, 2 tables, map, 6 events, 2 ingest
    leaks = [(label, value) for label, text in texts.items() if label != "map"
             for value in sensitive_values(name) if value in text]
    assert not leaks, leaks


def test_the_map_names_every_sensitive_value(outputs: dict[str, dict[str, str]]) -> None:
    document = json.loads(outputs[TWO_HOSTS]["map"])
    originals = {e["original"] for e in document["pseudonyms"].values()}
    kinds = {e["kind"] for e in document["pseudonyms"].values()}
    assert kinds == {"ip", "host", "user", "email", "secret"}
    h = generator.TWO_HOSTS
    for value in (*h["host_ips"], *h["device_ips"], *h["ipv6"], *h["dirs"], *h["fqdns"],
                  *h["short_hosts"], h["user"], h["email"], h["token"]):
        assert value in originals, value
    assert list(document["pseudonyms"])[:2] == ["ip-1", "ip-2"]  # numbered by appearance


def test_version_numbers_stay(outputs: dict[str, dict[str, str]]) -> None:
    rows = [json.loads(line) for line in outputs[TWO_HOSTS]["events jsonl"].splitlines()]
    version = f"CANN version: {generator.CANN_VERSION} (/usr/local/Ascend/ascend-toolkit/" \
              f"{generator.CANN_VERSION})"
    assert sum(version in r["message"] for r in rows) == 2


def _replace_originals(value: object, mapping: dict) -> object:
    """The plain report's values with the originals replaced as the map says."""
    plain = sorted(((e["original"], given) for given, e in mapping.items()
                    if e["kind"] != "user"), key=lambda pair: -len(pair[0]))
    users = [(e["original"], given) for given, e in mapping.items() if e["kind"] == "user"]

    def fix(text: str) -> str:
        for original, given in plain:
            text = text.replace(original, given)
        for original, given in users:
            text = re.sub(rf"(/home/|/Users/){re.escape(original)}\b", rf"\g<1>{given}", text)
        return text

    def walk(item: object) -> object:
        if isinstance(item, str):
            return fix(item)
        if isinstance(item, list):
            return [walk(i) for i in item]
        if isinstance(item, dict):
            return {walk(k): walk(v) for k, v in item.items()}
        return item

    return walk(value)


def _without_fingerprints(document: dict) -> dict:
    """The report without fingerprints. Findings that tie on everything the report order
    looks at before the fingerprint (level, role, time, rule) may swap places, since their
    fingerprints change: they are compared in a fixed order of their own."""
    for key in ("findings", "suppressed"):
        for finding in document[key]:
            finding.pop("fingerprint")
        document[key].sort(key=lambda f: json.dumps(f, sort_keys=True))
    document["summary"].pop("top_finding")
    return document


@pytest.mark.parametrize("name", NAMES)
def test_findings_are_the_same_apart_from_the_replaced_strings(
        outputs: dict[str, dict[str, str]], name: str) -> None:
    _code, plain_text, _ = run("diagnose", SAMPLES / name, "--format", "json", "-v", "-q",
                               "--workers", 1)
    plain = json.loads(plain_text)
    redacted = json.loads(outputs[name]["report.json"])
    mapping = json.loads(outputs[name]["map"])["pseudonyms"]
    expected = _replace_originals(plain, mapping)
    assert _without_fingerprints(redacted) == _without_fingerprints(expected)  # type: ignore[arg-type]


def test_fingerprints_come_from_redacted_values(outputs: dict[str, dict[str, str]]) -> None:
    _code, plain_text, _ = run("diagnose", SAMPLES / TWO_HOSTS, "--format", "json", "-q")
    plain = [(f["rule"], f["fingerprint"]) for f in json.loads(plain_text)["findings"]]
    redacted = json.loads(outputs[TWO_HOSTS]["report.json"])
    mine = [(f["rule"], f["fingerprint"]) for f in redacted["findings"]]
    assert [rule for rule, _ in mine] == [rule for rule, _ in plain]  # a rule may find twice
    assert not {fp for _, fp in mine} & {fp for _, fp in plain}  # every scope names a host
    assert redacted["summary"]["top_finding"] == redacted["findings"][0]["fingerprint"]
    sarif = json.loads(outputs[TWO_HOSTS]["report.sarif"])
    assert {r["partialFingerprints"]["plogscanFingerprint/v1"]
            for r in sarif["runs"][0]["results"]} == {fp for _, fp in mine}


def test_a_salt_makes_pseudonyms_keyed_and_stable(tmp_path: Path) -> None:
    salt = tmp_path / "private" / "salt"
    salt.parent.mkdir()
    sample = SAMPLES / TWO_HOSTS
    args = ["diagnose", sample, "--format", "json", "-q", "--redact-salt", salt]
    first = run(*args)[1]
    assert stat.S_IMODE(os.stat(salt).st_mode) == 0o600
    assert re.fullmatch(r"[0-9a-f]{64}\n", salt.read_text())
    assert run(*args)[1] == first  # the same names in every run
    assert re.search(r"host-[0-9a-f]{10}\b", first) and not re.search(r"host-1\b", first)
    other = tmp_path / "other-salt"
    other.write_text("a different secret of enough length\n")
    other.chmod(0o600)
    assert run("diagnose", sample, "--format", "json", "-q", "--redact-salt", other)[1] != first
    for value in sensitive_values(TWO_HOSTS)[:-1]:  # the token needs its pattern
        assert value not in first


def test_salt_and_pattern_errors_are_clear(tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_text("abc\n")
    code, _, err = run("events", SAMPLES / TWO_HOSTS, "--redact-salt", short)
    assert code == 2 and "error: salt file holds 3 characters: at least 16" in err
    loose = tmp_path / "loose"
    loose.write_text("0123456789abcdef0123\n")
    loose.chmod(0o644)
    code, _, err = run("events", SAMPLES / TWO_HOSTS, "--redact-salt", loose, "-q")
    assert code == 0 and "can be read by other users" in err
    for pattern, why in (("(", "missing )"), ("a*", "matches the empty text")):
        code, _, err = run("events", SAMPLES / TWO_HOSTS, "--redact-pattern", pattern)
        assert code == 2 and why in err, err
    code, _, err = run("events", SAMPLES / TWO_HOSTS, "--redact-salt", tmp_path / "no" / "dir")
    assert code == 2 and "cannot create salt file" in err


def test_stderr_and_errors_are_redacted(tmp_path: Path) -> None:
    """Warnings name paths; an error message quotes one: both leave redacted."""
    where = tmp_path / "node-a07.corp.example.com" / "worker-5"
    where.mkdir(parents=True)
    (where / "10.9.8.7.log.gz").write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    (where / "train.log").write_text(
        "EI0002: [PID: 42] 2026-06-03-02:15:44.318.902 The wait execution of the Notify register "
        "times out. Reason: The Notify register has not received the Notify record from remote "
        "rank [5].base information: [streamID:[7], taskID[19], tag[AllReduce_10.9.8.6%ens1f0_60000"
        "_0_1]] task information: []\n")
    code, _out, err = run("diagnose", where.parent, "--redact", "-q")
    assert code == 1
    for value in ("node-a07", "worker-5", "10.9.8.7", "10.9.8.6"):
        assert value not in err and value not in _out, value
    assert re.search(r"host-\d+/host-\d+/ip-\d+\.log\.gz: corrupt data", err), err
    bad = where / "baseline.json"
    bad.write_text("{nope")
    code, _out, err = run("diagnose", where.parent, "--redact", "-q", "--baseline", bad)
    assert code == 2 and "baseline file is not valid JSON" in err
    assert "worker-5" not in err and "node-a07" not in err


@pytest.mark.parametrize(("text", "expected"), [
    ("host ip[172.16.40.7] port[60000]", "host ip[ip-1] port[60000]"),
    ("tag[AllReduce_10.2.0.7%ens1f0_60000]", "tag[AllReduce_ip-1%ens1f0_60000]"),
    ("CANN version: 8.0.0.1 toolkit/8.0.0.1/lib v8.0.0.1", None),
    ("driver 23.0.0.1 and 1.2.3.4.5 and 300.1.1.1", None),
    ("loopback 127.0.0.1, 0.0.0.0 and ::1", None),
    ("fe80::1%eth0 2001:db8::8a2e:370:7334", "ip-1%eth0 ip-2"),
    ("std::add and Ge::Build stay", None),
    ("mail zhang.wei@example-ai.com, icon@2x.png", "mail email-1, icon@2x.png"),
    ('File "/home/alice/x.py" C:\\Users\\bob\\y /Users/carol/z',
     'File "/home/user-1/x.py" C:\\Users\\user-2\\y /Users/user-3/z'),
    ("server[10.20.8.250%bond1], server[node-a], server[1230]",
     "server[ip-1%bond1], server[host-1], server[1230]"),
    ("hostname: node1.corp.example.com", "hostname: host-1"),
    ("see https://www.hiascend.com/document and pypi.org", None),
    ("/data/job-worker-3/plog and a.tgz!worker-7.tar.gz!run", "/data/host-1/plog and "
     "a.tgz!host-2.tar.gz!run"),
    ("\ufdd0 10.0.0.9 \ufdd1", "\ufffd ip-1 \ufffd"),
])
def test_detectors(text: str, expected: str | None) -> None:
    assert Redactor().text(text) == (text if expected is None else expected)


def test_identified_hosts_are_found_in_text_and_patterns_are_secrets() -> None:
    redactor = Redactor(patterns=[r"tok-[0-9a-f]{8}"])
    assert redactor.host("worker-9") == "host-1"
    assert redactor.text("on worker-9, not worker-90; worker-9.tar.gz tok-deadbeef") == \
        "on host-1, not worker-90; host-1.tar.gz secret-1"
    assert redactor.known_text("raw worker-9 and /home/bob") == "raw host-1 and /home/bob"
    assert redactor.text("again host-1 and secret-1", again=True) == "again host-1 and secret-1"
    assert redactor.text("input naming server[host-1]") == "input naming server[host-2]"
