"""``plogscan diagnose`` on real logs that nobody here wrote names the failure class the corpus
MANIFEST expects as the top finding, and never calls a software fault hardware.

The corpus lives outside the repository (``shared/corpus/real`` beside the checkout, or
``$PLOGSCAN_CORPUS``); it is never copied in. Without it these tests are reported as skipped.
"Top finding" is the first finding of the report (``plogscan.model.order_findings``: level, root
cause before symptom, the earliest first timestamp, each finding after those that explain it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from plogscan.catalog.categories import CATEGORIES
from tests.corpus_path import corpus_dir

CORPUS = corpus_dir()
SKIP = pytest.mark.skipif(CORPUS is None, reason="real-log corpus not present beside the checkout")

# MANIFEST vocabulary -> rule category.
VOCABULARY = {
    "AICORE_EXCEPTION": "aicore-exception", "AICORE_TIMEOUT": "aicore-timeout",
    "OPERATOR_INPUT/OOB": "operator-oob", "HCCL_NOTIFY_TIMEOUT": "hccl-notify-timeout",
    "HCCL_LINK_TIMEOUT": "hccl-link-timeout", "HCCL_INIT_FAILURE": "hccl-init-failure",
    "HCCL_ROCE_CQE": "hccl-roce-cqe", "SDMA_ERROR": "sdma-error", "DEVICE_OOM": "device-oom",
    "DEVICE_BUSY": "device-busy", "HW_ECC": "hw-ecc", "HEARTBEAT_LOST": "heartbeat-lost",
    "STREAM_SYNC_TIMEOUT": "stream-sync-timeout",
}
# File number -> the categories accepted as the top finding (None: no finding at level error
# or above). 01: the kernel assertion "Index ... out of range" proves an out-of-bounds input;
# 20 is a document of labelled examples, any of its classes may come first.
EXPECTED: dict[str, frozenset[str] | None] = {
    "01": frozenset({"operator-oob"}),
    "02": None,
    "03": frozenset({"aicore-exception"}),
    "07": frozenset({"operator-oob"}),
    "11": frozenset({"hccl-link-timeout"}),
    "14": frozenset({"hccl-notify-timeout"}),
    "17": frozenset({"hccl-notify-timeout"}),
    "20": frozenset({"heartbeat-lost", "hccl-notify-timeout", "sdma-error", "hccl-roce-cqe"}),
    "22": frozenset({"hccl-notify-timeout"}),
    "26": frozenset({"stream-sync-timeout"}),
    "29": frozenset({"sdma-error"}),
}
HARDWARE = frozenset(c for c in CATEGORIES if c.startswith("hw-"))
FILES = sorted(CORPUS.glob("*.log")) if CORPUS else []


def _manifest() -> dict[str, str]:
    """File name -> its MANIFEST entry text."""
    assert CORPUS is not None
    text = (CORPUS / "MANIFEST.md").read_text(encoding="utf-8")
    parts = re.split(r"(?m)^## (\S+\.log)\s*$", text)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _expected_words(entry: str) -> set[str]:
    """The MANIFEST vocabulary named on an entry's "Expected diagnosis" line."""
    line = next((ln for ln in entry.splitlines() if "Expected diagnosis" in ln), "")
    return {cat for word, cat in VOCABULARY.items() if re.search(rf"`{re.escape(word)}", line)}


def _findings(diagnose_cli, path: Path) -> list[dict]:
    """The findings of the English JSON report of ``path``, which must run clean."""
    return diagnose_cli.json(path, "--lang", "en", "--fail-on", "never",
                             exit_codes=(0,))["findings"]


def _summary(findings: list[dict]) -> str:
    return "; ".join(f"{f['rule']} {f['level']} {f['role']} {f['category']} {f['first_ts']}"
                     for f in findings[:6]) or "no findings"


@SKIP
def test_every_corpus_file_has_an_expectation_that_agrees_with_the_manifest() -> None:
    entries = _manifest()
    assert sorted(p.name[:2] for p in FILES) == sorted(EXPECTED)
    for path in FILES:
        wanted = EXPECTED[path.name[:2]]
        words = _expected_words(entries[path.name])
        if wanted is None:
            assert not words, path.name
        elif words:
            assert wanted & words, (path.name, words)


@SKIP
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_top_finding_is_the_expected_category(diagnose_cli, path: Path) -> None:
    findings = _findings(diagnose_cli, path)
    wanted = EXPECTED[path.name[:2]]
    if wanted is None:
        serious = [f for f in findings if f["level"] in ("error", "critical")]
        assert not serious, _summary(serious)
        return
    assert findings, "no findings"
    top = findings[0]
    assert top["category"] in wanted, f"top is {top['rule']} ({top['category']}); " \
        f"expected one of {sorted(wanted)}; findings: {_summary(findings)}"


@SKIP
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_no_software_fault_is_called_hardware(diagnose_cli, path: Path) -> None:
    allowed = HARDWARE if "HW_ECC" in _manifest()[path.name] else frozenset()
    hardware = [f for f in _findings(diagnose_cli, path) if f["category"] in HARDWARE - allowed]
    assert not hardware, _summary(hardware)
