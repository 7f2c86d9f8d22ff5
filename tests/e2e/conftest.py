"""``plogscan`` end to end, as a user runs it: every bundled sample and corpus diagnosed with the
whole report checked (goldens), both languages, real terminals, the CI hook, robustness through
the real command line. ``diagnose_cli`` and ``terminal`` come from the root conftest.

The fixtures they share come from ``tests/conftest.py``.
"""
