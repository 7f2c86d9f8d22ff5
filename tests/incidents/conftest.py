"""Incidents: one root cause with what follows from it, the root first.

The fixtures they share come from ``tests/conftest.py``.
"""
