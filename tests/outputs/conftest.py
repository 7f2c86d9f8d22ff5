"""Writing outputs: no partial file on Ctrl-C, one clear line on a full disk.

The fixtures they share come from ``tests/conftest.py``.
"""
