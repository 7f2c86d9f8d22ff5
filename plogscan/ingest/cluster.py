"""Running the parse workers on a ``dask.distributed`` cluster instead of the local pool.

``Ingest`` submits every parse task (a byte range of a plain file, or a chunk read on the
client from a pipe, standard input or an archive) and every content-digest task through one
executor interface: ``submit(fn, *args) -> future`` with ``future.result()``. The local pool
is a ``concurrent.futures`` executor; ``DaskExecutor`` is the same interface over a
``distributed.Client``, so a cluster run takes no second code path. The workers read plain
files themselves: the paths must be readable there (shared storage), and come back reduced
(kept records, facts), so only a small result crosses the network.

``connect`` checks before any work that every worker runs the same plogscan (version and a
content hash of its code and data), so a cluster with a stale install fails with a clear
message instead of a subtly different report.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from plogscan.errors import InputError

ENV_VAR = "PLOGSCAN_SCHEDULER"
CONNECT_TIMEOUT_S = 15


@dataclass(frozen=True)
class ClusterAddress:
    """Where the scheduler is: an address (``tcp://``, ``tls://``) or a scheduler file."""

    address: str | None = None
    scheduler_file: str | None = None

    @classmethod
    def from_options(cls, address: str | None, scheduler_file: str | None
                     ) -> ClusterAddress | None:
        address = address or (None if scheduler_file else os.environ.get(ENV_VAR) or None)
        if address is None and scheduler_file is None:
            return None
        if address is not None and not address.startswith(("tcp://", "tls://", "inproc://",
                                                             "ucx://")):
            raise InputError(f"scheduler address {address!r} has no scheme",
                             help="give tcp://HOST:PORT or tls://HOST:PORT, or "
                             "--scheduler-file FILE")
        return cls(address, scheduler_file)

    def describe(self) -> str:
        return self.address or f"scheduler file {self.scheduler_file}"


class DaskExecutor:
    """The parse pool's interface over a ``distributed.Client``."""

    def __init__(self, client: Any) -> None:
        self.client = client
        threads = client.nthreads()
        self.slots = max(1, sum(threads.values()))

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        self.client.close()


def _worker_identity() -> tuple[str, str]:
    from plogscan import __version__
    from plogscan.cache.fingerprint import code_fingerprint

    return __version__, code_fingerprint()


def connect(where: ClusterAddress) -> DaskExecutor:
    """A client connected to the scheduler, its workers checked; InputError when the extra
    is missing, the scheduler cannot be reached, it has no workers or they differ."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler needs dask.distributed, which is not installed",
                         help="pip install 'plogscan[distributed]'") from None
    try:
        client = Client(where.address, scheduler_file=where.scheduler_file,
                        timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"cannot reach the Dask scheduler at {where.describe()}: {err}",
                         help="check the address and that the scheduler runs; "
                         "see docs/distributed.md") from None
    try:
        _check_workers(client)
    except BaseException:
        client.close()
        raise
    return DaskExecutor(client)


def _check_workers(client: Any) -> None:
    if not client.nthreads():
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError):
            raise InputError("the Dask cluster has no workers",
                             help="start workers: dask worker SCHEDULER_ADDRESS") from None
    mine = _worker_identity()
    theirs = client.run(_worker_identity)
    differ = sorted(worker for worker, identity in theirs.items() if tuple(identity) != mine)
    if differ:
        version, code = theirs[differ[0]]
        raise InputError(
            f"{len(differ)} Dask worker(s) run another plogscan ({differ[0]}: version "
            f"{version}, code {str(code)[:12]}; here: {mine[0]}, code {mine[1][:12]})",
            help="install the same plogscan on every worker (pip install the same wheel or "
            "checkout), then restart them")
