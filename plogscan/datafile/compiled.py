"""Compiled forms of plogscan's own data, kept between runs: the line formats, the rule pack,
Hyperscan databases.

Reading the formats and the rules from YAML and compiling the Hyperscan databases took a
run about 0.3 s before its first byte of input counted. Each is built once and kept in a file
named by a hash of everything it is built from (the data's bytes, a stamp of plogscan's code,
the Python and Hyperscan versions): a later run reads it back in a millisecond or two, and a
change of any of them builds afresh. The files hold no log text, only plogscan's own data
compiled (and rules given with ``--rules``), so ``--no-cache``, which concerns what was
extracted from logs, leaves them alone.

Nothing here may fail a run: a file that is missing, truncated or altered (its SHA-256 is
checked), owned by another user or writable by others, or that no longer loads, is built
again; a directory that cannot be written to only means building on every run. The
directory is created 0700 and its files 0600; it keeps at most ``MAX_FILES`` files, the
oldest removed first.

Where: ``$XDG_CACHE_HOME/plogscan/compiled`` (``~/.cache/plogscan/compiled``), whatever
``--cache`` or ``PLOGSCAN_CACHE`` say of the extraction cache.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

MAGIC = b"plogscan compiled 2\n"
MAX_FILES = 64  # formats and rules of a few plogscan versions, and their Hyperscan databases
_DIGEST = hashlib.sha256().digest_size
_OWN_PATTERNS = threading.local()


def compiled_dir() -> Path | None:
    """``$XDG_CACHE_HOME/plogscan/compiled``, or ``~/.cache/plogscan/compiled``; None when
    there is no home directory to put it in (then everything is built on every run)."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        home = os.path.expanduser("~")
        if home.startswith("~"):  # no HOME and no user entry: not a path to write to
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "plogscan" / "compiled"


def kept(kind: str, parts: Iterable[str | bytes], build: Callable[[], T],
         dump: Callable[[T], bytes] = pickle.dumps,
         load: Callable[[bytes], T] = pickle.loads) -> T:
    """What ``build()`` returns, read back from the file of ``kind`` keyed by ``parts`` when
    an earlier run kept it, else built and kept (``dump`` and ``load`` turn it into bytes and
    back). ``parts`` must name everything the result depends on. A result of None is not
    kept; an error of ``build`` is raised as it is."""
    if compiled_dir() is None:
        return build()
    parts = list(parts)
    payload = read_kept(kind, parts)
    if payload is not None:
        try:
            return load(payload)
        except Exception:  # another version's form, or one that no longer loads: build it
            pass
    value = build()
    if value is not None:
        try:
            data = dump(value)
        except Exception:
            return value
        store_kept(kind, parts, data)
    return value


@contextlib.contextmanager
def own_patterns() -> Iterator[None]:
    """Mark the regular expressions this thread compiles in the block as made of plogscan's
    own data (its formats, its rules), never of log text: where the command line keeps the
    patterns it compiles between runs (``plogscan.cli.keptcode``), it may keep these too."""
    depth = getattr(_OWN_PATTERNS, "depth", 0)
    _OWN_PATTERNS.depth = depth + 1
    try:
        yield
    finally:
        _OWN_PATTERNS.depth = depth


def compiling_own_patterns() -> bool:
    """Whether this thread is inside ``own_patterns``."""
    return getattr(_OWN_PATTERNS, "depth", 0) > 0


def read_kept(kind: str, parts: Iterable[str | bytes]) -> bytes | None:
    """The bytes kept for ``kind`` keyed by ``parts``, or None when there are none (or
    they do not check)."""
    directory = compiled_dir()
    if directory is None:
        return None
    key = f"{kind}-{key_of(parts)}"
    return _read(directory / f"{key}.bin", key)


def store_kept(kind: str, parts: Iterable[str | bytes], payload: bytes) -> None:
    """Keep ``payload`` for ``kind`` keyed by ``parts`` (nothing when there is no place)."""
    directory = compiled_dir()
    if directory is not None:
        key = f"{kind}-{key_of(parts)}"
        _write(directory / f"{key}.bin", key, payload)


def key_of(parts: Iterable[str | bytes]) -> str:
    """A SHA-256 of ``parts``, each one length-prefixed (so no two lists give one key)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """A hash of the path, size and modification time of every module of the plogscan
    package, and of the Python version: what Python itself checks a module's bytecode
    against. A compiled form of objects whose classes the code defines is only read back
    by the code that wrote it."""
    root = Path(__file__).resolve().parent.parent
    found: list[str] = []
    folders = [str(root)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        folders.append(entry.path)
                elif entry.name.endswith((".py", ".so", ".pyd")):
                    st = entry.stat()
                    found.append(f"{entry.path[len(str(root)):]}\0{st.st_size}\0"
                                 f"{st.st_mtime_ns}")
    return key_of([sys.version, *sorted(found)])


def _read(path: Path, key: str) -> bytes | None:
    """The payload of ``path``, or None unless it is a regular file of this user that no
    one else may write and its digest (of ``key`` and the payload: a file under another
    file's name does not match) matches."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))  # a FIFO put there does not block
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            if not _private(os.fstat(handle.fileno())):
                return None
            data = handle.read()
    except OSError:
        return None
    head = len(MAGIC) + _DIGEST
    if len(data) < head or not data.startswith(MAGIC):
        return None
    payload = data[head:]
    if _digest(key, payload) != data[len(MAGIC):head]:
        return None
    return payload


def _digest(key: str, payload: bytes) -> bytes:
    return hashlib.sha256(key.encode() + b"\0" + payload).digest()


def _private(st: os.stat_result) -> bool:
    """Whether a file is regular, this user's, and writable by no one else (what it holds
    is loaded as code's objects)."""
    if not stat.S_ISREG(st.st_mode) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    return not hasattr(os, "geteuid") or st.st_uid == os.geteuid()


def _write(path: Path, key: str, payload: bytes) -> None:
    """Keep ``payload`` at ``path`` (written whole under another name, then renamed, so a
    reader sees the old file or the new one); any failure leaves things as they were."""
    directory = path.parent
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-")  # created 0600
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + _digest(key, payload) + payload)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return
    _prune(directory)


def _prune(directory: Path) -> None:
    """Remove the oldest files past ``MAX_FILES`` (a temporary file a killed run left
    among them)."""
    with contextlib.suppress(OSError):
        entries = [e for e in os.scandir(directory) if e.is_file(follow_symlinks=False)]
        if len(entries) <= MAX_FILES:
            return
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
        for entry in entries[:len(entries) - MAX_FILES]:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)

