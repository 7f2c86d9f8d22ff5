"""User rule files, baselines and salt files read as data, never code, at bounded cost.

The fixtures they share come from ``tests/conftest.py``.
"""
