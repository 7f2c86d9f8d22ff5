"""``plogscan explain CODE...``: what an error code from a CANN/HCCL/torch_npu log means.

Each CODE is read against the code tables (``plogscan/codes/*.yaml``) and every reading is
printed, most specific first: what it means, what to do first, the rule category it usually
points to and the public source it comes from. A table prefix may come as its own word, so
``plogscan explain errcode 0x200000000`` is one code. A code no table defines is said to be
unknown, plainly (exit 2): no look-alike code is offered in its place. ``--lang`` picks the
language of the meanings and labels (the code tables' ``i18n``), chosen by default as for
``diagnose``; JSON keys stay English.
"""

from __future__ import annotations

import json

import click

from plogscan.cli import speak
from plogscan.codes import PREFIX_WORDS, CodeInfo, decode
from plogscan.codes.words import word
from plogscan.errors import ErrorGroup, PlogscanError
from plogscan.lang import ENV_VAR, LANGS
from plogscan.textsafe import neutralize


def group_words(words: tuple[str, ...]) -> list[str]:
    """Join argv words that belong together: ``errcode 0x2…`` and ``errcode:(0x2…, 0, 0)``."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word.rstrip(":=").lower() in PREFIX_WORDS and i < len(words):
            word = f"{word} {words[i]}"
            i += 1
        while word.count("(") > word.count(")") and i < len(words):
            word = f"{word} {words[i]}"
            i += 1
        out.append(word)
    return out


def _heading(info: CodeInfo, lang: str) -> str:
    if info.name.lower() == info.code.lower():
        return info.kind
    if info.name.startswith(info.kind):
        return info.name
    return word(lang, "{label}: {text}", label=info.kind, text=info.name)


def _text(code: str, readings: list[CodeInfo], lang: str) -> str:
    lines = [neutralize(code, keep_newlines=False)]
    for info in readings:
        lines.append(f"  {_heading(info, lang)}")
        lines.append(f"    {info.meaning}")
        for label, value in info.details:
            lines.append("    " + word(lang, "{label}: {text}", label=word(lang, label),
                                       text=value))
        if info.remedy:
            lines.append("    " + word(lang, "what to do: {remedy}", remedy=info.remedy))
        if info.category:
            lines.append("    " + word(lang, "usual rule category: {category}",
                                       category=info.category))
        if not info.exact:
            lines.append("    " + word(lang, "(decoded from the code's structure)"))
        lines.append("    " + word(lang, "source: {source}", source=info.source))
    return "\n".join(lines)


@click.command("explain")
@click.argument("codes", nargs=-1, required=True, metavar="CODE...")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Output format.")
@click.option("--lang", type=click.Choice(LANGS), default=None, envvar=ENV_VAR, show_envvar=True,
              help="Language of the meanings and labels (JSON keys stay English). Default: "
              "from the locale, as for diagnose.")
def command(codes: tuple[str, ...], fmt: str, lang: str | None) -> None:
    """Explain error codes from CANN, HCCL and torch_npu logs.

    \b
    Understood:
      507916, 100000, 145000   ACL, runtime and GE codes (ErrCode=, error code is ...)
      161002, 561103           aclnn status codes
      EI0002, EZ9999           error-manager codes (unknown ones by component letter)
      ERR02200                 torch_npu module + error type
      0x0000000005010009       HCCL errNo (module/submodule/HcclResult)
      0x227, 0x7150026         TS retCode, runtime InnerCode, device fault event ids
      9                        HcclResult
      errcode 0x200000000      AI Core errcode (also 'errcode:(0x200000000, 0, 0)')

    \b
    Examples:
      plogscan explain 507916 EI0002
      plogscan explain errcode 0x200000000 --format json
      plogscan explain 507916 --lang zh

    \b
    Exit codes: 0 every code is known, 2 a code is unknown.
    """
    lang = speak(lang)
    grouped = group_words(codes)
    results = [(code, decode(code, lang=lang)) for code in grouped]
    if fmt == "json":
        document = [{"input": code, "known": bool(readings),
                     "readings": [r.to_dict() for r in readings]}
                    for code, readings in results]
        click.echo(json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True))
    else:
        known = [_text(code, readings, lang) for code, readings in results if readings]
        if known:
            click.echo("\n\n".join(known))
    errors = [PlogscanError(word(lang, "unknown code '{code}': no code table defines it",
                                 code=neutralize(code, keep_newlines=False)),
                            help=word(lang, "the tables are read from the public headers and the "
                                      "CANN error-code reference; `plogscan explain --help` "
                                      "lists the forms understood"))
              for code, readings in results if not readings]
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ErrorGroup(errors)
