"""libcst plumbing for fix builders: parse once per text, find nodes by position, rewrite, diff.

Fix builders decide on the stdlib `ast` (what the rules already have) and rewrite with
libcst, which keeps every comment and every byte of formatting it is not asked to change.
The rewritten module's code is diffed against the original into minimal edits
(`edits.text_edits`), so lines a fix does not touch are never part of its edits.

Importing this module imports libcst: rules import it inside their fix builders only.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Mapping, Union

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from ..model import Applicability, Fix, Position, Range
from .edits import text_edits

Replacement = Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel]
Change = Callable[[cst.CSTNode], Replacement]


class FixNotPossible(Exception):
    """The builder found a reason not to offer a fix (it returns None instead of raising this)."""


@dataclass
class Parsed:
    text: str
    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    parents: Mapping[cst.CSTNode, cst.CSTNode]
    _by_range: dict[tuple[int, int, int, int], list[cst.CSTNode]] | None = field(default=None, repr=False)

    def range_of(self, node: cst.CSTNode) -> Range:
        code = self.positions[node]
        return Range(Position(code.start.line - 1, code.start.column), Position(code.end.line - 1, code.end.column))

    def at(self, rng: Range, *types: type) -> cst.CSTNode:
        """The node of one of `types` spanning exactly `rng` (the innermost, when several do)."""
        if self._by_range is None:
            index: dict[tuple[int, int, int, int], list[cst.CSTNode]] = {}
            for node, code in self.positions.items():
                key = (code.start.line - 1, code.start.column, code.end.line - 1, code.end.column)
                index.setdefault(key, []).append(node)
            self._by_range = index
        key = (rng.start.line, rng.start.column, rng.end.line, rng.end.column)
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


@functools.lru_cache(maxsize=4)
def parse(text: str) -> Parsed:
    """The libcst module of `text` with positions and parents (cached: several fixes of one file
    share it; libcst trees are immutable)."""
    module = cst.parse_module(text)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    resolved = wrapper.resolve_many([PositionProvider, ParentNodeProvider])
    return Parsed(text, module, resolved[PositionProvider], resolved[ParentNodeProvider])


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
    edits = text_edits(parsed.text, new_code)
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
