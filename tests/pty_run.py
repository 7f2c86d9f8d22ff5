"""Run plogscan as a person runs it in a terminal: standard output and standard error on real
pseudo-terminals with a window size set, as ``script`` or a terminal emulator would give it.

Each stream that is on a terminal gets a pseudo-terminal of its own, sized with
``TIOCSWINSZ``, so what the program wrote to each can still be told apart (a person's two
streams are one terminal; to the program the two are the same: ``isatty`` holds and the
window size can be asked of either). Standard input is the standard output's terminal, as a
shell gives it. A stream that is not on a terminal goes to a file, never to a pipe nobody
reads. ``COLUMNS``, ``LINES`` and ``NO_COLOR`` are left out of the environment, so the width
comes from the terminal, as it does for a person.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass(frozen=True)
class Ran:
    """What a run left: its exit code and the text of each stream (a terminal's CR LF read as
    LF)."""

    code: int
    stdout: str
    stderr: str

    @property
    def stdout_plain(self) -> str:
        return plain(self.stdout)


def plain(text: str) -> str:
    """``text`` without terminal escape sequences."""
    return ANSI.sub("", text)


def have_pty() -> bool:
    try:
        leader, follower = pty.openpty()
    except OSError:
        return False
    os.close(leader)
    os.close(follower)
    return True


def _terminal(rows: int, cols: int) -> tuple[int, int]:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return leader, follower


def run_plogscan(args: list[str], *, stdout_tty: bool = True, stderr_tty: bool = True,
                 rows: int = 40, cols: int = 90, env: dict[str, str] | None = None,
                 timeout: float = 180) -> Ran:
    """``python -m plogscan ARGS`` from the repository root, each stream on a terminal of
    ``rows`` x ``cols`` or in a file."""
    base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    base["TERM"] = "xterm-256color"
    base.update(env or {})
    leaders: dict[str, int] = {}
    files: dict[str, object] = {}
    streams: dict[str, int | object] = {}
    followers: list[int] = []
    for name, on_terminal in (("stdout", stdout_tty), ("stderr", stderr_tty)):
        if on_terminal:
            leader, follower = _terminal(rows, cols)
            leaders[name] = leader
            followers.append(follower)
            streams[name] = follower
        else:
            files[name] = streams[name] = tempfile.TemporaryFile()  # noqa: SIM115
    stdin = streams["stdout"] if stdout_tty else subprocess.DEVNULL
    try:
        proc = subprocess.Popen([sys.executable, "-m", "plogscan", *args], stdin=stdin,
                                stdout=streams["stdout"], stderr=streams["stderr"],
                                env=base, cwd=ROOT)
        for follower in followers:
            os.close(follower)
        followers = []
        seen = {name: bytearray() for name in leaders}
        deadline = time.monotonic() + timeout
        open_leaders = dict(leaders)
        while open_leaders and time.monotonic() < deadline:
            ready, _, _ = select.select(list(open_leaders.values()), [], [], 1.0)
            for name, fd in list(open_leaders.items()):
                if fd not in ready:
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the terminal closed: the program is done with it
                    chunk = b""
                if chunk:
                    seen[name] += chunk
                else:
                    del open_leaders[name]
        code = proc.wait(timeout=max(deadline - time.monotonic(), 1))
        out: dict[str, str] = {}
        for name, data in seen.items():
            out[name] = bytes(data).decode("utf-8", "replace").replace("\r\n", "\n")
        for name, handle in files.items():
            handle.seek(0)  # type: ignore[attr-defined]
            out[name] = handle.read().decode("utf-8", "replace")  # type: ignore[attr-defined]
        return Ran(code, out["stdout"], out["stderr"])
    finally:
        for fd in followers:
            os.close(fd)
        for fd in leaders.values():
            os.close(fd)
        for handle in files.values():
            handle.close()  # type: ignore[attr-defined]
