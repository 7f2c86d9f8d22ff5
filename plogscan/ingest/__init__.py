"""Ingest: the paths a user names in, a stream of event-record batches out.

In: command-line paths (files, directories, globs, ``-``, pipes, ``.gz``/``.bz2``/``.xz``
files, tar and zip collections). Out: Arrow record batches in the event schema, and an
``IngestSummary`` that accounts for every file (read, with its line counts, or skipped, with
its reason).

``walk`` turns arguments into readable inputs (walking, globbing, the order), which
``walkchild`` runs in a forked child process beside the parse; ``classify``
sniffs each one's kind from its name, path and first bytes; ``streams`` and ``archives`` read
compressed files and archive members in place; ``pathhints`` reads host, rank and device from
paths; ``sources`` holds what is handed on (``Source``, ``Skipped`` and the skip reasons);
``chunks`` cuts a file into newline-aligned ranges or chunks and parses one in a worker
(``textbytes`` counts what of its bytes is not text);
``pipeline`` (the ``Ingest`` class) runs the workers and stitches their records back in order
(``handoff`` carries tables back from worker processes); ``smallfiles`` parses a group of
small files as one task (``joined``: as one buffer, where that is exact; ``groups``: what a
group holds and hands back); ``textinput`` parses in-memory text for rule cases and tests.

Must not import: ``table``, ``engine``, ``codes``, ``analysis``, ``crossrank``, ``report``,
``cli``.
"""
