"""Parse: bytes of one log file in, typed event records out.

In: a chunk of bytes of one file (newline-aligned) with its ``FileContext`` (path, kind, path
hints). Out: an Arrow record table in the event schema (``plogscan.schema``), with every
physical line inside exactly one record or counted as blank.

Line formats are data (``formats/*.yaml``, read by ``lineformats``, their samples checked by
``formatcheck``); the CANN header has a one-pass fast path (``cannheader``); other shapes are
matched by ``linematch``; field values, timestamps and error codes are read by vectorized
kernels (``fieldvalues``, ``timestamps``, ``codescan``) over Arrow text (``arrowtext``).
``chunk`` ties them together.

Must not import: ``ingest``, ``table``, ``engine``, ``codes``, ``analysis``, ``crossrank``,
``report``, ``cli``: the parser knows nothing of files on disk or of what follows it.
"""
