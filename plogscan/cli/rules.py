"""``plogscan rules list|show|check|test``: the rule catalog, its lints and its test cases.

``check`` and ``test`` take rule files or directories (default: the built-in pack). ``check``
prints every problem at once on stderr and exits 2 if any is an error; ``test`` runs every
case next to the rules and exits 1 if one fails (2 when a rule or case file is broken).
"""

from __future__ import annotations

from pathlib import Path

import click

from plogscan.cli import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from plogscan.engine import builtin_rules_dir, load_rules
from plogscan.engine.checks import check
from plogscan.engine.rule import Rule
from plogscan.engine.ruleset import display_path, load_partial
from plogscan.engine.testing import case_files, load_cases, run_case
from plogscan.errors import ErrorGroup, PlogscanError

_RULES_OPTION = click.option(
    "--rules", "rule_dirs", multiple=True, type=click.Path(exists=True, file_okay=True),
    help="Rule file or directory that adds to (or, by id, overrides) the built-in rules. "
    "Repeatable.",
)
_PATHS = click.argument("paths", nargs=-1, type=click.Path(exists=True))


@click.group("rules")
def command() -> None:
    """List, show, check and test rules.

    \b
      plogscan rules list                 the catalog: id, level, category, status, name
      plogscan rules show CCU001          one rule with its source
      plogscan rules check [PATH...]      strict load + lints; all problems at once
      plogscan rules test [PATH...]       run the cases next to each rule
    """


@command.command("list")
@_RULES_OPTION
def list_rules(rule_dirs: tuple[str, ...]) -> None:
    """List the rules: id, level, category, status, name and title."""
    rows = [("ID", "LEVEL", "CATEGORY", "STATUS", "NAME", "TITLE")]
    rows += [(r.id, r.level.value, r.category, r.status, r.name, r.title)
             for r in load_rules(rule_dirs)]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row[:5], widths, strict=True)]
        click.echo("  ".join([*cells, row[5]]).rstrip())


@command.command("show")
@click.argument("rule_id")
@_RULES_OPTION
def show_rule(rule_id: str, rule_dirs: tuple[str, ...]) -> None:
    """Show one rule (by id or name): its summary and its YAML source."""
    rules = load_rules(rule_dirs)
    rule = rules.get(rule_id)
    if rule is None:
        raise PlogscanError(f"no rule '{rule_id}'",
                            help="valid ids are: " + ", ".join(r.id for r in rules))
    click.echo(_summary(rule))


def _summary(rule: Rule) -> str:
    lines = [
        f"{rule.id}  {rule.name}",
        f"  {rule.title}",
        f"  level: {rule.level.value}   category: {rule.category}   status: {rule.status}",
        f"  source: {rule.where.path}",
        "",
    ]
    try:
        source = Path(rule.where.path).read_text(encoding="utf-8")
    except OSError:
        source = "(source file not readable)\n"
    return "\n".join(lines) + "\n" + source.rstrip("\n")


@command.command("check")
@_PATHS
def check_rules(paths: tuple[str, ...]) -> None:
    """Load rules strictly and lint them with their cases; report every problem at once.

    PATH: rule files or directories (default: the built-in rules).
    """
    ctx = click.get_current_context()
    rules, errors = load_partial(paths or None, builtin=not paths)
    cases = []
    files = case_files(paths or [builtin_rules_dir()])
    for path in files:
        found, problems = load_cases(path, display_path(path))
        cases.extend(found)
        errors.extend(problems)
    issues = check(rules, cases)
    warnings = [i.error for i in issues if i.severity == "warning"]
    errors.extend(i.error for i in issues if i.severity == "error")
    for err in errors:
        click.echo(err.render() + "\n", err=True)
    for warn in warnings:
        click.echo("warning" + warn.render().removeprefix("error") + "\n", err=True)
    click.echo(f"checked {len(rules)} rules and {len(files)} case files: "
               f"{len(errors)} errors, {len(warnings)} warnings", err=True)
    ctx.exit(EXIT_ERROR if errors else EXIT_CLEAN)


@command.command("test")
@_PATHS
@click.option("-v", "--verbose", is_flag=True, help="Also list the cases that pass.")
def test_rules(paths: tuple[str, ...], verbose: bool) -> None:
    """Run the test cases next to the rules (``<stem>.test.yaml``) without pytest.

    PATH: rule files, case files or directories (default: the built-in rules).
    """
    ctx = click.get_current_context()
    rule_paths = [p for p in paths if not p.endswith(".test.yaml")]
    rules = load_rules(rule_paths or None, builtin=not rule_paths)
    cases, errors = [], []
    for path in case_files(paths or [builtin_rules_dir()]):
        found, problems = load_cases(path, display_path(path))
        cases.extend(found)
        errors.extend(problems)
    if errors:
        raise ErrorGroup(errors)
    counts = {"pass": 0, "fail": 0, "todo": 0, "fixed": 0}
    for case in cases:
        result = run_case(case, rules)
        status = ("pass" if result.passed else "fail") if case.todo is None else \
            ("fixed" if result.passed else "todo")
        counts[status] += 1
        if status != "pass" or verbose:
            note = f"  ({case.todo})" if case.todo else ""
            click.echo(f"{status.upper():5} {case.id}{note}")
            for problem in result.problems if status != "todo" or verbose else ():
                click.echo(f"      {problem}")
            if status == "fail":
                click.echo(f"      at {case.where}")
    click.echo(", ".join(f"{n} {k}" for k, n in counts.items() if n or k in ("pass", "fail")),
               err=True)
    ctx.exit(EXIT_FINDINGS if counts["fail"] else EXIT_CLEAN)


__all__ = ["command"]
