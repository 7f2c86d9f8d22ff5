"""A rule's description reads naturally whatever its records hold (``catalog.describe``)."""

from __future__ import annotations

import pytest

from plogscan.catalog.describe import as_written, fill

TEMPLATE = ("In {scope}, the allocation failed ({count} record(s); code {error_code}, requested "
            "{requested}) after {stuck} notify(ies).")


@pytest.mark.parametrize(("values", "expected"), [
    ({"count": "1", "error_code": "207018", "requested": "2 GiB", "stuck": "1"},
     "In P, the allocation failed (1 record; code 207018, requested 2 GiB) after 1 notify."),
    ({"count": "3", "requested": "2 GiB", "stuck": "2"},
     "In P, the allocation failed (3 records; requested 2 GiB) after 2 notifies."),
    ({"count": "1,000", "error_code": "207018", "stuck": "2"},
     "In P, the allocation failed (1,000 records; code 207018) after 2 notifies."),
])
def test_unknown_facts_leave_their_clause_out(values, expected):
    assert fill(TEMPLATE, {"scope": "P", **values}.get) == expected


def test_a_parenthesis_of_unknown_facts_goes_whole_and_chinese_lists_too():
    assert fill("It failed (code {code}, task {task}).", {}.get) == "It failed."
    assert fill("失败（错误码 {code}，task {task}；对端 {peer}）。", {"peer": "10.0.0.1"}.get) == \
        "失败（对端 10.0.0.1）。"
    # text without placeholders and a value holding parentheses stay as they are
    assert fill("HCCL_CONNECT_TIMEOUT (default 120 s, +20 s) {ip}", {"ip": "a(1), b"}.get) == \
        "HCCL_CONNECT_TIMEOUT (default 120 s, +20 s) a(1), b"
    assert fill("value {missing} here", {}.get) == "value here"  # never a "?"


def test_a_marked_clause_goes_with_its_unknown_value_and_shows_as_written():
    template = "[[On communicator {group}, ]]a stream[[ on device {device}]] waited."
    assert fill(template, {"device": "3"}.get) == "a stream on device 3 waited."
    assert fill(template, {"group": "g"}.get) == "On communicator g, a stream waited."
    assert as_written(template) == "On communicator {group}, a stream on device {device} waited."
