"""Baselines: record the findings a team already knows about, and suppress them in later runs.

A baseline file is JSON::

    {"version": 1,
     "entries": [{"fingerprint": "c3a81f0d92e4b715", "rule": "CCU001",
                  "title": "Cached CCU context reused, then an MC2 fused-kernel fault",
                  "reason": "tracked in ASC-1234", "expires": "2026-12-31"}]}

``reason`` and ``expires`` may be null. An entry suppresses the finding with the same
fingerprint (fingerprints are stable across reruns and unrelated log noise) through its
``expires`` day inclusive; after that it suppresses nothing and is reported as expired, so a
forgotten suppression cannot hide a fault for ever. Suppressed findings leave
``Diagnosis.findings`` (and so stop counting for the exit code) but stay visible: every
reporter lists them in a "suppressed by baseline" section (see ``plogscan.report.view``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from plogscan.datafile.located import DataFileError, read_data_file
from plogscan.errors import InputError, Location
from plogscan.incidents import with_incidents
from plogscan.model import BaselineOutcome, Diagnosis, ExpiredBaselineEntry, Finding, Level

BASELINE_VERSION = 1
MAX_BASELINE_BYTES = 64 << 20  # a baseline of a million findings is about 200 MB; refuse more
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ENTRY_KEYS = ("fingerprint", "rule", "title", "reason", "expires")
_FAIL_ON = {"info": Level.INFO, "warning": Level.WARNING, "error": Level.ERROR,
            "critical": Level.CRITICAL}


@dataclass(frozen=True)
class BaselineEntry:
    """One known finding: its fingerprint, what it was (for people), why and until when."""

    fingerprint: str
    rule: str
    title: str
    reason: str | None = None
    expires: date | None = None

    def expired(self, today: date) -> bool:
        """True once ``today`` is past the expiry day (the expiry day itself still counts)."""
        return self.expires is not None and today > self.expires

    def to_dict(self) -> dict[str, str | None]:
        return {"fingerprint": self.fingerprint, "rule": self.rule, "title": self.title,
                "reason": self.reason,
                "expires": self.expires.isoformat() if self.expires else None}


@dataclass(frozen=True)
class Baseline:
    """The entries of one baseline file, sorted by fingerprint."""

    entries: tuple[BaselineEntry, ...]
    version: int = BASELINE_VERSION


def create_baseline(diagnosis: Diagnosis, *, reason: str | None = None,
                    expires: date | None = None) -> Baseline:
    """A baseline holding every current finding (each fingerprint once), with one reason/expiry."""
    entries: dict[str, BaselineEntry] = {}
    for finding in diagnosis.findings:
        entries.setdefault(finding.fingerprint, BaselineEntry(
            finding.fingerprint, finding.rule, finding.title, reason or None, expires))
    return Baseline(tuple(entries[fp] for fp in sorted(entries)))


def dumps_baseline(baseline: Baseline) -> str:
    """The baseline file text: sorted, indented, newline-terminated, byte-stable."""
    document = {"version": baseline.version,
                "entries": [e.to_dict() for e in sorted(baseline.entries,
                                                        key=lambda e: e.fingerprint)]}
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_baseline(baseline: Baseline, path: Path) -> None:
    """The baseline file, complete or not at all (a temporary name, then a rename)."""
    from plogscan.outputs.atomic import write_bytes

    write_bytes(path, dumps_baseline(baseline).encode("utf-8"))


def load_baseline(path: Path) -> Baseline:
    """Read and check a baseline file.

    Raises:
        InputError: unreadable file, invalid JSON, wrong version, unknown or missing keys, or a
            bad date; the message names the file (and the line, for JSON syntax errors).
    """
    try:
        text = read_data_file(path, MAX_BASELINE_BYTES)
    except OSError as err:
        raise InputError(f"cannot read baseline file: {err.strerror or err}",
                         where=Location(str(path))) from None
    except DataFileError as err:
        raise InputError(f"cannot read baseline file: {err}", where=Location(str(path))) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"baseline file is not valid JSON: {err.msg}",
                         where=Location(str(path), err.lineno)) from None
    except RecursionError:
        raise InputError("baseline file nests its values too deeply to be a baseline",
                         where=Location(str(path))) from None
    return _parse(document, str(path))


def _parse(document: object, where: str) -> Baseline:
    def fail(message: str, help: str | None = None) -> InputError:
        return InputError(message, where=Location(where), help=help)

    if not isinstance(document, dict) or set(document) != {"version", "entries"}:
        raise fail("a baseline file is an object with exactly the keys 'version' and 'entries'",
                   "create one with: plogscan baseline create PATH... -o FILE")
    if document["version"] != BASELINE_VERSION:
        raise fail(f"unsupported baseline version {document['version']!r}",
                   f"valid choices are: {BASELINE_VERSION}")
    if not isinstance(document["entries"], list):
        raise fail("'entries' must be a list")
    entries = []
    for index, raw in enumerate(document["entries"]):
        if not isinstance(raw, dict):
            raise fail(f"entry {index} is not an object")
        unknown = sorted(set(raw) - set(_ENTRY_KEYS))
        if unknown:
            raise fail(f"entry {index}: unknown key {unknown[0]!r}",
                       "valid keys are: " + ", ".join(_ENTRY_KEYS))
        for key in ("fingerprint", "rule", "title"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise fail(f"entry {index}: {key!r} must be a non-empty string")
        reason = raw.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise fail(f"entry {index}: 'reason' must be a string or null")
        entries.append(BaselineEntry(raw["fingerprint"], raw["rule"], raw["title"],
                                     reason or None, _parse_date(raw.get("expires"), index,
                                                                 fail)))
    return Baseline(tuple(sorted(entries, key=lambda e: e.fingerprint)))


def _parse_date(value: object, index: int, fail) -> date | None:
    if value is None:
        return None
    if isinstance(value, str) and _DATE.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise fail(f"entry {index}: 'expires' must be a date written YYYY-MM-DD, not {value!r}")


def exit_code_for(findings: tuple[Finding, ...], fail_on: str) -> int:
    """1 when any finding (match or not_evaluable) is at or above ``fail_on``, else 0.

    A not_evaluable finding counts: the rule's trigger occurred and the logs could not rule the
    cause out, which must never pass silently.
    """
    threshold = _FAIL_ON.get(fail_on)
    if threshold is None:  # "never"
        return 0
    return int(any(f.level.rank >= threshold.rank for f in findings))


def apply_baseline(diagnosis: Diagnosis, baseline: Baseline, *,
                   today: date | None = None) -> tuple[Diagnosis, list[Finding],
                                                       list[BaselineEntry]]:
    """Suppress the findings a baseline knows; report the entries that have expired.

    Returns the new diagnosis (suppressed findings removed, listed in ``baseline``, exit code
    recomputed for its ``fail_on`` unless it was 2), the suppressed findings and the expired
    entries. An expired entry suppresses nothing.
    """
    today = today or date.today()
    active = {e.fingerprint: e for e in baseline.entries if not e.expired(today)}
    expired = [e for e in baseline.entries if e.expired(today)]
    kept = tuple(f for f in diagnosis.findings if f.fingerprint not in active)
    gone = [f for f in diagnosis.findings if f.fingerprint in active]
    before = diagnosis.baseline or BaselineOutcome()
    reasons = dict(before.suppressed_reasons)
    reasons.update({f.fingerprint: active[f.fingerprint].reason for f in gone})
    outcome = BaselineOutcome(before.suppressed + tuple(gone), reasons,
                              tuple(ExpiredBaselineEntry(**e.to_dict()) for e in expired))
    exit_code = diagnosis.exit_code if diagnosis.exit_code >= 2 else exit_code_for(
        kept, diagnosis.fail_on)
    kept_diagnosis = with_incidents(replace(diagnosis, findings=kept, incidents=(),
                                            baseline=outcome, exit_code=exit_code))
    return kept_diagnosis, gone, expired


def expiry_warnings(expired: list[BaselineEntry]) -> list[str]:
    """One warning line per expired entry, for stderr."""
    return [f"warning: baseline entry {e.fingerprint} ({e.rule}: {e.title}) expired on "
            f"{e.expires.isoformat() if e.expires else '?'}; it no longer suppresses anything"
            for e in expired]
