"""The properties every fix must have, checked on any source: shared by the example and corpus tests.

1. The fixed code parses.
2. Fixing twice changes nothing more.
3. Re-checking the fixed code does not report the fixed findings again: per rule, the
   findings left are at most the findings before minus the ones fixed.
4. Unrelated lines are byte-identical: a line the fixes change or remove lies in the
   top-level statements (a def, a class, a `with` block...) from the first to the last
   place a finding they fix names (its range and its related locations); everything else
   is only ever inserted around, never rewritten.
"""

from __future__ import annotations

import ast
import difflib
from collections import Counter

from tapelsp.fixes import FixResult, apply_edits, apply_fixes, ignore_fix, parse_problem
from tapelsp.model import Violation
from tapelsp.settings import Settings


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def changed_lines(before: str, after: str) -> set[int]:
    """0-based lines of `before` that `after` rewrites or drops (insertions are not changes)."""
    matcher = difflib.SequenceMatcher(None, _lines(before), _lines(after), autojunk=False)
    changed: set[int] = set()
    for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            changed.update(range(i1, i2))
    return changed


def statement_lines(text: str, line: int) -> range:
    """0-based lines of the top-level statement around 0-based `line` (with its decorators)."""
    tree = ast.parse(text)
    for stmt in tree.body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])]) - 1
        last = (stmt.end_lineno or stmt.lineno) - 1
        if first <= line <= last:
            return range(first, last + 1)
    return range(line, line + 1)


def finding_lines(text: str, violation: Violation) -> range:
    """0-based lines a finding's fix may rewrite: the top-level statements from the first to the
    last place the finding names (its own range and its related locations: the tape a second
    gradient call reuses, the block a loss must move into)."""
    lines = [violation.range.start.line, violation.range.end.line]
    for related in violation.related:
        lines += [related.range.start.line, related.range.end.line]
    first, last = statement_lines(text, min(lines)), statement_lines(text, max(lines))
    return range(first.start, last.stop)


def check_fix_properties(text: str, path: str, settings: Settings, *, unsafe: bool = True) -> FixResult:
    """Fix `text` and assert the four properties; returns the result for more checks."""
    from tapelsp import check_source

    original_parses = parse_problem(text) is None
    before = check_source(text, path, settings, fixes=True)
    result = apply_fixes(text, path, settings, unsafe=unsafe)
    where = f"{path}"
    if not original_parses:
        assert result.text == text, f"{where}: a file that does not parse was changed"
        return result
    # 1. parses
    problem = parse_problem(result.text)
    assert problem is None, f"{where}: fixed code does not parse: {problem}\n{result.text}"
    # 2. idempotent
    again = apply_fixes(result.text, path, settings, unsafe=unsafe)
    assert again.text == result.text and not again.fixed, (
        f"{where}: fixing twice changed more:\n{''.join(difflib.unified_diff(_lines(result.text), _lines(again.text)))}")
    # 3. no re-report
    counts_before = Counter(v.code for v in before)
    counts_fixed = Counter(v.code for v in result.fixed)
    counts_after = Counter(v.code for v in result.remaining)
    for code, fixed in counts_fixed.items():
        assert counts_after[code] <= counts_before[code] - fixed, (
            f"{where}: {code}: {counts_before[code]} findings, {fixed} fixed, still {counts_after[code]}")
    # 4. unrelated lines untouched, round by round
    texts = [r.before for r in result.rounds] + [result.text]
    for number, fix_round in enumerate(result.rounds):
        allowed: set[int] = set()
        for violation in fix_round.applied:
            allowed.update(finding_lines(fix_round.before, violation))
        stray = changed_lines(fix_round.before, texts[number + 1]) - allowed
        assert not stray, (
            f"{where}: round {number + 1} changed lines outside the fixed findings' statements: "
            f"{sorted(line + 1 for line in stray)}")
    return result


def check_ignore_properties(text: str, violation: Violation, path: str, settings: Settings) -> None:
    """The ignore edit silences exactly that finding and changes only its line."""
    from tapelsp import check_source

    fix = ignore_fix(violation, text)
    if fix is None:
        return
    fixed = apply_edits(text, fix.edits)
    assert parse_problem(fixed) is None or parse_problem(text) is not None
    assert changed_lines(text, fixed) == {violation.range.start.line}
    after = check_source(fixed, path, settings)
    line = violation.range.start.line

    def silenced(v: Violation) -> bool:  # the comment covers every finding of that code on that line
        return v.code == violation.code and v.range.start.line == line

    assert not [v for v in after if silenced(v)], f"{path}: {violation.code} still reported after the ignore comment"
    others_before = Counter((v.code, v.range) for v in check_source(text, path, settings) if not silenced(v))
    others_after = Counter((v.code, v.range) for v in after)
    assert others_after == others_before, f"{path}: the ignore comment changed other findings"
