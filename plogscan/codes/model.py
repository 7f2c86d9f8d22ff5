"""What the code tables hold once read: entries, the structures some tables carry beside
them (error-manager component letters, the HCCL ``errNo`` layout, torch_npu types), and
``Tables``, which reads each table file the first time a lookup needs it.

``tables.py`` reads and checks the files; this module only holds what they say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from plogscan.codes import translations
from plogscan.codes.translations import TEXT_FIELDS, Texts
from plogscan.errors import Location


@dataclass(frozen=True)
class Entry:
    """One row of a table: the code as written, its lookup key and what it means."""

    table: str
    code: str  # as written in the table (display form)
    key: object  # lookup key: int, upper-case text, or a tuple of ints
    meaning: str
    source: str
    where: Location
    name: str | None = None
    category: str | None = None
    remedy: str | None = None  # the first thing to do about it
    extra: tuple[tuple[str, str], ...] = ()  # other fields (torch_npu, symbol, note...), in order
    i18n: Texts = ()  # the human text fields in other languages (``translations.py``)

    def get(self, field_name: str) -> str | None:
        return dict(self.extra).get(field_name)

    def text(self, field_name: str, lang: str = "en") -> str | None:
        """A field's text in ``lang``, the English text when it has no translation."""
        english = {"meaning": self.meaning, "remedy": self.remedy}[field_name] \
            if field_name in ("meaning", "remedy") else self.get(field_name)
        if english is None:
            return None
        return translations.pick(self.i18n, lang).get(field_name, english)

    def english_texts(self) -> dict[str, str]:
        """The entry's human text fields (what a translation must give), in order."""
        out = {"meaning": self.meaning}
        if self.remedy is not None:
            out["remedy"] = self.remedy
        return {**out, **{k: v for k, v in self.extra if k in TEXT_FIELDS}}


@dataclass(frozen=True)
class Errno:
    """The HCCL ``errNo`` layout: module id and the submodules."""

    module_id: int
    module: str
    submodules: dict[int, str]
    source: str


@dataclass(frozen=True)
class PtaType:
    """A torch_npu error type (the last three digits of ``ERRxxyyy``)."""

    meaning: str
    note: str | None
    category: str | None
    remedy: str | None
    i18n: Texts = ()

    def text(self, field_name: str, lang: str) -> str | None:
        english = getattr(self, field_name)
        if english is None:
            return None
        return translations.pick(self.i18n, lang).get(field_name, english)


@dataclass
class Part:
    """What one table file holds once read."""

    title: str
    source: str
    entries: dict[object, Entry] = field(default_factory=dict)
    title_i18n: Texts = ()
    source_codes: dict[str, int] = field(default_factory=dict)  # code prefix ('' = all) -> n
    components: dict[str, str] = field(default_factory=dict)
    components_i18n: dict[str, dict[str, str]] = field(default_factory=dict)  # lang -> letters
    errno: Errno | None = None
    pta_modules: dict[int, str] = field(default_factory=dict)
    pta_types: dict[int, PtaType] = field(default_factory=dict)


@dataclass(frozen=True)
class TableCoverage:
    """How many codes a table's public source defines (for one code prefix, or '' for the
    whole table), and how many of them the table holds."""

    table: str
    prefix: str
    in_source: int
    in_table: int


class Tables:
    """Every table, each read from its file the first time a lookup needs it (or all at once,
    checked together, when built with ``lazy=False``)."""

    def __init__(self, files: dict[str, Path], read: Callable[[Path], Part],
                 parts: dict[str, Part] | None = None) -> None:
        self._files = files
        self._read = read
        self._parts: dict[str, Part] = dict(parts or {})

    def part(self, name: str) -> Part:
        """Table ``name``, read now if it was not yet; an empty part when there is no file."""
        found = self._parts.get(name)
        if found is None:
            path = self._files.get(name)
            found = self._read(path) if path is not None else Part(title=name, source="")
            self._parts[name] = found
        return found

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(set(self._files) | set(self._parts)))

    @property
    def entries(self) -> dict[str, dict[object, Entry]]:
        """Every table's entries (reads every table)."""
        return {name: self.part(name).entries for name in self.names}

    def table(self, name: str) -> dict[object, Entry]:
        return self.part(name).entries

    def title(self, name: str, lang: str = "en") -> str:
        """A table's title in ``lang`` (English when not translated)."""
        part = self.part(name)
        return translations.pick(part.title_i18n, lang).get("title", part.title)

    def source(self, name: str) -> str:
        return self.part(name).source

    def source_codes(self, name: str) -> dict[str, int]:
        """How many codes the table's source defines, by code prefix ('' for the whole)."""
        return self.part(name).source_codes

    def coverage(self) -> list[TableCoverage]:
        """Every table's coverage of its source, prefix by prefix (reads every table)."""
        out = []
        for name in self.names:
            part = self.part(name)
            held = ([str(k) for k in part.pta_types] if name == "pta"
                    else [str(e.code).upper() for e in part.entries.values()])
            for prefix, count in (part.source_codes or {"": 0}).items():
                n = sum(1 for code in held if code.startswith(prefix.upper()))
                out.append(TableCoverage(name, prefix, count, n))
        return out

    @property
    def components(self) -> dict[str, str]:
        return self.part("errmgr").components

    def component(self, letter: str, lang: str = "en") -> str | None:
        """The error-manager component of ``letter`` in ``lang``, None when unknown."""
        part = self.part("errmgr")
        english = part.components.get(letter)
        if english is None:
            return None
        return part.components_i18n.get(lang, {}).get(letter, english)

    @property
    def errno(self) -> Errno | None:
        return self.part("hccl_result").errno

    @property
    def pta_modules(self) -> dict[int, str]:
        return self.part("pta").pta_modules

    @property
    def pta_types(self) -> dict[int, PtaType]:
        return self.part("pta").pta_types
