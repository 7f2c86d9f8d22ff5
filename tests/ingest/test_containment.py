"""Nothing outside what the user named is read, and every limit has an option.

Inside a directory walk a symlink is followed only to a target inside the directory given; a
FIFO, socket or device is never opened; a file is opened without following a symlink swapped
in after the check and without blocking. What the user names is read as named: a symlink, a
glob match, a named pipe. Limits are options with defaults, listed in ``--help`` and the
README, and reported when they bite.
"""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from plogscan.cli import cli
from plogscan.ingest.limits import LIMIT_OPTIONS, Limits, format_size, parse_size
from plogscan.ingest.sniff import iter_inputs, open_checked
from plogscan.ingest.sources import Skipped
from plogscan.ingest.walk import OUTSIDE_REASON
from tests.helpers import REPO_ROOT

ROOT = REPO_ROOT
LOG = b"[INFO] GE(1,python):2026-03-02-10:15:01.123.456 [a.cc:1][tid:1] ok\n"


def walk(paths: list[str], limits: Limits | None = None) -> list[tuple[str, str]]:
    out = []
    for item in iter_inputs(paths, limits):
        if isinstance(item, Skipped):
            out.append((item.path, item.reason))
        else:
            source, stream = item
            stream.read()
            out.append((source.path, "read"))
    return out


def test_symlinks_are_followed_only_inside_the_directory_given(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "plog-9_20260302101500000.log").write_bytes(LOG)
    os.mkfifo(outside / "never.log")  # opening it would block: it must not be reached
    logs = tmp_path / "logs"
    (logs / "real").mkdir(parents=True)
    (logs / "real" / "plog-1_20260302101500000.log").write_bytes(LOG)
    os.symlink(outside / "plog-9_20260302101500000.log", logs / "file-out.log")
    os.symlink(outside, logs / "dir-out")
    os.symlink(outside / "never.log", logs / "fifo-out.log")
    os.symlink("real", logs / "dir-in")
    os.symlink("real/plog-1_20260302101500000.log", logs / "file-in.log")
    got = dict((Path(p).relative_to(logs).as_posix(), r) for p, r in walk([str(logs)]))
    assert got == {
        "dir-in/plog-1_20260302101500000.log": "read",
        "dir-out": OUTSIDE_REASON,
        "file-in.log": f"duplicate: same file as {logs}/dir-in/plog-1_20260302101500000.log",
        "fifo-out.log": OUTSIDE_REASON,
        "file-out.log": OUTSIDE_REASON,
        "real": f"duplicate: same directory as {logs}/dir-in",
    }


def test_what_the_user_names_is_read_as_named(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "plog-9_20260302101500000.log"
    target.parent.mkdir()
    target.write_bytes(LOG)
    link = tmp_path / "here" / "job.log"
    link.parent.mkdir()
    os.symlink(target, link)
    assert walk([str(link)]) == [(str(link), "read")]
    assert walk([str(tmp_path / "here" / "*.log")]) == [(str(link), "read")]
    linked_dir = tmp_path / "tree"
    os.symlink(target.parent, linked_dir)  # a directory named through a symlink is walked
    assert walk([str(linked_dir)]) == [(f"{linked_dir}/plog-9_20260302101500000.log", "read")]


def test_special_files_in_a_walk_are_never_opened(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    os.mkfifo(logs / "pipe.log")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(logs / "sock.log"))
        assert walk([str(logs)]) == [(f"{logs}/pipe.log", "not a regular file"),
                                     (f"{logs}/sock.log", "not a regular file")]
    finally:
        server.close()


def test_files_are_opened_without_following_or_blocking(tmp_path: Path) -> None:
    real = tmp_path / "real.log"
    real.write_bytes(LOG)
    key = (real.stat().st_dev, real.stat().st_ino)
    swapped = tmp_path / "swapped.log"
    os.symlink(real, swapped)  # a symlink put where a checked regular file was
    with pytest.raises(OSError) as err:
        open_checked(str(swapped), key, follow=False)
    assert err.value.errno == errno.ELOOP
    with open_checked(str(swapped), key, follow=True) as handle:
        assert handle.read() == LOG
    other = tmp_path / "other.log"
    other.write_bytes(LOG)
    with pytest.raises(ValueError, match="replaced by another file"):
        open_checked(str(other), key, follow=False)
    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):  # returns at once
        open_checked(str(fifo), (fifo.stat().st_dev, fifo.stat().st_ino), follow=False)


def test_limits_are_options_with_help_and_readme_lines() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    for command in ("diagnose", "ingest", "events"):
        result = CliRunner().invoke(cli, [command, "--help"])
        for option in LIMIT_OPTIONS:
            shown = command == "diagnose" or not option.diagnose_only
            assert (option.flag in result.output) == shown, (command, option.flag)
    for option in LIMIT_OPTIONS:
        assert f"`{option.flag}" in readme, option.flag
    assert parse_size("64M") == 64 << 20 and parse_size("2g") == 2 << 30
    assert parse_size("512") == 512 and format_size(8 << 20) == "8 MiB"
    with pytest.raises(ValueError):
        parse_size("lots")
    result = CliRunner().invoke(cli, ["ingest", ".", "-o", "x.parquet", "--max-line-bytes",
                                      "lots"])
    assert result.exit_code == 2 and "is not a size" in result.output


def test_nesting_and_depth_limits_can_be_raised(tmp_path: Path) -> None:
    deep = tmp_path / "logs"
    here = deep
    for level in range(1, 81):
        here = here / f"d{level}"
    here.mkdir(parents=True)
    (here / "plog-1_20260302101500000.log").write_bytes(LOG)
    assert walk([str(deep)])[0][1].startswith("not read: more than 64 directory levels")
    assert walk([str(deep)], Limits(depth=100))[0][1] == "read"
    assert walk([str(deep)], Limits(depth=100, files=1)) == [
        (str(here / "plog-1_20260302101500000.log"), "read")]


_WRITES: list[str] | None = None  # while set, every file opened for writing is listed here


def _audit(event: str, args: tuple) -> None:
    if _WRITES is not None and event == "open" and isinstance(args[0], str):
        mode, flags = args[1], args[2]
        if (mode and any(c in mode for c in "wax+")) or (flags & (os.O_WRONLY | os.O_RDWR)):
            _WRITES.append(args[0])


def test_archive_members_never_touch_the_disk(tmp_path: Path) -> None:
    """Members of tar and zip archives, nested and compressed, are read as streams: nothing
    is opened for writing while they are read (a Python audit hook sees every open)."""
    import gzip
    import io
    import sys
    import tarfile
    import zipfile

    global _WRITES
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w:gz") as tar:
        data = gzip.compress(LOG * 50)
        info = tarfile.TarInfo("run/plog/plog-1_20260302101500000.log.gz")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with zipfile.ZipFile(tmp_path / "job.zip", "w") as archive:
        archive.writestr("logs/inner.tar.gz", inner.getvalue())
        archive.writestr("logs/debug/plog/plog-2_20260302101500000.log", LOG * 50)
    sys.addaudithook(_audit)  # hooks stay for the process; this one is off unless listing
    _WRITES = []
    try:
        read = walk([str(tmp_path / "job.zip")])
        writes = list(_WRITES)
    finally:
        _WRITES = None
    assert [reason for _, reason in read] == ["read", "read"], read
    assert writes == []
