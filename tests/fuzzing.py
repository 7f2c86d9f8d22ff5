"""Hypothesis profiles of the fuzz tests (``tests/pipeline/test_fuzz.py``).

``ci`` is what the test suite runs: a few dozen examples per property, enough to catch a
regression in well under a minute. ``long`` is for a fuzzing session (``PLOGSCAN_FUZZ=long
pytest tests/pipeline/test_fuzz.py``): thousands of examples per property, no deadline; hypothesis
keeps the failures it finds in ``.hypothesis/`` and replays them first next time. See
tests/README.md.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILES = {"ci": 30, "long": 3000}  # examples per property
PROFILE = os.environ.get("PLOGSCAN_FUZZ", "ci")
if PROFILE not in PROFILES:
    raise SystemExit(f"PLOGSCAN_FUZZ={PROFILE!r}: valid choices are: {', '.join(PROFILES)}")

FUZZ = settings(max_examples=PROFILES[PROFILE], deadline=None, derandomize=PROFILE == "ci",
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
