"""Where the cache lives and how large it may grow (options, environment, defaults)."""

from __future__ import annotations

import os
from pathlib import Path

from plogscan.errors import InputError

DEFAULT_MAX_BYTES = 2 << 30
OFF = ("off", "0", "no", "none", "false")


def cache_dir(option: str | None = None, disabled: bool = False) -> Path | None:
    """The cache directory for ``--cache DIR`` / ``--no-cache``, then ``PLOGSCAN_CACHE``,
    then ``$XDG_CACHE_HOME/plogscan``; None when the cache is off."""
    if disabled:
        return None
    value = option if option is not None else os.environ.get("PLOGSCAN_CACHE")
    if value is not None:
        if value.strip().lower() in OFF:
            return None
        return Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "plogscan"


def max_bytes() -> int:
    """The size cap: ``PLOGSCAN_CACHE_MAX`` (bytes, or with K/M/G), default 2 GiB."""
    text = os.environ.get("PLOGSCAN_CACHE_MAX")
    if not text:
        return DEFAULT_MAX_BYTES
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    value = text.strip().lower().removesuffix("ib").removesuffix("b")
    scale = units.get(value[-1:], 1)
    number = value[:-1] if value[-1:] in units else value
    try:
        return max(0, int(float(number) * scale))
    except ValueError:
        raise InputError(f"PLOGSCAN_CACHE_MAX={text!r} is not a size",
                         help="give bytes or a size such as 512M or 2G") from None
