"""The analysis stage: the ERROR and WARNING records the reports list, unexplained error
templates, and inputs that could not be read as logs as a finding.

The fixtures they share come from ``tests/conftest.py``.
"""
