"""``--redact`` and its options on ``diagnose``, ``ingest`` and ``events``: the command-line end
of ``plogscan.redact``.

``start`` builds the run's ``Redactor`` and puts it between the run and the terminal: standard
error is redacted line by line (warnings name paths, and errors may quote them), standard
output gets the last pass that replaces every original named so far. The commands redact their
records and results themselves (``Redactor.batch``, ``redact_diagnosis``) and pass files they
write through ``final_text``. ``stop`` (called by the command group, after any error message)
puts the streams back and writes ``--redact-map``.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TextIO

import click

if TYPE_CHECKING:
    from plogscan.redact.redactor import Redactor

_ACTIVE: _Session | None = None


def redact_options(function):  # type: ignore[no-untyped-def]
    """The four redaction options; any of them turns redaction on."""
    options = [
        click.option("--redact", "redact", is_flag=True,
                     help="Replace IP addresses, host names, user names of home paths, e-mail "
                     "addresses and --redact-pattern matches in every output with stable "
                     "pseudonyms (ip-1, host-1, user-1...), for reports that leave the "
                     "company. Version numbers such as 8.0.0.1 stay."),
        click.option("--redact-pattern", "redact_patterns", multiple=True, metavar="REGEX",
                     help="Also redact what this RE2 regex matches (as secret-N). Repeatable; "
                     "implies --redact."),
        click.option("--redact-salt", "redact_salt", metavar="FILE",
                     type=click.Path(dir_okay=False),
                     help="Pseudonyms become keyed hashes, the same in every run that uses "
                     "FILE (created with a random secret, mode 0600, when missing). Implies "
                     "--redact."),
        click.option("--redact-map", "redact_map", metavar="FILE",
                     type=click.Path(dir_okay=False),
                     help="Write the private map from pseudonyms back to the originals "
                     "(mode 0600) for the ticket owner. Implies --redact."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


class _Lines(io.TextIOBase):
    """A text stream that passes each complete line through ``fix`` before writing it on."""

    def __init__(self, inner: TextIO, fix: Callable[[str], str]) -> None:
        super().__init__()
        self._inner = inner
        self._fix = fix
        self._pending = ""
        self._lock = threading.Lock()  # a progress bar refreshes from a thread of its own

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._inner, "encoding", "utf-8") or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._inner, "errors", None)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return bool(getattr(self._inner, "isatty", lambda: False)())

    def write(self, text: str) -> int:
        with self._lock:
            self._pending += text
            cut = max(self._pending.rfind("\n"), self._pending.rfind("\r"))
            if cut >= 0:
                done, self._pending = self._pending[: cut + 1], self._pending[cut + 1:]
                self._inner.write(self._fix(done))
        return len(text)

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                done, self._pending = self._pending, ""
                self._inner.write(self._fix(done))
            self._inner.flush()


class _Session:
    def __init__(self, redactor: Redactor, map_path: str | None) -> None:
        self.redactor = redactor
        self.map_path = map_path
        self.stdout, self.stderr = sys.stdout, sys.stderr
        sys.stdout = _Lines(sys.stdout, redactor.known_text)  # type: ignore[assignment]
        sys.stderr = _Lines(sys.stderr, self._stderr)  # type: ignore[assignment]

    def _stderr(self, text: str) -> str:
        return self.redactor.known_text(self.redactor.text(text, again=True))

    def close(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, _Lines):
                stream.flush()
        sys.stdout, sys.stderr = self.stdout, self.stderr
        if self.map_path:
            from plogscan.cli.common import cannot_write
            from plogscan.outputs.atomic import write_bytes

            try:
                write_bytes(self.map_path, self.redactor.map_document().encode("utf-8"),
                            mode=0o600)
            except OSError as err:
                raise cannot_write("redaction map", self.map_path, err) from None


def start(values: dict, inputs: Sequence[str] = (),
          names: Callable[[], Iterable[str]] | None = None) -> Redactor | None:
    """The run's redactor from the options in ``values`` (removed from it), with the streams
    redacted from now on; None when redaction is off. ``names()`` (asked only then) gives
    every name given or found in the inputs' walk (``cli.common.list_named``): names shaped
    like pseudonyms among them (hosts called ``host-1``...) are never handed out as names."""
    global _ACTIVE
    flag = values.pop("redact")
    patterns = values.pop("redact_patterns")
    salt_path = values.pop("redact_salt")
    map_path = values.pop("redact_map")
    if not (flag or patterns or salt_path or map_path):
        return None
    from plogscan.cli.common import prepare_output
    from plogscan.console import warn
    from plogscan.redact.pseudonyms import load_salt
    from plogscan.redact.redactor import Redactor

    if map_path:
        prepare_output(map_path, "redaction map", inputs=inputs)
    salt = None
    if salt_path:
        salt, warning = load_salt(salt_path)
        if warning:
            warn(warning)
    redactor = Redactor(patterns, salt)
    if names is not None:
        redactor.reserve(names())
    _ACTIVE = _Session(redactor, map_path)
    return redactor


def stop() -> None:
    """Put the streams back and write the map (``PlogscanGroup`` calls it after every
    command, after its error message if it failed)."""
    global _ACTIVE
    session, _ACTIVE = _ACTIVE, None
    if session is not None:
        session.close()


def final_text(redactor: Redactor | None) -> Callable[[str], str] | None:
    """What a command applies to a document before writing it to a file."""
    return redactor.known_text if redactor is not None else None
