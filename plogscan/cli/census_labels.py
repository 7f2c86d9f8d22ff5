"""The label files of a directory of log excerpts: which failure classes each excerpt's
diagnosis may have (``plogscan.cli.census`` scores against them).

Label files sit in the directory beside the excerpts; every file of each kind is read:

* ``labels*.json``: one JSON object. A key names an excerpt by its file name, its stem, or the
  id its name starts with (the part before the first ``_``, ``-`` or ``.``: ``A01`` for
  ``A01_oom.log``). A value is a list of accepted classes (the first is the expected one, the
  others are right too), one class as a string, or ``null`` for an excerpt that cannot be
  scored.
* ``MANIFEST*.md``: a ``## <file name>`` heading per excerpt; the first line of the section
  that says ``Expected diagnosis`` gives the class as its first code span (`` `device-oom` ``),
  or says ``null``.

A JSON label wins over a manifest's for the same excerpt. A class written ``other: <text>``
describes a failure no category names and is not scored. Every problem of a label file is
reported at once, located by file and line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plogscan.datafile.located import DataFileError, read_data_file
from plogscan.errors import ErrorGroup, InputError, Location, PlogscanError

LABEL_FILES = "labels*.json"
MANIFESTS = "MANIFEST*.md"
OTHER = "other:"
_ID_END = re.compile(r"[_.-]")
_HEADING = re.compile(r"^##[ \t]+(\S+)[ \t]*$")
_CODE_SPAN = re.compile(r"`([^`]+)`")
_BARE_NULL = re.compile(r"Expected diagnosis\W*null\b")


@dataclass(frozen=True)
class Label:
    """The classes a label accepts for one excerpt, first the expected one; ``None`` when the
    label says the excerpt cannot be scored (``null``)."""

    classes: tuple[str, ...] | None
    where: str  # the label file and line

    @property
    def accepted(self) -> frozenset[str]:
        """The classes that score: every class but the ``other: ...`` descriptions."""
        return frozenset(c for c in self.classes or () if not c.startswith(OTHER))

    def text(self) -> str:
        """The label as the census shows it: the expected class, then the alternatives."""
        if not self.classes:
            return "null"
        rest = f" (or {', '.join(self.classes[1:])})" if len(self.classes) > 1 else ""
        return self.classes[0] + rest


@dataclass
class _Labels:
    by_file: dict[str, Label] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_labels(directory: Path) -> tuple[dict[str, Label], list[str]]:
    """The label of each excerpt file of ``directory`` (file name -> ``Label``) and the label
    entries that name no file. A label file that cannot be used raises ``ErrorGroup`` with
    every problem located."""
    names = sorted(p.name for p in directory.iterdir() if p.is_file()
                   and not p.match(LABEL_FILES) and not p.match(MANIFESTS))
    errors: list[PlogscanError] = []
    labels = _Labels()
    for path in sorted(directory.glob(LABEL_FILES)):
        _read_json(path, names, labels, errors)
    manifest = _Labels()
    unlabelled = set(names) - set(labels.by_file)  # a JSON label wins over a manifest's
    for path in sorted(directory.glob(MANIFESTS)):
        _read_manifest(path, unlabelled, manifest, errors)
    if errors:
        raise ErrorGroup(errors)
    return {**manifest.by_file, **labels.by_file}, labels.problems


def _text(path: Path, errors: list[PlogscanError]) -> str | None:
    try:
        return read_data_file(path)
    except (OSError, DataFileError) as err:
        errors.append(InputError(f"cannot read the label file: {err}", where=Location(str(path))))
        return None


def _read_manifest(path: Path, names: set[str], out: _Labels,
                   errors: list[PlogscanError]) -> None:
    text = _text(path, errors)
    if text is None:
        return
    current: tuple[str, int] | None = None  # (excerpt, heading line) awaiting its class
    for number, line in enumerate(text.splitlines(), 1):
        heading = _HEADING.match(line)
        if heading:
            if current is not None:
                errors.append(_no_expected(path, *current))
            name = heading.group(1)
            current = (name, number) if name in names else None
            if current is not None and name in out.by_file:
                errors.append(InputError(f"'{name}' is labelled twice",
                                         where=Location(str(path), number),
                                         help=f"its first label is at {out.by_file[name].where}"))
                current = None
            continue
        if current is not None and "Expected diagnosis" in line:
            span = _CODE_SPAN.search(line)
            if span is None and _BARE_NULL.search(line):
                out.by_file[current[0]] = Label(None, f"{path.name}:{number}")
            elif span is None:
                errors.append(InputError(
                    "the 'Expected diagnosis' line names no class",
                    where=Location(str(path), number),
                    help="write the class as the line's first code span: `device-oom`, "
                    "`other: <what failed>` or `null`"))
            else:
                value = span.group(1).strip()
                classes = None if value == "null" else (value,)
                out.by_file[current[0]] = Label(classes, f"{path.name}:{number}")
            current = None
    if current is not None:
        errors.append(_no_expected(path, *current))


def _no_expected(path: Path, name: str, line: int) -> PlogscanError:
    return InputError(f"the section of '{name}' has no 'Expected diagnosis' line",
                      where=Location(str(path), line),
                      help="add a line such as: **Expected diagnosis:** `device-oom`")


def _read_json(path: Path, names: Sequence[str], out: _Labels,
               errors: list[PlogscanError]) -> None:
    text = _text(path, errors)
    if text is None:
        return

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                raise ValueError(f"the key '{key}' appears twice")
            seen[key] = value
        return seen

    try:
        document = json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as err:
        errors.append(InputError(f"not valid JSON: {err.msg}",
                                 where=Location(str(path), err.lineno)))
        return
    except ValueError as err:
        errors.append(InputError(str(err), where=Location(str(path))))
        return
    if not isinstance(document, dict):
        errors.append(InputError("a label file holds one JSON object: excerpt -> classes",
                                 where=Location(str(path), 1)))
        return
    for key, value in document.items():
        where = Location(str(path), _line_of_key(text, key))
        if not _valid(value):
            errors.append(InputError(
                f"the label of '{key}' is not a class, a list of classes or null",
                where=where, help='write ["device-oom"], ["device-oom", "device-busy"], '
                '"device-oom" or null'))
            continue
        matched = _files_named(key, names)
        if not matched:
            out.problems.append(f"{where}: '{key}' names no excerpt file")
        elif len(matched) > 1:
            errors.append(InputError(f"'{key}' names {len(matched)} files: "
                                     + ", ".join(matched[:4]), where=where,
                                     help="name the excerpt by its whole file name"))
        elif matched[0] in out.by_file:
            errors.append(InputError(f"'{matched[0]}' is labelled twice", where=where,
                                     help=f"its first label is at {out.by_file[matched[0]].where}"))
        else:
            out.by_file[matched[0]] = Label(_classes(value), f"{path.name}:{where.line}")


def _valid(value: Any) -> bool:
    """A JSON label value is null, a class, or a non-empty list of classes."""
    values = value if isinstance(value, list) else [value]
    return value is None or (bool(values) and all(isinstance(v, str) and v.strip()
                                                  for v in values))


def _classes(value: str | list[str] | None) -> tuple[str, ...] | None:
    """The classes of a valid JSON label value (``_valid``)."""
    if value is None:
        return None
    return tuple(v.strip() for v in (value if isinstance(value, list) else [value]))


def _line_of_key(text: str, key: str) -> int:
    at = text.find(json.dumps(key, ensure_ascii=False))
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _files_named(key: str, names: Sequence[str]) -> list[str]:
    """The excerpt files a label key names: the file itself, else the file of that stem, else
    the files whose name starts with the key followed by ``_``, ``-`` or ``.``."""
    if key in names:
        return [key]
    stems = [n for n in names if Path(n).stem == key]
    if stems:
        return stems
    return [n for n in names if n.startswith(key) and _ID_END.match(n, len(key))]
