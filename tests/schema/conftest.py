"""The event table's shared vocabulary: grouping over plain and dictionary-encoded columns.

The fixtures they share come from ``tests/conftest.py``.
"""
