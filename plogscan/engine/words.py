"""The words the engine composes into findings, in every report language.

A finding's scope in words (``process 4127 on host worker-0 (rank 0)``, filled into a rule's
``{scope}``), the scope a ``requires`` check looked at, the evidence it wanted, and the notes
of a ``not_evaluable`` finding. The rule set's language (``RuleSet.lang``, set by
``RuleSet.localized``) picks them, keyed by their English form (``plogscan.lang.Catalogue``),
so English findings are exactly as before. ``WORDS[lang]`` translates every key (tested).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plogscan.lang import Catalogue

if TYPE_CHECKING:
    from plogscan.catalog.rule import Requires

WORDS: dict[str, dict[str, str]] = {
    "zh": {
        # who wrote the trigger
        "process {pid}": "进程 {pid}",
        "a process without a known pid": "一个 pid 未知的进程",
        "{who} on host {host}": "主机 {host} 上的{who}",
        "{who} (rank {rank})": "{who}（rank {rank}）",
        "{path} (taken as one process: it names no process)":
            "{path}（视为一个进程：其中没有进程信息）",
        "the input": "输入",
        # the scope a requires check looked at
        "host {host} (the fault record carries no process id, so its host was checked)":
            "主机 {host}（故障记录没有进程号，因此检查了整台主机）",
        "host {host} (more than {max} processes: process {pid} was checked with its host)":
            "主机 {host}（进程超过 {max} 个：进程 {pid} 按其所在主机检查）",
        "(unnamed)": "（未命名）",
        "the whole input (the fault record carries no process id or host, so every file was "
        "checked)": "整个输入（故障记录既没有进程号也没有主机，因此检查了所有文件）",
        # the evidence a requires check wants
        "{levels} records": "{levels} 记录",
        "records": "记录",
        "{records} of module {modules}": "{modules} 模块的 {records}",
        "{records} in {kinds} files": "{kinds} 文件中的 {records}",
        # not_evaluable
        "no {what} were found for {scope}": "{scope} 中没有找到 {what}",
        "Step '{last}' of this rule occurred ({n}), but {gap}, so it cannot be decided "
        "whether step '{need}' came before it.":
            "本规则的步骤“{last}”已出现（{n}），但{gap}，因此无法判断步骤“{need}”"
            "是否发生在它之前。",
        "{n} record": "{n} 条记录",
        "{n} records": "{n} 条记录",
        "{gap}; this rule needs them to see step '{need}' before '{last}'":
            "{gap}；本规则需要这些记录才能判断步骤“{need}”是否在“{last}”之前",
    },
}

words = Catalogue("engine", WORDS)


def scope_words(pid: Any, host: Any, rank: Any = None, lang: str = "en") -> str:
    """``process 4127 on host worker-0 (rank 0)``: the parts that are known, in ``lang``."""
    text = (words(lang, "process {pid}", pid=pid) if pid is not None
            else words(lang, "a process without a known pid"))
    if host is not None:
        text = words(lang, "{who} on host {host}", who=text, host=host)
    return words(lang, "{who} (rank {rank})", who=text, rank=rank) if rank is not None else text


def wanted_records(requires: Requires, lang: str = "en") -> str:
    """``DEBUG records of module HCCL``: the record a ``requires`` check wants, in words."""
    text = (words(lang, "{levels} records", levels="/".join(requires.levels))
            if requires.levels else words(lang, "records"))
    if requires.modules:
        text = words(lang, "{records} of module {modules}", records=text,
                     modules="/".join(requires.modules))
    if requires.kinds:
        text = words(lang, "{records} in {kinds} files", records=text,
                     kinds="/".join(requires.kinds))
    return text
