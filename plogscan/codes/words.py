"""The fixed words that decoding composes around the tables' texts, in every report language.

A reading of a code is built from table text (a meaning, a component name) and a few words of
the decoder's own: what kind of code it is (``KINDS``), the labels of its details (``module``,
``torch npu``...), the parts of an HCCL ``errNo`` or of an unknown error-manager code, and the
words ``plogscan explain`` prints around them. They are keyed by their English form, like the
reports' fixed words, so English uses them unchanged; ``WORDS[lang]`` must translate every one
(tested). Keys with ``{name}`` are format strings.
"""

from __future__ import annotations

KINDS = {
    "acl": "ACL error code",
    "aclnn": "aclnn status code",
    "aicore_errcode": "AI Core errcode",
    "device_event": "device fault event id",
    "errmgr": "error-manager code",
    "errmgr_component": "error-manager code (by component letter)",
    "ge": "GE error code",
    "hccl_errno": "HCCL errNo",
    "hccl_result": "HcclResult",
    "innercode": "runtime InnerCode",
    "pta": "torch_npu error code",
    "rt": "ACL runtime code",
    "ts_retcode": "TS retCode",
}

# Labels of a reading's details: the English label is also the key in ``explain --format json``.
LABELS = ("acl", "component", "desc", "error", "error str", "module", "note", "reserved bits",
          "submodule", "torch npu", "torch npu tag", "type")

# Every English word or template below has its translation in each ``WORDS`` language.
PHRASES = (
    "{label}: {text}",
    "AI Core errcode {code}",
    "{component} error code",
    "{component} warning code",
    "{component} information code",
    "not in the code tables; the message text after the code says what happened",
    "an internal error of {component}; not in the code tables: the message text after the code "
    "says what happened",
    "not in the table",
    "type {kind} (not in the table)",
    "module {module}",
    "HCCL errNo = module {module} ({module_id}) + submodule {sub} ({sub_id}) + "
    "{name} ({error}): {meaning}",
    "usual rule category: {category}",
    "what to do: {remedy}",
    "(decoded from the code's structure)",
    "source: {source}",
    "unknown code '{code}': no code table defines it",
    "the tables are read from the public headers and the CANN error-code reference; "
    "`plogscan explain --help` lists the forms understood",
)

WORDS: dict[str, dict[str, str]] = {
    "zh": {
        # kinds of code
        "ACL error code": "ACL 错误码",
        "aclnn status code": "aclnn 状态码",
        "ACL runtime code": "ACL Runtime 错误码",
        "AI Core errcode": "AI Core 错误码",
        "device fault event id": "Device 故障事件 ID",
        "GE error code": "GE 错误码",
        "error-manager code": "错误管理模块错误码",
        "error-manager code (by component letter)": "错误管理模块错误码（按组件字母解读）",
        "HCCL errNo": "HCCL errNo",
        "HcclResult": "HcclResult",
        "runtime InnerCode": "Runtime 内部码（InnerCode）",
        "torch_npu error code": "torch_npu 错误码",
        "TS retCode": "TS retCode",
        # detail labels
        "acl": "ACL 错误码",
        "component": "组件",
        "desc": "描述（desc）",
        "error": "错误",
        "error str": "错误描述（errorStr）",
        "module": "模块",
        "note": "说明",
        "reserved bits": "保留位",
        "submodule": "子模块",
        "torch npu": "torch_npu 描述",
        "torch npu tag": "torch_npu 标签",
        "type": "类型",
        # composed readings
        "{label}: {text}": "{label}：{text}",
        "AI Core errcode {code}": "AI Core 错误码 {code}",
        "{component} error code": "{component} 错误码",
        "{component} warning code": "{component} 告警码",
        "{component} information code": "{component} 提示码",
        "not in the code tables; the message text after the code says what happened":
            "不在错误码表中；错误码后面的消息文本说明了发生了什么",
        "an internal error of {component}; not in the code tables: the message text after the "
        "code says what happened":
            "{component} 的内部错误；不在错误码表中：错误码后面的消息文本说明了发生了什么",
        "not in the table": "不在表中",
        "type {kind} (not in the table)": "类型 {kind}（不在表中）",
        "module {module}": "模块 {module}",
        "HCCL errNo = module {module} ({module_id}) + submodule {sub} ({sub_id}) + "
        "{name} ({error}): {meaning}":
            "HCCL errNo = 模块 {module} ({module_id}) + 子模块 {sub} ({sub_id}) + "
            "{name} ({error})：{meaning}",
        # plogscan explain
        "usual rule category: {category}": "常见的规则类别：{category}",
        "what to do: {remedy}": "处理建议：{remedy}",
        "(decoded from the code's structure)": "（根据错误码的结构解读）",
        "source: {source}": "来源：{source}",
        "unknown code '{code}': no code table defines it":
            "未知错误码 '{code}'：没有错误码表定义它",
        "the tables are read from the public headers and the CANN error-code reference; "
        "`plogscan explain --help` lists the forms understood":
            "错误码表取自公开的头文件和 CANN 错误码参考；"
            "`plogscan explain --help` 列出了可识别的形式",
    },
}


def word(lang: str, english: str, **values: object) -> str:
    """``english`` in ``lang`` (English when not translated), formatted with ``values``."""
    text = WORDS.get(lang, {}).get(english, english)
    return text.format(**values) if values else text


def every_word() -> tuple[str, ...]:
    """Every English word and template that ``WORDS`` languages must translate."""
    return (*KINDS.values(), *LABELS, *PHRASES)
