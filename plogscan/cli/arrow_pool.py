"""Arrow's memory pool in the command-line process: jemalloc, where pyarrow has it.

pyarrow's default pool on Linux is mimalloc, which keeps pages it has freed for reuse. The
parse and the rules allocate and free Arrow buffers batch after batch, so with mimalloc the
peak RSS of ``diagnose`` was a quarter to a third higher than with jemalloc for the same work
(512 MiB tree: 514 against 380 MiB; one file written by a million processes: 984 against
820 MiB), in about the same time. A user's own choice, ``ARROW_DEFAULT_MEMORY_POOL``, is left
as it is, and so is a pyarrow built without jemalloc. Code that imports plogscan as a library
keeps its own pool.
"""

from __future__ import annotations

import os
import sys


def use_lean_pool() -> str | None:
    """Make jemalloc the default Arrow pool of this process, once pyarrow is imported; the
    backend chosen, or None when the pool was left as it was."""
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL") or "pyarrow" not in sys.modules:
        return None
    import pyarrow as pa

    try:
        pool = pa.jemalloc_memory_pool()
    except (NotImplementedError, pa.ArrowException):
        return None  # this pyarrow has no jemalloc
    pa.set_memory_pool(pool)
    return pool.backend_name
