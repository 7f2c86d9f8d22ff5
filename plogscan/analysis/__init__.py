"""Analysis: what the report shows beside the findings, gathered from the same record batches.

In: the record batches the engine scans, and the engine's findings. Out: the per-process
overview of the run (``overview``), the error records no rule explains, clustered into
templates (``unexplained``), and context lines around each finding's evidence (``context``,
which reads the named inputs again, only around the evidence lines).

Must not import: ``report``, ``cli``, ``diagnose``, ``baseline``.
"""
