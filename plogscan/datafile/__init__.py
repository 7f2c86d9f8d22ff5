"""Data files: YAML that remembers where each value came from, and field documentation.

Rules, code tables and baselines are YAML written by people. ``located`` loads it safely with
every mapping and list carrying its file and line, so an error can say ``file:line`` and what
is wrong; ``fields`` checks and documents the keys of such a mapping and lists the valid
choices when one is wrong; ``translated`` walks the ``i18n`` block that rules and code tables
share; ``compiled`` keeps what is built from plogscan's data (the line formats, the rules,
Hyperscan databases) between runs.

Part of the shared vocabulary. Must not import: any pipeline stage.
"""
