"""Load the code tables (``plogscan/codes/*.yaml``) strictly, with located errors.

Each file is one table: ``table`` (its name, equal to the file stem), ``title``, a default
``source`` and ``entries``; a few tables carry a structure instead of or beside entries (the
error-manager component letters, the HCCL ``errNo`` layout, the torch_npu module and type
lists). Every entry names its source with a key of formats.md §0 (``RTSRC``, ``PTA``,
``HCCLDOC``, ``FD``...) or a corpus reference (``[H-07]``).

Everything wrong in a file is reported at once, with file and line: unknown or missing keys,
malformed codes (hex must be quoted, or YAML reads ``0x25`` as the number 37), duplicate
codes (``0x2A`` and ``0x2a`` are the same code), categories outside the rule taxonomy, an
InnerCode pointing at an ACL code the ACL table lacks, translations (``i18n``, read by
``translations.py``) that miss or invent a field.

Long module: each table shape has its own small reader here, and they share the located
error plumbing of one loader; split apart, each would repeat it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from plogscan.categories import CATEGORIES
from plogscan.codes import translations
from plogscan.codes.translations import TEXT_FIELDS, Texts
from plogscan.datafile.fields import Doc, describe_value
from plogscan.datafile.located import DataFileError, LList, LMap, load_yaml, read_data_file
from plogscan.errors import ErrorGroup, Location, PlogscanError, RuleError

TABLES = ("acl", "aicore_errcode", "device_event", "device_exception", "errmgr", "hccl_result",
          "innercode", "pta", "ts_retcode")
_COMMON = {"code", "meaning", "source", "category", "note", "i18n"}
_ENTRY_KEYS: dict[str, set[str]] = {
    "acl": _COMMON | {"name", "torch_npu", "torch_npu_tag"},
    "aicore_errcode": _COMMON | {"error_str"},
    "device_event": _COMMON,
    "device_exception": _COMMON | {"inferred"},
    "errmgr": _COMMON | {"symbol"},
    "hccl_result": _COMMON | {"name", "short"},
    "innercode": _COMMON | {"acl", "desc"},
    "pta": set(),
    "ts_retcode": _COMMON,
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    "acl": ("code", "name", "meaning"),
    "hccl_result": ("code", "name", "short", "meaning"),
    "device_exception": ("code", "meaning", "inferred"),
    "innercode": ("code", "acl", "meaning"),
}
_TOP_KEYS: dict[str, set[str]] = {name: {"table", "title", "source", "entries", "i18n"}
                                  for name in TABLES}
_TOP_KEYS["errmgr"] |= {"components"}
_TOP_KEYS["hccl_result"] |= {"errno"}
_TOP_KEYS["pta"] = {"table", "title", "source", "modules", "types", "i18n"}
_CODE_FORMS = {
    "acl": "a six-digit number such as 507916",
    "aicore_errcode": "an errcode tuple in quotes such as '(0x800000, 0, 0)' or '(334)'",
    "device_event": "a quoted hex number such as '0x80e01801'",
    "device_exception": "a quoted hex number such as '0xb4060006'",
    "errmgr": "E or W, a component letter or digit, four digits, such as EI0002",
    "hccl_result": "a whole number such as 9",
    "innercode": "a quoted hex number such as '0x7150026'",
    "ts_retcode": "a quoted hex number such as '0x25'",
}
SOURCE_RE = re.compile(
    r"^(?:(?:LOGSRC|RTSRC|RTDOC|HCCLSRC|HCCLDOC|OAM|FD|PTA|HIASCEND|ISSUES)(?:\b|:)"
    r"|\[H-\d+\]|formats\.md\b)")
SOURCE_HELP = ("start with a formats.md §0 source key (LOGSRC, RTSRC, RTDOC, HCCLSRC, HCCLDOC, "
               "OAM, FD, PTA, HIASCEND, ISSUES), a corpus reference like [H-07], or formats.md")
HEX_RE = re.compile(r"^0x[0-9a-fA-F]+$")
ERRMGR_RE = re.compile(r"^[EW][0-9A-Z]\d{4}$")
_TUPLE_ITEM = r"\s*(?:0x[0-9a-fA-F]+|\d+)\s*"
TUPLE_RE = re.compile(rf"^\(({_TUPLE_ITEM}(?:,{_TUPLE_ITEM})*)\)$")


class CodeTableError(PlogscanError):
    """A code table file (``plogscan/codes/*.yaml``) is invalid."""


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
    extra: tuple[tuple[str, str], ...] = ()  # other fields (torch_npu, symbol, note...), in order
    i18n: Texts = ()  # the human text fields in other languages (``translations.py``)

    def get(self, field_name: str) -> str | None:
        return dict(self.extra).get(field_name)

    def text(self, field_name: str, lang: str = "en") -> str | None:
        """A field's text in ``lang``, the English text when it has no translation."""
        english = self.meaning if field_name == "meaning" else self.get(field_name)
        return translations.pick(self.i18n, lang).get(field_name, english)

    def english_texts(self) -> dict[str, str]:
        """The entry's human text fields (what a translation must give), in order."""
        return {"meaning": self.meaning,
                **{k: v for k, v in self.extra if k in TEXT_FIELDS}}


@dataclass(frozen=True)
class Errno:
    """The HCCL ``errNo`` layout: module id and the submodules."""

    module_id: int
    module: str
    submodules: dict[int, str]
    source: str


@dataclass
class Tables:
    """Every table, indexed for lookups (built once by ``load_tables``, then only read)."""

    titles: dict[str, str]
    entries: dict[str, dict[object, Entry]]
    components: dict[str, str] = field(default_factory=dict)
    components_source: str = ""
    errno: Errno | None = None
    pta_modules: dict[int, str] = field(default_factory=dict)
    pta_types: dict[int, tuple[str, str | None]] = field(default_factory=dict)
    pta_source: str = ""
    titles_i18n: dict[str, Texts] = field(default_factory=dict)  # table -> its title's i18n
    components_i18n: dict[str, dict[str, str]] = field(default_factory=dict)  # lang -> letters
    pta_types_i18n: dict[int, Texts] = field(default_factory=dict)

    def table(self, name: str) -> dict[object, Entry]:
        return self.entries.get(name, {})

    def title(self, name: str, lang: str = "en") -> str:
        """A table's title in ``lang`` (English when not translated)."""
        english = self.titles.get(name, name)
        return translations.pick(self.titles_i18n.get(name, ()), lang).get("title", english)

    def component(self, letter: str, lang: str = "en") -> str | None:
        """The error-manager component of ``letter`` in ``lang``, None when unknown."""
        english = self.components.get(letter)
        if english is None:
            return None
        return self.components_i18n.get(lang, {}).get(letter, english)

    def pta_type(self, ident: int, lang: str = "en") -> tuple[str, str | None] | None:
        """A torch_npu error type's meaning and note in ``lang``, None when unknown."""
        english = self.pta_types.get(ident)
        if english is None:
            return None
        texts = translations.pick(self.pta_types_i18n.get(ident, ()), lang)
        note = texts.get("note", english[1]) if english[1] is not None else None
        return texts.get("meaning", english[0]), note


def tuple_key(text: str) -> tuple[int, ...] | None:
    """``'(0x800000, 0, 0)'`` -> ``(0x800000,)``: the values with trailing zeros dropped."""
    m = TUPLE_RE.match(text.strip())
    if not m:
        return None
    values = [int(v, 0) for v in m.group(1).split(",")]
    while len(values) > 1 and values[-1] == 0:
        values.pop()
    return tuple(values)


class _File(Doc):
    """Errors found in one table file: the rule loader's located checks, raising
    ``CodeTableError``, plus the checks only code tables need."""

    error_type = CodeTableError

    def source(self, m: LMap, what: str, default: str | None) -> str | None:
        text = self.text(m, "source", what)
        if text is not None and not SOURCE_RE.match(text):
            self.error(f"source '{text}' of {what} names no known source", m.value_lines["source"],
                       help=SOURCE_HELP)
            return None
        return text or default

    def sequence(self, m: LMap, key: str, what: str) -> LList | None:
        value = m.get(key)
        if isinstance(value, LList):
            return value
        self.error(f"'{key}' of {what} must be a list, got {describe_value(value)}",
                   m.value_lines.get(key, m.line))
        return None


def _code_key(f: _File, table: str, m: LMap) -> tuple[str, object] | None:
    """The display form and lookup key of an entry's ``code``, or None (error recorded)."""
    value = m["code"]
    line = m.value_lines["code"]
    bad = f"invalid code {value!r} in table {table}"
    form = "expected " + _CODE_FORMS[table]
    if table in ("acl", "hccl_result"):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (
                table == "acl" and not 100000 <= value <= 999999):
            hint = form + (" (hex must be quoted)" if isinstance(value, int) else "")
            f.error(bad, line, help=hint)
            return None
        return str(value), value
    if not isinstance(value, str):
        f.error(bad, line, help=form + ("; quote it, or YAML reads 0x25 as the number 37"
                                        if isinstance(value, int) else ""))
        return None
    text = value.strip()
    if table == "errmgr":
        if not ERRMGR_RE.match(text):
            f.error(bad, line, help=form)
            return None
        return text, text
    if table == "aicore_errcode":
        key = tuple_key(text)
        if key is None:
            f.error(bad, line, help=form)
            return None
        return text, key
    if not HEX_RE.match(text):
        f.error(bad, line, help=form)
        return None
    return text, int(text, 16)


def _entries(f: _File, table: str, doc: LMap, default_source: str | None) -> dict[object, Entry]:
    out: dict[object, Entry] = {}
    seq = f.sequence(doc, "entries", f"table {table}")
    if seq is None:
        return out
    for item, line in zip(seq, seq.item_lines, strict=True):
        m = f.mapping(item, line, f"an entry of table {table}")
        if m is None:
            continue
        what = f"entry {m.get('code', '?')!s}"
        f.keys(m, what, _ENTRY_KEYS[table], _REQUIRED.get(table, ("code", "meaning")))
        if "code" not in m:
            continue
        coded = _code_key(f, table, m)
        meaning = f.text(m, "meaning", what)
        source = f.source(m, what, default_source)
        category = f.text(m, "category", what)
        if category is not None and category not in CATEGORIES:
            f.error(f"unknown category '{category}' in {what}", m.value_lines["category"],
                    help="valid categories are: " + ", ".join(sorted(CATEGORIES)))
            category = None
        extra: list[tuple[str, str]] = []
        for key in m:
            if key in ("code", "meaning", "source", "category", "name", "i18n") or key not in \
                    _ENTRY_KEYS[table]:
                continue
            if key == "inferred":
                if m[key] is not True:
                    f.error(f"'inferred' of {what} must be true", m.value_lines[key],
                            help="these meanings are inferred from co-occurring records; say so")
                extra.append(("inferred", "yes"))
                continue
            if key == "acl" and (isinstance(m[key], bool) or not isinstance(m[key], int)):
                f.error(f"'acl' of {what} must be a six-digit ACL code", m.value_lines[key])
                continue
            text = f.text(m, key, what)
            if text is not None:
                extra.append((key, text))
        name = f.text(m, "name", what) if "name" in m else None
        english = {"meaning": meaning or "", **{k: v for k, v in extra if k in TEXT_FIELDS}}
        i18n = translations.read(f, m, what, english)
        if coded is None or meaning is None:
            continue
        if source is None:
            if "source" not in m:  # a bad source was reported already
                f.error(f"{what} has no source and the table sets none", m.line,
                        help=SOURCE_HELP)
            continue
        code, key = coded
        if key in out:
            first = out[key]
            f.error(f"duplicate code '{code}' in table {table}", m.key_lines["code"],
                    help=f"'{first.code}' is already defined at line {first.where.line}; "
                    "keep one of them")
            continue
        out[key] = Entry(table=table, code=code, key=key, meaning=meaning, source=source,
                         where=Location(f.path, m.key_lines["code"]), name=name,
                         category=category, extra=tuple(extra), i18n=i18n)
    return out


def _components(f: _File, doc: LMap) -> tuple[dict[str, str], str, dict[str, dict[str, str]]]:
    """The component letters, their source and their names in other languages."""
    m = f.mapping(doc.get("components"), doc.value_lines.get("components", doc.line),
                  "'components'")
    if m is None:
        return {}, "", {}
    f.keys(m, "'components'", ("letters", "source", "i18n"), ("letters", "source"))
    source = f.source(m, "'components'", None) or ""
    letters = f.mapping(m.get("letters"), m.value_lines.get("letters", m.line), "'letters'")
    out: dict[str, str] = {}
    for letter, name in (letters or {}).items():
        line = letters.key_lines[letter]  # type: ignore[union-attr]
        if not re.fullmatch(r"[0-9A-Z]", letter):
            f.error(f"component letter '{letter}' must be one digit or upper-case letter", line,
                    help="quote digits: '1': GE")
            continue
        if not isinstance(name, str) or not name.strip():
            f.error(f"component '{letter}' needs a name", line)
            continue
        out[letter] = name.strip()
    return out, source, translations.letters(f, m, out)


def _numbered(f: _File, doc: LMap, key: str, value_key: str, what: str,
              limit: int) -> dict[int, tuple[str, str | None, Texts]]:
    """The numbered items of a list: ``id -> (value, note, i18n)``. Names (``value_key``
    ``name``) are identifiers; a ``meaning`` and a ``note`` are texts to translate."""
    out: dict[int, tuple[str, str | None, Texts]] = {}
    seq = f.sequence(doc, key, what)
    for item, line in zip(seq or [], (seq.item_lines if seq else []), strict=True):
        m = f.mapping(item, line, f"an item of '{key}'")
        if m is None:
            continue
        allowed = ("id", value_key, "note", "i18n")
        f.keys(m, f"an item of '{key}'", allowed, ("id", value_key))
        ident = m.get("id")
        if isinstance(ident, bool) or not isinstance(ident, int) or not 0 <= ident <= limit:
            f.error(f"'id' in '{key}' must be a whole number from 0 to {limit}, got {ident!r}",
                    m.value_lines.get("id", m.line))
            continue
        text = f.text(m, value_key, f"id {ident}")
        if text is None:
            continue
        if ident in out:
            f.error(f"duplicate id {ident} in '{key}'", m.key_lines["id"],
                    help="keep one of them")
            continue
        note = f.text(m, "note", f"id {ident}")
        english = {k: v for k, v in ((value_key, text), ("note", note))
                   if v is not None and k in TEXT_FIELDS}
        out[ident] = (text, note, translations.read(f, m, f"id {ident} of '{key}'", english))
    return out


def _errno(f: _File, doc: LMap) -> Errno | None:
    m = f.mapping(doc.get("errno"), doc.value_lines.get("errno", doc.line), "'errno'")
    if m is None:
        return None
    f.keys(m, "'errno'", ("module_id", "module", "submodules", "source"),
           ("module_id", "module", "submodules", "source"))
    module_id = m.get("module_id")
    if isinstance(module_id, bool) or not isinstance(module_id, int) or not 0 <= module_id < 256:
        f.error("'module_id' of 'errno' must be a number from 0 to 255",
                m.value_lines.get("module_id", m.line))
        return None
    module = f.text(m, "module", "'errno'")
    source = f.source(m, "'errno'", None)
    subs = {k: v for k, (v, _note, _i18n) in
            _numbered(f, m, "submodules", "name", "'errno'", 255).items()}
    if module is None or source is None:
        return None
    return Errno(module_id=module_id, module=module, submodules=subs, source=source)


def _load_file(path: Path, display: str, f: _File) -> tuple[str, LMap] | None:
    try:
        doc = load_yaml(read_data_file(path), display)
    except RuleError as err:  # the strict loader's syntax/duplicate-key errors, relabelled
        f.errors.append(CodeTableError(err.message, where=err.where))
        return None
    except (OSError, DataFileError) as err:
        f.error(f"cannot read code table: {err}", 0)
        return None
    m = f.mapping(doc, 1, "a code table")
    if m is None:
        return None
    table = f.text(m, "table", "the code table")
    if table is None:
        f.error("the code table has no 'table' name", m.line, help="valid tables are: "
                + ", ".join(TABLES))
        return None
    if table not in TABLES:
        f.error(f"unknown table '{table}'", m.value_lines["table"],
                help="valid tables are: " + ", ".join(TABLES))
        return None
    if table != path.stem:
        f.error(f"table '{table}' must live in {table}.yaml, not {path.name}",
                m.value_lines["table"])
        return None
    f.keys(m, f"table {table}", _TOP_KEYS[table], ("table", "title", "source"))
    return table, m


def load_tables(directory: str | Path | None = None) -> Tables:
    """Read and check every ``*.yaml`` table in ``directory`` (default: the shipped tables).

    Raises ``ErrorGroup`` (or a single ``CodeTableError``) listing every problem found.
    """
    base = Path(directory) if directory is not None else Path(__file__).resolve().parent
    files = sorted(p for p in base.glob("*.yaml") if p.is_file())
    errors: list[CodeTableError] = []
    tables = Tables(titles={}, entries={})
    where: dict[str, str] = {}
    acl_refs: list[tuple[_File, int, int]] = []
    for path in files:
        display = str(path)
        f = _File(display)
        loaded = _load_file(path, display, f)
        if loaded is not None:
            table, doc = loaded
            if table in where:
                f.error(f"table '{table}' is defined twice", doc.line,
                        help=f"it is already defined in {where[table]}")
            else:
                where[table] = display
                _fill(f, table, doc, tables)
                for entry in tables.entries.get(table, {}).values():
                    acl = entry.get("acl")
                    if acl is not None:
                        acl_refs.append((f, entry.where.line, int(acl)))
        errors.extend(f.errors)
    missing = [t for t in TABLES if t not in where]
    if missing and directory is None:
        errors.append(CodeTableError("code tables missing: " + ", ".join(missing),
                                     where=Location(str(base))))
    acl = tables.table("acl")
    for f, line, code in acl_refs:
        if code not in acl:
            errors.append(CodeTableError(f"InnerCode entry names ACL code {code}, which the acl "
                                         "table does not define", where=Location(f.path, line)))
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ErrorGroup(errors)
    return tables


def _fill(f: _File, table: str, doc: LMap, tables: Tables) -> None:
    """Add one table document to ``tables``, recording its problems in ``f``."""
    title = f.text(doc, "title", f"table {table}")
    tables.titles[table] = title or table
    tables.titles_i18n[table] = translations.read(f, doc, f"table {table}",
                                                  {"title": title} if title else {}, ("title",))
    source = f.source(doc, f"table {table}", None)
    if table == "pta":
        modules = _numbered(f, doc, "modules", "name", "table pta", 99)
        tables.pta_modules = {k: v for k, (v, _note, _i18n) in modules.items()}
        types = _numbered(f, doc, "types", "meaning", "table pta", 999)
        tables.pta_types = {k: (v, note) for k, (v, note, _i18n) in types.items()}
        tables.pta_types_i18n = {k: i18n for k, (_v, _note, i18n) in types.items() if i18n}
        tables.pta_source = source or ""
        return
    tables.entries[table] = _entries(f, table, doc, source)
    if table == "errmgr":
        tables.components, tables.components_source, tables.components_i18n = \
            _components(f, doc)
    elif table == "hccl_result":
        tables.errno = _errno(f, doc)
