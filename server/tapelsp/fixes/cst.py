"""libcst plumbing for fix builders: parse once per text, find nodes by position, rewrite, diff.

Fix builders decide on the stdlib `ast` (what the rules already have) and rewrite with
libcst, which keeps every comment and every byte of formatting it is not asked to change.
The rewritten module's code is diffed against the original into minimal edits
(`edits.text_edits`), so lines a fix does not touch are never part of its edits.

Importing this module imports libcst: rules import it inside their fix builders only.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, field
from typing import Callable, Mapping, Union

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

import ast

from ..model import Applicability, Edit, Fix, Position, Range
from .edits import newline_of, text_edits, with_newline
from .per_source import lines_keepends, statement_spans

Replacement = Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel]
Change = Callable[[cst.CSTNode], Replacement]


class FixNotPossible(Exception):
    """The builder found a reason not to offer a fix (it returns None instead of raising this)."""


@dataclass
class Parsed:
    """A libcst module of `text`: a whole file, or the region of whole lines starting at file
    line `offset` (positions given to and returned by this object are the file's)."""

    text: str
    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    parents: Mapping[cst.CSTNode, cst.CSTNode]
    offset: int = 0
    # The line ending of the original text (libcst itself sees `\n` only).
    file_newline: str = "\n"
    _by_range: dict[tuple[int, int, int, int], list[cst.CSTNode]] | None = field(default=None, repr=False)

    def range_of(self, node: cst.CSTNode) -> Range:
        code = self.positions[node]
        return Range(Position(code.start.line - 1 + self.offset, code.start.column),
                     Position(code.end.line - 1 + self.offset, code.end.column))

    def at(self, rng: Range, *types: type) -> cst.CSTNode:
        """The node of one of `types` spanning exactly `rng` (the innermost, when several do)."""
        if self._by_range is None:
            index: dict[tuple[int, int, int, int], list[cst.CSTNode]] = {}
            for node, code in self.positions.items():
                key = (code.start.line - 1, code.start.column, code.end.line - 1, code.end.column)
                index.setdefault(key, []).append(node)
            self._by_range = index
        key = (rng.start.line - self.offset, rng.start.column, rng.end.line - self.offset, rng.end.column)
        found = [node for node in self._by_range.get(key, ()) if not types or isinstance(node, types)]
        if not found:
            names = "/".join(t.__name__ for t in types) or "node"
            raise LookupError(f"no {names} at line {rng.start.line + 1}, column {rng.start.column + 1}")
        # Nested nodes can share a range (an expression statement and its expression): the deepest.
        return max(found, key=self.depth)

    def depth(self, node: cst.CSTNode) -> int:
        depth = 0
        while node in self.parents:
            node = self.parents[node]
            depth += 1
        return depth

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode):
        current = self.parents.get(node)
        while current is not None:
            yield current
            current = self.parents.get(current)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def statement(self, text: str) -> cst.BaseStatement:
        """A statement parsed with this module's indentation and line ending."""
        return cst.parse_statement(text, config=self.module.config_for_parsing)

    @property
    def newline(self) -> str:
        return self.module.default_newline

    @property
    def indent(self) -> str:
        return self.module.default_indent


@functools.lru_cache(maxsize=8)
def parse(text: str, offset: int = 0) -> Parsed:
    """The libcst module of `text` with positions and parents (cached: several fixes of one file
    share it; libcst trees are immutable).

    libcst sees the text with `\n` line endings (it does not keep a lone `\r`): positions
    are the same, and `apply_edits` writes new lines with the file's own line ending."""
    file_newline = newline_of(text)
    text = with_newline(text, "\n")
    module = cst.parse_module(text)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    resolved = wrapper.resolve_many([PositionProvider, ParentNodeProvider])
    return Parsed(text, module, resolved[PositionProvider], resolved[ParentNodeProvider], offset, file_newline)


def parse_region(text: str, tree: ast.Module, nodes: list[ast.AST], *, with_previous: bool = False) -> Parsed:
    """libcst for just the top-level statements of the file that hold `nodes` (with the blank
    lines and comments above them; with the statement before them too when `with_previous`).

    libcst with positions costs about 30 times what `ast` does; a fix only needs the part of
    the file it rewrites, so big files stay cheap. The region is valid Python on its own: it
    is a run of whole top-level statements.
    """
    body = tree.body
    if not body or not nodes:
        return parse(text)

    spans = statement_spans(tree)

    def index_of(line: int) -> int:
        if spans.ordered:
            # The first statement spanning `line`: those starting at or before it end a run
            # (up to `last`), those ending at or after it start one (from `first`).
            last = bisect.bisect_right(spans.firsts, line) - 1
            first = bisect.bisect_left(spans.lasts, line)
            if first <= last:
                return first
            raise LookupError(f"no top-level statement at line {line}")
        for index, stmt in enumerate(body):
            if _first_line(stmt) <= line <= (stmt.end_lineno or stmt.lineno):
                return index
        raise LookupError(f"no top-level statement at line {line}")

    first = index_of(min(getattr(n, "lineno", 1) for n in nodes))
    last = index_of(max(getattr(n, "end_lineno", None) or getattr(n, "lineno", 1) for n in nodes))
    if with_previous and first > 0:
        first -= 1
    # Statements sharing a line (`a = 1; b = 2`) go together.
    while first > 0 and (body[first - 1].end_lineno or 0) >= _first_line(body[first]):
        first -= 1
    while last + 1 < len(body) and _first_line(body[last + 1]) <= (body[last].end_lineno or 0):
        last += 1
    start = (body[first - 1].end_lineno or 0) if first > 0 else 0  # 0-based: the line after the one before
    end = body[last].end_lineno or body[last].lineno  # 0-based exclusive
    lines = lines_keepends(text)
    if start == 0 and end >= len(lines):
        return parse(text)
    return parse("".join(lines[start:end]), start)


def _first_line(stmt: ast.stmt) -> int:
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])


class _Rewrite(cst.CSTTransformer):
    def __init__(self, changes: Mapping[int, Change]) -> None:
        super().__init__()
        self.changes = changes
        self.done: set[int] = set()

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        change = self.changes.get(id(original_node))
        if change is None:
            return updated_node
        self.done.add(id(original_node))
        return change(updated_node)


def rewrite(parsed: Parsed, changes: Mapping[cst.CSTNode, Change]) -> str:
    """The module's code with each node in `changes` replaced by `change(updated node)`
    (children are rewritten first, so changes can nest)."""
    by_id = {id(node): change for node, change in changes.items()}
    transformer = _Rewrite(by_id)
    new_module = parsed.module.visit(transformer)
    missed = set(by_id) - transformer.done
    if missed:
        raise LookupError(f"{len(missed)} node(s) to change were not reached")
    return new_module.code


def make_fix(parsed: Parsed, new_code: str, title: str, applicability: Applicability) -> Fix | None:
    """The fix turning the parsed text (the file, or its region) into `new_code`, in file positions."""
    edits = text_edits(parsed.text, new_code)
    if parsed.offset or parsed.file_newline != "\n":
        edits = tuple(Edit(Range(Position(e.range.start.line + parsed.offset, e.range.start.column),
                                 Position(e.range.end.line + parsed.offset, e.range.end.column)),
                           with_newline(e.new_text, parsed.file_newline))
                      for e in edits)
    return Fix(title, applicability, edits) if edits else None


def rename_at(parsed: Parsed, ranges: list[Range], new_name: str) -> dict[cst.CSTNode, Change]:
    """Changes renaming the Name nodes at `ranges` to `new_name`."""
    changes: dict[cst.CSTNode, Change] = {}
    for rng in ranges:
        node = parsed.at(rng, cst.Name)
        changes[node] = lambda updated, name=new_name: updated.with_changes(value=name)  # type: ignore[attr-defined]
    return changes


def blank_lines_then_rest(lines: tuple[cst.EmptyLine, ...] | list[cst.EmptyLine]
                          ) -> tuple[list[cst.EmptyLine], list[cst.EmptyLine]]:
    """Leading lines split into the blank lines before the first comment, and the rest."""
    lines = list(lines)
    for index, line in enumerate(lines):
        if line.comment is not None:
            return lines[:index], lines[index:]
    return lines, []
