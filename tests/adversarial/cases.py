"""The adversarial corpus: hostile and broken inputs, each with what it must give.

Every case builds its input in a temporary directory at test time (big files included: a 50 MB
line, a 2 GiB sparse file, 100,000 files) next to one good log, runs ``plogscan diagnose
--format json`` on it (in-process, in a child with a timeout where a hang is the risk, or as
``nobody`` where permissions matter) and states:

* ``message``: a regular expression that standard error must match (``None``: no warning);
* ``kept``: what is read, in words, checked by ``check`` on the JSON report;
* ``exit``: the exit code.

``README.md`` beside this file lists every case; a test keeps the two in step.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import random
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PLOG = "plog-4321_20260302101500000.log"
GOOD = (
    b"[INFO] GE(4321,python):2026-03-02-10:15:01.123.456 [graph.cc:11][tid:4321] BuildGraph: "
    b"graph 7 built\n"
    b"[ERROR] HCCL(4321,python):2026-03-02-10:15:02.123.456 [op.cc:12][tid:4321] EI0002: The "
    b"wait execution of the Notify register times out. remote rank [3] tag [AllReduce_0]\n"
)
GOOD_STDOUT = (
    b"EI0002: [PID: 18842] 2026-06-03-02:15:44.318.902 The wait execution of the Notify register "
    b"times out. Reason: The Notify register has not received the Notify record from remote rank "
    b"[5].base information: [streamID:[7], taskID[19], tag[AllReduce_0]] task information: []\n"
)
Doc = dict


@dataclass(frozen=True)
class Case:
    """One hostile input and what plogscan must make of it."""

    name: str
    input: str  # what the input is
    message: str | None  # regex standard error must match; None: no warning at all
    kept: str  # what is read, in words
    exit: int
    build: Callable[[Path], list[str]]  # makes the input; returns the command's arguments
    check: Callable[[Doc, Path], None] = lambda doc, root: None
    runner: str = "inline"  # inline | child (a timeout guards against a hang) | nobody


# -- helpers ------------------------------------------------------------------------------------


def logs(root: Path) -> Path:
    """The input directory, holding the good log every case keeps."""
    path = root / "logs"
    path.mkdir(exist_ok=True)
    (path / PLOG).write_bytes(GOOD)
    return path


def rules_of(doc: Doc) -> list[str]:
    return sorted({f["rule"] for f in doc["findings"]})


def stats(doc: Doc, suffix: str) -> dict:
    (found,) = [f for f in doc["inputs"]["file_stats"] if f["path"].endswith(suffix)]
    return found


def skipped(doc: Doc, suffix: str) -> str:
    (reason,) = [s["reason"] for s in doc["inputs"]["skipped_files"]
                 if s["path"].endswith(suffix)]
    return reason


def hits(doc: Doc, limit: str) -> list[dict]:
    return [h for h in doc["inputs"]["limits"] if h["limit"] == limit]


def files_read(doc: Doc) -> int:
    return doc["inputs"]["files"]


def good_finding(doc: Doc, suffix: str = PLOG) -> None:
    """The good log's EI0002 record is found (as HCCL002)."""
    paths = {ev["path"] for f in doc["findings"] if f["rule"] == "HCCL002"
             for ev in f["evidence"]}
    assert any(p.endswith(suffix) for p in paths), (suffix, paths)


def accounted(doc: Doc) -> None:
    for f in doc["inputs"]["file_stats"]:
        assert f["lines"] == f["record_lines"] + f["blank_lines"], f


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _tar(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _nest(levels: int) -> bytes:
    name, blob = PLOG, GOOD
    for level in range(levels):
        if level % 2 == 0:
            blob, name = gzip.compress(_tar([(name, blob)])), f"level{level}.tgz"
        else:
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
                archive.writestr(name, blob)
            blob, name = out.getvalue(), f"level{level}.zip"
    return blob


# -- builders -----------------------------------------------------------------------------------

def b_invalid_utf8(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "plog-5_20260302101500000.log", GOOD.replace(b"graph 7", b"gr\xff\xfe\xc3ph 7"))
    return [str(d)]


def b_gbk(root: Path) -> list[str]:
    d = logs(root)
    text = GOOD_STDOUT.decode() + "[ERROR] 2026-06-03-02:15:45 (PID:18842, Device:0, RankID:0) " \
        "ERR02200 分布式通信失败，请检查网络\n"
    _write(d / "train.log", text.encode("gbk"))
    return [str(d)]


def _utf16(encoding: str, bom: bytes) -> Callable[[Path], list[str]]:
    def build(root: Path) -> list[str]:
        d = root / "logs"
        _write(d / "job" / "train.log", bom + GOOD_STDOUT.decode().encode(encoding))
        _write(d / PLOG, bom + GOOD.decode().encode(encoding))
        return [str(d)]
    return build


def b_nul_runs(root: Path) -> list[str]:
    d = root / "logs"
    head, tail = GOOD.split(b"\n", 1)
    _write(d / PLOG, b"\x00" * (1 << 20) + head + b"\n" + b"\x00" * 65536 + tail)
    return [str(d)]


def b_junk_head_gz(root: Path) -> list[str]:
    d = logs(root)
    junk = b"#" * (64 << 20)  # a 64 MiB first line, then the records
    _write(d / "run" / "plog" / "plog-9_20260302101500000.log.gz",
           gzip.compress(junk + b"\n" + GOOD, 1))
    return [str(d)]


def b_binary_head(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "debug" / "device-0" / "device-7_20260302101500000.log",
           random.Random(1).randbytes(256 << 10) + b"\n" + GOOD.replace(b"4321", b"7777"))
    return [str(d)]


def b_line_50mb(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "plog-6_20260302101500000.log", b"[INFO] GE(6,python):2026-03-02-10:15:00.1"
           b"00.000 [a.cc:1][tid:6] " + b"A" * (50 << 20) + b"\n" + GOOD.replace(b"4321", b"6"))
    return [str(d)]


def b_million_lines(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "plog-8_20260302101500000.log", b"x\n" * 1_000_000 + GOOD.replace(b"4321", b"8"))
    return [str(d)]


def b_sparse(root: Path) -> list[str]:
    d = root / "logs"
    d.mkdir()
    with open(d / PLOG, "wb") as handle:
        handle.write(GOOD)
        handle.truncate(2 << 30)  # a 2 GiB hole of NULs (no disk used)
        handle.seek(0, os.SEEK_END)
        handle.write(GOOD)
    return [str(d)]


# bz2 decodes whole blocks only: 100 KB blocks, so half of the file still holds a few.
COMPRESSORS = {"gz": gzip.compress, "bz2": lambda data: bz2.compress(data, 1),
               "xz": lzma.compress}


def _truncated(kind: str) -> Callable[[Path], list[str]]:
    def build(root: Path) -> list[str]:
        d = logs(root)
        packed = COMPRESSORS[kind](GOOD * 2000)
        _write(d / "run" / "plog" / f"plog-2_20260302101500000.log.{kind}",
               packed[: len(packed) // 2])
        return [str(d)]
    return build


def _corrupt(kind: str) -> Callable[[Path], list[str]]:
    magic = {"gz": b"\x1f\x8b\x08\x00", "bz2": b"BZh91AY&SY", "xz": b"\xfd7zXZ\x00\x00\x04"}
    def build(root: Path) -> list[str]:
        d = logs(root)
        _write(d / f"broken.log.{kind}", magic[kind] + random.Random(2).randbytes(4000))
        return [str(d)]
    return build


def b_truncated_tar(root: Path) -> list[str]:
    d = logs(root)
    raw = _tar([("a/" + PLOG.replace("4321", "11"), GOOD.replace(b"4321", b"11")),
                ("b/" + PLOG.replace("4321", "12"), GOOD.replace(b"4321", b"12") * 400)])
    _write(d / "collect.tar", raw[: len(raw) - 9000])
    return [str(d)]


def b_corrupt_tar(root: Path) -> list[str]:
    d = logs(root)
    raw = bytearray(_tar([("a/" + PLOG, GOOD), ("b/" + PLOG, GOOD)]))
    raw[1024:1536] = random.Random(3).randbytes(512)  # the second header
    _write(d / "collect.tar", bytes(raw))
    return [str(d)]


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()


def b_truncated_zip(root: Path) -> list[str]:
    d = logs(root)
    raw = _zip([("a/" + PLOG, GOOD), ("b/" + PLOG, GOOD * 400)])
    _write(d / "collect.zip", raw[: len(raw) // 2])
    return [str(d)]


def b_corrupt_zip(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "collect.zip", b"PK\x03\x04" + random.Random(4).randbytes(3000))
    return [str(d)]


def b_zip_bomb(root: Path) -> list[str]:
    d = logs(root)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("bomb/plog-1_20260302101500000.log", "w") as member:
            block = bytes(16 << 20)
            for _ in range(12):  # 192 MiB of zeros, a few hundred KB packed
                member.write(block)
        archive.writestr("after/" + PLOG.replace("4321", "13"), GOOD.replace(b"4321", b"13"))
    _write(d / "bomb.zip", out.getvalue())
    return [str(d), "--max-decompressed", "64M"]


def b_gzip_bomb(root: Path) -> list[str]:
    d = logs(root)
    member = gzip.compress(bytes(16 << 20), 9)  # concatenated members: 512 MiB of zeros
    _write(d / "collect.tar", _tar([("run/plog/plog-1_20260302101500000.log.gz", member * 32),
                                    ("run/plog/" + PLOG.replace("4321", "14"),
                                     GOOD.replace(b"4321", b"14"))]))
    return [str(d)]


def b_nested(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "deep.tgz", _nest(10))
    _write(d / "three.tgz", _nest(3))
    return [str(d)]


def b_traversal(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "evil.tar", _tar([("../../escaped-" + PLOG, GOOD.replace(b"4321", b"15")),
                                 ("/tmp/absolute-" + PLOG, GOOD.replace(b"4321", b"16"))]))
    return [str(d)]


def b_symlinks_out(root: Path) -> list[str]:
    d = logs(root)
    for name, target in (("root", "/"), ("etc", "/etc"), ("zero.log", "/dev/zero"),
                         ("passwd.log", "/etc/passwd"), ("up", str(root))):
        os.symlink(target, d / name)
    os.symlink(PLOG, d / "inside.log")  # inside the input: followed (a duplicate)
    return [str(d)]


def b_symlink_loops(root: Path) -> list[str]:
    d = logs(root)
    os.symlink("loop-b", d / "loop-a")
    os.symlink("loop-a", d / "loop-b")
    os.symlink("self", d / "self")
    (d / "sub").mkdir()
    os.symlink("..", d / "sub" / "parent")
    return [str(d)]


def b_fifo_in_walk(root: Path) -> list[str]:
    d = logs(root)
    os.mkfifo(d / "plog-3_20260302101500000.log")  # nobody writes: opening it would block
    return [str(d)]


def b_deep_dirs(root: Path) -> list[str]:
    d = logs(root)
    here = d
    for level in range(1, 121):
        here = here / f"d{level}"
        if level in (10, 120):
            _write(here / f"plog-{level}_20260302101500000.log",
                   GOOD.replace(b"4321", str(level).encode()))
    if not here.exists():
        here.mkdir(parents=True)
    return [str(d)]


def b_bad_timestamps(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "plog-77_20260302101500000.log",
           b"[ERROR] HCCL(77,x):2026-13-02-10:15:01.123.456 month 13\n"
           b"[ERROR] HCCL(77,x):2026-02-31-25:61:61.123.456 day 31 of February\n"
           b"[ERROR] HCCL(77,x):0000-01-01-00:00:00.000.000 year 0\n"
           b"[ERROR] HCCL(77,x):9999-12-31-23:59:60.000.000 a leap second past year 9999\n")
    return [str(d)]


def b_many_files(root: Path) -> list[str]:
    d = logs(root)
    line = GOOD.split(b"\n")[0] + b"\n"
    for group in range(100):
        sub = d / f"zz{group:03d}"  # walked after the good log
        sub.mkdir()
        for i in range(1000):
            (sub / f"plog-{i}_20260302101500000.log").write_bytes(line)
    return [str(d), "--max-files", "2000"]


def b_unreadable(root: Path) -> list[str]:
    d = logs(root)
    _write(d / "locked.log", GOOD).chmod(0)
    _write(d / "secret" / "plog-2_20260302101500000.log", GOOD)
    (d / "secret").chmod(0)
    for path in (root, d):
        path.chmod(0o755)
    (d / PLOG).chmod(0o644)
    return [str(d)]


# -- checks -------------------------------------------------------------------------------------

def c_invalid_utf8(doc: Doc, root: Path) -> None:
    assert stats(doc, "plog-5_20260302101500000.log")["decode_errors"] == 3
    good_finding(doc, "plog-5_20260302101500000.log")


def c_gbk(doc: Doc, root: Path) -> None:
    f = stats(doc, "train.log")
    assert (f["encoding"], f["decode_errors"]) == ("gbk", 0)
    good_finding(doc, "train.log")


def _c_utf16(encoding: str) -> Callable[[Doc, Path], None]:
    def check(doc: Doc, root: Path) -> None:
        for suffix in ("train.log", PLOG):
            f = stats(doc, suffix)
            assert (f["encoding"], f["decode_errors"], f["nul_bytes"]) == (encoding, 0, 0), f
            good_finding(doc, suffix)
    return check


def c_nul_runs(doc: Doc, root: Path) -> None:
    f = stats(doc, PLOG)
    assert f["nul_bytes"] == (1 << 20) + 65536 and f["records"] == 2
    good_finding(doc)


def c_junk_head(suffix: str) -> Callable[[Doc, Path], None]:
    def check(doc: Doc, root: Path) -> None:
        f = stats(doc, suffix)
        assert f["records"] >= 3 and f["truncated_lines"] >= 1, f
        good_finding(doc, suffix)
    return check


def c_line_50mb(doc: Doc, root: Path) -> None:
    f = stats(doc, "plog-6_20260302101500000.log")
    assert (f["lines"], f["truncated_lines"]) == (3, 1)
    (hit,) = hits(doc, "line_bytes")
    assert "kept their first 8 MiB" in hit["detail"]
    good_finding(doc, "plog-6_20260302101500000.log")


def c_million_lines(doc: Doc, root: Path) -> None:
    f = stats(doc, "plog-8_20260302101500000.log")
    assert f["lines"] == 1_000_002 and f["unparsed_lines"] == 1_000_000
    good_finding(doc, "plog-8_20260302101500000.log")


def c_sparse(doc: Doc, root: Path) -> None:
    f = stats(doc, PLOG)
    assert f["nul_bytes"] == (2 << 30) - len(GOOD) and f["records"] == 4
    good_finding(doc)


def c_truncated(kind: str) -> Callable[[Doc, Path], None]:
    def check(doc: Doc, root: Path) -> None:
        f = stats(doc, f".log.{kind}")
        assert f["records"] >= 2 and f["problems"], f  # what the decoder released
        good_finding(doc)
    return check


def c_good_only(doc: Doc, root: Path) -> None:
    good_finding(doc)
    accounted(doc)


def c_truncated_tar(doc: Doc, root: Path) -> None:
    assert stats(doc, "collect.tar!a/plog-11_20260302101500000.log")["records"] == 2
    assert stats(doc, "collect.tar!b/plog-12_20260302101500000.log")["problems"]
    good_finding(doc)


def c_corrupt_tar(doc: Doc, root: Path) -> None:
    assert stats(doc, "collect.tar!a/" + PLOG)["records"] == 2
    good_finding(doc, "collect.tar!a/" + PLOG)


def c_zip_bomb(doc: Doc, root: Path) -> None:
    (hit,) = hits(doc, "decompressed_bytes")
    assert hit["path"].endswith("bomb.zip!bomb/plog-1_20260302101500000.log")
    assert stats(doc, "bomb.zip!after/plog-13_20260302101500000.log")["records"] == 2
    good_finding(doc, "plog-13_20260302101500000.log")


def c_gzip_bomb(doc: Doc, root: Path) -> None:
    (hit,) = hits(doc, "ratio")
    assert hit["path"].endswith("collect.tar!run/plog/plog-1_20260302101500000.log.gz")
    assert stats(doc, "collect.tar!run/plog/plog-14_20260302101500000.log")["records"] == 2
    good_finding(doc, "plog-14_20260302101500000.log")


def c_nested(doc: Doc, root: Path) -> None:
    assert hits(doc, "nesting")
    good_finding(doc, "three.tgz!level1.zip!level0.tgz!" + PLOG)


def c_traversal(doc: Doc, root: Path) -> None:
    good_finding(doc, "evil.tar!../../escaped-" + PLOG)
    good_finding(doc, "evil.tar!tmp/absolute-" + PLOG)
    assert not list(root.parent.glob("**/escaped-*")) and not Path("/tmp/absolute-" + PLOG).exists()


def c_symlinks_out(doc: Doc, root: Path) -> None:
    for name in ("root", "etc", "zero.log", "passwd.log", "up"):
        assert skipped(doc, f"/logs/{name}") == "symlink leads outside the directory given: " \
            "not followed"
    assert skipped(doc, "/logs/" + PLOG).startswith("duplicate: same file as")
    assert files_read(doc) == 1
    good_finding(doc, "/logs/inside.log")


def c_loops(doc: Doc, root: Path) -> None:
    for name in ("loop-a", "loop-b", "self", "sub/parent"):
        assert skipped(doc, f"/logs/{name}") == "symlink loop"
    good_finding(doc)


def c_fifo(doc: Doc, root: Path) -> None:
    assert skipped(doc, "plog-3_20260302101500000.log") == "not a regular file"
    good_finding(doc)


def c_deep(doc: Doc, root: Path) -> None:
    assert skipped(doc, "/d65").startswith("not read: more than 64 directory levels")
    assert hits(doc, "depth")
    good_finding(doc, "plog-10_20260302101500000.log")
    assert not [f for f in doc["inputs"]["file_stats"] if "plog-120_" in f["path"]]


def c_timestamps(doc: Doc, root: Path) -> None:
    f = stats(doc, "plog-77_20260302101500000.log")
    assert (f["records"], f["invalid_timestamps"]) == (4, 4)
    good_finding(doc)


def c_many_files(doc: Doc, root: Path) -> None:
    assert files_read(doc) == 2000
    (hit,) = hits(doc, "files")
    assert hit["value"] == 2000
    good_finding(doc)


def c_unreadable(doc: Doc, root: Path) -> None:
    assert skipped(doc, "locked.log") == "unreadable: Permission denied"
    assert skipped(doc, "/secret") == "unreadable: Permission denied"
    good_finding(doc)


CASES: tuple[Case, ...] = (
    Case("invalid-utf8", "a plog with invalid UTF-8 bytes in a record",
         r"plog-5_\d+\.log: 3 invalid UTF-8 sequences replaced", "every line; the bytes "
         "become U+FFFD and are counted", 1, b_invalid_utf8, c_invalid_utf8),
    Case("gbk", "job stdout written in GBK (Chinese text)", None, "every line, decoded from GBK "
         "(encoding gbk, no replacement)", 1, b_gbk, c_gbk),
    Case("utf16-le-bom", "a plog and a stdout file in UTF-16 LE with a byte-order mark", None,
         "every line, decoded (encoding utf-16-le)", 1, _utf16("utf-16-le", b"\xff\xfe"),
         _c_utf16("utf-16-le")),
    Case("utf16-le", "the same in UTF-16 LE without a mark (PowerShell >)", None,
         "every line, decoded (encoding utf-16-le)", 1, _utf16("utf-16-le", b""),
         _c_utf16("utf-16-le")),
    Case("utf16-be-bom", "the same in UTF-16 BE with a byte-order mark", None,
         "every line, decoded (encoding utf-16-be)", 1, _utf16("utf-16-be", b"\xfe\xff"),
         _c_utf16("utf-16-be")),
    Case("utf16-be", "the same in UTF-16 BE without a mark", None,
         "every line, decoded (encoding utf-16-be)", 1, _utf16("utf-16-be", b""),
         _c_utf16("utf-16-be")),
    Case("nul-runs", "a plog that starts with 1 MiB of NULs and has 64 KiB more inside",
         r"1,114,112 NUL bytes removed", "both records; the NULs dropped and counted", 1,
         b_nul_runs, c_nul_runs),
    Case("junk-head-gz", "a plog .log.gz whose first line is 64 MiB of junk",
         r"line\(s\) longer than 8 MiB kept their first 8 MiB", "the records after the junk; "
         "the junk line's first 8 MiB (truncated)", 1, b_junk_head_gz,
         c_junk_head(".log.gz")),
    Case("binary-head", "a device log whose first 256 KiB are random bytes",
         r"invalid UTF-8 sequences replaced", "the records after the junk; the junk as "
         "unparsed lines", 1, b_binary_head, c_junk_head("device-7_20260302101500000.log")),
    Case("line-50mb", "a 50 MB single line before the records",
         r"1 line\(s\) longer than 8 MiB kept their first 8 MiB", "the line's first 8 MiB "
         "(flagged truncated, in inputs.limits), the records after it", 1, b_line_50mb,
         c_line_50mb),
    Case("million-lines", "10^6 one-character lines before the records", None,
         "all 1,000,002 lines accounted for; the records after them", 1, b_million_lines,
         c_million_lines),
    Case("sparse-2gib", "a 2 GiB sparse plog: records, a 2 GiB hole of NULs, records",
         r"NUL bytes removed", "the records on both sides of the hole; memory stays "
         "bounded", 1, b_sparse, c_sparse),
    *(Case(f"truncated-{kind}", f"a .log.{kind} cut in half", r"read stopped after \d+ bytes",
           "every line the decoder released before the cut", 1, _truncated(kind),
           c_truncated(kind))
      for kind in ("gz", "bz2", "xz")),
    *(Case(f"corrupt-{kind}", f"a .log.{kind} of garbage after its magic bytes",
           rf"broken\.log\.{kind}: (corrupt data|unreadable)", "the other logs", 1,
           _corrupt(kind), c_good_only)
      for kind in ("gz", "bz2", "xz")),
    Case("truncated-tar", "a tar cut in its second member",
         r"collect\.tar!b/plog-12_\d+\.log: read stopped", "the first member whole, the "
         "second up to the cut", 1, b_truncated_tar, c_truncated_tar),
    Case("corrupt-tar", "a tar whose second header is garbage",
         r"collect\.tar: corrupt archive", "the members before the bad header", 1,
         b_corrupt_tar, c_corrupt_tar),
    Case("truncated-zip", "a zip cut in half (no central directory)",
         r"collect\.zip: corrupt archive", "the other logs", 1, b_truncated_zip, c_good_only),
    Case("corrupt-zip", "a zip of garbage after its magic bytes",
         r"collect\.zip: corrupt archive", "the other logs", 1, b_corrupt_zip, c_good_only),
    Case("zip-bomb", "a zip whose first member inflates to 192 MiB of zeros "
         "(--max-decompressed 64M)", r"more than 64 MiB decompressed",
         "the bomb's first 64 MiB (NULs, dropped); the members after it", 1, b_zip_bomb,
         c_zip_bomb),
    Case("gzip-bomb", "a tar holding a .log.gz that inflates to 512 MiB of zeros (default "
         "limits)", r"more than 1000 times its compressed size decompressed \(a decompression "
         r"bomb\)", "the bomb up to 256 MiB; the members after it", 1, b_gzip_bomb,
         c_gzip_bomb),
    Case("nested-archives", "tar.gz and zip nested 10 deep, and 3 deep",
         r"archive nested too deeply \(more than 8 archive or compression levels",
         "the 3-deep log; nothing below level 8", 1, b_nested, c_nested),
    Case("tar-traversal", "tar members named ../../escaped-... and /tmp/absolute-...", None,
         "both members, shown as archive!member; nothing written anywhere", 1, b_traversal,
         c_traversal),
    Case("symlinks-outside", "symlinks in the walk to /, /etc, /dev/zero, /etc/passwd and the "
         "parent", r"symlink leads outside the directory given: not followed",
         "the logs inside; nothing outside is opened (a /dev/zero read would never end)", 1,
         b_symlinks_out, c_symlinks_out, runner="child"),
    Case("symlink-loops", "symlink loops: a->b->a, self->self, sub/parent->..",
         r"symlink loop", "the other logs; the walk ends", 1, b_symlink_loops, c_loops,
         runner="child"),
    Case("fifo-in-walk", "a FIFO named like a plog inside a directory, with no writer",
         r"not a regular file", "the other logs; the FIFO is never opened", 1, b_fifo_in_walk,
         c_fifo, runner="child"),
    Case("deep-dirs", "a 120-deep directory chain with logs at levels 10 and 120",
         r"not read: more than 64 directory levels", "the level-10 log; nothing below level "
         "64 (--max-depth raises it)", 1, b_deep_dirs, c_deep),
    Case("bad-timestamps", "month 13, 31 February, year 0, a leap second past 9999", None,
         "the four records, with no time (ts_invalid) and counted", 1, b_bad_timestamps,
         c_timestamps),
    Case("100k-files", "100,000 small plog files (--max-files 2000)",
         r"more than 2,000 files: this file and every input after it were not read",
         "the first 2,000 files in walk order", 1, b_many_files, c_many_files),
    Case("unreadable", "a file and a directory without read permission (run as nobody)",
         r"unreadable: Permission denied", "the readable logs", 1,
         b_unreadable, c_unreadable, runner="nobody"),
)
