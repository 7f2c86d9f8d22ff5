"""Load the code tables (``plogscan/codes/*.yaml``) strictly, with located errors.

Each file is one table: ``table`` (its name, equal to the file stem), ``title``, a default
``source``, ``source_codes`` (how many codes that source defines, for coverage) and
``entries``; a few tables carry a structure instead of or beside entries (the error-manager
component letters, the HCCL ``errNo`` layout, the torch_npu module and type lists). Every
entry names its public source: a documentation page (``https://...``) or a file in a public
repository (``github.com/owner/repo path/to/file``), on the entry or as the table's default.

Everything wrong in a file is reported at once, with file and line: unknown or missing keys,
malformed codes (hex must be quoted, or YAML reads ``0x25`` as the number 37), duplicate
codes (``0x2A`` and ``0x2a`` are the same code), categories outside the rule taxonomy, an
InnerCode pointing at an ACL code no table defines, translations (``i18n``, read by
``translations.py``) that miss or invent a field.

The shipped tables are read lazily: ``load_tables(lazy=True)`` gives a ``Tables``
(``model.py``) that reads a file the first time a lookup needs it, so explaining one runtime
code reads one table, not all of them.

Long module: each table shape has its own small reader here, and they share the located
error plumbing of one loader; split apart, each would repeat it.
"""

from __future__ import annotations

import re
from pathlib import Path

from plogscan.catalog.categories import CATEGORIES
from plogscan.codes import translations
from plogscan.codes.model import Entry, Errno, Part, PtaType, Tables
from plogscan.codes.translations import TEXT_FIELDS, Texts
from plogscan.datafile.fields import Doc, describe_value
from plogscan.datafile.located import DataFileError, LList, LMap, load_yaml, read_data_file
from plogscan.errors import ErrorGroup, Location, PlogscanError, RuleError

# Six-digit ACL-style codes: the table each range of ``aclError`` values belongs to, by the
# first three digits (a decode reads only the table a code can be in).
NUMERIC_TABLES: dict[str, tuple[str, ...]] = {
    "acl": ("100", "148", "200", "300", "500"),
    "rt": ("107", "207", "507"),
    "ge": ("145", "245", "345", "545"),
    "aclnn": ("161", "361", "561"),
}
TABLES = ("acl", "aclnn", "aicore_errcode", "device_event", "errmgr", "ge", "hccl_result",
          "innercode", "pta", "rt", "ts_retcode")
_COMMON = {"code", "meaning", "remedy", "source", "category", "note", "i18n"}
_NUMERIC_KEYS = _COMMON | {"name", "torch_npu", "torch_npu_tag"}
_ENTRY_KEYS: dict[str, set[str]] = {
    **{name: _NUMERIC_KEYS for name in NUMERIC_TABLES},
    "aicore_errcode": _COMMON | {"error_str"},
    "device_event": _COMMON,
    "errmgr": _COMMON | {"symbol"},
    "hccl_result": _COMMON | {"name", "short"},
    "innercode": _COMMON | {"acl", "desc"},
    "pta": set(),
    "ts_retcode": _COMMON,
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    **{name: ("code", "name", "meaning") for name in NUMERIC_TABLES},
    "hccl_result": ("code", "name", "short", "meaning"),
    "innercode": ("code", "acl", "meaning"),
}
_BASE_KEYS = {"table", "title", "source", "source_codes", "entries", "i18n"}
_TOP_KEYS: dict[str, set[str]] = {name: set(_BASE_KEYS) for name in TABLES}
_TOP_KEYS["errmgr"] |= {"components"}
_TOP_KEYS["hccl_result"] |= {"errno"}
_TOP_KEYS["pta"] = {"table", "title", "source", "source_codes", "modules", "types", "i18n"}
_CODE_FORMS = {
    **{name: "a six-digit number starting " + " or ".join(prefixes)
       for name, prefixes in NUMERIC_TABLES.items()},
    "aicore_errcode": "an errcode tuple in quotes such as '(0x800000, 0, 0)'",
    "device_event": "a quoted hex number such as '0x80e18400'",
    "errmgr": "E, W or I, a component letter or digit, four digits, such as EI0002",
    "hccl_result": "a whole number such as 9",
    "innercode": "a quoted hex number such as '0x7150026'",
    "ts_retcode": "a quoted hex number such as '0x25'",
}
_ONE_SOURCE = r"(?:https://\S+|(?:github\.com|gitcode\.com)/[\w.-]+/[\w.-]+ \S+)"
SOURCE_RE = re.compile(rf"^{_ONE_SOURCE}(?:; {_ONE_SOURCE})*$")
SOURCE_HELP = ("name a public source: a documentation page (https://...) or a file in a public "
               "repository (github.com/owner/repo path/to/file); separate several with '; '")
HEX_RE = re.compile(r"^0x[0-9a-fA-F]+$")
ERRMGR_RE = re.compile(r"^[EWI][0-9A-Z]\d{4}$")
_TUPLE_ITEM = r"\s*(?:0x[0-9a-fA-F]+|\d+)\s*"
TUPLE_RE = re.compile(rf"^\(({_TUPLE_ITEM}(?:,{_TUPLE_ITEM})*)\)$")


class CodeTableError(PlogscanError):
    """A code table file (``plogscan/codes/*.yaml``) is invalid."""


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
            self.error(f"source '{text}' of {what} names no public source",
                       m.value_lines["source"], help=SOURCE_HELP)
            return None
        return text or default

    def category(self, m: LMap, what: str) -> str | None:
        category = self.text(m, "category", what)
        if category is not None and category not in CATEGORIES:
            self.error(f"unknown category '{category}' in {what}", m.value_lines["category"],
                       help="valid categories are: " + ", ".join(sorted(CATEGORIES)))
            return None
        return category

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
    if table in NUMERIC_TABLES or table == "hccl_result":
        numeric = table in NUMERIC_TABLES
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (
                numeric and not (100000 <= value <= 999999
                                 and str(value)[:3] in NUMERIC_TABLES[table])):
            hint = form + (" (hex must be quoted)" if isinstance(value, int) and not numeric
                           else "")
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


def _extra(f: _File, m: LMap, table: str, what: str) -> list[tuple[str, str]]:
    """The entry's fields beyond code, meaning, remedy, source, category and name."""
    extra: list[tuple[str, str]] = []
    for key in m:
        if key in ("code", "meaning", "remedy", "source", "category", "name", "i18n") \
                or key not in _ENTRY_KEYS[table]:
            continue
        if key == "acl" and (isinstance(m[key], bool) or not isinstance(m[key], int)):
            f.error(f"'acl' of {what} must be a six-digit ACL code", m.value_lines[key])
            continue
        text = f.text(m, key, what)
        if text is not None:
            extra.append((key, text))
    return extra


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
        remedy = f.text(m, "remedy", what) if "remedy" in m else None
        source = f.source(m, what, default_source)
        category = f.category(m, what)
        extra = _extra(f, m, table, what)
        name = f.text(m, "name", what) if "name" in m else None
        english = {"meaning": meaning or "", **({"remedy": remedy} if remedy else {}),
                   **{k: v for k, v in extra if k in TEXT_FIELDS}}
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
                         category=category, remedy=remedy, extra=tuple(extra), i18n=i18n)
    return out


def _source_codes(f: _File, doc: LMap, table: str) -> dict[str, int]:
    """``source_codes``: a count, or counts by code prefix (``{EI: 21, EJ: 4}``)."""
    if "source_codes" not in doc:
        return {}
    value = doc["source_codes"]
    line = doc.value_lines["source_codes"]
    help_ = ("give how many codes the source defines: a whole number, or a mapping of code "
             "prefix to number such as {'107': 46, '207': 22}")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return {"": value}
    if not isinstance(value, LMap):
        f.error(f"'source_codes' of table {table} must be a number or a mapping", line,
                help=help_)
        return {}
    out: dict[str, int] = {}
    for prefix, count in value.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            f.error(f"'source_codes' of table {table}: count for '{prefix}' must be a whole "
                    "number", value.value_lines[prefix], help=help_)
            continue
        out[str(prefix)] = count
    return out


def _components(f: _File, doc: LMap) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The component letters and their names in other languages."""
    m = f.mapping(doc.get("components"), doc.value_lines.get("components", doc.line),
                  "'components'")
    if m is None:
        return {}, {}
    f.keys(m, "'components'", ("letters", "i18n"), ("letters",))
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
    return out, translations.letters(f, m, out)


def _numbered(f: _File, doc: LMap, key: str, value_key: str, what: str, limit: int,
              more: tuple[str, ...] = ()) -> dict[int, tuple[dict[str, str], Texts]]:
    """The numbered items of a list: ``id -> ({field: text}, i18n)``. Names (``value_key``
    ``name``) are identifiers; a ``meaning``, ``note`` and ``remedy`` are texts to
    translate; a ``category`` must be in the taxonomy."""
    out: dict[int, tuple[dict[str, str], Texts]] = {}
    seq = f.sequence(doc, key, what)
    for item, line in zip(seq or [], (seq.item_lines if seq else []), strict=True):
        m = f.mapping(item, line, f"an item of '{key}'")
        if m is None:
            continue
        f.keys(m, f"an item of '{key}'", ("id", value_key, *more, "i18n"), ("id", value_key))
        ident = m.get("id")
        if isinstance(ident, bool) or not isinstance(ident, int) or not 0 <= ident <= limit:
            f.error(f"'id' in '{key}' must be a whole number from 0 to {limit}, got {ident!r}",
                    m.value_lines.get("id", m.line))
            continue
        label = f"id {ident}"
        text = f.text(m, value_key, label)
        if text is None:
            continue
        if ident in out:
            f.error(f"duplicate id {ident} in '{key}'", m.key_lines["id"],
                    help="keep one of them")
            continue
        fields = {value_key: text}
        for name in more:
            if name not in m:
                continue
            value = f.category(m, label) if name == "category" else f.text(m, name, label)
            if value is not None:
                fields[name] = value
        english = {k: v for k, v in fields.items() if k in TEXT_FIELDS}
        out[ident] = (fields, translations.read(f, m, f"{label} of '{key}'", english))
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
    subs = {k: fields["name"] for k, (fields, _i18n) in
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


def _fill(f: _File, table: str, doc: LMap) -> Part:
    """One table document as a ``Part``, recording its problems in ``f``."""
    title = f.text(doc, "title", f"table {table}") or table
    source = f.source(doc, f"table {table}", None) or ""
    part = Part(title=title, source=source,
                title_i18n=translations.read(f, doc, f"table {table}", {"title": title},
                                             ("title",)),
                source_codes=_source_codes(f, doc, table))
    if table == "pta":
        part.pta_modules = {k: fields["name"] for k, (fields, _i18n) in
                            _numbered(f, doc, "modules", "name", "table pta", 99).items()}
        types = _numbered(f, doc, "types", "meaning", "table pta", 999,
                          more=("note", "category", "remedy"))
        part.pta_types = {k: PtaType(meaning=fields["meaning"], note=fields.get("note"),
                                     category=fields.get("category"),
                                     remedy=fields.get("remedy"), i18n=i18n)
                          for k, (fields, i18n) in types.items()}
        return part
    part.entries = _entries(f, table, doc, source or None)
    if table == "errmgr":
        part.components, part.components_i18n = _components(f, doc)
    elif table == "hccl_result":
        part.errno = _errno(f, doc)
    return part


def _read(path: Path) -> tuple[str | None, Part | None, list[CodeTableError]]:
    """One table file: its name, what it holds, and every problem found in it."""
    f = _File(str(path))
    loaded = _load_file(path, str(path), f)
    if loaded is None:
        return None, None, f.errors
    table, doc = loaded
    return table, _fill(f, table, doc), f.errors


def _raise(errors: list[CodeTableError]) -> None:
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ErrorGroup(errors)


def _read_one(path: Path) -> Part:
    """A table read on demand (lazy tables): its problems raised at once."""
    _table, part, errors = _read(path)
    _raise(errors)
    assert part is not None  # no errors means the file loaded
    return part


def load_tables(directory: str | Path | None = None, *, lazy: bool = False) -> Tables:
    """The ``*.yaml`` tables in ``directory`` (default: the shipped tables).

    ``lazy``: each file is read when first needed (the shipped tables at run time; a file
    named ``<table>.yaml``). Otherwise every file is read and checked now, together (an
    InnerCode must name an ACL code some table defines), and ``ErrorGroup`` (or a single
    ``CodeTableError``) lists every problem found.
    """
    base = Path(directory) if directory is not None else Path(__file__).resolve().parent
    files = sorted(p for p in base.glob("*.yaml") if p.is_file())
    if lazy:
        return Tables({p.stem: p for p in files if p.stem in TABLES}, _read_one)
    errors: list[CodeTableError] = []
    parts: dict[str, Part] = {}
    where: dict[str, str] = {}
    for path in files:
        table, part, found = _read(path)
        errors.extend(found)
        if table is None or part is None:
            continue
        if table in where:
            errors.append(CodeTableError(f"table '{table}' is defined twice",
                                         where=Location(str(path), 1),
                                         help=f"it is already defined in {where[table]}"))
            continue
        where[table] = str(path)
        parts[table] = part
    missing = [t for t in TABLES if t not in where]
    if missing and directory is None:
        errors.append(CodeTableError("code tables missing: " + ", ".join(missing),
                                     where=Location(str(base))))
    numeric = {key for name in NUMERIC_TABLES for key in parts.get(name, Part("", "")).entries}
    for entry in parts.get("innercode", Part("", "")).entries.values():
        acl = entry.get("acl")
        if acl is not None and int(acl) not in numeric:
            errors.append(CodeTableError(f"InnerCode entry names ACL code {acl}, which no "
                                         "table defines", where=entry.where))
    _raise(errors)
    return Tables({}, _read_one, parts)
