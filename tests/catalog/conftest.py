"""The rule catalogue: loading and its located errors, the rule keys, descriptions, lint,
coverage, every built-in rule's cases, and patterns written from meaning.

The fixtures they share come from ``tests/conftest.py``.
"""
