"""``plogscan diff``: what a failing run logged that a passing run did not.

The fixtures they share come from ``tests/conftest.py``.
"""
