"""The summary split by attempt, once, so that each attempt's conclusions read only its own
records; and which attempts a report lists.

The conclusions of one attempt (collective alignment, wait graph, timeouts against the gaps
between ranks) look only at the records of the attempt's processes. Filtering the whole
summary again for every attempt costs attempts × records: an input of many short-lived
processes (one attempt each) made that quadratic. Here every anchor record is handed to the
attempts of its process in one pass, in the summary's order, so each attempt's view holds
exactly what the filter would have kept, and the whole split costs one pass. An attempt with
no anchor record and nothing reported concludes nothing (``QUIET``) without the analysis.

A report lists at most ``MAX_LISTED`` attempts (the ones findings belong to and the failed
ones first) and counts the rest: an input of a million short processes is a million attempts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plogscan.crossrank.attempts import Attempt, Attempts
from plogscan.crossrank.identity import Identities, ProcessKey
from plogscan.crossrank.summary import Summary
from plogscan.model import CollectivesReport, ConfigReport, MissingReport, RootCause

MAX_LISTED = 256  # attempts a report lists one by one; past it they are only counted

# The summary's lists an attempt's conclusions read, each item with its ``stream``.
_LISTS = ("announces", "waits", "tasks", "entries", "settings")
_EMPTY = Summary()


@dataclass(frozen=True)
class Conclusion:
    """What the analysis concluded about one attempt, and which processes it names."""

    root_cause: RootCause
    failed: bool
    suspects: frozenset[ProcessKey]  # the suspects in the input
    victims: frozenset[ProcessKey]
    missing: MissingReport
    collectives: CollectivesReport
    config: ConfigReport


# The conclusions of an attempt with no anchor record and nothing reported (what the full
# analysis gives for it): no failure, nothing aligned, nothing missing, no setting compared.
QUIET = Conclusion(RootCause("undetermined"), False, frozenset(), frozenset(), MissingReport(),
                   CollectivesReport(), ConfigReport())


class ByAttempt:
    """Per attempt: a ``Summary`` of its processes' anchor records, and its settings."""

    def __init__(self, summary: Summary, ids: Identities, attempts: Attempts,
                 settings: Mapping[ProcessKey, Any]) -> None:
        owners = {key: attempts.holding(key) for key in ids.processes}
        lists: dict[int, dict[str, list]] = {}  # only the attempts that have records
        for name in (*_LISTS, "entry_counts"):
            for item in getattr(summary, name):
                stream = item[0] if name == "entry_counts" else item.stream
                for number in owners.get(ids.of_stream.get(stream), ()):  # type: ignore
                    named = lists.get(number)
                    if named is None:
                        named = lists[number] = {n: [] for n in (*_LISTS, "entry_counts")}
                    named[name].append(item)
        self._views = {number: Summary(**{n: tuple(v) for n, v in named.items()})
                       for number, named in lists.items()}
        self._settings: dict[int, dict[ProcessKey, Any]] = {}
        for key, value in settings.items():
            for number in owners.get(key, ()):
                self._settings.setdefault(number, {})[key] = value

    def summary(self, attempt: int) -> Summary:
        """The anchor records of the attempt's processes, in the summary's order."""
        return self._views.get(attempt, _EMPTY)

    def settings(self, attempt: int) -> dict[ProcessKey, Any]:
        """The settings of the attempt's processes (``config.settings_by_process``)."""
        return self._settings.get(attempt, {})

    def has_records(self, attempt: int) -> bool:
        """Whether any anchor record belongs to the attempt's processes."""
        return attempt in self._views


def listed(attempts: tuple[Attempt, ...], failed: set[int], named: set[int]
           ) -> list[Attempt]:
    """The attempts a report lists, in id order: every one ``named`` (the chosen attempt and
    those findings belong to, even past the cap, so that every finding's attempt is listed),
    then failed ones, then the others, up to ``MAX_LISTED``."""
    if len(attempts) <= MAX_LISTED:
        return list(attempts)
    keep = {a.id for a in attempts if a.id in named}
    for wanted in (True, False):
        for a in attempts:
            if len(keep) >= MAX_LISTED:
                break
            if (a.id in failed) == wanted:
                keep.add(a.id)
    return [a for a in attempts if a.id in keep]
