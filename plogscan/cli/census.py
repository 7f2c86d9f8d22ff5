"""A census of ``diagnose`` over directories of labelled log excerpts.

Each excerpt is diagnosed alone, as a user who pastes it would run it, and scored against its
label (``plogscan.cli.census_labels``): **right on top** when its top finding (the root of the
first incident) has a class the label accepts, **right among the findings** when any finding
has one. The census counts the excerpts read, refused and silent (read, no finding) and lists
every miss with its expected class and its top finding, so the next gap shows in one command.
``plogscan rules coverage --corpus DIR`` prints it; the corpus tests assert on the same
figures, computed here once.

An excerpt whose label accepts no scored class (``null``, only ``other: ...``) is still
diagnosed and reported, but not counted in the right-on-top and among figures. The excerpts
are the files a label names and every other ``*.log`` file of the directory (reported as
unlabelled).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plogscan.catalog.categories import CATEGORIES
from plogscan.cli.census_labels import Label, read_labels
from plogscan.errors import InputError, PlogscanError
from plogscan.textsafe import one_line

if TYPE_CHECKING:
    from plogscan.catalog import RuleSet


@dataclass(frozen=True)
class Outcome:
    """What ``diagnose`` made of one excerpt."""

    read: bool
    findings: tuple[tuple[str, str], ...] = ()  # (rule, category), top finding first
    refusal: str = ""  # why nothing was read, or what went wrong
    crashed: bool = False  # diagnose raised something other than a user-facing error
    lines: int = 0
    unparsed_lines: int = 0

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(category for _, category in self.findings)


@dataclass(frozen=True)
class Row:
    """One excerpt: its label and what diagnose made of it."""

    name: str
    label: Label | None  # None: no label names the file
    outcome: Outcome

    @property
    def accepted(self) -> frozenset[str]:
        """The classes that score this excerpt (none: it is not scored)."""
        return self.label.accepted if self.label is not None else frozenset()

    @property
    def scored(self) -> bool:
        return bool(self.accepted)

    @property
    def top(self) -> bool:
        return bool(self.outcome.findings) and self.outcome.findings[0][1] in self.accepted

    @property
    def among(self) -> bool:
        return bool(self.accepted & set(self.outcome.categories))

    @property
    def result(self) -> str:
        """``top``, ``among`` (found, not on top), ``missed`` (findings, none right),
        ``silent``, ``refused`` or ``crashed``; ``top``/``among``/``missed`` only for scored
        excerpts (an unscored one that was read with findings is ``read``)."""
        if self.outcome.crashed:
            return "crashed"
        if not self.outcome.read:
            return "refused"
        if not self.outcome.findings:
            return "silent"
        if not self.scored:
            return "read"
        return "top" if self.top else "among" if self.among else "missed"


COUNTS = ("excerpts", "read", "refused", "crashed", "silent", "scored", "top", "among",
          "null", "other", "unlabelled")


@dataclass(frozen=True)
class Census:
    """The rows of one directory of labelled excerpts."""

    name: str
    directory: str
    rows: tuple[Row, ...]
    problems: tuple[str, ...] = ()  # label entries that name no excerpt

    def counts(self) -> dict[str, int]:
        return counts_of(self.rows)


def counts_of(rows: Iterable[Row]) -> dict[str, int]:
    """The census figures of ``rows``: ``read``/``refused``/``crashed``/``silent`` over every
    excerpt, ``top``/``among`` over the scored ones, and why the others are not scored."""
    out = dict.fromkeys(COUNTS, 0)
    for row in rows:
        out["excerpts"] += 1
        out["read"] += row.outcome.read
        out["refused"] += not row.outcome.read and not row.outcome.crashed
        out["crashed"] += row.outcome.crashed
        out["silent"] += row.outcome.read and not row.outcome.findings
        out["scored"] += row.scored
        out["top"] += row.top
        out["among"] += row.among
        if row.label is None:
            out["unlabelled"] += 1
        elif row.label.classes is None:
            out["null"] += 1
        elif not row.scored:
            out["other"] += 1
    return out


def excerpt_files(directory: Path, labels: dict[str, Label]) -> list[Path]:
    """The files a label names and every other ``*.log`` file of ``directory``, by name."""
    names = set(labels) | {p.name for p in directory.glob("*.log") if p.is_file()}
    return [directory / name for name in sorted(names)]


def diagnose_excerpt(path: Path, rules: RuleSet) -> Outcome:
    """Diagnose one excerpt alone, without the cache, in English; a refusal or a crash is an
    outcome, not an error, so that one file never hides the others."""
    from plogscan.pipeline import DiagnoseOptions, NothingRead, run

    try:
        diagnosis = run(DiagnoseOptions(paths=(str(path),), rules=rules, fail_on="never"))
    except NothingRead as err:
        reasons = [s.reason for s in err.summary.skipped]
        return Outcome(False, refusal="; ".join(dict.fromkeys(reasons)) or err.message)
    except PlogscanError as err:
        return Outcome(False, refusal=err.message)
    except Exception as err:  # a crash is a finding of the census, not its end
        return Outcome(False, refusal=f"{type(err).__name__}: {err}", crashed=True)
    if diagnosis.findings and all(f.category == "evidence-gap" for f in diagnosis.findings):
        # Only "could not be read as a log" findings: the excerpt was refused, not diagnosed.
        return Outcome(False, refusal="not read as a log: " + diagnosis.findings[0].title)
    by_id = {f.id: f for f in diagnosis.findings}
    ordered = list(diagnosis.findings)
    if diagnosis.incidents and diagnosis.incidents[0].root in by_id:  # the root leads
        root = by_id[diagnosis.incidents[0].root]
        ordered.remove(root)
        ordered.insert(0, root)
    inputs = diagnosis.inputs
    return Outcome(True, tuple((f.rule, f.category) for f in ordered),
                   lines=inputs.lines, unparsed_lines=inputs.unparsed_lines)


def take_census(directory: Path, diagnose: Callable[[Path], Outcome], *,
                name: str | None = None,
                on_file: Callable[[Path], None] | None = None) -> Census:
    """Label and diagnose every excerpt of ``directory`` (``diagnose``: one file's outcome,
    usually ``diagnose_excerpt`` with the rules to measure)."""
    if not directory.is_dir():
        raise InputError(f"not a directory: {directory}",
                         help="pass a directory of log excerpts with their label files")
    labels, problems = read_labels(directory)
    rows = []
    for path in excerpt_files(directory, labels):
        if on_file is not None:
            on_file(path)
        rows.append(Row(path.name, labels.get(path.name), diagnose(path)))
    if not rows:
        raise InputError(f"no excerpts in {directory}",
                         help="a corpus directory holds *.log excerpts and labels*.json or "
                         "MANIFEST*.md label files (see `plogscan rules coverage --help`)")
    return Census(name or directory.name, str(directory), tuple(rows), tuple(problems))


def unknown_classes(censuses: Sequence[Census]) -> dict[str, list[str]]:
    """Classes the labels use that the category taxonomy lacks -> the excerpts using them."""
    out: dict[str, list[str]] = {}
    for census in censuses:
        for row in census.rows:
            for cls in sorted(row.accepted):
                if cls not in CATEGORIES:
                    out.setdefault(cls, []).append(row.name)
    return dict(sorted(out.items()))


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else f"{part}/0"


def summary_lines(counts: dict[str, int]) -> list[str]:
    """The figures as two lines of text."""
    unscored = [f"{counts[k]} {k}" for k in ("other", "null", "unlabelled") if counts[k]]
    return [
        f"read {counts['read']}/{counts['excerpts']}, refused {counts['refused']}, "
        f"silent {counts['silent']}" + (f", crashed {counts['crashed']}"
                                         if counts["crashed"] else ""),
        f"scored {counts['scored']}" + (f" (not scored: {', '.join(unscored)})"
                                        if unscored else "")
        + f": right on top {_share(counts['top'], counts['scored'])}, "
        f"among the findings {_share(counts['among'], counts['scored'])}",
    ]


def _top(row: Row) -> str:
    if not row.outcome.read:
        return one_line(row.outcome.refusal, 160)
    shape = (f" ({row.outcome.unparsed_lines} of {row.outcome.lines} lines of no known shape)"
             if row.outcome.unparsed_lines else "")
    if not row.outcome.findings:
        return "no finding" + shape
    rule, category = row.outcome.findings[0]
    more = len(row.outcome.findings) - 1
    top = f"top {rule} {category}" + (f" (+{more} more)" if more else "")
    if row.result == "among":
        top += "; found " + ", ".join(sorted({f"{r} {c}" for r, c in row.outcome.findings
                                              if c in row.accepted}))
    return top + (shape if row.result == "missed" else "")


def row_lines(row: Row) -> list[str]:
    """One excerpt as the census lists it: its result and file, then its label and its top
    finding (or why nothing was read)."""
    label = row.label.text() if row.label else "unlabelled"
    return [f"{row.result:8} {one_line(row.name)}",
            f"{'':8} expected {one_line(label, 100)}; {_top(row)}"]


def _listed(title: str, rows: Sequence[Row]) -> list[str]:
    if not rows:
        return []
    return [f"  {title} ({len(rows)}):"] + [f"    {line}" for r in rows for line in row_lines(r)]


def render_text(censuses: Sequence[Census], verbose: bool = False) -> str:
    """The census as text: per directory its figures, misses and unscored excerpts; the
    totals when there are several directories; the classes the taxonomy lacks."""
    out: list[str] = []
    for census in censuses:
        out.append(f"{one_line(census.name)}: {len(census.rows)} excerpts")
        out += ["  " + line for line in summary_lines(census.counts())]
        out += _listed("misses", [r for r in census.rows if r.scored and not r.top])
        out += _listed("not scored", [r for r in census.rows if not r.scored])
        if verbose:
            out += _listed("right on top", [r for r in census.rows if r.top])
        out += [f"  warning: {one_line(p)}" for p in census.problems]
        out.append("")
    if len(censuses) > 1:
        together = counts_of(r for c in censuses for r in c.rows)
        out.append(f"together: {together['excerpts']} excerpts")
        out += ["  " + line for line in summary_lines(together)] + [""]
    missing = unknown_classes(censuses)
    if missing:
        out.append("classes the labels accept that the category taxonomy lacks:")
        out += [f"  {one_line(cls)}: {len(names)} excerpt(s)" for cls, names in missing.items()]
        out.append("")
    return "\n".join(out)


def to_dict(censuses: Sequence[Census]) -> dict[str, Any]:
    """The census as plain data for ``--format json`` (one entry per excerpt)."""
    def row(r: Row) -> dict[str, Any]:
        return {
            "file": r.name,
            "label": None if r.label is None else {"classes": r.label.classes,
                                                   "where": r.label.where},
            "scored": r.scored, "result": r.result, "read": r.outcome.read,
            "refusal": r.outcome.refusal or None,
            "findings": [{"rule": rule, "category": cat} for rule, cat in r.outcome.findings],
            "lines": r.outcome.lines, "unparsed_lines": r.outcome.unparsed_lines,
        }

    return {
        "corpora": [{"name": c.name, "directory": c.directory, "counts": c.counts(),
                     "excerpts": [row(r) for r in c.rows], "problems": list(c.problems)}
                    for c in censuses],
        "together": counts_of(r for c in censuses for r in c.rows),
        "classes_not_in_taxonomy": unknown_classes(censuses),
        "results": dict(Counter(r.result for c in censuses for r in c.rows)),
    }
