"""plogscan as a library: ``read_events``, ``diagnose``, ``explain`` and ``rules``.

The fixtures they share come from ``tests/conftest.py``.
"""
