"""Ingest: the paths a user names in, a stream of event-record batches out.

In: command-line paths (files, directories, globs, ``-``, pipes, ``.gz``/``.bz2``/``.xz``
files, tar and zip collections). Out: Arrow record batches in the event schema, and an
``IngestSummary`` that accounts for every file (read, with its line counts, or skipped, with
its reason).

``walk`` turns arguments into readable inputs (walking, globbing, containment);
``classify`` sniffs each one's kind from its name, path and first bytes; ``archives`` reads
compressed files and archive members in place; ``pathhints`` reads host, rank and device from
paths; ``chunks`` cuts a file into newline-aligned ranges or chunks; ``pipeline`` (the
``Ingest`` class) runs the parser on them in worker threads or processes (``handoff`` carries
tables back from processes); ``textinput`` parses in-memory text for rule cases and tests.

Must not import: ``table``, ``engine``, ``codes``, ``analysis``, ``crossrank``, ``report``,
``cli``.
"""
