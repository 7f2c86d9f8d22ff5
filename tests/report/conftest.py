"""The reports' tests: every report format of every bundled sample, their wording, safety and
the HTML report in a real browser.

``sample_reports`` diagnoses each bundled sample once per language and renders each format once,
on first use, for the scans over all outputs.
"""

from __future__ import annotations

import pytest

from tests.helpers import SAMPLES_DIR, diagnosed

SAMPLE_NAMES = sorted(p.name for p in SAMPLES_DIR.iterdir()
                      if p.is_dir() and not p.name.startswith(("_", ".")))


class SampleReports:
    """Every bundled sample diagnosed once per language, and each report format rendered once,
    on first use: the scans over all outputs share these runs instead of diagnosing again."""

    FORMATS = ("text", "text-details", "text-all", "text-narrow", "text-wide", "markdown",
               "html", "json", "sarif", "junit")

    def __init__(self) -> None:
        self._diagnoses: dict[tuple[str, str], object] = {}
        self._outputs: dict[tuple[str, str, str], str] = {}

    def diagnosis(self, sample: str, lang: str):
        key = (sample, lang)
        if key not in self._diagnoses:
            self._diagnoses[key] = diagnosed([str(SAMPLES_DIR / sample)], lang=lang)
        return self._diagnoses[key]

    def output(self, sample: str, lang: str, fmt: str) -> str:
        from plogscan.report import render

        key = (sample, lang, fmt)
        if key not in self._outputs:
            diagnosis = self.diagnosis(sample, lang)
            text_options = {"text": {}, "text-details": {"details": True},
                            "text-all": {"show_all": True}, "text-narrow": {"width": 60},
                            "text-wide": {"width": 400, "details": True}}
            if fmt in text_options:
                self._outputs[key] = render(diagnosis, "text",  # type: ignore[arg-type]
                                            **text_options[fmt])
            else:
                self._outputs[key] = render(diagnosis, fmt)  # type: ignore[arg-type]
        return self._outputs[key]


@pytest.fixture(scope="session")
def sample_reports() -> SampleReports:
    return SampleReports()
