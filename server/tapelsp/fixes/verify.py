"""A fix is checked before it is offered: the fixed text is analysed again (issue 19).

A rule builds its fix from what it knows about the code it changes; whether the rest of the
program still runs is another question. So the fixed text is analysed the way the text was
(the same settings, targets, project and path), and the two analyses are compared. The fix is

- **not offered** when the fixed text has a finding of a rule that the text did not have
  (more findings of that rule than before); when a NumPy-only method (`.tolist()`,
  `.astype()`, ..., the table's `numpy_only`) would be called on a TensorFlow value; when a
  value that was a tensor becomes NumPy data where the code uses it;
- **offered as unsafe only** when a value the fix touches (a name it binds or rebinds, and the
  names assigned from it) changes its kind or dtype (the value model's answer, before and
  after) where the code uses it in a way that may depend on it: anything but an operand of
  TensorFlow ops, of arithmetic, or `.shape`/`.dtype`.

The reason is the finding's `fix_error` ("fix not offered: ...", "fix offered as unsafe:
..."): `--fix`/`--diff` print it for the finding, and the engine logs it.

Cost: the fixed text is not analysed whole. The top-level statements the fix edits, and every
statement tied to them by a name (`incremental.chunks`, the closure the incremental analysis
uses), are analysed with the imports on a text in which every other statement is left out
(its lines kept, empty): once as they are (kept for the next fix of the same statements) and
once fixed. A file of many independent functions costs two small analyses per fix.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Iterable

from ..model import Applicability, Edit, Fix, Position, Range, Violation
from .edits import apply_edits, line_starts

NOT_OFFERED = "fix not offered: "
UNSAFE = "fix offered as unsafe: "

# Above this share of the file's lines, the fix is checked on the whole text (a reduced text
# would save little, and the analysis of the text itself is at hand).
_WHOLE_SHARE = 0.6
_MAX_USES = 400  # uses of the touched names looked at
_MAX_NAMES = 40


def verify(violation: Violation, fix: Fix, text: str, analysis: Any) -> tuple[Fix | None, str | None]:
    """(fix, None) to offer the fix as it is; (fix marked unsafe, why); (None, why not)."""
    try:
        fix_or_none, why = _verify(violation, fix, text, analysis)
    except RecursionError:
        return _unchecked(fix, "the code nests too deeply to check it")
    except Exception as error:  # a bug in the check must not cost the finding, only trust in the fix
        return _unchecked(fix, f"checking it failed ({type(error).__name__}: {error})")
    if why is not None and "\0" in why:
        # An incremental analysis names lines with markers (incremental/labels.py) that only
        # findings' messages are rendered from: the reason names them as lines of the text.
        why = re.sub("\0(-?[0-9]+)\0", r"line \1", why)
    return fix_or_none, why


def _unchecked(fix: Fix, why: str) -> tuple[Fix | None, str | None]:
    if fix.applicability == Applicability.SAFE:
        return replace(fix, applicability=Applicability.UNSAFE), UNSAFE + why
    return fix, None


def _verify(violation: Violation, fix: Fix, text: str, analysis: Any) -> tuple[Fix | None, str | None]:
    from ..engine import analysed

    before = _Before.of(text, analysis, fix)
    edits = before.edits(fix.edits)
    if edits is None:
        before = _Before.whole(text, analysis)
        edits = fix.edits
    fixed = apply_edits(before.text, edits)
    if fixed == before.text:
        return fix, None
    found, facts = analysed(fixed, replace(analysis, line_label=before.fixed_label(edits, fixed)))
    try:
        added = _added_finding(before, found)
        if added is not None:
            return None, NOT_OFFERED + added
        if before.facts is None or facts is None:
            return fix, None
        judge = _Judge(before, fixed, facts, edits, analysis)
        dropped, unsafe = judge.run()
        if dropped is not None:
            return None, NOT_OFFERED + dropped
        if unsafe is not None and fix.applicability == Applicability.SAFE:
            return replace(fix, applicability=Applicability.UNSAFE), UNSAFE + unsafe
        return fix, None
    finally:
        if facts is not None:
            facts.release()


# --- the text before the fix -------------------------------------------------------------------

@dataclass
class _Before:
    text: str  # the text the fix is applied to: the analysed text, or its statements the fix concerns
    findings: tuple[Violation, ...]
    facts: Any
    label: Any  # 1-based line of `text` -> how messages name it (the analysed text's lines)
    lines: list[int] | None = None  # the analysed text's 0-based line of each line of `text` (None: the same)
    outer: Any = None  # how messages name the analysed text's lines (when `lines` is set)

    def edits(self, edits: Iterable[Edit]) -> tuple[Edit, ...] | None:
        """The fix's edits in this text's lines (None when one falls outside it)."""
        if self.lines is None:
            return tuple(edits)
        here = {line: index for index, line in enumerate(self.lines)}

        def moved(position: Position, is_end: bool) -> Position | None:
            line = here.get(position.line)
            if line is not None:
                return Position(line, position.column)
            before = here.get(position.line - 1)
            if is_end and position.column == 0 and before is not None:
                return Position(before + 1, 0)  # the end of the line before
            return None

        out = []
        for edit in edits:
            start, end = moved(edit.range.start, False), moved(edit.range.end, True)
            if start is None or end is None:
                return None
            out.append(Edit(Range(start, end), edit.new_text))
        return tuple(out)

    def fixed_label(self, edits: tuple[Edit, ...], fixed: str) -> Any:
        """How messages name a 1-based line of `fixed` (this text with the edits applied): as the
        line of the analysed text with the fix applied (lines after the edits move by the lines
        they add)."""
        if self.lines is None:
            return self.label
        kept, outer = self.lines, self.outer or _line
        delta = fixed.count("\n") - self.text.count("\n")
        last = max(edit.range.end.line for edit in edits) + 1  # 1-based, in this text

        def label(line: int) -> str:
            if line > last + delta and 0 < line - delta <= len(kept):
                return outer(kept[line - delta - 1] + 1 + delta)
            return outer(kept[min(max(line, 1), len(kept)) - 1] + 1)
        return label

    @classmethod
    def whole(cls, text: str, analysis: Any) -> "_Before":
        return cls(text, tuple(analysis.findings), analysis.facts, analysis.line_label)

    @classmethod
    def of(cls, text: str, analysis: Any, fix: Fix) -> "_Before":
        if not analysis.parsed or analysis.facts is None:
            return cls.whole(text, analysis)
        included = _included(text, analysis.facts, fix)
        if included is None:
            return cls.whole(text, analysis)
        memo = analysis.facts.__dict__.setdefault("_fix_check_before", {})
        found = memo.get(included)
        if found is None:
            from ..engine import analysed

            kept, compact = _compact(text, analysis.facts, included)
            outer = analysis.line_label or (lambda line: f"line {line}")

            def label(line: int) -> str:
                return outer(kept[line - 1] + 1 if 0 < line <= len(kept) else line)

            findings, facts = analysed(compact, replace(analysis, line_label=label))
            found = cls(compact, tuple(findings), facts, label, kept, analysis.line_label)
            if len(memo) >= 8:
                memo.clear()
            memo[included] = found
        return found


def _line(line: int) -> str:
    return f"line {line}"


def _chunks(text: str, facts: Any) -> tuple[list[str], list[str], list[Any]]:
    """The text's lines, their line endings, and its top-level statements (incremental.chunks)."""
    from ..incremental.chunks import chunks_of

    memo = facts.__dict__.get("_fix_check_chunks")
    if memo is None or memo[0] is not text:
        pieces = re.split(r"(\r\n|\r|\n)", text)
        lines, endings = pieces[0::2], pieces[1::2] + [""]
        memo = (text, lines, endings, chunks_of(facts.tree.body, lines, 0))
        facts.__dict__["_fix_check_chunks"] = memo
    return memo[1], memo[2], memo[3]


def _included(text: str, facts: Any, fix: Fix) -> frozenset[int] | None:
    """The chunks (top-level statements) the fix edits and those tied to them by names, with the
    shared ones (imports), or None to check on the whole text."""
    from ..incremental.checker import _closure

    lines, _endings, chunks = _chunks(text, facts)
    if len(chunks) < 3:
        return None
    first = min(edit.range.start.line for edit in fix.edits)
    last = max(edit.range.end.line for edit in fix.edits)
    seeds = {i for i, c in enumerate(chunks) if c.start <= last + 1 and c.end >= first}
    if not seeds:
        return None
    included = _closure(chunks, seeds) | {i for i, c in enumerate(chunks) if c.shared}
    kept = sum(chunks[i].end - chunks[i].start for i in included)
    if kept > _WHOLE_SHARE * max(len(lines), 1):
        return None
    return frozenset(included)


def _compact(text: str, facts: Any, included: frozenset[int]) -> tuple[list[int], str]:
    """The lines of the included chunks, each with the lines after it up to the next chunk (and
    the lines before the first chunk), as one text: which lines, and the text."""
    lines, endings, chunks = _chunks(text, facts)
    kept: list[int] = []
    for index in sorted(included):
        start = 0 if index == 0 else chunks[index].start
        end = chunks[index + 1].start if index + 1 < len(chunks) else len(lines)
        kept.extend(range(start, end))
    return kept, "".join(lines[line] + endings[line] for line in kept)


# --- findings the fix adds ---------------------------------------------------------------------

def _added_finding(before: _Before, after: Iterable[Violation]) -> str | None:
    """A finding of the fixed text of a rule that has more findings there than before."""
    def counted(found: Iterable[Violation]) -> Counter[str]:
        return Counter(v.code for v in found if not v.code.startswith("TL"))

    old, new = counted(before.findings), counted(after)
    for code in sorted(new):
        if new[code] > old[code]:
            seen = {_shape(v.message) for v in before.findings if v.code == code}
            found = [v for v in after if v.code == code]
            shown = next((v for v in found if _shape(v.message) not in seen), found[-1])
            message = shown.message if len(shown.message) <= 160 else shown.message[:157] + "..."
            label = before.label or _line
            return (f"the fixed code would be reported by {code} on {label(shown.range.start.line + 1)} "
                    f"({message})")
    return None


def _shape(message: str) -> str:
    """A message without its numbers (the lines it names move with the fix)."""
    return "".join("#" if ch.isdigit() else ch for ch in message)


# --- values before and after ---------------------------------------------------------------------

def _numpy_only() -> frozenset[str]:
    from ..analysis import library

    return frozenset(row.name.split(".", 1)[1] for row in library.rows()
                     if row.name.startswith("@tensor.") and row.has("numpy_only") and not row.attribute)


_NUMPY_ONLY: frozenset[str] | None = None
_FAMILIES = {"tensor": "tensorflow", "variable": "tensorflow", "tfp_variable": "tensorflow",
             "ndarray": "numpy", "np_scalar": "numpy", "number": "python number"}
_KIND_WORDS = {"tensor": "a tf.Tensor", "variable": "a tf.Variable", "tfp_variable": "a TFP variable",
               "ndarray": "a NumPy array", "np_scalar": "a NumPy scalar", "number": "a Python number"}
_AGNOSTIC_ATTRS = frozenset({"shape", "dtype", "ndim", "numpy", "get_shape", "set_shape", "device"})
_VARIABLE_USES = frozenset({"assign", "assign_add", "assign_sub", "scatter_update", "scatter_add",
                            "scatter_sub", "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub"})


def _kind(value: Any) -> str:
    return _KIND_WORDS.get(value.kind, value.kind)


class _Judge:
    """Compares the value model's answers for what the fix touches, before and after."""

    def __init__(self, before: _Before, fixed: str, facts: Any, edits: tuple[Edit, ...], analysis: Any) -> None:
        from ..analysis.values import values_of

        global _NUMPY_ONLY
        if _NUMPY_ONLY is None:
            _NUMPY_ONLY = _numpy_only()
        self.before, self.after = before.facts, facts
        self.old = values_of(before.facts, analysis.targets, analysis.project, analysis.path)
        self.new = values_of(facts, analysis.targets, analysis.project, analysis.path)
        self.label = before.label or _line
        old_starts, new_starts = line_starts(before.text), line_starts(fixed)
        self._old_starts, self._new_starts = old_starts, new_starts
        # Each edit as (start, end) in the old text and (start, end) in the new one.
        spans = []
        delta = 0
        for edit in sorted(edits, key=lambda e: (e.range.start, e.range.end)):
            start = _offset(old_starts, edit.range.start.line, edit.range.start.column)
            end = _offset(old_starts, edit.range.end.line, edit.range.end.column)
            spans.append((start, end, start + delta, start + delta + len(edit.new_text)))
            delta += len(edit.new_text) - (end - start)
        self.spans = spans
        self._old_nodes: dict[tuple, ast.AST] | None = None

    # -- positions --------------------------------------------------------------------------
    def _span(self, facts: Any, starts: list[int], node: ast.AST) -> tuple[int, int]:
        rng = facts.source.node_range(node)
        return _offset(starts, rng.start.line, rng.start.column), _offset(starts, rng.end.line, rng.end.column)

    def new_span(self, node: ast.AST) -> tuple[int, int]:
        return self._span(self.after, self._new_starts, node)

    def old_span(self, node: ast.AST) -> tuple[int, int]:
        return self._span(self.before, self._old_starts, node)

    def touches(self, span: tuple[int, int]) -> bool:
        return any(span[0] <= new_end and new_start <= span[1] for _s, _e, new_start, new_end in self.spans)

    def inside(self, span: tuple[int, int]) -> bool:
        return any(new_start <= span[0] and span[1] <= new_end for _s, _e, new_start, new_end in self.spans)

    def to_old(self, offset: int, is_end: bool) -> int | None:
        """Where a node's start (or end) in the fixed text was in the old text; None inside new text."""
        delta = 0
        for start, end, new_start, new_end in self.spans:
            if offset < new_start or (offset == new_start and is_end):
                break
            if offset > new_end or (offset == new_end and not is_end):
                delta = end - new_end
                continue
            return None
        return offset + delta

    def around(self, offset: int, is_end: bool) -> int:
        """Like `to_old`, but an offset inside new text gives the start (or end) of what it replaced."""
        delta = 0
        for start, end, new_start, new_end in self.spans:
            if offset < new_start:
                break
            if offset <= new_end:
                return end if is_end else start
            delta = end - new_end
        return offset + delta

    def _old_by_line(self) -> dict[int, list[ast.expr]]:
        if self._old_nodes is None:
            self._old_nodes = {}
            for old in ast.walk(self.before.tree):
                if isinstance(old, ast.expr):
                    self._old_nodes.setdefault(old.lineno, []).append(old)  # type: ignore[arg-type]
        return self._old_nodes  # type: ignore[return-value]

    def old_node(self, node: ast.AST) -> ast.AST | None:
        """The node of the text before the fix that `node` (of the fixed text) was."""
        start, end = self.new_span(node)
        old_start, old_end = self.to_old(start, False), self.to_old(end, True)
        if old_start is None or old_end is None:
            return None
        line = bisect.bisect_right(self._old_starts, old_start)  # 1-based
        for old in self._old_by_line().get(line, ()):
            if type(old) is type(node) and self.old_span(old) == (old_start, old_end):
                return old
        return None

    def old_node_covering(self, node: ast.expr) -> ast.AST | None:
        """The smallest expression of the text before the fix that held what `node` replaced."""
        start, end = self.new_span(node)
        old_start, old_end = self.around(start, False), self.around(end, True)
        return _smallest(self.before.tree, self.old_span, self._old_starts, old_start, old_end)

    def line(self, node: ast.AST) -> str:
        return self.label(getattr(node, "lineno", 0))

    # -- the checks -------------------------------------------------------------------------
    def run(self) -> tuple[str | None, str | None]:
        """(why the fix is not offered, why it is unsafe)."""
        parents = _parents(self.after.tree)
        touched = self._touched_names()
        unsafe = None
        # A NumPy-only method on a TensorFlow value the fix made or touched.
        for call in ast.walk(self.after.tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in _NUMPY_ONLY):  # type: ignore[operator]
                continue
            receiver = call.func.value
            near = self.touches(self.new_span(receiver)) or (isinstance(receiver, ast.Name) and receiver.id in touched)
            if not near:
                continue
            value = self.new.value(receiver)
            if value.kind not in _TF:
                continue
            old = self.old_node(receiver)
            if old is not None and self.old.value(old).kind in _TF:
                continue  # it was called on a tensor before the fix too
            return (f"`{_short(call)}` on {self.line(call)} would call `.{call.func.attr}()` on "
                    f"{_kind(value)}, which has no such method (NumPy arrays do)"), None
        # What the edited expressions give: a tensor must not become NumPy data.
        for node in self._replaced():
            old = self.old_node_covering(node)
            if old is None:
                continue
            was, now = self.old.value(old), self.new.value(node)
            if was.kind in _TF and now.kind in _NUMPY:
                return (f"`{_short(node)}` on {self.line(node)} would be {_kind(now)}, where the code had "
                        f"{_kind(was)}"), None
        # Uses of the names the fix binds, and of the names assigned from them.
        pending = list(touched)
        seen_names = set(pending)
        looked = 0
        loads = _loads(self.after.tree)
        while pending and looked < _MAX_USES:
            name = pending.pop()
            for use in loads.get(name, ()):
                looked += 1
                span = self.new_span(use)
                if self.touches(span):
                    continue
                old = self.old_node(use)
                if old is None or not isinstance(old, ast.Name) or old.id != name:
                    continue
                was, now = self.old.value(old), self.new.value(use)
                verdict = self._compare(name, use, was, now, parents)
                if verdict is None:
                    continue
                dropped, why, assigned = verdict
                if dropped:
                    return why, None
                if why is not None and unsafe is None:
                    unsafe = why
                for target in assigned:
                    if target not in seen_names and len(seen_names) < _MAX_NAMES:
                        seen_names.add(target)
                        pending.append(target)
        return None, unsafe

    def _compare(self, name: str, use: ast.Name, was: Any, now: Any,
                 parents: dict[int, ast.AST]) -> tuple[bool, str | None, list[str]] | None:
        """(not offered?, why, names assigned from this use) for a use whose value changed, else
        None (the same value, or too little known on one side)."""
        if not was.known or not now.known:
            return None
        family_was, family_now = _FAMILIES.get(was.kind, was.kind), _FAMILIES.get(now.kind, now.kind)
        kind_changed = family_was != family_now
        dtype_changed = was.dtype is not None and now.dtype is not None and was.dtype != now.dtype
        lost_variable = was.kind == "variable" and now.kind != "variable"
        if not (kind_changed or dtype_changed or lost_variable):
            return None
        where = f"`{name}` on {self.line(use)}"
        if family_was == "tensorflow" and family_now == "numpy":
            return True, f"{where} would be {_kind(now)}, where the code had {_kind(was)}", []
        context, assigned, partner = _context(use, parents, self.tensorflow_call)
        if lost_variable and context == "variable":
            return True, f"{where} is updated as a variable, and would be {_kind(now)}", []
        if context in ("tensorflow", "assigned") and not kind_changed and dtype_changed and partner is not None:
            other = self.new.value(partner)
            if other.kind in _TF and other.dtype is not None and other.dtype != now.dtype and now.kind in _TF:
                return True, (f"{where} would be a {now.dtype} tensor, and the code combines it with "
                              f"`{_short(partner)}`, a {other.dtype} one"), []
        if context in ("tensorflow", "assigned"):
            return False, None, assigned
        change = (f"{_kind(was)} to {_kind(now)}" if kind_changed
                  else f"{was.dtype} to {now.dtype}" if dtype_changed else f"{_kind(was)} to {_kind(now)}")
        return False, f"{where} changes from {change}, and the code there may depend on it", assigned

    def tensorflow_call(self, call: ast.Call) -> bool:
        """Does `call` hand its arguments to TensorFlow (a TensorFlow or Keras function, not one
        that calls Python back; a method of a tape, a model, an optimizer...; a tf.function)?"""
        from ..analysis import library

        qualname = self.after.imports.resolve(call.func) or ""
        if qualname.startswith(("tensorflow.", "keras.", "tf_keras.")):
            api = library.api(qualname)
            return api is None or not api.py_callback
        value = self.new.value(call.func)
        if value.kind == "method":
            receiver = value.ref
            return getattr(receiver, "kind", None) in _TF_OBJECTS
        return value.kind in _TF_CALLABLES

    def _touched_names(self) -> set[str]:
        """Names bound in the edited code, before or after the fix."""
        names: set[str] = set()
        new_lines = [(bisect.bisect_right(self._new_starts, ns), bisect.bisect_right(self._new_starts, ne))
                     for _s, _e, ns, ne in self.spans]
        old_lines = [(bisect.bisect_right(self._old_starts, s), bisect.bisect_right(self._old_starts, e))
                     for s, e, _ns, _ne in self.spans]
        old_spans = [(start, end) for start, end, _ns, _ne in self.spans]
        for tree, lines, inside in ((self.after.tree, new_lines, lambda n: self.inside(self.new_span(n))),
                                    (self.before.tree, old_lines, lambda n: any(
                                        s <= self.old_span(n)[0] and self.old_span(n)[1] <= e for s, e in old_spans))):
            for node in ast.walk(tree):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) \
                        and any(a <= node.lineno <= b for a, b in lines) and inside(node):
                    names.add(node.id)
        # The names an assignment binds when the edit changes its value (`z = y.numpy()` -> `z = y`).
        for _s, _e, new_start, new_end in self.spans:
            line = bisect.bisect_right(self._new_starts, new_start)
            for stmt in ast.walk(self.after.tree):
                if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) or stmt.value is None \
                        or not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                    continue
                value = self.new_span(stmt.value)
                if value[0] <= new_start and new_end <= value[1]:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        return names

    def _replaced(self) -> list[ast.expr]:
        """For each edit, the smallest expression of the fixed text that holds all of its new text."""
        found = []
        for _start, _end, new_start, new_end in self.spans:
            node = _smallest(self.after.tree, self.new_span, self._new_starts, new_start, new_end)
            if node is not None:
                found.append(node)
        return found


def _smallest(tree: ast.AST, span_of, starts: list[int], begin: int, end: int) -> ast.expr | None:
    """The smallest expression of `tree` whose span holds [begin, end]."""
    first = bisect.bisect_right(starts, begin)  # 1-based lines
    last = bisect.bisect_right(starts, end)
    best = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.expr) or node.lineno > first or (node.end_lineno or node.lineno) < last:
            continue
        span = span_of(node)
        if span[0] <= begin and end <= span[1] and (best is None or span[1] - span[0] < best[0][1] - best[0][0]):
            best = (span, node)
    return best[1] if best is not None else None


_TF = frozenset({"tensor", "variable", "tfp_variable"})
_TF_OBJECTS = frozenset({"tensor", "variable", "tfp_variable", "tape", "optimizer", "model", "layer", "loss",
                         "metric", "module", "dataset", "distribution", "bijector", "linear_operator"})
_TF_CALLABLES = frozenset({"model", "layer", "loss", "metric", "tf_function", "distribution", "bijector"})
_NUMPY = frozenset({"ndarray", "np_scalar"})


def _offset(starts: list[int], line: int, column: int) -> int:
    if line >= len(starts):
        return starts[-1]
    return starts[line] + column


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    out: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def _loads(tree: ast.AST) -> dict[str, list[ast.Name]]:
    out: dict[str, list[ast.Name]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.setdefault(node.id, []).append(node)
    for uses in out.values():
        uses.sort(key=lambda n: (n.lineno, n.col_offset))
    return out


def _context(use: ast.expr, parents: dict[int, ast.AST], tensorflow_call: Any) -> tuple[str, list[str], ast.expr | None]:
    """How the code uses a value: "tensorflow" (an operand of TensorFlow ops or arithmetic, its
    `.shape`), "assigned" (to names, whose own uses tell), "variable" (updated as a variable),
    or "other"; the names it is assigned to; the other operand of the arithmetic it is in."""
    node: ast.AST = use
    partner = None
    arithmetic = False
    while True:
        parent = parents.get(id(node))
        if parent is None:
            return "other", [], partner
        if isinstance(parent, ast.BinOp):
            partner = parent.right if parent.left is node else parent.left
            arithmetic = True
            node = parent
            continue
        if isinstance(parent, ast.UnaryOp):
            node = parent
            continue
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
            node = parent
            continue
        break
    if isinstance(parent, ast.Attribute) and parent.value is node:
        if parent.attr in _VARIABLE_USES:
            return "variable", [], partner
        if parent.attr in _AGNOSTIC_ATTRS:
            return "tensorflow", [], partner
        return "other", [], partner
    if isinstance(parent, (ast.Call, ast.keyword)):
        call = parents.get(id(parent)) if isinstance(parent, ast.keyword) else parent
        if isinstance(call, ast.Call) and call.func is not node:
            if isinstance(parent, ast.keyword) and parent.arg in ("dtype", "seed", "name"):
                return "other", [], partner
            if isinstance(call.func, ast.Attribute) and call.func.attr in ("apply_gradients", "minimize"):
                return "variable", [], partner
            if tensorflow_call(call):
                return "tensorflow", [], partner
        return "other", [], partner
    if isinstance(parent, (ast.List, ast.Tuple)):
        grand = parents.get(id(parent))
        if isinstance(grand, ast.Call) and isinstance(grand.func, ast.Name) and grand.func.id == "zip":
            outer = parents.get(id(grand))
            if isinstance(outer, ast.Call) and isinstance(outer.func, ast.Attribute) \
                    and outer.func.attr == "apply_gradients":
                return "variable", [], partner
        return "other", [], partner
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and getattr(parent, "value", None) is node:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        if names and all(isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in targets):
            return "assigned", names, partner
        return "other", names, partner
    if isinstance(parent, ast.Compare) and arithmetic is False:
        return "other", [], partner
    return "other", [], partner


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["NOT_OFFERED", "UNSAFE", "verify"]
