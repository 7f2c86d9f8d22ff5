"""The extraction cache and the whole-result memo: reruns read what the first run kept, changed
inputs are parsed again, entries stay bounded.

``logs`` is a changeable copy of the flagship sample (the root conftest's ``flagship_logs``).
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def logs(flagship_logs: Path) -> Path:
    return flagship_logs
