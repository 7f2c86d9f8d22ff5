"""The strict rule loader: located diagnostics (golden .err files), collect_errors, overrides."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from plogscan.catalog import builtin_rules_dir, load_rules
from plogscan.catalog.categories import CATEGORIES, REMEDIES
from plogscan.catalog.rule import Sequence, Single
from plogscan.catalog.ruleset import load_rule_file, rule_from_text
from plogscan.datafile.fields import parse_duration
from plogscan.errors import ErrorGroup, InputError, RuleError
from tests.helpers import REPO_ROOT

BAD = Path(__file__).parents[1] / "bad_rules"
ROOT = REPO_ROOT

GOOD = """\
id: TST100
name: test.good
title: A valid rule
category: aicore-exception
level: error
description: 'Kernel {kernel} failed {count} time(s).'
remediation: [Look at the kernel.]
match:
  message|contains: 'kernel_name='
  message|re: 'kernel_name=(?P<kernel>\\w+)'
by: [host, pid]
"""


def render_file(path: Path) -> str:
    rule, errors = load_rule_file(path, f"tests/bad_rules/{path.name}")
    assert rule is None
    return "\n\n".join(e.render() for e in errors) + "\n"


@pytest.mark.parametrize("path", sorted(BAD.glob("*.yaml")), ids=lambda p: p.stem)
def test_bad_rule_gives_golden_diagnostics(path: Path, request: pytest.FixtureRequest) -> None:
    text = render_file(path)
    golden = path.with_suffix(".err")
    if request.config.getoption("--update-goldens"):
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"missing {golden}; run pytest --update-goldens and review it"
    assert text == golden.read_text(encoding="utf-8")


def test_every_bad_rule_file_has_a_golden_and_reports_a_location() -> None:
    for path in BAD.glob("*.yaml"):
        assert path.with_suffix(".err").exists()
        assert f"--> tests/bad_rules/{path.name}:" in render_file(path)


def test_collect_errors_reports_every_error_of_every_file() -> None:
    expected = sum(len(load_rule_file(p)[1]) for p in BAD.glob("*.yaml"))
    with pytest.raises(ErrorGroup) as caught:
        load_rules([BAD], builtin=False)
    assert len(caught.value.errors) == expected
    assert expected >= 25
    assert {Path(e.where.path).name for e in caught.value.errors} == {
        p.name for p in BAD.glob("*.yaml")}


def test_without_collect_errors_the_first_error_is_raised_alone() -> None:
    with pytest.raises(RuleError) as caught:
        load_rules([BAD], builtin=False, collect_errors=False)
    assert not isinstance(caught.value, ErrorGroup)
    assert caught.value.where is not None and caught.value.where.line > 0


def test_duplicate_key_names_both_lines() -> None:
    text = render_file(BAD / "duplicate_key.yaml")
    assert "duplicate key 'level'" in text and "duplicate_key.yaml:8" in text
    assert "already set at line 5" in text


def test_builtin_rules_load_and_come_from_the_checkout() -> None:
    assert builtin_rules_dir() == ROOT / "rules"
    ids = [r.id for r in load_rules()]
    assert ids == sorted(ids)
    assert {"CCU001", "CCU002", "AIC001"} <= set(ids)


def test_user_rule_overrides_builtin_rule_with_the_same_id(tmp_path: Path) -> None:
    source = ROOT / "rules" / "aicore" / "aicore_exception.yaml"
    text = source.read_text(encoding="utf-8").replace("level: error", "level: warning")
    (tmp_path / "mine.yaml").write_text(text, encoding="utf-8")
    rules = load_rules([tmp_path])
    rule = rules.get("AIC001")
    assert rule is not None and rule.level.value == "warning"
    assert rule.where.path.endswith("mine.yaml")
    assert len(rules) == len(load_rules())


def test_same_id_twice_in_one_layer_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(GOOD.replace("test.good", "test.other"), encoding="utf-8")
    with pytest.raises(ErrorGroup, match="1 error") as caught:
        load_rules([tmp_path], builtin=False)
    err = caught.value.errors[0]
    assert "TST100" in err.message and "defined twice" in err.message
    assert "a.yaml" in (err.help or "")


def test_same_name_with_another_id_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(GOOD.replace("TST100", "TST101"), encoding="utf-8")
    with pytest.raises(ErrorGroup):
        load_rules([tmp_path], builtin=False)


def test_case_files_and_hidden_directories_are_not_rules(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "good.test.yaml").write_text("rule: TST100\ncases: {}\n", encoding="utf-8")
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "junk.yaml").write_text("not: a rule\n", encoding="utf-8")
    assert [r.id for r in load_rules([tmp_path], builtin=False)] == ["TST100"]


def test_missing_rule_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such rule file"):
        load_rules([tmp_path / "absent"], builtin=False)


def test_a_valid_rule_is_built_with_its_fields() -> None:
    rule = rule_from_text(GOOD)
    assert isinstance(rule.body, Single)
    assert rule.body.by == ("host", "pid")
    assert rule.status == "experimental"
    assert rule.body.cond.captures == {"kernel"}


def test_sequence_fields_are_converted() -> None:
    rule = rule_from_text(
        (ROOT / "rules" / "ccu" / "context_reuse_then_mc2_fault.yaml").read_text("utf-8"))
    body = rule.body
    assert isinstance(body, Sequence)
    assert body.within == 600_000_000
    assert [s.id for s in body.positive] == ["reuse", "fault"]
    assert [s.id for s in body.context] == ["eager_entry"] and body.context[0].limit == 5
    assert rule.requires is not None and rule.requires.levels == ("DEBUG",)


@pytest.mark.parametrize(("text", "us"), [
    ("30s", 30_000_000), ("10m", 600_000_000), ("1h30m", 5_400_000_000), ("250ms", 250_000),
    ("1.5s", 1_500_000), ("2d", 172_800_000_000), ("7us", 7),
    ("10", None), ("10 m", None), ("m", None), ("", None), ("5x", None), ("1h-5m", None),
])
def test_parse_duration(text: str, us: int | None) -> None:
    assert parse_duration(text) == us


def test_readme_lists_exactly_the_taxonomy_with_meanings() -> None:
    readme = (ROOT / "rules" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Category taxonomy", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| (.+?) \| (.+?) \|$", section, flags=re.M)
    assert {name: meaning for name, meaning, _ in rows} == CATEGORIES
    assert {name: first for name, _, first in rows} == REMEDIES
    assert list(CATEGORIES) == list(REMEDIES)
    required = {
        "ccu-context-reuse", "ccu-exception", "aicore-exception", "aicore-timeout",
        "operator-oob", "hccl-notify-timeout", "hccl-link-timeout", "hccl-init-failure",
        "hccl-config-error", "hccl-param-mismatch", "hccl-roce-cqe", "sdma-error",
        "stream-sync-timeout", "device-oom", "device-busy", "hw-ecc", "hw-link",
        "heartbeat-lost", "aicpu-exception", "evidence-gap",
    }
    assert required <= set(CATEGORIES)


def test_every_category_says_its_meaning_and_first_step_in_chinese() -> None:
    from plogscan.catalog.categories import CATEGORIES_ZH, REMEDIES_ZH, first_step, meaning

    assert list(CATEGORIES_ZH) == list(CATEGORIES) and list(REMEDIES_ZH) == list(REMEDIES)
    assert all(text.strip() for text in (*CATEGORIES_ZH.values(), *REMEDIES_ZH.values()))
    assert meaning("host-oom", "zh") == CATEGORIES_ZH["host-oom"] != CATEGORIES["host-oom"]
    assert first_step("python-error", "en") == REMEDIES["python-error"]
    assert meaning("host-oom", "fr") == CATEGORIES["host-oom"]  # no such language: English


def test_installed_layout_prefers_the_packaged_copy(tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "plogscan"
    package.mkdir(parents=True)
    assert builtin_rules_dir(package) == tmp_path / "site-packages" / "rules"
    shutil.copytree(ROOT / "rules", package / "_rules")
    assert builtin_rules_dir(package) == package / "_rules"
