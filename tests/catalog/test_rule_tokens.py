"""No rule pattern holds text that identifies one log: rules are written from what a message
means, so they match the other ways it is said, not from one paste's incidental words.

Every text a rule matches on (``contains``, ``startswith``, ``endswith``, ``eq``/``in`` and
``re`` values of every condition) is checked against

* a fixed list of shapes that never belong in a rule: model names (``Qwen2.5-72B``,
  ``DeepSeek-R1``, a parameter count such as ``235B``), user home directories;
* the tokens that identify the logs of the corpora beside the checkout (``shared/corpus``,
  see ``tests/corpus_path.py``), read at test time: IP addresses, user names of home
  directories, host names, process ids, long hexadecimal ids and the functions of the user's
  own code in tracebacks. Without the corpora that part is skipped, and says so.

A token is found in a pattern when it stands as a word of it (regex escapes undone, case
ignored). The planted-token tests show that the check does fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from plogscan.catalog import load_rules
from plogscan.catalog.rule import Condition, Rule
from plogscan.catalog.ruleset import rule_from_text
from plogscan.codes import decode
from tests.corpus_path import corpus_dir, pasted_corpus_dirs, trees_dir

TEXT_OPS = frozenset({"contains", "startswith", "endswith", "eq", "in", "re"})

# Shapes that identify a model, whatever the corpus: a family name with a version or size, or
# a parameter count.
MODEL_NAME = re.compile(
    r"(?i)\b(?:qwen|llama|deepseek|chatglm|glm|baichuan|mistral|mixtral|gemma|internlm|"
    r"internvl|minimax|kimi|hunyuan|pangu|ernie|yi|phi|falcon|bloom|opensora|open-sora|whisper|"
    r"stable-?diffusion|sdxl)[-_ ]?v?\d[\w.-]*"
    r"|(?<![\w.])\d{1,4}(?:\.\d)?[bB](?:-(?:a\d+b|instruct|chat|base)\b|\b)")
USER_HOME = re.compile(r"(?i)(?:/home/|/users/|/root/)[\w.-]")

# Where the corpora name identities.
IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
HOME_USER = re.compile(r"(?:/home/|/Users/)([\w.-]{3,})")
HOST = re.compile(r"(?:--hostname[= ]|\bhostname[=:] ?|\b[\w.-]+@)([A-Za-z][\w-]{3,})")
PID = re.compile(r"(?i)(?:\bpid[=: \[]\s*|\(PID:\s*|\[PID:\s*|^\[[A-Z]+\] ?[A-Z_]+\()(\d{3,})",
                 re.MULTILINE)
HEX_ID = re.compile(r"\b[0-9a-f]*(?:[a-f][0-9a-f]*\d|\d[0-9a-f]*[a-f])[0-9a-f]*\b")
FRAME = re.compile(r'File "(?P<path>[^"]+)", line \d+, in (?P<func>\w+)')
# Names of frames that every traceback has: not the user's own.
COMMON_FUNCS = frozenset({"main", "run", "forward", "wrapper", "inner", "module", "call",
                          "execute", "start", "init", "load", "step", "train", "generate"})
TRIVIAL_IPS = frozenset({"0.0.0.0", "127.0.0.1", "255.255.255.255"})
NOT_HOSTS = frozenset({"sha256", "sha512", "localhost"})  # image digests, the loopback name


@dataclass(frozen=True)
class Token:
    """A text that identifies one log of a corpus, and where it was seen."""

    text: str
    kind: str
    source: str


def patterns(rule: Rule) -> Iterator[str]:
    """Every text a rule's conditions match on."""
    conditions: list[Condition] = [cond for _, cond in rule.roles()]
    for cond in conditions:
        for alternative in cond.alternatives:
            for pred in alternative:
                if pred.op in TEXT_OPS:
                    yield from (str(v) for v in pred.values)


def _plain(pattern: str) -> str:
    """The pattern with its escaped punctuation undone (``10\\.1\\.0\\.8`` -> ``10.1.0.8``)
    and its character classes (``\\b``, ``\\d``) as separators, lower case."""
    text = re.sub(r"\\([^A-Za-z0-9])", r"\1", pattern)
    return re.sub(r"\\[A-Za-z]", " ", text).lower()


def holds(pattern: str, token: str) -> bool:
    """Whether ``token`` stands as a word of ``pattern``."""
    text, word = _plain(pattern), token.lower()
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text) is not None


def shape_problems(pattern: str) -> list[str]:
    """The fixed shapes a pattern holds: a model name, a user's home directory."""
    plain = _plain(pattern)
    found = [f"model name {m.group(0)!r}" for m in MODEL_NAME.finditer(plain)]
    found += [f"user path {m.group(0)!r}" for m in USER_HOME.finditer(plain)]
    return found


def _is_code(number: str) -> bool:
    return bool(decode(number))


def tokens_of(text: str, source: str) -> Iterator[Token]:
    """The identifying tokens of one corpus file."""
    for ip in IPV4.findall(text):
        if ip not in TRIVIAL_IPS:
            yield Token(ip, "ip address", source)
    for user in HOME_USER.findall(text):
        yield Token(user, "user name", source)
    for host in HOST.findall(text):
        if host.lower() not in NOT_HOSTS:
            yield Token(host, "host name", source)
    for pid in PID.findall(text):
        if not _is_code(pid):
            yield Token(pid, "process id", source)
    for hex_id in HEX_ID.findall(text):
        if len(hex_id) >= 12:
            yield Token(hex_id, "hex id", source)
    for frame in FRAME.finditer(text):
        path, func = frame.group("path"), frame.group("func")
        if ("-packages" in path or "/lib/python" in path or func.startswith("_")
                or "_" not in func or func.lower() in COMMON_FUNCS):
            continue  # a library's frame, or a plain word
        yield Token(func, "user function", source)


def _corpus_files() -> Iterator[Path]:
    roots = [*pasted_corpus_dirs().values(), corpus_dir(), trees_dir()]
    for root in roots:
        if root is None:
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and (path.suffix in (".log", ".txt", ".out")
                                   or path.name.startswith(("plog-", "device-"))):
                yield path


@cache
def corpus_tokens() -> tuple[Token, ...]:
    found: dict[tuple[str, str], Token] = {}
    for path in _corpus_files():
        text = path.read_text("utf-8", errors="replace")
        for token in tokens_of(text, path.name):
            found.setdefault((token.kind, token.text.lower()), token)
    return tuple(found.values())


def offending(rules: Iterable[Rule], tokens: Iterable[Token]) -> list[str]:
    """One line per pattern that holds an identifying token or a forbidden shape."""
    tokens = list(tokens)
    out = []
    for rule in rules:
        for pattern in patterns(rule):
            out += [f"{rule.id}: {problem} in {pattern!r}" for problem in shape_problems(pattern)]
            out += [f"{rule.id}: {t.kind} {t.text!r} of {t.source} in {pattern!r}"
                    for t in tokens if holds(pattern, t.text)]
    return out


@cache
def builtin_rules() -> tuple[Rule, ...]:
    return tuple(load_rules())


def test_no_rule_pattern_holds_a_model_name_or_a_user_path() -> None:
    assert offending(builtin_rules(), ()) == []


@pytest.mark.skipif(not pasted_corpus_dirs() and corpus_dir() is None,
                    reason="corpora (shared/corpus) not beside the checkout")
def test_no_rule_pattern_holds_a_token_that_identifies_a_corpus_log() -> None:
    tokens = corpus_tokens()
    assert {t.kind for t in tokens} >= {"ip address", "process id", "hex id"}, \
        "the corpora gave too few tokens: the extraction is broken"
    assert offending(builtin_rules(), tokens) == []


def _rule_matching(pattern: str) -> Rule:
    return rule_from_text(f"""\
id: TST777
name: test.planted
title: planted
category: runtime-error
level: error
description: planted
remediation: [planted]
match:
  message|re: '{pattern}'
""")


@pytest.mark.parametrize("pattern", [
    r"load Qwen2\.5-72B-Instruct failed",
    r"DeepSeek-V3 weights",
    r"shard of the 235B model",
    r"/home/someone/work/train\.py",
])
def test_a_planted_model_name_or_user_path_fails_the_check(pattern: str) -> None:
    assert offending([_rule_matching(pattern)], ()) != []


@pytest.mark.skipif(not pasted_corpus_dirs(), reason="pasted-log corpora not beside the checkout")
def test_a_planted_corpus_token_fails_the_check() -> None:
    """For each kind of token, one taken from the corpora and planted in a pattern (escaped as
    a rule writer would) is reported."""
    by_kind: dict[str, Token] = {}
    for token in corpus_tokens():
        by_kind.setdefault(token.kind, token)
    assert len(by_kind) >= 4, sorted(by_kind)
    for token in by_kind.values():
        pattern = "failed at " + re.escape(token.text).replace("'", "''") + " now"
        problems = offending([_rule_matching(pattern)], [token])
        assert problems and token.kind in problems[0], (token, problems)


def test_words_of_a_pattern_are_not_mistaken_for_tokens() -> None:
    """A token inside a longer word, and a code the tables define, are not reported."""
    assert not holds(r"error code is 507033", "5070")
    assert holds(r"connect to 10\.1\.0\.8 failed", "10.1.0.8")
    assert not holds(r"device_count_probe", "count")
    assert not list(tokens_of("(PID:507033, Device:0)", "x"))  # a documented code, not a pid
    assert shape_problems(r"(?i)\bqwen\b") == []  # a family name alone names no model
