"""The one listing of a run's inputs: every entry the walk of the named paths found, in walk
order, with what ``stat`` said of it and, for an entry the run does not read, why.

``ingest.walk`` produces it (without opening a file); the progress total, the names the
redaction keeps from its pseudonyms, the cache's key to a whole earlier result and the read
of the inputs all take it, so the paths are walked once per run.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum

from plogscan.model.inputs import LimitHit


class EntryKind(str, Enum):
    """What the walk found at a name."""

    FILE = "file"  # a regular file (reached through a symlink inside the tree too)
    DIRECTORY = "dir"
    LINK = "link"  # a symlink the walk does not follow (it leads outside the tree)
    OTHER = "other"  # a FIFO, socket or device inside a directory: never opened
    MISSING = "missing"  # a name that cannot be looked at (gone, broken link, no access)
    PATTERN = "pattern"  # a glob pattern as given
    STREAM = "stream"  # ``-``, or a FIFO or character device named on the command line
    TABLE = "table"  # an event table named on the command line (read as a table)
    NOISE = "noise"  # a name the walk leaves out (``.git``, ``__MACOSX``, ``.DS_Store``...)


@dataclass(frozen=True, slots=True)
class ListedInput:
    """One entry of the listing."""

    path: str  # as the walk reached it (a relative argument stays relative)
    kind: EntryKind
    size: int | None = None
    mtime_ns: int | None = None
    file_id: tuple[int, int] | None = None  # (device, inode): what the read checks it opens
    mode: int | None = None
    follow: bool = False  # a regular file reached through a symlink inside the tree
    named: bool = False  # named on the command line, not found in a directory
    link: str | None = None  # the text of the symlink the entry was reached through
    member_of: str | None = None  # the archive an archive member is read from
    skipped: str | None = None  # why the run does not read it (known from ``stat`` alone)
    limit: LimitHit | None = None  # the limit that made it skipped, if one did

    def line(self) -> str:
        """What the stat hash takes of the entry (a directory's modification time aside: a
        name added to it is an entry of its own, and a noise name changes nothing)."""
        mtime = None if self.kind is EntryKind.DIRECTORY else self.mtime_ns
        return (f"{self.kind.value} {self.path!r} {self.size} {mtime} "
                f"{self.file_id[1] if self.file_id else None} {self.mode} {self.link!r} "
                f"{self.skipped!r}\n")


@dataclass(frozen=True)
class InputListing:
    """The entries of a whole walk (up to the bound that keeps it in memory)."""

    args: tuple[str, ...]
    cwd: str
    entries: tuple[ListedInput, ...]
    complete: bool = True  # False past the bound: only the first entries are here
    digests: Mapping[str, str] = field(default_factory=dict)  # by absolute path

    @property
    def memoizable(self) -> bool:
        """Whether a whole result may be kept for these inputs: all of them listed, none
        read once as a stream."""
        return self.complete and not any(e.kind is EntryKind.STREAM for e in self.entries)

    def files(self) -> Iterator[ListedInput]:
        """The regular files the run opens (read, or skipped for what they hold)."""
        return (e for e in self.entries if e.kind is EntryKind.FILE and e.skipped is None)

    def regular_files(self) -> Iterator[ListedInput]:
        """Every regular file listed, read or not (event tables too): what a result over
        these inputs depends on."""
        return (e for e in self.entries if e.kind in (EntryKind.FILE, EntryKind.TABLE)
                and e.size is not None)

    def total_bytes(self) -> int | None:
        """Bytes on disk of the files to read (the progress total); None when unknown."""
        if not self.complete or any(e.kind is EntryKind.STREAM for e in self.entries):
            return None
        return sum(e.size or 0 for e in self.files()) or None

    def names(self) -> Iterator[str]:
        """Every name given or found (noise too), no file opened."""
        yield from self.args
        for entry in self.entries:
            yield os.path.basename(entry.path)

    def stat_hash(self) -> str:
        """A hash of what ``stat`` says of every entry, and of the arguments and the working
        directory they are read against."""
        digest = hashlib.sha256(f"cwd {self.cwd}\n".encode())
        for arg in self.args:
            digest.update(f"arg {arg!r}\n".encode())
        for entry in self.entries:
            if entry.kind is not EntryKind.NOISE:
                digest.update(entry.line().encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def absolute(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.cwd, path))

    def content_hash(self) -> str | None:
        """A hash of the content digest of every regular file listed (None when one is not
        known)."""
        digests = []
        for entry in self.regular_files():
            found = self.digests.get(self.absolute(entry.path))
            if found is None:
                return None
            digests.append(found)
        return hashlib.sha256("\n".join(digests).encode()).hexdigest()
