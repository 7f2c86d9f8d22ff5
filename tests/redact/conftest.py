"""``--redact``: no sensitive value of any sample reaches any output.

The fixtures they share come from ``tests/conftest.py``.
"""
