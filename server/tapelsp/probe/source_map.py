"""Lines of the checked file as the probe and the engine both see them (tapelsp side).

A `SourceMap` is one analysed unit: a .py file, or a notebook whose code cells are joined
into one program (as the engine checks it). It converts between three ways of naming a
line: the unit's own 1-based line, a runtime `Place` (file and line, or cell and line)
and a static `Violation` (0-based range, `cell` for notebooks). It also indexes what the
merge needs from the syntax tree (stdlib `ast` only): gradient calls with their receiver
and scope, tape `with` blocks, function definitions, and call expressions by line.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass

from ..model import Position, Range, Violation
from ..notebook import code_cells, join_cells
from .report import Place

TAPE_METHODS = ("gradient", "jacobian", "batch_jacobian")


@dataclass(frozen=True)
class GradientCall:
    line: int  # unit line of the call expression's start
    receiver: str | None
    method: str
    scope: int  # `def` line of the innermost function (0 for the module)
    node: ast.Call


@dataclass(frozen=True)
class TapeBlock:
    name: str
    line: int  # the `with` line
    end: int  # last line of the block
    scope: int


@dataclass(frozen=True)
class Definition:
    name: str
    line: int  # the `def` line (decorators excluded)
    first: int  # first line including decorators
    end: int


class SourceMap:
    def __init__(self, path: str, text: str, notebook: bool) -> None:
        self.path = os.path.abspath(path)
        self.notebook = notebook
        if notebook:
            cells = code_cells(text)
            self.source, self.cells = join_cells(cells)
        else:
            self.source, self.cells = text, []
        self.lines = self.source.splitlines()
        self.gradient_calls: list[GradientCall] = []
        self.tapes: list[TapeBlock] = []
        self.definitions: list[Definition] = []
        self.calls_by_line: dict[int, list[ast.Call]] = {}
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if tree is not None:
            self._index(tree)

    # -- lines ------------------------------------------------------------------------
    def unit_line(self, place: Place | None) -> int | None:
        """The unit line of a runtime place, or None when it is not in this unit."""
        if place is None:
            return None
        if self.notebook:
            if place.cell is None:
                return None
            cell = next((c for c in self.cells if c.number == place.cell), None)
            return cell.first_line + place.line if cell is not None else None
        return place.line if place.same_file(self.path) else None

    def violation_line(self, violation: Violation) -> int:
        return self._line(violation.range.start.line, violation.cell)

    def related_lines(self, violation: Violation) -> set[int]:
        return {self._line(related.range.start.line, violation.cell) for related in violation.related}

    def _line(self, zero_based: int, cell: int | None) -> int:
        if self.notebook and cell is not None:
            found = next((c for c in self.cells if c.number == cell), None)
            if found is not None:
                return found.first_line + zero_based + 1
        return zero_based + 1

    def where(self, unit_line: int) -> tuple[int | None, int]:
        """(cell number or None, 0-based line in the file or cell) of a unit line."""
        if not self.notebook:
            return None, unit_line - 1
        for cell in reversed(self.cells):
            if unit_line - 1 >= cell.first_line:
                return cell.number, unit_line - 1 - cell.first_line
        return None, unit_line - 1

    def label(self, unit_line: int) -> str:
        cell, line = self.where(unit_line)
        return f"line {line + 1} of cell {cell}" if cell is not None else f"line {line + 1}"

    def range_of(self, unit_line: int, node: ast.AST | None = None) -> tuple[int | None, Range]:
        """(cell, range) covering `node` when given (and on one cell), else the line's text."""
        cell, line = self.where(unit_line)
        text = self.lines[unit_line - 1] if 0 < unit_line <= len(self.lines) else ""
        if node is not None and getattr(node, "end_lineno", None) is not None:
            end_cell, end_line = self.where(node.end_lineno)
            if end_cell == cell:
                start_col = _column(text, node.col_offset)
                end_text = self.lines[node.end_lineno - 1]
                return cell, Range(Position(line, start_col), Position(end_line, _column(end_text, node.end_col_offset)))
        indent = len(text) - len(text.lstrip())
        return cell, Range(Position(line, indent), Position(line, len(text.rstrip())))

    def text_of(self, node: ast.AST) -> str | None:
        try:
            return ast.get_source_segment(self.source, node)
        except Exception:
            return None

    # -- syntax -----------------------------------------------------------------------
    def _index(self, tree: ast.Module) -> None:
        def visit(node: ast.AST, scope: int) -> None:
            for child in ast.iter_child_nodes(node):
                inner = scope
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    self.definitions.append(Definition(child.name, child.lineno, first, child.end_lineno or child.lineno))
                    inner = child.lineno
                elif isinstance(child, ast.Lambda):
                    inner = -(child.lineno * 1000 + child.col_offset)
                elif isinstance(child, (ast.With, ast.AsyncWith)):
                    for item in child.items:
                        if isinstance(item.optional_vars, ast.Name) and _is_tape_call(item.context_expr):
                            self.tapes.append(TapeBlock(item.optional_vars.id, child.lineno,
                                                        child.end_lineno or child.lineno, scope))
                elif isinstance(child, ast.Call):
                    self.calls_by_line.setdefault(child.lineno, []).append(child)
                    func = child.func
                    if isinstance(func, ast.Attribute) and func.attr in TAPE_METHODS:
                        receiver = func.value.id if isinstance(func.value, ast.Name) else None
                        self.gradient_calls.append(GradientCall(child.lineno, receiver, func.attr, scope, child))
                visit(child, inner)

        visit(tree, 0)

    def scope_of(self, unit_line: int) -> int:
        """The innermost function whose body holds `unit_line`, by its `def` line (0 = module)."""
        definition = self.enclosing_definition(unit_line, decorators=False)
        return definition.line if definition is not None else 0

    def enclosing_definition(self, unit_line: int, decorators: bool = True) -> Definition | None:
        found = None
        for definition in self.definitions:
            if (definition.first if decorators else definition.line) <= unit_line <= definition.end:
                if found is None or definition.end - definition.first < found.end - found.first:
                    found = definition
        return found

    def gradient_call_at(self, unit_line: int, method: str | None = None) -> GradientCall | None:
        for call in self.gradient_calls:
            if call.line == unit_line and (method is None or call.method == method):
                return call
        return None

    def call_at(self, unit_line: int, name: str | None = None) -> ast.Call | None:
        """The outermost call starting on `unit_line` (whose callee is `name`, when given)."""
        calls = self.calls_by_line.get(unit_line, [])
        for call in calls:
            if name is None or _callee_name(call) == name:
                return call
        return None


def _callee_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_tape_call(expr: ast.expr) -> bool:
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return "GradientTape" in name or name in ("GT", "Tape")


def _column(text: str, utf8_offset: int) -> int:
    """ast columns are UTF-8 byte offsets; the engine counts code points."""
    return len(text.encode("utf-8")[:utf8_offset].decode("utf-8", errors="ignore"))


__all__ = ["SourceMap", "GradientCall", "TapeBlock", "Definition", "TAPE_METHODS"]
