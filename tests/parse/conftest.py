"""Parsing records: line formats, the CANN header fast path, timestamps, pasted text, skimming,
the first-byte filter, the code extractor and the encoded columns.

The fixtures they share come from ``tests/conftest.py``.
"""
