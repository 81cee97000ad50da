"""Rule documentation from the rules themselves: `--list-rules`, `--explain`, docs/rules.md.

Run `python -m tapelsp.docs > docs/rules.md` to regenerate the reference.
"""

from __future__ import annotations

import sys

from .rules import all_rules, rule_by_code
from .rules.base import Rule, anchor

FAMILIES = {
    "TAPE": "GradientTape",
    "FUNC": "tf.function and AutoGraph",
    "MAP": "map_fn and control flow",
    "OPT": "Optimizers",
    "RT": "Runtime (the probe: `tapelsp --check --probe`, attached kernels)",
    "TL": "tapelsp itself (parse and read problems)",
}


def _versions(rule: type[Rule]) -> str:
    return f"TensorFlow {rule.tensorflow}" if rule.tensorflow.spec else "all TensorFlow versions"


def list_rules() -> str:
    rows = [("code", "name", "severity", "fix", "summary")]
    for rule in all_rules():
        rows.append((rule.code, rule.name, rule.severity.label, "yes" if rule.fixable else "",
                      rule.summary))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for row in rows:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4])
    return "\n".join(lines) + "\n"


def explain(code: str) -> str | None:
    rule = rule_by_code(code)
    if rule is None:
        return None
    head = (f"# {rule.code} ({rule.name})\n\n{rule.summary}.\n\n"
            f"Severity: {rule.severity.label}. Applies to {_versions(rule)}. "
            f"Fix: {'available' if rule.fixable else 'none automatic'}.\n\n")
    return head + rule.doc() + "\n"


def _examples_markdown(rule: type[Rule]) -> str:
    out = []
    for example in rule.examples:
        kind = "flagged" if example.lines else "not flagged"
        where = f" (line {', '.join(map(str, example.lines))})" if example.lines else ""
        title = f": {example.title}" if example.title else ""
        version = f", TensorFlow {example.tensorflow_version}" if example.tensorflow_version else ""
        out.append(f"*{kind}{where}{version}{title}*\n\n```python\n{example.source}```\n")
        if example.fixed is not None:
            out.append(f"*after `tapelsp --check --fix --unsafe-fixes`*\n\n```python\n{example.fixed}```\n")
    return "\n".join(out)


def rules_markdown() -> str:
    parts = ["# tapelsp rules\n",
             "Generated from the rules themselves by `python -m tapelsp.docs`; do not edit by hand.\n",
             "| code | name | severity | fix | summary |", "|---|---|---|---|---|"]
    for rule in all_rules():
        fix = "yes" if rule.fixable else ""
        parts.append(f"| [{rule.code}](#{anchor(rule)}) | {rule.name} | {rule.severity.label} | {fix} | {rule.summary} |")
    parts.append("")
    family = None
    for rule in all_rules():
        prefix = rule.code.rstrip("0123456789")
        if prefix != family:
            family = prefix
            parts.append(f"## {FAMILIES.get(prefix, prefix)}\n")
        body = rule.doc().replace("\n## ", "\n#### ")
        if body.startswith("## "):
            body = "#### " + body[3:]
        parts.append(f'<a id="{anchor(rule)}"></a>\n')
        parts.append(f"### {rule.code} {rule.name}\n")
        fix = " Fix: available (`--fix`)." if rule.fixable else ""
        parts.append(f"{rule.summary}. Severity: {rule.severity.label}. Applies to {_versions(rule)}.{fix}\n")
        parts.append(body + "\n")
        if rule.examples:
            parts.append("#### Examples checked by the test suite\n")
            parts.append(_examples_markdown(rule))
    return "\n".join(parts).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(rules_markdown())
