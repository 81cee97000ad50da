"""Top-level statements as the units of incremental analysis, and the names that tie them.

A chunk is one top-level statement (a def or class with its decorators, an import, an
assignment, a whole `if`/`for`/`with` block), or several when they share a line. What a
chunk's findings can depend on outside itself reaches it through names: a name it uses that
another chunk binds (a helper, a tf.function wrapper, a module-level tape or variable) or a
name it binds that another chunk uses or binds again. Both sets are over-approximated (every
identifier-like word of a def's text counts as used), which can only make more chunks count
as related, never fewer.

Imports and the statements that switch TensorFlow's mode for the whole file (`disable_eager_
execution()`, `run_functions_eagerly(True)`, a `Session`...) are `shared`: every partial
analysis includes them, and an edit to one makes the next analysis a whole one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Calls whose presence anywhere changes how rules read the whole file (TensorFlow 1 mode
# markers, eager switches, graph-mode sessions: see facts/build.py and analysis/guards.py).
_FILE_WIDE = re.compile(
    r"\b(?:disable_eager_execution|enable_eager_execution|disable_v2_behavior|enable_v2_behavior|"
    r"disable_control_flow_v2|enable_control_flow_v2|Session|InteractiveSession|placeholder|"
    r"run_functions_eagerly|get_default_graph|Graph|experimental_enable_numpy_behavior|__future__)\b")


@dataclass(frozen=True)
class Chunk:
    start: int  # 0-based first line (its first decorator's, for a decorated def or class)
    end: int  # 0-based line after its last
    binds: frozenset[str]
    uses: frozenset[str]
    shared: bool

    def moved(self, delta: int) -> "Chunk":
        return Chunk(self.start + delta, self.end + delta, self.binds, self.uses, self.shared)


def first_line(stmt: ast.stmt) -> int:
    """1-based first line of a top-level statement, its decorators included."""
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno] + [d.lineno for d in decorators]) if decorators else stmt.lineno


def chunks_of(body: list[ast.stmt], lines: list[str], offset: int) -> list[Chunk]:
    """The chunks of a module body parsed from `lines`, whose line 1 is the file's line
    `offset + 1` (so that a region of a file can be parsed on its own)."""
    groups: list[list[ast.stmt]] = []
    last_end = -1
    for stmt in body:
        start = first_line(stmt) - 1
        if groups and start < last_end:
            groups[-1].append(stmt)  # `a = 1; b = 2`: one line, one chunk
        else:
            groups.append([stmt])
        last_end = max(last_end, stmt.end_lineno or stmt.lineno)
    found = []
    for group in groups:
        start = first_line(group[0]) - 1
        end = max(stmt.end_lineno or stmt.lineno for stmt in group)
        text = "\n".join(lines[start:end])
        binds: set[str] = set()
        uses: set[str] = set()
        shared = _FILE_WIDE.search(text) is not None
        for stmt in group:
            shared = _names(stmt, text, binds, uses) or shared
        found.append(Chunk(start + offset, end + offset, frozenset(binds), frozenset(uses), shared))
    return found


def _names(stmt: ast.stmt, text: str, binds: set[str], uses: set[str]) -> bool:
    """Add what `stmt` binds at module level and uses; True for an import."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        binds.add(stmt.name)
        if "global" in text:
            binds.update(name for node in ast.walk(stmt) if isinstance(node, ast.Global) for name in node.names)
        uses.update(WORD.findall(text))
        return False
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        binds.update(_imported(stmt))
        return True
    imports = False
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name):
            uses.add(node.id)
            if not isinstance(node.ctx, ast.Load):
                binds.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            binds.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            binds.update(_imported(node))
            imports = True
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            binds.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            binds.add(node.name)
        else:
            name = getattr(node, "name", None) or getattr(node, "rest", None)
            if isinstance(name, str):  # match patterns' captures
                binds.add(name)
    uses.update(WORD.findall(text))
    return imports


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    return [alias.asname or alias.name.split(".")[0] for alias in node.names]
