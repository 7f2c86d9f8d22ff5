"""Find and load rule files: the built-in pack plus any ``--rules`` paths, strictly.

Built-in rules live in the top-level ``rules/`` directory of a checkout; an installed wheel
carries a copy as ``plogscan/_rules`` (see setup.py). A rule from a ``--rules`` path replaces
the built-in rule with the same id. Every file is loaded even after an error, so
``collect_errors=True`` raises one ``ErrorGroup`` that lists every problem in every file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from plogscan.catalog.rule import Rule, RuleSet
from plogscan.datafile.compiled import code_stamp, kept
from plogscan.errors import ErrorGroup, InputError, Location, RuleError

CASE_SUFFIX = ".test.yaml"


def builtin_rules_dir(package: Path | None = None) -> Path:
    """The built-in rule pack: ``plogscan/_rules`` when installed, else ``<checkout>/rules``.

    ``package`` is the ``plogscan`` package directory (default: this installation's).
    """
    package = package or Path(__file__).resolve().parent.parent
    installed = package / "_rules"
    return installed if installed.is_dir() else package.parent / "rules"


def rule_files(paths: Iterable[str | Path]) -> list[Path]:
    """Rule files under the given files/directories, in a stable order (case files excluded)."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(  # by parts, as paths compare (and without their slow __lt__)
                (p for p in path.rglob("*")
                 if p.suffix in (".yaml", ".yml") and p.is_file() and not _hidden(p, path)),
                key=lambda p: p.parts)
            rules_here = [p for p in found if not p.name.endswith(CASE_SUFFIX)]
            if not rules_here:
                raise InputError(f"no rule files in {path}",
                                 help="rule files are *.yaml / *.yml (not *.test.yaml)")
            out.extend(rules_here)
        elif path.is_file():
            out.append(path)
        else:
            raise InputError(f"no such rule file or directory: {path}")
    return out


def _hidden(p: Path, root: Path) -> bool:
    return any(part.startswith((".", "_")) for part in p.relative_to(root).parts)


def load_rule_file(path: Path, display: str | None = None) -> tuple[Rule | None, list[RuleError]]:
    """One rule file: the rule (or None) and every error found in it."""
    from plogscan.catalog.ruledoc import build_rule  # a run reads the rules compiled
    from plogscan.datafile.fields import Doc
    from plogscan.datafile.located import DataFileError, LMap, load_yaml, read_data_file

    name = display or str(path)
    doc = Doc(name)
    try:
        text = read_data_file(path)
    except OSError as err:
        return None, [RuleError(f"cannot read rule file: {err.strerror or err}",
                                where=Location(name))]
    except DataFileError as err:
        return None, [RuleError(f"cannot read rule file: {err}", where=Location(name))]
    try:
        data = load_yaml(text, name)
    except RuleError as err:
        return None, [err]
    if data is None:
        return None, [RuleError("empty rule file", where=Location(name, 1))]
    m = doc.mapping(data, getattr(data, "line", 1), "a rule file")
    rule = build_rule(doc, m) if isinstance(m, LMap) else None
    return rule, sorted(doc.errors, key=lambda e: e.where.line if e.where else 0)


def rule_from_text(text: str, path: str = "<text>") -> Rule:
    """One rule from YAML text (for tests and tools); raises ``ErrorGroup`` when invalid."""
    from plogscan.catalog.ruledoc import build_rule
    from plogscan.datafile.fields import Doc
    from plogscan.datafile.located import LMap, load_yaml

    try:
        data = load_yaml(text, path)
    except RuleError as err:
        raise ErrorGroup([err]) from None
    doc = Doc(path)
    m = doc.mapping(data, getattr(data, "line", 1), "a rule file")
    rule = build_rule(doc, m) if isinstance(m, LMap) else None
    if rule is None or doc.errors:
        raise ErrorGroup(doc.errors or [RuleError("invalid rule", where=Location(path))])
    return rule


def load_rules(
    paths: Sequence[str | Path] | None = None,
    *,
    builtin: bool = True,
    collect_errors: bool = True,
    lang: str = "en",
) -> RuleSet:
    """Load the built-in pack (if ``builtin``) and the rules under ``paths``.

    Rules under ``paths`` override built-in rules with the same id. Two rules with the same id
    (or name) in one layer are an error. With ``collect_errors`` every error of every file is
    raised together as ``ErrorGroup``; otherwise the first error is raised as it is found.
    ``lang`` gives the rule texts in that language (per rule, English when untranslated).
    """
    rules, errors = load_partial(paths, builtin=builtin, stop_early=not collect_errors)
    if errors:
        raise ErrorGroup(errors) if collect_errors else errors[0]
    return rules.localized(lang)


def load_partial(
    paths: Sequence[str | Path] | None = None, *, builtin: bool = True, stop_early: bool = False
) -> tuple[RuleSet, list[RuleError]]:
    """The rules that loaded and every error found (for ``rules check``, which lints both)."""
    layers: list[list[Path]] = []
    if builtin:
        base = builtin_rules_dir()
        layers.append(rule_files([base]) if base.is_dir() else [])
    layers.append(rule_files(paths or []))
    errors: list[RuleError] = []
    chosen: dict[str, Rule] = {}
    for files in layers:
        layer: dict[str, Rule] = {}
        for rule, found in loaded_files(files):
            errors.extend(found)
            if rule is not None:
                clash = layer.get(rule.id) or next(
                    (r for r in layer.values() if r.name == rule.name), None)
                if clash is None:
                    layer[rule.id] = rule
                else:
                    errors.append(RuleError(
                        f"rule {rule.id} ({rule.name}) is defined twice", where=rule.where,
                        help=f"the other one is at {clash.where}"))
            if errors and stop_early:
                return RuleSet(), errors
        chosen.update(layer)
    errors.extend(_name_clashes(chosen.values()))
    return RuleSet(tuple(sorted(chosen.values(), key=lambda r: r.id))), errors


def loaded_files(files: Sequence[Path]) -> list[tuple[Rule | None, list[RuleError]]]:
    """``load_rule_file`` of each file, kept compiled between runs (``datafile.compiled``) under
    a hash of the files' names as shown and contents, and of plogscan's code: a run does not
    parse and check the same rule files again. A file that cannot be read is loaded as it
    is, for its error."""
    if not files:
        return []
    here = Path.cwd().resolve()
    names = [display_path(path, here) for path in files]

    def build() -> list[tuple[Rule | None, list[RuleError]]]:
        return [load_rule_file(path, name) for path, name in zip(files, names, strict=True)]

    try:
        contents = [path.read_bytes() for path in files]
    except OSError:
        return build()
    parts = [code_stamp(), *(part for name, content in zip(names, contents, strict=True)
                             for part in (name, content))]
    return kept("rules", parts, build)


def _name_clashes(rules: Iterable[Rule]) -> list[RuleError]:
    seen: dict[str, Rule] = {}
    out: list[RuleError] = []
    for rule in sorted(rules, key=lambda r: r.id):
        other = seen.setdefault(rule.name, rule)
        if other is not rule:
            out.append(RuleError(f"rule name '{rule.name}' is used by {other.id} and {rule.id}",
                                 where=rule.where, help=f"{other.id} is at {other.where}"))
    return out


def display_path(path: Path, cwd: Path | None = None) -> str:
    """A short, stable name for messages: relative to the working directory (``cwd``,
    resolved, when the caller has it) when inside it."""
    try:
        return str(path.resolve().relative_to(cwd or Path.cwd().resolve()))
    except ValueError:
        return str(path)
