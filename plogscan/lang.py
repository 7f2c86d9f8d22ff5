"""The report languages and how the default one is chosen.

Rules are written in English with translations (``i18n`` in a rule file); reports and rule
texts can be shown in any language listed here. The default follows the user's locale, so a
user on a Chinese system gets Chinese without asking; ``PLOGSCAN_LANG`` overrides the locale.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

LANGS: tuple[str, ...] = ("en", "zh")  # "en" is the base language of every text
ENV_VAR = "PLOGSCAN_LANG"


def locale_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language of the locale: ``zh`` when the first set of ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG`` starts with ``zh`` (``zh_CN.UTF-8``...), else ``en``."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def default_lang(environ: Mapping[str, str] | None = None) -> str:
    """``PLOGSCAN_LANG`` when it names a known language, else the locale's language."""
    env = os.environ if environ is None else environ
    chosen = env.get(ENV_VAR, "").strip().lower()
    return chosen if chosen in LANGS else locale_lang(env)
