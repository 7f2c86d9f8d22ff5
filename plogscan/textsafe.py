"""Make hostile log text safe for a terminal: control characters become visible escapes.

Log messages are attacker-controllable. An ANSI escape sequence in a message must not
recolour, move the cursor or clear the user's terminal, so every C0/C1 control character
(except tab) is shown as ``\\xNN``.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """``text`` with control characters replaced by ``\\xNN`` escapes (newlines kept)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
