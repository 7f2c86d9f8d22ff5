"""Rules as frozen values: what ``ruleset`` builds from YAML and ``engine`` runs.

A rule has one match body: ``Single`` (one record), ``Sequence`` (ordered steps per group) or
``Threshold`` (count per group within a span). Each body is made of ``Condition`` values: an OR
of alternatives, each an AND of field ``Predicate``s.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from plogscan.errors import Location
from plogscan.model import Level

STATUSES: tuple[str, ...] = ("experimental", "stable", "deprecated")


@dataclass(frozen=True)
class Predicate:
    """``field|op: values``: true when the field satisfies ``op`` for any of the values."""

    field: str
    op: str
    values: tuple[object, ...]
    groups: tuple[tuple[str, ...], ...] = ()  # named regex groups, one tuple per value (``re``)

    @property
    def captures(self) -> frozenset[str]:
        """Capture names any value can produce."""
        return frozenset(name for names in self.groups for name in names)

    @property
    def guaranteed(self) -> frozenset[str]:
        """Capture names every value produces (so a matching record always has them)."""
        if not self.groups:
            return frozenset()
        return frozenset.intersection(*(frozenset(names) for names in self.groups))


@dataclass(frozen=True)
class Condition:
    """An OR of alternatives; each alternative is an AND of predicates."""

    alternatives: tuple[tuple[Predicate, ...], ...]

    @property
    def captures(self) -> frozenset[str]:
        return frozenset(n for alt in self.alternatives for p in alt for n in p.captures)

    @property
    def guaranteed(self) -> frozenset[str]:
        per_alt = [frozenset(n for p in alt for n in p.guaranteed) for alt in self.alternatives]
        return frozenset.intersection(*per_alt) if per_alt else frozenset()


@dataclass(frozen=True)
class Step:
    """A named condition of a sequence (or a context condition, which only adds evidence)."""

    id: str
    cond: Condition
    absent: bool = False
    limit: int = 0  # context steps: how many of the latest records to keep


@dataclass(frozen=True)
class Single:
    """One record matches. With ``by``, matching records are grouped into one finding per key."""

    cond: Condition
    by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sequence:
    """Ordered steps in one group, the first to the last within ``within`` microseconds."""

    steps: tuple[Step, ...]
    by: tuple[str, ...] = ()
    within: int | None = None
    until: Condition | None = None
    context: tuple[Step, ...] = ()

    @property
    def positive(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if not s.absent)


@dataclass(frozen=True)
class Threshold:
    """At least ``count`` matching records in one group within ``within`` microseconds."""

    cond: Condition
    count: int
    by: tuple[str, ...] = ()
    within: int | None = None


Body = Single | Sequence | Threshold


@dataclass(frozen=True)
class Requires:
    """Evidence a process must have logged for the rule to be checkable there."""

    levels: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()
    when: Condition | None = None  # which trigger records call for the evidence (default: all)


@dataclass(frozen=True)
class RuleText:
    """The words of a rule in one language: title, description, remediation steps, and the
    advice of its ``requires`` (how to get the evidence it needs; empty when it has none)."""

    title: str
    description: str
    remediation: tuple[str, ...]
    advice: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    """One rule file, validated. ``title``/``description``/``remediation`` are English;
    ``i18n`` holds the other languages as ``(lang, RuleText)`` pairs, sorted by language."""

    id: str
    name: str
    title: str
    category: str
    level: Level
    status: str
    description: str
    remediation: tuple[str, ...]
    body: Body
    references: tuple[str, ...] = ()
    requires: Requires | None = None
    show: tuple[str, ...] = ()
    where: Location = field(default_factory=lambda: Location("<memory>"))
    role: str = "root-cause"  # "root-cause" | "symptom"
    links: tuple[str, ...] = ()  # ids of related rules (a symptom names its root causes)
    explains: tuple[str, ...] = ()  # ids of rules whose findings follow from this rule's
    covers: tuple[int, ...] = ()  # formats.md §7 catalogue rows this rule implements
    category_from: str | None = None  # a capture naming each finding's category (else category)
    i18n: tuple[tuple[str, RuleText], ...] = ()

    def text(self, lang: str = "en") -> RuleText:
        """The rule's words in ``lang``; English when it has no such translation (a localized
        rule keeps its English text in ``i18n`` under ``en``)."""
        for code, text in self.i18n:
            if code == lang:
                return text
        return self._own_text()

    def _own_text(self) -> RuleText:
        advice = self.requires.advice if self.requires is not None else ()
        return RuleText(self.title, self.description, self.remediation, advice)

    def localized(self, lang: str) -> Rule:
        """This rule with its title, description, remediation and ``requires`` advice in
        ``lang`` (else English)."""
        t, en = self.text(lang), self.text("en")
        if t == self._own_text():
            return self
        others = tuple(pair for pair in self.i18n if pair[0] != "en")
        requires = self.requires
        if requires is not None and t.advice:
            requires = replace(requires, advice=t.advice)
        return replace(self, title=t.title, description=t.description, remediation=t.remediation,
                       requires=requires, i18n=(("en", en), *others))

    def roles(self) -> Iterator[tuple[str, Condition]]:
        """Every (role id, condition) the engine evaluates per record batch."""
        body = self.body
        if isinstance(body, Sequence):
            for step in (*body.steps, *body.context):
                yield step.id, step.cond
            if body.until is not None:
                yield "until", body.until
            if self.requires is not None and self.requires.when is not None:
                yield "when", self.requires.when
        else:
            yield "match", body.cond


@dataclass(frozen=True)
class RuleSet:
    """The rules to run, sorted by id; ids and names are unique."""

    rules: tuple[Rule, ...] = ()
    lang: str = "en"  # the language of the rule texts and of the engine's words (``localized``)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def get(self, key: str) -> Rule | None:
        """The rule with this id or dotted name (ids are matched case-insensitively)."""
        for rule in self.rules:
            if rule.id.upper() == key.upper() or rule.name == key:
                return rule
        return None

    def only(self, *ids: str) -> RuleSet:
        """A rule set restricted to the given ids."""
        return RuleSet(tuple(r for r in self.rules if r.id in ids))

    def localized(self, lang: str) -> RuleSet:
        """The same rules with their texts in ``lang`` (per rule, English when untranslated);
        the set remembers ``lang`` for the words the engine composes (scopes, notes)."""
        rules = tuple(r.localized(lang) for r in self.rules)
        same = all(a is b for a, b in zip(rules, self.rules, strict=True))
        return self if same and lang == self.lang else RuleSet(rules, lang)
