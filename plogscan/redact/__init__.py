"""Redact: sensitive values replaced by typed pseudonyms in every output of a run, for tickets.

In: record batches (before they are written or printed), a ``Diagnosis`` (after the rules and
any baseline ran), and every line the run prints. Out: the same values with IPv4 and IPv6
addresses, host names, user names of home paths, e-mail addresses and ``--redact-pattern``
matches replaced by pseudonyms (``ip-1``, ``host-1``, ``user-1``, ``email-1``, ``secret-1``,
numbered by first appearance, or keyed hashes with a salt file), and the private map back to
the originals.

The rules run on the original records, so the findings are the same ones; redaction is applied
at the boundary, to whatever leaves the run, field by field (``values`` walks every dataclass,
mapping and list of a diagnosis, so a new report section is covered without changes here), and
a final pass over the rendered text replaces any original it knows. Fingerprints are computed
again from the redacted values.

``detectors`` finds the values (RE2 over Arrow text: no pattern can backtrack), ``pseudonyms``
names them, ``redactor`` applies both to text, records and paths, ``values`` to a diagnosis.

Must not import: ``report``, ``pipeline``, ``baseline``, ``cli``.
"""
