"""The command line's own parts: the ingest, events and rules commands, input errors and exit
codes, the census, help text, the progress bar and the garbage collector setting.

The fixtures they share come from ``tests/conftest.py``.
"""
