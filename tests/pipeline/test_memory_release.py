"""``memory.release_freed``: once the last batch is read, ``diagnose`` gives the memory the
parse freed back to the system (Arrow's pool and glibc's heaps) before the cross-rank stage
builds its objects, and a run gives the same report with it."""

from __future__ import annotations

import ctypes
import platform

import pytest

from plogscan import memory


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="malloc_trim is glibc's")
def test_glibc_trim_is_found_and_returns_free_heap_pages() -> None:
    trim = memory._malloc_trim()
    assert trim is not None
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(64 << 10) for _ in range(512)]  # 32 MiB below the mmap threshold
    pin = libc.malloc(64)  # above them: free() alone cannot shrink the heap past it
    for block in blocks:
        libc.memset(ctypes.c_void_p(block), 1, 64 << 10)
        libc.free(block)
    try:
        assert trim(0) == 1  # it released memory to the system
    finally:
        libc.free(pin)


def test_diagnose_releases_once_after_the_last_batch(monkeypatch: pytest.MonkeyPatch,
                                                     flagship_logs) -> None:
    from plogscan.pipeline import passes
    from plogscan.report import render
    from tests.helpers import diagnosed

    calls: list[int] = []
    plain = render(diagnosed([str(flagship_logs)], cache=None), "json")
    monkeypatch.setattr(passes, "release_freed", lambda: calls.append(1) or
                        memory.release_freed())
    released = render(diagnosed([str(flagship_logs)], cache=None), "json")
    assert calls == [1]
    assert released == plain
