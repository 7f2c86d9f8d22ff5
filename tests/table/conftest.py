"""The event table on disk: datasets, SQL over them, and the identity every row carries.

The fixtures they share come from ``tests/conftest.py``.
"""
