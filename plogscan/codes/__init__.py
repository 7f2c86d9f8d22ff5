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

from functools import lru_cache

from plogscan.codes import decode as _decode
from plogscan.codes.decode import KINDS, PREFIX_WORDS, CodeInfo
from plogscan.codes.tables import CodeTableError, Entry, Tables, load_tables

__all__ = ["KINDS", "PREFIX_WORDS", "CodeInfo", "CodeTableError", "Entry", "Tables", "decode",
           "describe", "known_codes", "load_tables", "tables"]


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

