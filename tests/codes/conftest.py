"""The code tables and ``plogscan explain``, in both languages.

The fixtures they share come from ``tests/conftest.py``.
"""
