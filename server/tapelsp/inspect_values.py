"""What tapelsp thinks a name holds: the value model made visible (hover, `tapelsp --values`).

`describe_at(text, line, column)` describes the name or attribute chain under a 0-based
position, `describe_lines(text, lines)` every name a statement on those 1-based lines binds or
reads, for example:

    `grid`: tf.Tensor float32, eager, made on line 4 from plain data; not watched by `tape`

Both parse the text themselves (the stdlib `ast`), build the file's facts and ask the value
model (analysis/values.py); they never import TensorFlow. Notebooks pass their joined program
and a `line_label` that names cells.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable

from .analysis.values import BUILTIN, CLASS, FUNCTION, LIBRARY, METHOD, TENSOR, VARIABLE, Value, describe, values_of
from .facts.build import build
from .facts.names import dotted
from .text import SourceText


@dataclass(frozen=True)
class Described:
    line: int  # 1-based
    column: int  # 0-based, code points
    end_column: int
    name: str
    text: str  # "`x`: tf.Tensor float32, eager, made on line 4"


def _facts(text: str, line_label: Callable[[int], str] | None):
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return build(tree, SourceText(text), line_label)


def describe_at(text: str, line: int, column: int, *, path: str | None = None, project: Any = None,
                targets: Any = None, line_label: Callable[[int], str] | None = None) -> Described | None:
    """The name (or `a.b.c`) under the 0-based (line, column), with what it holds; None when
    there is no name there or the text does not parse."""
    facts = _facts(text, line_label)
    if facts is None:
        return None
    node = _name_at(facts.tree, line + 1, column)
    if node is None:
        return None
    values = values_of(facts, targets, project, path)
    return _described(values, facts, node, skip_references=True)


def describe_lines(text: str, lines: set[int] | None = None, *, path: str | None = None, project: Any = None,
                   targets: Any = None, line_label: Callable[[int], str] | None = None) -> list[Described]:
    """Every name bound or read on the given 1-based lines (all lines when None), in order."""
    facts = _facts(text, line_label)
    if facts is None:
        return []
    values = values_of(facts, targets, project, path)
    found: list[Described] = []
    seen: set[tuple[int, int]] = set()
    for node in ast.walk(facts.tree):
        if not isinstance(node, (ast.Name, ast.Attribute)) or dotted(node) is None:
            continue
        if lines is not None and node.lineno not in lines:
            continue
        if isinstance(node, ast.Attribute) and facts.imports.resolve(node) is not None:
            continue  # `tf.reduce_sum`: a library name, not a value
        if isinstance(node, ast.Name) and node.id in facts.imports.names:
            continue
        key = (node.lineno, node.col_offset)
        if key in seen:
            continue
        seen.add(key)
        described = _described(values, facts, node, skip_references=True)
        if described is not None:
            found.append(described)
    found.sort(key=lambda d: (d.line, d.column, -d.end_column))
    return found


def _described(values, facts, node: ast.expr, skip_references: bool = False) -> Described | None:
    name = dotted(node)
    if name is None:
        return None
    if isinstance(getattr(node, "ctx", None), ast.Store):
        value = _stored(values, facts, node)
    else:
        value = values.value(node)
    if skip_references and value.kind in (METHOD, LIBRARY, BUILTIN, FUNCTION, CLASS):
        return None  # names of code, not values
    text = f"`{name}`: {describe(value, facts.line_label)}"
    watched = _watch_note(values, facts, node, name, value)
    if watched:
        text += f"; {watched}"
    return Described(node.lineno, node.col_offset, node.end_col_offset or node.col_offset, name, text)


def _stored(values, facts, node: ast.expr) -> Value:
    """The value a name gets where it is bound (`x = ...`, `for x in ...`)."""
    from .facts.dataflow import flow_of

    scope = values.scope_at(node)
    flow = flow_of(facts, scope)
    name = dotted(node) or ""
    for d in flow.definitions(name):
        if d.stmt.lineno <= node.lineno <= (d.stmt.end_lineno or d.stmt.lineno) and (
                d.kind != "param" or isinstance(node, ast.arg)):
            return values.definition(d, name, scope)
    return values.value(node)


def _watch_note(values, facts, node: ast.expr, name: str, value: Value) -> str:
    """For a tensor asked for gradients: whether the tape asked watches it."""
    if value.kind not in (TENSOR, VARIABLE) or not value.certain:
        return ""
    from .analysis.gradcalls import gradient_calls, watch_position

    notes = []
    for call in gradient_calls(facts):
        sources = call.sources
        if sources is None:
            continue
        elements = sources.elts if isinstance(sources, (ast.List, ast.Tuple)) else [sources]
        if not any(dotted(e) == name for e in elements):
            continue
        if value.kind == VARIABLE:
            if value.trainable is False:
                notes.append(f"not watched by `{call.name}` (not trainable)")
            continue
        watched = watch_position(facts, call, name)
        if watched is False:
            notes.append(f"not watched by `{call.name}`")
        elif watched:
            notes.append(f"watched by `{call.name}`")
    return "; ".join(dict.fromkeys(notes))


def _name_at(tree: ast.AST, line: int, column: int) -> ast.expr | None:
    """The innermost name or attribute chain covering (1-based line, column); on `a.b.c`, the
    chain up to the part under the cursor."""
    best: ast.expr | None = None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        if node.lineno != line or (node.end_lineno or node.lineno) != line:
            continue
        start = node.col_offset
        end = node.end_col_offset or start
        if isinstance(node, ast.Attribute):
            start = end - len(node.attr)  # the attribute's own name
        if start <= column <= end and dotted(node) is not None:
            if best is None or (end - start) < ((best.end_col_offset or 0) - best.col_offset):
                best = node
    return best
