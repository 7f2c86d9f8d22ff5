"""Analysis: what the report shows beside the findings, gathered from the same record batches.

In: the record batches the engine scans, and the engine's findings. Out: the per-process
overview of the run (``overview``), the error records no rule explains, clustered into
templates (``unexplained``), and the finding of the input files that could not be read as
logs (``unreadable``, from ingest's accounting). It reads no file: the context lines of the
evidence come with the records (``ingest.contextlines``).

Must not import: ``report``, ``cli``, ``diagnose``, ``baseline``.
"""
