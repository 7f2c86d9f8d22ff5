"""``plogscan rules list|show|check|test|coverage``: the rule catalog, its lints, its test
cases and what it covers.

``check`` and ``test`` take rule files or directories (default: the built-in pack). ``check``
prints every problem at once on stderr and exits 2 if any is an error; ``test`` runs every
case next to the rules and exits 1 if one fails (2 when a rule or case file is broken).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import click

from plogscan.catalog import builtin_rules_dir, load_rules
from plogscan.catalog.categories import meaning
from plogscan.catalog.checks import check
from plogscan.catalog.describe import as_written
from plogscan.catalog.rule import Rule
from plogscan.catalog.ruleset import display_path, load_partial
from plogscan.catalog.testing import case_files, load_cases
from plogscan.cli import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, speak
from plogscan.console import terminal_width
from plogscan.crossrank.analyze import identities
from plogscan.engine.cases import run_case
from plogscan.errors import ErrorGroup, PlogscanError
from plogscan.lang import ENV_VAR, LANGS

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
      plogscan rules coverage [PATH...]   cases per rule; catalogue rows, codes and
                                          categories no rule covers
      plogscan rules coverage --corpus DIR
                                          read / refused / silent / right on top /
                                          among the findings on labelled excerpts
    """


@command.command("list")
@_RULES_OPTION
def list_rules(rule_dirs: tuple[str, ...]) -> None:
    """List the rules: id, level, category, status, name and title."""
    rows = [("ID", "LEVEL", "CATEGORY", "STATUS", "NAME", "TITLE")]
    rows += [(r.id, r.level.value, r.category, r.status, r.name, r.title)
             for r in load_rules(rule_dirs)]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    # On a terminal a title is cut to the window (a pipe or a file gets it whole).
    room = (terminal_width() - sum(widths) - 2 * len(widths)) if sys.stdout.isatty() else None
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row[:5], widths, strict=True)]
        title = row[5]
        if room is not None and len(title) > room:
            title = title[:max(room - 1, 0)] + "…"
        click.echo("  ".join([*cells, title]).rstrip())


@command.command("show")
@click.argument("rule_id")
@_RULES_OPTION
@click.option("--lang", type=click.Choice(LANGS), default=None, envvar=ENV_VAR, show_envvar=True,
              help="Language of the summary (default: from the locale, as for diagnose).")
def show_rule(rule_id: str, rule_dirs: tuple[str, ...], lang: str | None) -> None:
    """Show one rule (by id or name): its summary and its YAML source."""
    lang = speak(lang)
    rules = load_rules(rule_dirs, lang=lang)
    rule = rules.get(rule_id)
    if rule is None:
        raise PlogscanError(f"no rule '{rule_id}'",
                            help="valid ids are: " + ", ".join(r.id for r in rules))
    click.echo(_summary(rule, lang))


def _summary(rule: Rule, lang: str) -> str:
    lines = [
        f"{rule.id}  {rule.name}",
        f"  {rule.title}",
        f"  level: {rule.level.value}   category: {rule.category}   status: {rule.status}"
        f"   role: {rule.role}" + (f"   links: {', '.join(rule.links)}" if rule.links else ""),
        f"  {rule.category}: {meaning(rule.category, lang)}"
        + (f"   (category_from: {rule.category_from})" if rule.category_from else ""),
        f"  source: {rule.where.path}",
        "",
    ]
    if lang != "en":  # the YAML below holds the English text; show the chosen language's
        lines[5:5] = ["", *textwrap.wrap(as_written(rule.description), 96, initial_indent="  ",
                                         subsequent_indent="  ")]
        lines[-1:-1] = [f"  {n}. {step}" for n, step in enumerate(rule.remediation, 1)]
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
    known = [r.id for r in load_partial(None)[0]] if paths else []
    issues = check(rules, cases, known)
    warnings = [i.error for i in issues if i.severity == "warning"]
    errors.extend(i.error for i in issues if i.severity == "error")
    for err in errors:
        click.echo(err.render() + "\n", err=True)
    for warn in warnings:
        click.echo("warning" + warn.render().removeprefix("error") + "\n", err=True)
    click.echo(f"checked {len(rules)} rules and {len(files)} case files: "
               f"{len(errors)} errors, {len(warnings)} warnings", err=True)
    ctx.exit(EXIT_ERROR if errors else EXIT_CLEAN)


@command.command("coverage")
@_PATHS
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Output format.")
@click.option("--corpus", "corpora", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False),
              help="Instead, take a census of the rules on a directory of labelled log "
              "excerpts (see below). Repeatable: each directory, then the totals.")
@click.option("-v", "--verbose", is_flag=True,
              help="With --corpus: also list the excerpts that are right on top.")
def coverage_report(paths: tuple[str, ...], fmt: str, corpora: tuple[str, ...],
                    verbose: bool) -> None:
    """Show what the rules cover: each rule with its positive and negative cases, the rows of
    the error-signature catalogue (formats.md §7) with the rules that declare them
    (`covers: [row-N]`), the code-table codes no rule's conditions mention, and the
    categories no rule uses. Always exits 0; `rules check` is the gate.

    PATH: rule files or directories (default: the built-in rules); with --corpus, the rules
    the census measures.

    With --corpus DIR, diagnose each log excerpt of DIR alone and score it against its
    label: how many are read, refused (nothing read) and silent (no finding), on how many
    the labelled class is the top finding and among the findings, and every miss with its
    expected class and top finding. Exits 0; 2 when a label file is invalid.

    \b
    Label files in DIR (every one is read; JSON wins for the same excerpt):
      labels*.json   {"A01": ["device-oom", "device-busy"], "A02": "env-config",
                      "A03_pasted.log": null}
                     key: the excerpt's file name, stem, or the id its name starts
                     with before "_", "-" or "."; value: the accepted classes, the
                     expected one first; null: not scored
      MANIFEST*.md   "## <file name>" heading per excerpt; in its section the first
                     line with "Expected diagnosis" names the class in its first
                     code span, e.g. **Expected diagnosis:** `device-oom`,
                     or says null
    A class "other: <what failed>" names a failure no category covers: such
    excerpts, null ones and *.log files without a label are diagnosed and listed,
    but not scored.

    \b
    Examples:
      plogscan rules coverage --corpus ./pasted-logs
      plogscan rules coverage --corpus set-a --corpus set-b --format json
      plogscan rules coverage ./my-rules --corpus ./pasted-logs
    """
    if corpora:
        _census(paths, corpora, fmt, verbose)
        return
    import json

    from plogscan.catalog.coverage import coverage, render_text, to_dict
    from plogscan.codes import tables

    rules, errors = load_partial(paths or None, builtin=not paths)
    cases = []
    for path in case_files(paths or [builtin_rules_dir()]):
        cases.extend(load_cases(path, display_path(path))[0])
    if errors:
        click.echo(f"warning: {len(errors)} rule file error(s); run `plogscan rules check`",
                   err=True)
    cov = coverage(rules, cases, tables())
    if fmt == "json":
        click.echo(json.dumps(to_dict(cov), indent=2, ensure_ascii=False, sort_keys=True))
    else:
        click.echo(render_text(cov), nl=False)


def _census(paths: tuple[str, ...], corpora: tuple[str, ...], fmt: str, verbose: bool) -> None:
    """``rules coverage --corpus``: the census of ``plogscan.cli.census``, naming the excerpt
    being diagnosed on stderr when it is a terminal."""
    import sys

    from plogscan.cli.census import diagnose_excerpt, render_text, take_census, to_dict
    from plogscan.textsafe import json_text, one_line

    def progress(path: Path) -> None:
        click.echo(f"\r\x1b[Kdiagnosing {one_line(path.parent.name + '/' + path.name, 70)}",
                   err=True, nl=False)

    shown = sys.stderr.isatty()
    rules = load_rules(paths or None, builtin=not paths)
    censuses = [take_census(Path(corpus), lambda p: diagnose_excerpt(p, rules), name=corpus,
                            on_file=progress if shown else None) for corpus in corpora]
    if shown:
        click.echo("\r\x1b[K", err=True, nl=False)
    if fmt == "json":
        click.echo(json_text(to_dict(censuses)), nl=False)
    else:
        click.echo(render_text(censuses, verbose=verbose), nl=False)


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
        result = run_case(case, rules, identities)
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
