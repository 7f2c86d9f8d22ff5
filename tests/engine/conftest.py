"""The matcher: predicates, literals and narrowing, the selector, the sequence, threshold and
single-group stores, finding caps and roles.

The fixtures they share come from ``tests/conftest.py``.
"""
