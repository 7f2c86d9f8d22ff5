"""The adversarial corpus (README.md here): each hostile input gives its stated message, keeps
what it states and exits as stated.

The fixtures they share come from ``tests/conftest.py``.
"""
