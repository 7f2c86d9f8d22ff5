"""Ingest: the paths a user names in, a stream of event-record batches out.

In: command-line paths (files, directories, globs, ``-``, pipes, ``.gz``/``.bz2``/``.xz``
files, tar and zip collections). Out: Arrow record batches in the event schema, and an
``IngestSummary`` that accounts for every file (read, with its line counts, or skipped, with
its reason).

``walk`` lists every entry under the paths once (``model.InputListing``: the progress total,
the redaction's names and the result memo's keys all come from it) and ``sniff`` turns that
listing into readable inputs, opening each file once; ``walkchild`` runs both in a forked
child process beside the parse (``childwire``: what crosses back, open descriptors included);
``classify`` sniffs each one's kind from its name, path and first bytes; ``streams`` and
``archives`` read compressed files and archive members in place; ``sources`` holds what is
handed on (``Source``, ``Skipped`` and the skip reasons); ``ranges`` cuts a plain file into
newline-aligned ranges each worker reads itself, ``chunks`` cuts a stream into chunks and
parses one in a worker (``textbytes`` counts what of its bytes is not text), and
``contextlines`` takes the lines around the records rules may use from the same bytes, so no
file is read again for them; ``pipeline`` (the ``Ingest`` class) runs the workers
(``pool``, ``batching``) and stitches their records back in order (``stitch``;
``accounting`` keeps the books, ``stored`` and ``filekeys`` the extraction cache's side,
``handoff`` carries tables back from worker processes); ``smallfiles`` parses a group of
small files as one task (``joined``: as one buffer, where that is exact; ``groups``: what a
group holds and hands back); ``textinput`` parses in-memory text for rule cases and tests.

Must not import: ``table``, ``engine``, ``codes``, ``analysis``, ``crossrank``, ``report``,
``cli``.
"""
