"""Transformations of a multi-rank input that must not change the cross-rank answer, or must
change it in a known way; and the answer's shape they are compared on.

An input is a ``Tree``: its files (relative path -> text) and how they are handed to the tool
(the directory, or the files one by one in a given order). Every transformation is a small
function ``Tree -> Change | None`` (None: it does not apply to that input); the ``Change`` holds
the transformed tree and what the answer should become (``expect``), from the original answer.
Texts are rewritten the way the logs write them (CANN headers ``MODULE(pid,proc):ts``, file names
``plog-<pid>_<ts>.log``, host directories, ``==> path <==`` section headers).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

from plogscan.pathhints import path_hints

_HEADER_PID = re.compile(r"(\[[A-Z]+\]\s?[A-Za-z0-9_]+\()(\d+)(,)")
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}-\d{2}:\d{2}:\d{2}\.\d{3}\.\d{3}")
_NAME_PID = re.compile(r"^(plog-(?:parser-)?|device-(?:app-)?)(\d+)([-_])")
_SECTION = re.compile(r"(?m)^==> (.+?) <==")


@dataclass(frozen=True)
class Shape:
    """What the cross-rank answer says, in the words a comparison needs."""

    verdict: str
    suspects: tuple[tuple[str, str, bool], ...]  # (label, end, present)
    suspect_pids: tuple[int | None, ...] = field(compare=False)
    suspect_ranks: tuple[int | None, ...] = field(compare=False)
    victims: tuple[str, ...] = ()  # labels, sorted
    victim_pids: frozenset[int] = field(compare=False, default=frozenset())
    chain: tuple[str, ...] = ()

    @classmethod
    def of(cls, document: dict) -> Shape:
        rc = document["root_cause"]
        return cls(rc["verdict"],
                   tuple((s["label"], s["end"], s["present"]) for s in rc["suspects"]),
                   tuple(s["pid"] for s in rc["suspects"]),
                   tuple(s["rank"] for s in rc["suspects"]),
                   tuple(sorted(v["label"] for v in rc["victims"])),
                   frozenset(v["pid"] for v in rc["victims"] if v["pid"] is not None),
                   tuple(h["label"] for h in rc["chain"])).normal()

    def normal(self) -> Shape:
        """The members of a mutual wait are one group with no order of their own (which
        reported first depends on clocks that may not align): they are sorted, and the chain
        of the ring starts at the first of them."""
        at = next((n for n, s in enumerate(self.suspects) if s[1] == "cycle"), None)
        if at is None:
            return self
        cycle = sorted(s for s in self.suspects if s[1] == "cycle")
        rest = [s for s in self.suspects if s[1] != "cycle"]
        chain = list(self.chain)
        if chain and chain[0] == chain[-1]:
            ring = chain[:-1]
            start = ring.index(min(ring))
            chain = [*ring[start:], *ring[:start], ring[start]]
        return replace(self, suspects=(*rest[:at], *cycle, *rest[at:]), chain=tuple(chain))

    def renamed(self, names: dict[str, str]) -> Shape:
        """The same answer with host names (whole words) replaced."""
        if not names:
            return self
        pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(
            names, key=len, reverse=True))) + r")(?![\w-])")

        def fix(text: str) -> str:
            return pattern.sub(lambda m: names[m.group(1)], text)
        return replace(self, suspects=tuple((fix(a), b, c) for a, b, c in self.suspects),
                       victims=tuple(sorted(fix(v) for v in self.victims)),
                       chain=tuple(fix(h) for h in self.chain)).normal()

    def structure(self) -> tuple:
        """The answer without names: verdict, classes and presence, counts."""
        return (self.verdict, tuple((e, p) for _, e, p in self.suspects), len(self.victims),
                len(self.chain))


@dataclass
class Tree:
    """Files to hand over. A pasted concatenation (``paste``: its file name) is held as its
    ``==> path <==`` sections, one file each, and written back as one file."""

    name: str
    files: dict[str, str]
    whole: bool = True  # handed over as its directory; else file by file in ``order``
    order: list[str] = field(default_factory=list)
    paste: str | None = None

    def write(self, root: Path) -> list[str]:
        if self.paste is not None:
            order = self.order or list(self.files)
            path = root / self.paste
            path.write_text("".join(f"==> {rel} <==\n{self.files[rel]}" for rel in order),
                            encoding="utf-8")
            return [str(path)]
        for rel, text in self.files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        if self.whole:
            return [str(root)]
        return [str(root / rel) for rel in (self.order or sorted(self.files))]


def sections(name: str, text: str) -> Tree:
    """A pasted concatenation as the files it joins (what ``tail -n +1`` printed)."""
    files: dict[str, str] = {}
    heads = list(_SECTION.finditer(text))
    for n, head in enumerate(heads):
        end = heads[n + 1].start() if n + 1 < len(heads) else len(text)
        files[head.group(1)] = text[head.end() + 1:end]  # the blank line tail puts stays
    return Tree(name, files, paste=name.rsplit("/", 1)[-1])


@dataclass
class Change:
    tree: Tree
    expect: Callable[[Shape], Shape | None]  # original answer -> the answer to expect
    check: Callable[[Shape, Shape], None] | None = None  # (original, new): asserts


def load(name: str, root: Path, paths: list[str]) -> Tree:
    """A tree of the files under ``paths`` (relative to ``root``), READMEs left out."""
    files: dict[str, str] = {}
    for rel in paths:
        base = root / rel
        for path in sorted([base] if base.is_file() else base.rglob("*")):
            if path.is_file() and path.suffix == ".log":
                files[str(path.relative_to(root))] = path.read_text(encoding="utf-8",
                                                                    errors="replace")
    if len(files) == 1:
        (rel, text), = files.items()
        if _SECTION.match(text):
            return sections(rel, text)
    return Tree(name, files)


def _with(tree: Tree, files: dict[str, str], **changes: object) -> Tree:
    return replace(tree, files=files, **changes)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- helpers


def hosts_of(tree: Tree) -> list[str]:
    """The host directories the tree's paths name."""
    return sorted({host for rel in tree.files if (host := path_hints(rel)[0])})


def _rename_path(path: str, names: dict[str, str]) -> str:
    return "/".join(names.get(part, part) for part in path.split("/"))


def _pids_of(tree: Tree) -> set[int]:
    pids = set()
    for rel, text in tree.files.items():
        m = _NAME_PID.match(rel.rsplit("/", 1)[-1])
        if m:
            pids.add(int(m.group(2)))
        pids.update(int(m.group(2)) for m in _HEADER_PID.finditer(text))
    return pids


def _renumber(text: str, mapping: dict[int, int]) -> str:
    text = _HEADER_PID.sub(lambda m: m.group(1) + str(mapping.get(int(m.group(2)),
                                                                  int(m.group(2)))) + m.group(3),
                           text)
    text = re.sub(r"\[(\d+)\]", lambda m: f"[{mapping.get(int(m.group(1)), int(m.group(1)))}]"
                  if int(m.group(1)) in mapping else m.group(0), text)
    return re.sub(r"(PID:\s?)(\d+)", lambda m: m.group(1) + str(
        mapping.get(int(m.group(2)), int(m.group(2)))), text)


def _renumber_path(path: str, mapping: dict[int, int]) -> str:
    head, _, name = path.rpartition("/")
    m = _NAME_PID.match(name)
    if m and int(m.group(2)) in mapping:
        name = m.group(1) + str(mapping[int(m.group(2))]) + m.group(3) + name[m.end():]
    return f"{head}/{name}" if head else name


def _shift(text: str, delta: timedelta) -> str:
    def one(m: re.Match[str]) -> str:
        stamp = m.group(0)
        t = datetime.strptime(stamp[:19], "%Y-%m-%d-%H:%M:%S").replace(
            microsecond=int(stamp[20:23]) * 1000 + int(stamp[24:27])) + delta
        return (f"{t:%Y-%m-%d-%H:%M:%S}.{t.microsecond // 1000:03d}."
                f"{t.microsecond % 1000:03d}")
    return _STAMP.sub(one, text)


def _owned(tree: Tree, host: str | None, pid: int | None, rank: int | None) -> list[str]:
    """The files of one process: named by its pid on its host, and its host's files without a
    pid that name its rank (its stdout)."""
    out = []
    for rel in tree.files:
        h, r, _d, p = path_hints(rel)
        if h != host:
            continue
        if (p is not None and p == pid) or (p is None and rank is not None and r == rank):
            out.append(rel)
    return out


def _root(answer: dict) -> dict | None:
    """The one suspect of an answer whose other failed ranks only waited."""
    rc = answer["root_cause"]
    suspects = rc["suspects"]
    if rc["verdict"] != "localized" or len(suspects) != 1 or not suspects[0]["present"]:
        return None
    return suspects[0] if suspects[0]["pid"] is not None else None


# ---------------------------------------------------------------------- invariants


def rename_hosts(tree: Tree, answer: dict) -> Change | None:
    """Host and worker directories renamed (paths and pasted section headers alike)."""
    hosts = hosts_of(tree)
    if not hosts:
        return None
    names = {h: f"node-{chr(ord('q') + n)}{n}" for n, h in enumerate(hosts)}
    files = {_rename_path(rel, names): text for rel, text in tree.files.items()}
    return Change(_with(tree, files), lambda shape: shape.renamed(names))


def renumber_pids(tree: Tree, answer: dict) -> Change | None:
    """Every pid another number, in the file names and the lines together."""
    pids = _pids_of(tree)
    if not pids:
        return None
    mapping = {p: 700_000 + 13 * n for n, p in enumerate(sorted(pids))}
    files = {_renumber_path(rel, mapping): _renumber(text, mapping)
             for rel, text in tree.files.items()}
    names = {f"pid {p}": f"pid {q}" for p, q in mapping.items()}
    return Change(_with(tree, files), lambda shape: shape.renamed(names))


def permute_files(tree: Tree, answer: dict) -> Change | None:
    """The files handed over one by one (the sections of a paste joined) in reverse order."""
    if len(tree.files) < 2:
        return None
    return Change(_with(tree, dict(tree.files), whole=False,
                        order=sorted(tree.files, reverse=True)), lambda shape: shape)


def split_file(tree: Tree, answer: dict) -> Change | None:
    """The longest plog of a process cut in two, as the log library rotates files."""
    named = [rel for rel in tree.files if _NAME_PID.match(rel.rsplit("/", 1)[-1])
             and tree.files[rel].count("\n") >= 2]
    if not named:
        return None
    rel = max(named, key=lambda r: (tree.files[r].count("\n"), r))
    lines = tree.files[rel].splitlines(keepends=True)
    cut = len(lines) // 2
    while cut < len(lines) and not lines[cut].startswith("["):  # a record's own lines stay
        cut += 1
    if cut in (0, len(lines)):
        return None
    head, _, name = rel.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    files = dict(tree.files)
    files[rel] = "".join(lines[:cut])
    later = f"{head}/{stem[:-1]}{'8' if stem.endswith('9') else '9'}{dot}{ext}"
    files[later] = "".join(lines[cut:])  # the same pid, another time stamp
    return Change(_with(tree, files), lambda shape: shape)


def concatenate_files(tree: Tree, answer: dict) -> Change | None:
    """A process's plogs of one kind joined into one file (its rotated files read as one)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for rel in sorted(tree.files):
        head, _, name = rel.rpartition("/")
        m = _NAME_PID.match(name)
        if m and name.startswith("plog-"):
            groups.setdefault((str(Path(head).parent.parent), m.group(2)), []).append(rel)
    joined = next((g for g in groups.values() if len(g) > 1), None)
    if joined is None:
        return None
    files = {k: v for k, v in tree.files.items() if k not in joined}
    files[joined[0]] = "".join(tree.files[r] if tree.files[r].endswith("\n")
                               else tree.files[r] + "\n" for r in joined)
    return Change(_with(tree, files), lambda shape: shape)


def shift_host_clock(tree: Tree, answer: dict) -> Change | None:
    """One host's clock 37.5 s off (within every HCCL timeout): every stamp it wrote moves."""
    hosts = hosts_of(tree)
    if len(hosts) < 2:
        return None
    host = hosts[-1]
    delta = timedelta(seconds=37.5)
    files = {rel: _shift(text, delta) if path_hints(rel)[0] == host else text
             for rel, text in tree.files.items()}
    return Change(_with(tree, files), lambda shape: shape)


def rewrite_line_pids(tree: Tree, answer: dict) -> Change | None:
    """Every line pid of the files named by a pid rewritten to one number, as collections that
    filter plogs do: the file names still tell the processes apart."""
    if not any(_NAME_PID.match(rel.rsplit("/", 1)[-1]) for rel in tree.files):
        return None
    files = {rel: _HEADER_PID.sub(lambda m: m.group(1) + "903" + m.group(3), text)
             if _NAME_PID.match(rel.rsplit("/", 1)[-1]) else text
             for rel, text in tree.files.items()}
    return Change(_with(tree, files), lambda shape: shape)


# ---------------------------------------------------------------------- known changes


def swap_root_with_a_victim(tree: Tree, answer: dict) -> Change | None:
    """The root's logs and a victim's trade places (each keeps its file names, takes the
    other's text): the root moves to the victim's files."""
    root = next((s for s in answer["root_cause"]["suspects"] if s["present"]
                 and s["pid"] is not None), None)
    victims = [v for v in answer["root_cause"]["victims"] if v["pid"] is not None]
    if root is None or not victims:
        return None
    mine = sorted(_owned(tree, root["host"], root["pid"], None))
    for victim in victims:  # one on the root's host: each device stays on its host
        theirs = sorted(_owned(tree, victim["host"], victim["pid"], None))
        kinds = [_kind(r) for r in mine]
        if victim["host"] == root["host"] and len(theirs) == len(mine) \
                and kinds == [_kind(r) for r in theirs]:
            break
    else:
        return None
    pids = {root["pid"], victim["pid"]}
    if any(int(h.group(2)) in pids for rel, text in tree.files.items()
           if rel not in mine + theirs for h in _HEADER_PID.finditer(text)):
        return None  # another file (a job's stdout) names them by pid: it would stay behind
    files = dict(tree.files)
    for a, b in zip(mine, theirs, strict=True):
        files[a], files[b] = tree.files[b], tree.files[a]
    moved = (victim["host"], victim["pid"])

    def check(before: Shape, after: Shape) -> None:
        assert after.verdict == before.verdict
        assert moved[1] in after.suspect_pids, (moved, after)
        assert root["pid"] in after.victim_pids or root["pid"] in after.suspect_pids
    return Change(_with(tree, files), lambda shape: None, check)


def delete_root(tree: Tree, answer: dict) -> Change | None:
    """The root's files gone: the answer says which peer to collect, never a victim."""
    root = _root(answer)
    if root is None:
        return None
    gone = _owned(tree, root["host"], root["pid"], root["rank"])
    if not gone or len(gone) == len(tree.files):
        return None
    files = {k: v for k, v in tree.files.items() if k not in gone}
    names = {str(x) for x in (root["rank"], root["host_ip"], root["device_ip"]) if x is not None}

    def check(before: Shape, after: Shape) -> None:
        assert after.suspects and not after.suspects[0][2], after  # a peer outside the input
        first, rank = after.suspects[0][0], after.suspect_ranks[0]
        assert rank == root["rank"] or any(n in first for n in names), (root, after)
        assert not before.victim_pids & {p for p, (_, _, present) in zip(
            after.suspect_pids, after.suspects, strict=True) if present}, after
    return Change(_with(tree, files), lambda shape: None, check)


def delete_a_victim(tree: Tree, answer: dict) -> Change | None:
    """A victim's files gone (the one farthest up the chain): the root stays."""
    rc = answer["root_cause"]
    if rc["verdict"] != "localized" or not rc["suspects"]:
        return None
    victims = {v["label"]: v for v in rc["victims"] if v["pid"] is not None}
    pick = next((victims[h["label"]] for h in rc["chain"] if h["label"] in victims), None)
    pick = pick or next(iter(victims.values()), None)
    if pick is None:
        return None
    gone = _owned(tree, pick["host"], pick["pid"], pick["rank"])
    if not gone or len(gone) == len(tree.files):
        return None
    files = {k: v for k, v in tree.files.items() if k not in gone}

    def check(before: Shape, after: Shape) -> None:
        assert after.suspects[:1] == before.suspects[:1], (before, after)
    return Change(_with(tree, files), lambda shape: None, check)


def _kind(rel: str) -> str:
    """run or debug plog, device log: the slot a file fills for its process."""
    parts = rel.split("/")
    return "/".join(p for p in parts if p in ("run", "debug", "plog")) + (
        "/device" if parts[-1].startswith("device-") else "")


INVARIANTS = {f.__name__: f for f in (rename_hosts, renumber_pids, permute_files, split_file,
                                      concatenate_files, shift_host_clock, rewrite_line_pids)}
KNOWN = {f.__name__: f for f in (swap_root_with_a_victim, delete_root, delete_a_victim)}
TRANSFORMATIONS = {**INVARIANTS, **KNOWN}
