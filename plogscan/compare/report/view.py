"""What every format of the comparison shows the same way: labels, the answer's parts."""

from __future__ import annotations

from collections.abc import Iterable

from plogscan.compare.model import BAD, GOOD, Comparison, Divergence, Slot, TemplateDiff
from plogscan.compare.words import say
from plogscan.report.i18n import listing
from plogscan.report.view import int_ranges


def slot_label(lang: str, slot: Slot | None) -> str:
    """``rank 3``; ``rank 3 #2`` for the second process of rank 3 (a restart); ``process #4``
    for the fourth process that names no rank."""
    if slot is None:
        return say(lang, "no process")
    if slot.rank is None:
        return say(lang, "process #{n}", n=slot.nth + 1)
    if slot.nth == 0:  # "rank" stays in Latin letters in every language, as Ascend's docs
        return f"rank {slot.rank}"
    return f"rank {slot.rank} #{slot.nth + 1}"


def slots_label(lang: str, slots: Iterable[Slot]) -> str:
    """``ranks 0–3, 5`` and the other slots by name."""
    items = sorted(slots, key=Slot.order)
    ranks = [s.rank for s in items if s.rank is not None and s.nth == 0]
    parts = []
    if len(ranks) == 1:
        parts.append(slot_label(lang, Slot(ranks[0], 0)))
    elif ranks:
        parts.append(say(lang, "ranks {ranks}", ranks=int_ranges(ranks)))  # type: ignore[arg-type]
    parts += [slot_label(lang, s) for s in items if s.rank is None or s.nth]
    return listing(lang, parts)


def spread_words(lang: str, c: Comparison, t: TemplateDiff) -> list[str]:
    """``BAD 2/2 failing``, ``GOOD 0/2``: where a template was logged, in each run (GOOD's
    first)."""
    mine, theirs = c.side(t.run), c.side(GOOD if t.run == BAD else BAD)
    if t.run == BAD and mine.failing:
        first = say(lang, "BAD {failing}/{total} failing", failing=t.failing, total=mine.failing)
    else:
        first = _share(t.run, t.processes, len(mine.processes))
    second = _share(theirs.run, t.other, len(theirs.processes))
    return [first, second] if t.run == GOOD else [second, first]


def _share(run: str, count: int, total: int) -> str:
    return f"{run.upper()} {count}/{total}"


def answer_template(c: Comparison) -> TemplateDiff | None:
    """The template the answer names: BAD's most consistent one."""
    found = c.templates_of(BAD)
    return found[0] if found else None


def answer_divergence(c: Comparison) -> Divergence | None:
    """The divergence the answer names: the first slot's that has one where both runs go on."""
    both = [d for d in c.divergences if d.good is not None and d.bad is not None]
    return (both or list(c.divergences) or [None])[0]


def answer_words(c: Comparison, first: TemplateDiff | None) -> str:
    """The answer's sentence about ``first``: how many templates only BAD logged and where the
    first of them was logged (every count in words: ``1 template``, ``3 templates``)."""
    lang = c.lang
    if first is None:
        return say(lang, "BAD logged no template that GOOD did not.")
    if not first.only:
        return say.count(lang, len(c.templates_of(BAD)),
                         "BAD logged no template that GOOD did not; 1 template is in more of "
                         "its processes:",
                         "BAD logged no template that GOOD did not; {n} templates are in more "
                         "of its processes. The first:")
    if c.bad.failing:
        count, total = first.failing, c.bad.failing
        words = ("BAD's failing process", "both of BAD's failing processes",
                 "all {n} of BAD's failing processes", "{count} of BAD's {total} failing processes")
    else:
        count, total = first.processes, len(c.bad.processes)
        words = ("BAD's process", "both of BAD's processes", "all {n} of BAD's processes",
                 "{count} of BAD's {total} processes")
    if count == total:
        where = say.count(lang, total, words[0], words[1] if total == 2 else words[2])
    else:
        where = say(lang, words[3], count=count, total=total)
    return say.count(lang, sum(t.only for t in c.templates_of(BAD)),
                     "Only BAD logged 1 template. It is in {where} and in no process of GOOD:",
                     "Only BAD logged {n} templates. The first is in {where} and in no process "
                     "of GOOD:", where=where)


def divergence_words(lang: str, split: Divergence) -> str:
    """Where the runs first diverge, after how many templates in common."""
    return say.count(lang, split.common,
                     "The runs first diverge on {slot} after 1 common template: BAD logs the "
                     "first template below where GOOD logs the second.",
                     "The runs first diverge on {slot} after {n} common templates: BAD logs "
                     "the first template below where GOOD logs the second.",
                     slot=slot_label(lang, split.slot))


def common_words(lang: str, d: Divergence) -> str:
    """``after 3 common templates``."""
    return say.count(lang, d.common, "after 1 common template", "after {n} common templates")


def shown(items: tuple, limit: int) -> tuple[tuple, int]:
    """The first ``limit`` items (all with 0) and how many are left out."""
    if not limit or len(items) <= limit:
        return items, 0
    return items[:limit], len(items) - limit
