"""The cross-rank stage: the wait graph, clocks, attempts, the prefilter, and the root rank on
the multi-rank samples and on real multi-rank trees.

The fixtures they share come from ``tests/conftest.py``.
"""
