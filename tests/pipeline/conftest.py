"""The orchestrator: ``DiagnoseOptions``, memory given back after the last batch, and property
tests over the whole pipeline.

The fixtures they share come from ``tests/conftest.py``.
"""
