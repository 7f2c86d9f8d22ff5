"""Finding fingerprints: the same failure gets the same id across reruns and log noise.

A fingerprint hashes what identifies a failure and nothing that changes from one run of the
job (or of plogscan) to the next:

* the rule id and the verdict;
* the scope's hosts, ranks and devices (process ids are left out: they change every run);
* for each step, the message of the first record that filled it, normalised: lower-cased,
  hex values and numbers masked, runs of blanks collapsed.

Line numbers, paths, timestamps and pids are never part of it, and neither are records that
the finding does not key on, so unrelated lines added to the logs leave it unchanged.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable

from plogscan.model import Scope

_HEX = re.compile(r"0x[0-9a-f]+|[0-9a-f]{8,}")
_NUM = re.compile(r"\d+")
_BLANK = re.compile(r"\s+")


def normalize(message: str) -> str:
    """A message with its variable parts masked: ``ctxSize is 4`` -> ``ctxsize is <n>``."""
    text = message.lower()
    text = _HEX.sub("<x>", text)
    text = _NUM.sub("<n>", text)
    return _BLANK.sub(" ", text).strip()


def fingerprint(rule_id: str, verdict: str, scope: Scope, keys: Iterable[tuple[str, str]]) -> str:
    """16 hex digits identifying one finding; ``keys`` are (step id, message) pairs."""
    payload = {
        "rule": rule_id,
        "verdict": verdict,
        "hosts": list(scope.hosts),
        "ranks": list(scope.ranks),
        "devices": list(scope.devices),
        "keys": [[step, normalize(message)] for step, message in keys],
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]
