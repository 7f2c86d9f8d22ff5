"""Table: the event table at rest and on the way out, as Parquet, CSV, JSON Lines or a table.

In: record batches from ``ingest``, or a Parquet file that ``plogscan ingest`` wrote. Out:
record batches back (``parquet``, ``dataset``), the rows staged until their identity is known
(``staged``), rows filtered by level, module, pid, rank, device, host, attempt, text and time
(``filters``), printed records (``writers``) and the per-file accounting table (``stats``).

Must not import: ``engine``, ``codes``, ``analysis``, ``crossrank``, ``report``, ``cli``.
"""
