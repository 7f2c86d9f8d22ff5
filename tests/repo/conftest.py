"""The repository itself: the layer list and module sizes, lean imports, declared floor
versions, the built wheel, the benchmark tools and the reliability table of tests/README.md.

The fixtures they share come from ``tests/conftest.py``.
"""
