"""Run test code in a forked child that may drop root privileges.

Tests run as root, and root reads every file, so permission problems (unreadable files and
directories) can only be observed after the child becomes another user. The child reports
through a pipe and never returns into pytest.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Sequence

NOBODY = 65534  # the uid and gid of 'nobody'


def run_forked(user: int | None, body: Callable[[int], int]) -> tuple[int, str]:
    """Exit code and pipe output of ``body(write_fd)`` run in a child as ``user`` (None: as is).

    ``body`` writes its report to ``write_fd`` and returns the child's exit code; an exception
    is reported through the pipe and gives exit code 3.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns
        code = 3
        try:
            os.close(read_end)
            if user is not None and os.geteuid() == 0:
                os.setgid(user)
                os.setuid(user)
            code = body(write_end)
        except BaseException as exc:  # report anything to the parent
            os.write(write_end, f"CHILD ERROR {exc!r}".encode())
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        out = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out


def plogscan_as_nobody(argv: Sequence[object]) -> tuple[int, str, str]:
    """Exit code, standard output and standard error of ``plogscan ARGV`` run in a forked child
    that became 'nobody' (when the tests run as root)."""

    def body(write_fd: int) -> int:
        from plogscan.cli import cli

        out, err = io.StringIO(), io.StringIO()
        sys.stdout, sys.stderr = out, err
        try:
            cli.main([str(a) for a in argv], prog_name="plogscan", standalone_mode=True)
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 3
        os.write(write_fd, json.dumps([out.getvalue(), err.getvalue()]).encode())
        return code

    code, text = run_forked(NOBODY, body)
    try:
        out, err = json.loads(text)
    except ValueError:  # the child's own error report
        return code, "", text
    return code, out, err
