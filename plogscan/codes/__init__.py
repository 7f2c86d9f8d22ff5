"""Code tables as data: what ``507916``, ``EI0002``, ``0x0000000005010009`` or
``errcode 0x200000000`` mean.

The tables live next to this module as YAML, one per public source: ``acl``, ``rt``, ``ge``
and ``aclnn`` (the six-digit ``aclError`` codes), ``hccl_result``, ``errmgr``, ``pta``,
``ts_retcode``, ``innercode``, ``aicore_errcode`` and ``device_event``; ``tables.py`` loads and
checks them (``translations.py`` their ``i18n`` blocks), ``decode.py`` reads one code against
them with the words of ``words.py``. This module is the public face: ``decode(code)`` gives
every reading of a code, most specific first; ``describe(code)`` gives the best one as one
line for reports. A code no table defines has no reading. ``lang`` (``plogscan.lang.LANGS``)
picks the language of the readings' texts; English is the default. The shipped tables are
read lazily, each file the first time a lookup needs it, and kept for the process.

In: a code as written in a log, a report language. Out: ``CodeInfo`` readings (meaning,
category, first remedy, public source).

Must not import: ``engine`` (a sibling: the taxonomy and the located loader both live in the
shared vocabulary), ``analysis``, ``crossrank``, ``report``, ``cli``; nor ``parse``, ``ingest``
or ``table``: codes are read from text, never from files of logs.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from plogscan.codes import decode as _decode
from plogscan.codes.decode import KINDS, PREFIX_WORDS, CodeInfo
from plogscan.codes.tables import CodeTableError, Entry, Tables, load_tables

__all__ = ["KINDS", "PREFIX_WORDS", "WRAPPER_CATEGORY", "CodeInfo", "CodeTableError", "Entry",
           "Tables", "category_of", "decode", "describe", "known_codes", "load_tables",
           "most_specific", "tables"]

# The category of codes that only say a call failed (EZ9999, 507011, ERR00100...): a record's
# other codes say more.
WRAPPER_CATEGORY = "runtime-error"


@lru_cache(maxsize=1)
def tables() -> Tables:
    """The shipped tables, each file read (and checked) when a lookup first needs it."""
    return load_tables(lazy=True)


def decode(code: str, table_set: Tables | None = None, lang: str = "en") -> list[CodeInfo]:
    """Every reading of ``code`` in ``lang``, most specific first; empty when nothing is known
    about it. Texts without a translation stay in English."""
    return _decode.decode(code, table_set or tables(), lang)


def describe(code: str, lang: str = "en") -> str | None:
    """The best reading of ``code`` in one line (``ACL_ERROR_RT_CCU_EXCEPTION: ccu exception``;
    ``lang="zh"``: ``ACL_ERROR_RT_CCU_EXCEPTION：CCU 执行异常…``), or None when the tables know
    nothing about it. For reporters: never raises on odd input."""
    readings = decode(code, lang=lang)
    return readings[0].line() if readings else None


def known_codes(table_set: Tables | None = None) -> list[str]:
    """Every code defined by the tables, each in a form ``decode`` accepts."""
    return _decode.known_codes(table_set or tables())



@lru_cache(maxsize=4096)
def category_of(code: str) -> str | None:
    """The failure class the tables give ``code`` (its most specific reading that has one), or
    None: a success value (``0``, ``0x0``, ``HCCL_SUCCESS``, torch_npu type 0), a code no table
    defines, an error-manager code known only by its component letter. Never raises."""
    digits = code[2:] if code[:2].lower() == "0x" else code
    if not digits.strip("0"):  # zero: a success value in every table
        return None
    try:
        readings = decode(code)
    except (CodeTableError, ValueError):
        return None
    return next((r.category for r in readings if r.category), None)


def most_specific(codes: Iterable[str]) -> tuple[str, str] | None:
    """The code of a record that says most, with its category: the first one with a category
    other than ``WRAPPER_CATEGORY``, else the first wrapper; None when no code has a
    category."""
    wrapper: tuple[str, str] | None = None
    for code in codes:
        category = category_of(code)
        if category is None:
            continue
        if category != WRAPPER_CATEGORY:
            return code, category
        wrapper = wrapper or (code, category)
    return wrapper
