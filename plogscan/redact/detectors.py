"""What counts as sensitive in log text, and what each match is.

One alternation of patterns (``pattern``) is run by RE2 over Arrow text, so no input can make
it backtrack; every quantifier is bounded, so a match is short. Each match is then classified
here (``classify``) by which alternative it fullmatches, in Python, on that short text:

* ``known``: a host name already identified (from the host column or a path);
* ``version``: a dotted number after a version word (``version 8.0.0.1``, ``toolkit/8.0.0.1``,
  ``v8.0.0.1``): kept, it names software, not a machine;
* ``ipv4``: four dotted numbers up to 255 (runs of more parts are versions or ids: kept);
  loopback (``127.x``), ``0.0.0.0`` and the broadcast address are kept, they name no machine;
* ``ipv6``: what ``ipaddress`` accepts, with a digit (``std::add`` is kept), but ``::1``/``::``;
* ``email``: ``name@domain.tld``, a letter top-level domain that is not a file suffix;
* ``home``: the user of ``/home/<user>``, ``/Users/<user>``, ``C:\\Users\\<user>``;
* ``server``: the value of ``server[...]``, ``host[...]``, ``node[...]``: an IP or a host;
* ``hostkv``: ``hostname: NAME`` or ``hostname=NAME``;
* ``pathhost``: a path component named like a host (``worker-3/``, ``node01/``, ``host-2!``),
  as ``pathhints`` reads hosts from paths;
* ``fqdn``: a dotted name ending in a known top-level domain (``node1.corp.example.com``);
  a few public service names that say nothing about the user (``github.com``...) are kept.

Pseudonyms that a redaction produced (``ip-1``...) are never redacted again.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable

_VERSION_WORDS = ("versions?|ver|release|cann|toolkit|driver|firmware|fw|package|pkg|build|"
                  "compat|mindie|mindspore|torch_npu|torch|python|npu-smi|v")
_TLDS = ("com|net|org|edu|gov|mil|cn|io|ai|co|cloud|local|localdomain|lan|internal|intra|"
         "intranet|corp|private|cluster|svc|example|de|jp|kr|uk|fr|ru|sg|hk|tw|us|eu")
_HOST_WORDS = (r"worker[-_]?\d{1,6}|w[-_]\d{1,6}|node(?:[-_]?\d[A-Za-z0-9._-]{0,64}|"
               r"-[a-z][A-Za-z0-9._-]{0,64})|(?:host|server)[-_]?\d[A-Za-z0-9._-]{0,64}|"
               r"ip[-_]\d{1,3}(?:[._-]\d{1,3}){3}|modelarts-job-[A-Za-z0-9._-]{1,64}")

# (name, pattern) in the order RE2 tries them at one position (leftmost-first).
ALTERNATIVES: tuple[tuple[str, str], ...] = (
    ("version", rf"(?i:\b(?:{_VERSION_WORDS}))[ _:=/\[(-]{{0,3}}"
                r"\d{1,10}(?:\.\d{1,10}){3,16}"),
    ("email", r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}"),
    ("home", r"(?:/home/|/Users/|/export/home/|[A-Za-z]:\\Users\\)[A-Za-z0-9._-]{1,64}"),
    ("server", r"(?i:\b(?:server|host|hostname|host_name|node|nodename|node_name)\[)"
               r"[^\]\s%,]{1,253}"),
    ("hostkv", r"(?i:\bhost_?name\s{0,3}[:=]\s{0,3})[A-Za-z0-9][A-Za-z0-9._-]{0,252}"),
    ("ipv4", r"\d{1,10}(?:\.\d{1,10}){3,16}"),
    ("ipv6", r"(?i:::ffff:\d{1,3}(?:\.\d{1,3}){3}|(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|"
             r"(?:[0-9a-f]{1,4}:){1,7}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6})?|"
             r"::[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6})"),
    ("pathhost", rf"\b(?:[A-Za-z0-9._-]{{0,64}}[-_.])?(?i:{_HOST_WORDS})"
                 r"(?i:\.(?:tar\.gz|tar\.bz2|tar\.xz|tgz|tbz2?|txz|tar|zip))?(?:[/!]|$)"),
    ("fqdn", rf"(?i:\b(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.){{1,10}}(?:{_TLDS})\b)"),
)

PUBLIC_HOSTS = frozenset({
    "github.com", "www.github.com", "raw.githubusercontent.com", "gitee.com", "gitcode.com",
    "hiascend.com", "www.hiascend.com", "support.huawei.com", "e.huawei.com",
    "repo.huaweicloud.com", "mirrors.huaweicloud.com", "pypi.org", "files.pythonhosted.org",
    "pypi.tuna.tsinghua.edu.cn", "download.pytorch.org", "pytorch.org", "python.org",
    "www.python.org", "huggingface.co", "hf-mirror.com", "modelscope.cn",
    "www.modelscope.cn", "mindspore.cn", "www.mindspore.cn", "docker.io", "anaconda.org",
    "conda.anaconda.org", "ubuntu.com", "archive.ubuntu.com", "no-color.org",
})
_FILE_SUFFIXES = frozenset({"png", "jpg", "jpeg", "gif", "svg", "log", "txt", "py", "json",
                            "yaml", "yml", "md", "so", "cc", "cpp", "h", "gz", "tar", "zip"})
_ARCHIVE_SUFFIX = re.compile(
    r"(?i)(\.(?:tar\.gz|tar\.bz2|tar\.xz|tgz|tbz2?|txz|tar|zip|gz|bz2|xz))$")
_NUMERIC = re.compile(r"\d+")
MAX_KNOWN = 4000  # identified host names matched by name (more are still found by shape)


def escape(text: str) -> str:
    """A literal for both RE2 and Python ``re``: every non-alphanumeric byte escaped."""
    return "".join(c if c.isalnum() or c == "_" else "\\" + c for c in text)


def pattern(known: Iterable[str] = ()) -> str:
    """The alternation RE2 runs: identified host names first, then the detectors."""
    names = sorted({k for k in known if k and (k[0].isalnum() and k[-1].isalnum())},
                   key=lambda k: (-len(k), k))[:MAX_KNOWN]
    parts = [rf"(?P<known>\b(?:{'|'.join(escape(n) for n in names)})\b)"] if names else []
    parts += [f"(?P<{name}>{body})" for name, body in ALTERNATIVES]
    return "|".join(parts)


Namer = Callable[[str, str], str]  # (kind, original) -> pseudonym


def classify(match: re.Match[str], token: str, name: Namer, is_pseudonym: Callable[[str], bool]
             ) -> str:
    """The replacement for one RE2 match ``token`` (``match`` is its Python fullmatch)."""
    kind = match.lastgroup
    if kind == "known":
        return token if is_pseudonym(token) else name("host", token)
    if kind == "version":
        return token
    if kind == "ipv4":
        return _ipv4(token, name)
    if kind == "ipv6":
        return _ipv6(token, name)
    if kind == "email":
        domain = token.rpartition("@")[2]
        tld = domain.rpartition(".")[2].lower()
        if not tld.isalpha() or tld in _FILE_SUFFIXES:
            return token
        return name("email", token)
    if kind == "home":
        cut = max(token.rfind("/"), token.rfind("\\")) + 1
        user = token[cut:]
        return token if is_pseudonym(user) else token[:cut] + name("user", user)
    if kind == "server":
        head, _, value = token.partition("[")
        return f"{head}[{name_host_or_ip(value, name, is_pseudonym)}"
    if kind == "hostkv":
        m = re.match(r"(?i)(host_?name\s*[:=]\s*)(.*)", token)
        assert m is not None
        return m.group(1) + name_host_or_ip(m.group(2), name, is_pseudonym)
    if kind == "pathhost":
        return _path_host(token, name, is_pseudonym)
    if kind == "fqdn":
        if token.lower() in PUBLIC_HOSTS or is_pseudonym(token):
            return token
        return name("host", token)
    return token


def _ipv4(token: str, name: Namer) -> str:
    parts = token.split(".")
    if len(parts) != 4 or any(int(p) > 255 for p in parts):
        return token  # a version, an id or a longer dotted number
    if parts[0] == "127" or token in ("0.0.0.0", "255.255.255.255"):
        return token
    return name("ip", token)


def _ipv6(token: str, name: Namer) -> str:
    try:
        address = ipaddress.ip_address(token)
    except ValueError:
        return token
    if not any(c.isdigit() for c in token) or address.is_loopback or address.is_unspecified:
        return token
    return name("ip", token)


def name_host_or_ip(value: str, name: Namer, is_pseudonym: Callable[[str], bool]) -> str:
    """The pseudonym of a value in a host's place: an IP address is an ``ip``, ids and
    loopback addresses are kept, anything else is a ``host``."""
    if is_pseudonym(value) or _NUMERIC.fullmatch(value):
        return value
    ip = _ipv4(value, name) if value[:1].isdigit() else _ipv6(value, name)
    if ip != value:
        return ip
    try:
        ipaddress.ip_address(value)
        return value  # loopback or unspecified: kept
    except ValueError:
        pass
    if value.lower() in PUBLIC_HOSTS:
        return value
    return name("host", value)


def _path_host(token: str, name: Namer, is_pseudonym: Callable[[str], bool]) -> str:
    lead = token[0] if token[:1] in "/! '\"(=[\t\n" else ""
    tail = token[-1] if token[-1:] in "/!" else ""
    value = token[len(lead): len(token) - len(tail)]
    m = _ARCHIVE_SUFFIX.search(value)
    suffix = m.group(1) if m else ""
    value = value[: len(value) - len(suffix)]
    if not value or is_pseudonym(value):
        return token
    return lead + name("host", value) + suffix + tail
