"""The ingest stage: finding, classifying and opening inputs, walks, archives, containment,
ranges, small-file groups, hand-offs, prefetching, the Dask cluster, and opens per file.

The fixtures they share come from ``tests/conftest.py``.
"""
