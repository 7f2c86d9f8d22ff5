"""Property tests over the whole pipeline, driven by hypothesis (profiles in ``fuzzing.py``).

Inputs: random bytes under log-like names, random mixes of valid and mangled lines (cut,
glued, NULs, invalid UTF-8, CRLF, junk), random chunk sizes (so random cut points), random
nesting of gzip, bz2, xz, tar and zip. Invariants:

* no exception escapes, from ingest through the rules to every report format;
* the line accounting balances: ``lines == record_lines + blank_lines``, equal to an
  independent count of physical lines;
* the output is deterministic: the same input gives byte-identical JSON, whatever the chunk
  size;
* for inputs with CANN headers, the same findings come back whether the input is one file,
  split into several files, gzipped, or inside a tar or zip (at any nesting);
* rule, baseline and redaction inputs: a located error or a result, never a traceback.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import random
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plogscan.catalog import load_rules
from plogscan.catalog.ruleset import rule_from_text
from plogscan.errors import PlogscanError
from plogscan.ingest.pipeline import Ingest
from plogscan.model import Diagnosis
from plogscan.parse.results import FileContext
from plogscan.pipeline import NothingRead
from plogscan.redact.redactor import Redactor
from plogscan.report import Format, render
from tests.fuzzing import FUZZ
from tests.helpers import REPO_ROOT, diagnosed

ROOT = REPO_ROOT
RULES = load_rules()


def _sample_lines() -> list[bytes]:
    lines: list[bytes] = []
    for path in sorted((ROOT / "samples").rglob("*.log")):
        lines += [ln for ln in path.read_bytes().split(b"\n") if ln]
    return lines


POOL = _sample_lines()
HEADERS = [ln for ln in POOL if ln.startswith(b"[") and b"):20" in ln[:80]]
JUNK = [b"", b"   ", b"\t", b"[", b"[" * 300, b"\x00\x00", b"\xff\xfe\xfd", b"\x1b[31m",
        "中文".encode("gbk"), "中文".encode(), b"    continuation", b"]]>", b"\x0b\x0c",
        b"Traceback (most recent call last):", b'  File "x.py", line 1', b"\xe2\x80\xa8sep",
        b"X" * 1500, b"\r"]


@st.composite
def mangled(draw: st.DrawFn, pool: list[bytes] = POOL) -> bytes:
    """Lines from the samples, some mangled, joined with LF or CRLF."""
    lines = []
    for line in draw(st.lists(st.sampled_from(pool), max_size=60)):
        how = draw(st.integers(0, 9))
        if how == 0:
            line = line[: draw(st.integers(0, len(line)))]  # cut
        elif how == 1:
            line += draw(st.sampled_from(pool))  # two records glued
        elif how == 2:
            at = draw(st.integers(0, len(line)))
            line = line[:at] + draw(st.sampled_from(JUNK)) + line[at:]
        elif how == 3:
            line = draw(st.sampled_from(JUNK))
        lines.append(line)
    data = draw(st.sampled_from([b"\n", b"\r\n"])).join(lines)
    if draw(st.booleans()):
        data += b"\n"
    if draw(st.integers(0, 5)) == 0:
        data = draw(st.binary(max_size=600)) + data  # a junk head
    return data


def physical_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _diagnosed_or_none(paths: list[str]) -> Diagnosis | None:
    try:
        return diagnosed(paths, rules=RULES, workers=1, lang="en")
    except NothingRead:
        return None


def _render_all(diagnosis: Diagnosis) -> dict[str, str]:
    return {f.value: render(diagnosis, f, verbose=True) for f in Format}


NAMES = ["plog-4321_20260302101500000.log", "run/plog/plog-7_20260302101500000.log",
         "device-0/device-99_20260302101500000.log", "train_rank0.log", "job.out", "notes",
         "x.log.gz"]


@FUZZ
@given(data=st.one_of(st.binary(max_size=4000), mangled()), name=st.sampled_from(NAMES))
def test_random_input_never_raises_and_every_line_is_counted(data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        diagnosis = _diagnosed_or_none([str(path)])
        if diagnosis is None:
            return
        for stats in diagnosis.inputs.files:
            assert stats.lines == stats.record_lines + stats.blank_lines, stats
            if stats.encoding == "utf-8":
                assert stats.lines == physical_lines(data), stats
        reports = _render_all(diagnosis)
        assert _render_all(_diagnosed_or_none([str(path)])) == reports  # type: ignore[arg-type]


@FUZZ
@given(data=mangled(), chunk=st.integers(1, 5000),
       kind=st.sampled_from(["plog", "plog-debug", "stdout", "syslog", "device-fw"]))
def test_chunk_size_changes_nothing(data: bytes, chunk: int, kind: str) -> None:
    """Random cut points: the records and their accounting are those of a single chunk."""
    def parse(size: int) -> tuple[list[dict], object]:
        ingest = Ingest(workers=1, chunk_bytes=size)
        ctx = FileContext("f.log", kind)
        rows = [r for b in ingest.batches_from([(ctx, io.BytesIO(data))]) for r in b.to_pylist()]
        (stats,) = ingest.summary.files
        assert stats.lines == physical_lines(data) == stats.record_lines + stats.blank_lines
        return rows, stats

    assert parse(chunk) == parse(1 << 20)


def _cann_log(rnd: random.Random) -> list[bytes]:
    return [rnd.choice(HEADERS) for _ in range(rnd.randint(1, 80))]


def _archive(kind: str, name: str, blob: bytes) -> tuple[str, bytes]:
    if kind in ("gz", "bz2", "xz"):
        packed = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[kind](blob)
        return f"{name}.{kind}", packed
    out = io.BytesIO()
    if kind == "tar":
        with tarfile.open(fileobj=out, mode="w") as tar:
            info = tarfile.TarInfo(f"run/plog/{name}")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
        return f"{name}.tar", out.getvalue()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"run/plog/{name}", blob)
    return f"{name}.zip", out.getvalue()


def _findings(diagnosis: Diagnosis | None) -> list[tuple]:
    assert diagnosis is not None
    return sorted((f.rule, f.fingerprint, f.verdict.value, repr(f.scope),
                   tuple(ev.message for ev in f.evidence), f.captures)
                  for f in diagnosis.findings)


@FUZZ
@given(seed=st.integers(0, 2**32 - 1), parts=st.integers(2, 4),
       chain=st.lists(st.sampled_from(["gz", "bz2", "xz", "tar", "zip"]), min_size=1,
                      max_size=4))
def test_same_findings_from_one_file_split_files_and_archives(seed: int, parts: int,
                                                              chain: list[str]) -> None:
    rnd = random.Random(seed)
    lines = _cann_log(rnd)
    name = "plog-4321_20260302101500000.log"
    blob = b"\n".join(lines) + b"\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        one = root / "one" / "run" / "plog" / name
        one.parent.mkdir(parents=True)
        one.write_bytes(blob)
        expected = _findings(_diagnosed_or_none([str(one)]))
        split = root / "split" / "run" / "plog"
        split.mkdir(parents=True)
        cuts = sorted(rnd.sample(range(1, len(lines)), min(parts - 1, len(lines) - 1)))
        for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(lines)], strict=True)):
            (split / f"plog-4321_2026030210150{i}000.log").write_bytes(b"\n".join(lines[a:b])
                                                                     + b"\n")
        assert _findings(_diagnosed_or_none([str(root / "split")])) == expected
        packed_name, packed = name, blob
        for kind in chain:
            packed_name, packed = _archive(kind, packed_name, packed)
        archived = root / "archived" / packed_name
        archived.parent.mkdir()
        archived.write_bytes(packed)
        assert _findings(_diagnosed_or_none([str(archived)])) == expected


_YAML_PIECES = st.sampled_from([
    "id: X001\n", "name: a.b\n", "title: t\n", "level: error\n", "level: nope\n",
    "category: hccl-notify-timeout\n", "description: d\n", "remediation: [r]\n",
    "match:\n  message|contains: x\n", "match:\n  message|re: '(a+)+$'\n",
    "match:\n  message|re: '('\n", "match: &a [*a]\n", "x: &a [1, 2]\ny: [*a, *a]\n",
    "!!python/object/apply:os.system ['true']\n", "- a\n", "{", "}\n", "key: [\n", "\t\n",
    "by: [host, pid]\n", "within: 5m\n", "within: -1\n", "sequence: []\n", ": :\n", "&x\n",
    "status: stable\n", "a: b\na: c\n", "? [1]\n: 2\n",
])


@FUZZ
@given(pieces=st.lists(_YAML_PIECES, max_size=12), noise=st.text(max_size=40))
def test_rule_text_gives_a_rule_or_a_located_error(pieces: list[str], noise: str) -> None:
    text = "".join(pieces) + noise
    try:
        rule_from_text(text, "fuzz.yaml")
    except PlogscanError as err:
        assert err.render().startswith("error:") or "error(s)" in err.render()


@FUZZ
@given(document=st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                             lambda inner: st.lists(inner, max_size=4)
                             | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                             max_leaves=20))
def test_baseline_files_give_a_baseline_or_a_located_error(document: object) -> None:
    import json

    from plogscan.baseline import load_baseline

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "b.json"
        path.write_text(json.dumps({"version": 1, "entries": [document]}))
        try:
            load_baseline(path)
        except PlogscanError as err:
            assert str(path) in err.render()


_OCTET = st.integers(1, 254)


@FUZZ
@given(text=st.text(max_size=80), ips=st.lists(st.tuples(_OCTET, _OCTET, _OCTET, _OCTET),
                                                min_size=1, max_size=4))
def test_redaction_finds_every_address_and_is_stable(text: str,
                                                     ips: list[tuple[int, ...]]) -> None:
    addresses = [".".join(map(str, ip)) for ip in ips if ip[0] != 127]
    line = " ".join(f"{text} peer {a} ok" for a in addresses)
    redactor = Redactor()
    once = redactor.text(line)
    for address in addresses:
        assert f" {address} " not in once
    assert redactor.text(once) == once  # pseudonyms are never redacted again
    assert redactor.known_text(line) == once or all(a not in redactor.known_text(line)
                                                     for a in addresses)


@pytest.mark.parametrize("profile", ["ci"])
def test_the_ci_profile_is_short(profile: str) -> None:
    from tests import fuzzing

    assert fuzzing.PROFILES[profile] <= 50
