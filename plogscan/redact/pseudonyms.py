"""Pseudonyms: one stable, typed name per sensitive value, and the private map back.

Without a salt, names are numbered per kind by first appearance in the run (``ip-1``,
``ip-2``, ``host-1``): stable within a run, and the same for the same input. A name that is
also a real value of the input (a cluster whose hosts are called ``host-1``, ``host-2``) is
never handed out: such values are reserved first (``reserve``) and the numbering skips them.
With a salt (``--redact-salt FILE``) a name is a keyed hash of the value
(``host-3f9a1c2e07``: HMAC-SHA256 with the file's secret, first 10 hex digits), so the same
value gets the same name in every run that uses that file, and nobody without the file can
test a guess against it.

The salt file is created with a fresh random secret, readable by its owner only (0600), when it
is missing. ``--redact-map FILE`` writes the mapping back to the originals, also 0600: it is
for the ticket owner, never for the ticket.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from collections.abc import Iterable

from plogscan.datafile.located import DataFileError, read_data_file
from plogscan.errors import InputError, Location

KINDS = ("ip", "host", "user", "email", "secret")
SALT_MAX_BYTES = 4096
SALT_MIN_CHARS = 16
MAP_VERSION = 1


class Pseudonyms:
    """Names handed out in one run: original -> pseudonym per kind, and back."""

    def __init__(self, salt: bytes | None = None) -> None:
        self.salt = salt
        self._names: dict[tuple[str, str], str] = {}
        self._originals: dict[str, tuple[str, str]] = {}
        self._counts = dict.fromkeys(KINDS, 0)
        self._reserved: set[str] = set()

    def reserve(self, texts: Iterable[str]) -> None:
        """Values of the input shaped like pseudonyms: never handed out as names."""
        self._reserved.update(t for t in texts if t not in self._originals)

    def name(self, kind: str, original: str) -> str:
        """The pseudonym of ``original`` (a value of ``kind``), given on first sight."""
        key = (kind, original)
        found = self._names.get(key)
        if found is not None:
            return found
        if self.salt is None:
            given = ""
            while not given or given in self._reserved:
                self._counts[kind] += 1
                given = f"{kind}-{self._counts[kind]}"
        else:
            digest = hmac.new(self.salt, f"{kind}\0{original}".encode("utf-8", "surrogatepass"),
                              hashlib.sha256).hexdigest()
            given = f"{kind}-{digest[:10]}"
            extra = 0
            while given in self._originals or given in self._reserved:  # longer, still stable
                extra += 1
                given = f"{kind}-{digest[:10 + 2 * extra]}"
        self._names[key] = given
        self._originals[given] = key
        return given

    def is_pseudonym(self, text: str) -> bool:
        return text in self._originals

    def originals(self) -> dict[tuple[str, str], str]:
        """Every (kind, original) named so far, with its pseudonym."""
        return dict(self._names)

    def map_document(self) -> str:
        """The private map as JSON text: pseudonym -> kind and original, sorted."""
        entries = {given: {"kind": kind, "original": original}
                   for given, (kind, original) in self._originals.items()}
        document = {"version": MAP_VERSION, "salted": self.salt is not None,
                    "pseudonyms": dict(sorted(entries.items(), key=lambda kv: _order(kv[0])))}
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _order(given: str) -> tuple:
    kind, _, rest = given.partition("-")
    return (KINDS.index(kind) if kind in KINDS else len(KINDS),
            int(rest) if rest.isdigit() else 0, rest)


def load_salt(path: str) -> tuple[bytes, str | None]:
    """The secret of a salt file, created (0600) with a random one when missing; and a
    warning when an existing file is readable by others. Raises ``InputError``."""
    where = Location(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o600)
    except FileExistsError:
        fd = None
    except OSError as err:
        raise InputError(f"cannot create salt file: {err.strerror or err}", where=where) from None
    if fd is not None:
        secret = secrets.token_hex(32)
        with os.fdopen(fd, "w") as handle:
            handle.write(secret + "\n")
        return secret.encode(), None
    try:
        text = read_data_file(path, SALT_MAX_BYTES)
    except OSError as err:
        raise InputError(f"cannot read salt file: {err.strerror or err}", where=where) from None
    except DataFileError as err:
        raise InputError(f"cannot read salt file: {err}", where=where) from None
    secret = text.strip()
    if len(secret) < SALT_MIN_CHARS:
        raise InputError(f"salt file holds {len(secret)} characters: at least {SALT_MIN_CHARS}",
                         where=where, help="remove it and plogscan writes a new random one")
    warning = None
    mode = os.stat(path).st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        warning = (f"salt file {path} can be read by other users: with it, anyone can test "
                   "guesses against the pseudonyms (chmod 600 it)")
    return secret.encode("utf-8"), warning
