"""Incidents: the findings of a run folded into what a person fixes, one root cause at a time.

In: the findings (with the identity, ``rank_role`` and ``attempt`` the cross-rank stage gave
them) and the cross-rank conclusions. Out: the same findings, each with its report id, in the
order to read them, and the ``Incident`` values that group them (``build``), or a
``Diagnosis`` that carries both (``with_incidents``).

Must not import: ``report``, ``cli``, ``pipeline``, ``baseline``; nor ``parse``, ``ingest``,
``table`` or ``engine``: incidents are made of findings, never of records.
"""

from plogscan.incidents.build import build, with_incidents

__all__ = ["build", "with_incidents"]
