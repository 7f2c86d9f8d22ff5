"""The HTML report lists unexplained error templates, escaped like every other log text."""

from __future__ import annotations

from plogscan.report import render
from tests.helpers import REPO_ROOT, diagnosed

REPO = REPO_ROOT


def test_unexplained_templates_are_shown_as_inert_text() -> None:
    diagnosis = diagnosed([str(REPO / "samples" / "hostile-text")], workers=1)
    assert diagnosis.unexplained, "the sample has errors no rule explains"
    page = render(diagnosis, "html")
    section = page[page.index('id="unexplained"'):page.index('id="ingest"')]
    assert "tensor name &lt;script&gt;alert(" in section  # a [PTA] record no rule reads
    assert "<script>alert" not in section and "<img" not in section
