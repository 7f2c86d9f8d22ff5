"""plogscan: forensic analyzer for Huawei Ascend CANN/HCCL logs.

The pipeline runs one way: sources -> parse -> event table -> engine (rules) -> findings ->
reporters. Each stage hands a typed value to the next and never reaches back.
"""

__version__ = "0.1.0"
