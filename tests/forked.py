"""Run test code in a forked child that may drop root privileges.

Tests run as root, and root reads every file, so permission problems (unreadable files and
directories) can only be observed after the child becomes another user. The child reports
through a pipe and never returns into pytest.
"""

from __future__ import annotations

import os
from collections.abc import Callable


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
