"""Compare two runs of a job: what the failing run logged that the passing run did not.

Engineers find causes no rule knows yet by putting the log of a failing run beside the log of
a passing one. This stage does that for whole log trees. Each run (a directory, an archive, a
file or an event table from ``plogscan ingest``) is diagnosed, its event table read once to
learn who each process is (``crossrank``) and once to fold every record into message
templates per process (the masks of ``analysis.unexplained``: numbers, hex values, hashes,
addresses, paths and times masked, so other pids, hosts and clocks do not count). Processes are
matched between the runs by rank where the logs say it, else by their order. The result says:

* the templates that separate the runs, most consistent first (in every failing process of
  the failing run and in no process of the passing one), then by first appearance;
* per rank, where the two runs first diverge, and the first template only the failing run
  logged there;
* the error codes, levels and modules, the settings (``HCCL_*`` and the log-level variables
  the configuration check reads) and the findings that only one run has;

each with its evidence lines. ``pair.compare_runs`` runs it all; ``model`` holds the result
(``Comparison``) and ``report`` renders it as text, JSON or Markdown.

In: two input paths. Out: ``model.Comparison``. The report modules see the result only.

Must not import: ``cli``. ``compare.report`` must not import ``parse``, ``ingest``, ``table``,
``engine``, ``crossrank`` or the rest of this package but ``model`` and ``words``.
"""
