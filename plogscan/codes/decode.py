"""Decode one code as written in a log or typed by a user into its readings.

Understood forms: ``507916``, ``145000``, ``561103`` (six-digit ``aclError`` codes: ACL,
runtime, GE, aclnn), ``EI0002`` / ``Memory_Allocation_Failure(EL0004)`` (error manager;
unknown codes are still decoded by component letter), ``ERR02200`` (torch_npu module + type),
``0x…`` (HCCL ``errNo`` layout, TS retCode, InnerCode, device event id, AI Core errcode),
small numbers (HcclResult) and ``errcode 0x200000000`` / ``errcode:(0x200000000, 0, 0)`` (AI
Core errcode). A prefix such as ``errcode``, ``InnerCode=``, ``errNo[``, ``retCode=``,
``hcclRet ->`` or ``event_id=`` says which table is meant and limits the readings to it. A code
can have several readings; they come most specific first. Readings come in a report language
(``lang``): the tables' translated texts and the decoder's own words (``words.py``); English is
the default and the base text. A code no table defines has no reading: nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from plogscan.codes.tables import ERRMGR_RE, NUMERIC_TABLES, Entry, Tables, tuple_key
from plogscan.codes.words import KINDS, word

_PREFIX = re.compile(
    r"^(?P<prefix>errcode|innercode|errno|retcode|hcclret|event_id|error\s+code\s+is|"
    r"error_code|runtime\s+result|result)"
    r"\s*(?:->|[:=])?\s*(?P<rest>.*)$", re.IGNORECASE)
_PREFIX_TABLES = {
    "errcode": ("aicore_errcode",),
    "innercode": ("innercode",),
    "errno": ("hccl_errno",),
    "retcode": ("ts_retcode",),
    "hcclret": ("hccl_result",),
    "event_id": ("device_event",),
}
PREFIX_WORDS = tuple(sorted(_PREFIX_TABLES))
_SYMBOLIC = re.compile(r"^[A-Za-z][\w ]*\((?P<code>[EWI][0-9A-Z]\d{4})\):?$")
_PTA = re.compile(r"^ERR(?P<module>\d{2})(?P<type>\d{3})$")
_HEX_ORDER = ("innercode", "device_event", "hccl_errno", "ts_retcode", "aicore_errcode")
_HIDDEN = {"short", "symbol"}  # used to build names, not shown again as details
_SEVERITY = {"E": "{component} error code", "W": "{component} warning code",
             "I": "{component} information code"}


@dataclass(frozen=True)
class CodeInfo:
    """One reading of a code: which table, its name, what it means, what to do first, where
    that comes from."""

    code: str  # the code in its canonical form (``EI0002``, ``0x25``, ``507916``)
    table: str  # a key of ``KINDS``
    name: str  # symbolic name or short label
    meaning: str
    source: str
    category: str | None = None  # a rule category (the taxonomy) this code usually points to
    remedy: str | None = None  # the first thing to do about it
    details: tuple[tuple[str, str], ...] = ()  # further labelled facts, in display order
    exact: bool = True  # False when decoded from the code's structure, not found in a table
    lang: str = "en"  # the language of the texts (the detail labels stay English keys)

    @property
    def kind(self) -> str:
        return word(self.lang, KINDS[self.table])

    def line(self) -> str:
        """The reading in one line: ``ACL_ERROR_RT_CCU_EXCEPTION: ccu exception``."""
        label = self.kind if self.name.lower() == self.code.lower() else self.name
        return word(self.lang, "{label}: {text}", label=label, text=self.meaning)

    def to_dict(self) -> dict:
        return {"code": self.code, "table": self.table, "kind": self.kind, "name": self.name,
                "meaning": self.meaning, "category": self.category, "remedy": self.remedy,
                "source": self.source, "exact": self.exact, "details": dict(self.details)}


def _from_entry(entry: Entry, code: str, lang: str, *, name: str | None = None) -> CodeInfo:
    details = tuple((k.replace("_", " "), entry.text(k, lang) or v) for k, v in entry.extra
                    if k not in _HIDDEN)
    return CodeInfo(code=code, table=entry.table, name=name or entry.name or entry.code,
                    meaning=entry.text("meaning", lang) or entry.meaning, source=entry.source,
                    category=entry.category, remedy=entry.text("remedy", lang),
                    details=details, lang=lang)


def normalize(text: str) -> tuple[str, tuple[str, ...] | None]:
    """The bare code and the tables a prefix restricts it to (None: any table)."""
    text = " ".join(text.split()).strip().strip(",;")
    m = _PREFIX.match(text)
    tables: tuple[str, ...] | None = None
    if m and m.group("rest"):
        word = re.sub(r"\s+", " ", m.group("prefix").lower())
        tables = _PREFIX_TABLES.get(word)
        if word in ("error code is", "error_code", "runtime result", "result"):
            tables = None  # says "a code" without saying which kind
        text = m.group("rest").strip()
        if word == "errno":
            text = text.strip("[]")
        elif word != "errcode":
            text = text.strip("[]()")
    symbolic = _SYMBOLIC.match(text)
    if symbolic:
        text = symbolic.group("code")
    return text, tables


def numeric_table(value: int) -> str | None:
    """The six-digit table whose range holds ``value`` (None when no table's does)."""
    head = str(value)[:3]
    return next((name for name, heads in NUMERIC_TABLES.items() if head in heads), None) \
        if 100000 <= value <= 999999 else None


def _numeric(tables: Tables, value: int, code: str, lang: str) -> list[CodeInfo]:
    name = numeric_table(value)
    entry = tables.table(name).get(value) if name else None
    return [_from_entry(entry, code, lang)] if entry else []


def _hccl_result(tables: Tables, value: int, code: str, lang: str) -> list[CodeInfo]:
    entry = tables.table("hccl_result").get(value)
    return [_from_entry(entry, code, lang)] if entry else []


def _aicore(tables: Tables, key: tuple[int, ...], code: str, lang: str) -> list[CodeInfo]:
    entry = tables.table("aicore_errcode").get(key)
    if entry is None:
        return []
    return [_from_entry(entry, code, lang,
                        name=word(lang, "AI Core errcode {code}", code=entry.code))]


def _errno(tables: Tables, value: int, code: str, lang: str) -> list[CodeInfo]:
    layout = tables.errno
    if layout is None or (value >> 24) & 0xFF != layout.module_id:
        return []
    sub, error, reserve = (value >> 16) & 0xFF, value & 0xFFFF, value >> 32
    result = tables.table("hccl_result").get(error)
    if sub not in layout.submodules or result is None:
        return []
    sub_name = layout.submodules[sub]
    meaning = result.text("meaning", lang) or result.meaning
    short = result.text("short", lang) or meaning
    details = [("module", f"{layout.module} ({layout.module_id})"),
               ("submodule", f"{sub_name} ({sub})"),
               ("error", word(lang, "{label}: {text}", label=f"{result.name} ({error})",
                              text=meaning))]
    if reserve:
        details.append(("reserved bits", hex(reserve)))
    return [CodeInfo(code=code, table="hccl_errno", name=f"{sub_name} {short} ({error})",
                     meaning=word(lang, "HCCL errNo = module {module} ({module_id}) + submodule "
                                  "{sub} ({sub_id}) + {name} ({error}): {meaning}",
                                  module=layout.module, module_id=layout.module_id, sub=sub_name,
                                  sub_id=sub, name=result.name, error=error, meaning=meaning),
                     source=f"{layout.source}; {result.source}", category=result.category,
                     remedy=result.text("remedy", lang), details=tuple(details), exact=False,
                     lang=lang)]


def _hex(tables: Tables, text: str, only: tuple[str, ...] | None,
         lang: str) -> list[CodeInfo]:
    value = int(text, 16)
    code = text.lower()
    readings: list[CodeInfo] = []
    for table in only or _HEX_ORDER:
        if table == "hccl_errno":
            readings += _errno(tables, value, code, lang)
        elif table == "aicore_errcode":
            readings += _aicore(tables, (value,), f"errcode {code}", lang)
        elif table == "hccl_result":
            readings += _hccl_result(tables, value, str(value), lang)
        else:
            entry = tables.table(table).get(value)
            if entry is not None:
                readings.append(_from_entry(entry, entry.code, lang))
    return readings


def _errmgr(tables: Tables, code: str, lang: str) -> list[CodeInfo]:
    entry = tables.table("errmgr").get(code)
    letter = code[1]
    component = tables.component(letter, lang)
    details: list[tuple[str, str]] = []
    if component:
        details.append(("component", f"{letter} = {component}"))
    if entry is not None:
        label = word(lang, "{component} error code", component=component) if component else code
        info = _from_entry(entry, code, lang, name=entry.get("symbol") or label)
        return [CodeInfo(code=code, table="errmgr", name=info.name, meaning=info.meaning,
                         source=info.source, category=info.category, remedy=info.remedy,
                         details=tuple(details) + info.details, lang=lang)]
    if component is None:
        return []
    internal = int(code[2:]) >= 9000
    meaning = word(lang, "an internal error of {component}; not in the code tables: the message "
                   "text after the code says what happened" if internal else
                   "not in the code tables; the message text after the code says what happened",
                   component=component)
    return [CodeInfo(code=code, table="errmgr_component",
                     name=word(lang, _SEVERITY[code[0]], component=component),
                     meaning=meaning, source=tables.source("errmgr"), details=tuple(details),
                     exact=False, lang=lang)]


def _pta(tables: Tables, module: int, kind: int, code: str, lang: str) -> list[CodeInfo]:
    name = tables.pta_modules.get(module)
    typ = tables.pta_types.get(kind)
    if name is None and typ is None:
        return []
    absent = word(lang, "not in the table")
    meaning = typ.text("meaning", lang) if typ else None
    details = [("module", f"{module:02d} = {name or absent}"),
               ("type", f"{kind:03d} = {meaning or absent}")]
    note = typ.text("note", lang) if typ else None
    if note:
        details.append(("note", note))
    label = name or word(lang, "module {module}", module=f"{module:02d}")
    return [CodeInfo(code=code, table="pta", name=f"torch_npu {label}",
                     meaning=meaning or word(lang, "type {kind} (not in the table)",
                                             kind=f"{kind:03d}"),
                     source=tables.source("pta"), category=typ.category if typ else None,
                     remedy=typ.text("remedy", lang) if typ else None, details=tuple(details),
                     exact=name is not None and typ is not None, lang=lang)]


def decode(text: str, tables: Tables, lang: str = "en") -> list[CodeInfo]:
    """Every reading of ``text`` in ``lang``, most specific first (empty when nothing is
    known)."""
    code, only = normalize(text)
    if not code:
        return []
    upper = code.upper()
    if ERRMGR_RE.match(upper) and (only is None):
        return _errmgr(tables, upper, lang)
    pta = _PTA.match(upper)
    if pta and only is None:
        return _pta(tables, int(pta.group("module")), int(pta.group("type")), upper, lang)
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", code):
        return _hex(tables, "0x" + code[2:], only, lang)
    if code.isdigit():
        value = int(code)
        if only == ("aicore_errcode",):  # ``ErrCode=507035`` is the ACL code, not an errcode
            acl = _numeric(tables, value, code, lang) if len(code) == 6 else []
            return acl + _aicore(tables, (value,), f"errcode {value}", lang)
        if only is not None:
            return _hex(tables, hex(value), only, lang)
        if len(code) == 6:
            return _numeric(tables, value, code, lang)
        return (_hccl_result(tables, value, code, lang)
                + _aicore(tables, (value,), f"errcode {value}", lang))
    key = tuple_key(code) if code.startswith("(") else None
    if key is not None and only in (None, ("aicore_errcode",)):
        return _aicore(tables, key, f"errcode {code}", lang)
    return []


def known_codes(tables: Tables) -> list[str]:
    """Every code the tables define, in a form ``decode`` accepts."""
    out: list[str] = []
    for table, entries in sorted(tables.entries.items()):
        for entry in entries.values():
            if table == "aicore_errcode":  # the short form: ``errcode 0x800000``
                first = entry.code.strip("()").split(",")[0].strip()
                out.append(f"errcode {first}" if len(entry.key) == 1 else f"errcode {entry.code}")
            else:
                out.append(entry.code)
    out += [f"ERR{m:02d}{t:03d}" for m in sorted(tables.pta_modules) for t in
            sorted(tables.pta_types)]
    return out
