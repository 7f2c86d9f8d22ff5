"""Outputs: files a run writes (reports, event tables, baselines, redaction maps), written so
that an interrupted or failed run never leaves a partial file behind.

In: a target path and the bytes (or a writer) for it. Out: the file, complete, or nothing;
``OSError`` for the caller to turn into a message (``cannot write ...: No space left on
device``).

Part of the shared vocabulary. Must not import: any pipeline stage.
"""
