"""Statement-level rewrites for the GradientTape fixes, with libcst.

The rules decide on `ast` which statements a fix inserts, removes, moves or wraps;
`Rewrite` finds the matching libcst statements and applies every operation on one
block in a single pass (so a statement can leave one block and enter another in the
same fix), keeping comments and formatting of everything it does not touch.

- `Rewrite.statement(stmt)`: the libcst statement of an `ast` statement (a simple
  statement must be alone on its line);
- `insert(block, index, statements)`, `remove(statement)`, `replace(statement, ...)`,
  `move(statements, block, index)`, `wrap(statement, header)`;
- `change(node, change)`: any other node (an argument list, an expression);
- `fix(title, applicability)`: the edits, diffed against the original text.

Importing this module imports libcst: rules import it inside their fix builders only.
"""

from __future__ import annotations

import ast
import bisect
import functools
from typing import Callable, Sequence, TypeVar, Union

import libcst as cst

from ..model import Applicability, Fix
from . import cst as cstu
from .cst import FixNotPossible
from .per_source import lines_keepends, per_node, source_text, statement_spans

Block = Union[cst.IndentedBlock, cst.Module]
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef) + ((ast.Match,) if hasattr(ast, "Match") else ()) \
    + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


F = TypeVar("F", bound=Callable)


def or_none(builder: F) -> F:
    """A fix builder that returns None (no fix) where the code does not allow the rewrite
    (FixNotPossible), instead of failing."""
    @functools.wraps(builder)
    def wrapper(*args, **kwargs):
        try:
            return builder(*args, **kwargs)
        except FixNotPossible:
            return None
    return wrapper  # type: ignore[return-value]


@functools.lru_cache(maxsize=4)
def _tree(text: str) -> ast.Module:
    return ast.parse(text)


def _parse_around(text: str, nodes: list[ast.AST]) -> cstu.Parsed:
    """libcst for the innermost function holding `nodes` when it is nested (a method of a big
    class: libcst then parses that method, not the class), else for the top-level statements
    holding them (cst.parse_region). A nested function is parsed as it is written, under
    `if True:` lines that open blocks to its indentation, so every column stays the file's."""
    tree = _tree(text)
    function = None
    for node in _walk_around(tree, min(n.lineno for n in nodes)):  # type: ignore[attr-defined]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.col_offset > 0 \
                and all(_spans(node, n) for n in nodes) and (function is None or _spans(function, node)):
            function = node
    if function is None:
        return cstu.parse_region(text, tree, nodes)
    lines = lines_keepends(text)
    first = min([function.lineno] + [d.lineno for d in function.decorator_list])
    last = function.end_lineno or function.lineno
    prefix = lines[first - 1][:function.col_offset]
    body_line = lines[function.body[0].lineno - 1] if function.body[0].lineno > function.lineno else ""
    step = len(body_line) - len(body_line.lstrip(" \t")) - len(prefix)
    if prefix.strip(" ") != "" or step <= 0 or len(prefix) % step or not body_line.startswith(prefix):
        return cstu.parse_region(text, tree, nodes)
    newline = next((ending for ending in ("\r\n", "\n", "\r") if lines[first - 1].endswith(ending)), "\n")
    levels = len(prefix) // step
    header = "".join(" " * (step * level) + "if True:" + newline for level in range(levels))
    region = "".join(lines[first - 1:last])
    if not region.endswith(("\n", "\r")):
        region += newline
    try:
        parsed = cstu.parse(header + region, first - 1 - levels)
    except cst.ParserSyntaxError:
        return cstu.parse_region(text, tree, nodes)
    parsed._tapelsp_header = levels  # type: ignore[attr-defined]
    return parsed


def _walk_around(tree: ast.Module, line: int):
    """The nodes of the top-level statement holding 1-based `line` (a nested function that
    holds a node there is one of them), without walking the rest of the file."""
    spans = statement_spans(tree)
    if not spans.ordered:
        return ast.walk(tree)
    at = bisect.bisect_right(spans.firsts, line) - 1
    return ast.walk(tree.body[at]) if at >= 0 else iter(())


def _spans(outer: ast.AST, inner: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and \
        (inner.end_lineno or 0, inner.end_col_offset or 0) <= (outer.end_lineno or 0, outer.end_col_offset or 0)


class Rewrite:
    """Rewrites of `text`; with `around`, libcst parses only the top-level statements holding
    those `ast` nodes (libcst costs some 30 times what `ast` does: big files stay cheap)."""

    def __init__(self, text: str, around: Sequence[ast.AST] = ()) -> None:
        self.text = text
        self.source = source_text(text)
        nodes = [node for node in around if node is not None and hasattr(node, "lineno")]
        self.parsed = _parse_around(text, nodes) if nodes else cstu.parse(text)
        self._first_line = 0 if not nodes else min(n.lineno for n in nodes) - 1
        # id(block) -> (block, operations); an operation is (kind, original index, payload).
        self._blocks: dict[int, tuple[Block, list[tuple[str, int, object]]]] = {}
        self._changes: dict[cst.CSTNode, cstu.Change] = {}

    # -- finding nodes --

    def statement(self, stmt: ast.stmt) -> cst.BaseStatement:
        """The libcst statement that is `stmt`."""
        rng = self.source.node_range(stmt)
        if isinstance(stmt, _COMPOUND):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.decorator_list:
                raise FixNotPossible("decorated definitions are not moved")
            node = self.parsed.at(rng, cst.BaseCompoundStatement)
            assert isinstance(node, cst.BaseCompoundStatement)
            return node
        small = self.parsed.at(rng, cst.BaseSmallStatement)
        line = self.parsed.parent(small)
        if not isinstance(line, cst.SimpleStatementLine):
            raise FixNotPossible("a statement on the line of its `with`/`if`/`def`")
        if len(line.body) != 1:
            raise FixNotPossible("several statements on one line")
        return line

    def line_of(self, stmt: ast.stmt) -> cst.BaseStatement:
        """The libcst statement line holding `stmt` (shared with others: `a = 1; b = 2`), as an
        anchor to insert statements next to."""
        if isinstance(stmt, _COMPOUND):
            return self.statement(stmt)
        small = self.parsed.at(self.source.node_range(stmt), cst.BaseSmallStatement)
        line = self.parsed.parent(small)
        if not isinstance(line, cst.SimpleStatementLine):
            raise FixNotPossible("a statement on the line of its `with`/`if`/`def`")
        return line

    def node(self, expr: ast.AST, *types: type) -> cst.CSTNode:
        return self.parsed.at(self.source.node_range(expr), *types)

    def block_of(self, statement: cst.BaseStatement) -> tuple[Block, int]:
        block = self.parsed.parent(statement)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            raise FixNotPossible("the statement is not in an indented block")
        index = next(i for i, s in enumerate(block.body) if s is statement)
        return block, index

    def body(self, compound: cst.CSTNode) -> cst.IndentedBlock:
        body = getattr(compound, "body", None)
        if not isinstance(body, cst.IndentedBlock):
            raise FixNotPossible("a block written on the line of its header")
        return body

    # -- operations --

    def _ops(self, block: Block) -> list[tuple[str, int, object]]:
        entry = self._blocks.get(id(block))
        if entry is None:
            entry = self._blocks[id(block)] = (block, [])
        return entry[1]

    def insert(self, block: Block, index: int, statements: Sequence[cst.BaseStatement | str]) -> None:
        """Insert before the statement at `index` of the original block (at its end for len(body)).
        Insertions at the same index keep the order they were asked in."""
        nl = self.parsed.newline
        built = [self.parsed.statement(s if s.endswith(("\n", "\r")) else s + nl) if isinstance(s, str) else s
                 for s in statements]
        self._ops(block).append(("insert", index, built))

    def remove(self, statement: cst.BaseStatement) -> None:
        block, index = self.block_of(statement)
        self._ops(block).append(("remove", index, None))

    def replace(self, statement: cst.BaseStatement,
                build: Callable[[cst.BaseStatement], Sequence[cst.BaseStatement]]) -> None:
        """Replace the statement by `build(its updated version)`."""
        block, index = self.block_of(statement)
        self._ops(block).append(("replace", index, build))

    def move(self, statements: Sequence[cst.BaseStatement], block: Block, index: int,
             *, blank_lines_stay: bool = False) -> None:
        """Move statements (unchanged otherwise) to `index` of `block`. With `blank_lines_stay`
        the blank lines above the first moved statement stay where it was, above whatever
        follows the moved statements there."""
        moved = list(statements)
        if not moved:
            return
        if blank_lines_stay:
            blanks, rest = cstu.blank_lines_then_rest(moved[0].leading_lines)
            old_block, last = self.block_of(statements[-1])
            if blanks and last + 1 < len(old_block.body):
                moved[0] = moved[0].with_changes(leading_lines=rest)
                follower = old_block.body[last + 1]

                def give(updated, blanks=blanks):
                    return [updated.with_changes(leading_lines=list(blanks) + list(updated.leading_lines))]
                self.replace(follower, give)
        for statement in statements:
            self.remove(statement)
        self.insert(block, index, moved)

    def wrap(self, statement: cst.BaseStatement, header: str) -> None:
        """Put the statement in a new compound statement `header` (e.g. `with tape.stop_recording():`);
        the comments above the statement go above the header."""
        nl = self.parsed.newline
        template = self.parsed.statement(f"{header}{nl}{self.parsed.indent}pass{nl}")
        assert isinstance(template.body, cst.IndentedBlock)  # type: ignore[attr-defined]

        def build(updated):
            inner = updated.with_changes(leading_lines=())
            body = template.body.with_changes(body=[inner])  # type: ignore[attr-defined]
            return [template.with_changes(body=body, leading_lines=updated.leading_lines)]
        self.replace(statement, build)

    def change(self, node: cst.CSTNode, change: cstu.Change) -> None:
        previous = self._changes.get(node)
        if previous is None:
            self._changes[node] = change
        else:
            self._changes[node] = lambda updated: change(previous(updated))  # type: ignore[arg-type]

    # -- result --

    def code(self) -> str:
        changes = dict(self._changes)
        for block, ops in self._blocks.values():
            if block in changes:
                raise FixNotPossible("a block changed twice")
            changes[block] = _block_change(block, ops)
        return cstu.rewrite(self.parsed, changes)

    def fix(self, title: str, applicability: Applicability) -> Fix | None:
        fix = cstu.make_fix(self.parsed, self.code(), title, applicability)
        if fix is not None and any(edit.range.start.line < self.parsed.offset + self._header for edit in fix.edits):
            raise FixNotPossible("the fix would edit outside the parsed function")
        return fix

    @property
    def _header(self) -> int:
        return getattr(self.parsed, "_tapelsp_header", 0)


def _block_change(original: Block, ops: list[tuple[str, int, object]]) -> cstu.Change:
    def change(updated):
        old = list(original.body)
        new = list(updated.body)
        if len(old) != len(new):
            raise FixNotPossible("the block changed shape")
        removed = {index for kind, index, _ in ops if kind == "remove"}
        replaced: dict[int, object] = {}
        for kind, index, payload in ops:
            if kind == "replace":
                if index in replaced:
                    raise FixNotPossible("a statement replaced twice")
                replaced[index] = payload
        inserted: dict[int, list[cst.BaseStatement]] = {}
        for kind, index, payload in ops:
            if kind == "insert":
                inserted.setdefault(index, []).extend(payload)  # type: ignore[arg-type]
        body: list[cst.BaseStatement] = []
        for index, statement in enumerate(new):
            body.extend(inserted.get(index, ()))
            if index in removed:
                continue
            if index in replaced:
                body.extend(replaced[index](statement))  # type: ignore[operator]
            else:
                body.append(statement)
        body.extend(inserted.get(len(new), ()))
        if not body:
            if isinstance(updated, cst.Module):
                return updated.with_changes(body=[])
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated.with_changes(body=body)
    return change


# --- small helpers on `ast` ----------------------------------------------------------------

def direct_index(body: list[ast.stmt], node: ast.AST) -> int | None:
    """The index of the statement of `body` that contains `node` (or is it)."""
    for index, stmt in enumerate(body):
        if (stmt.lineno, stmt.col_offset) <= (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) and \
                (getattr(node, "end_lineno", 0), getattr(node, "end_col_offset", 0)) <= \
                (stmt.end_lineno or 0, stmt.end_col_offset or 0):
            return index
    return None


def next_statement(text: str, stmt: ast.stmt) -> ast.stmt | None:
    """The statement after `stmt` in its statement list (of the tree of `text`), if any."""
    key = (stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset)
    tree = _tree(text)
    same = _statements_by_place(tree).get(key)
    found = containing_body(tree, same) if same is not None else None
    if found is None:
        return None
    body = found[1]
    index = next((i for i, s in enumerate(body) if s is same), None)
    return body[index + 1] if index is not None and index + 1 < len(body) else None


@per_node
def _statements_by_place(tree: ast.AST) -> dict[tuple, ast.stmt]:
    """(line, column, end line, end column) -> the first statement of `tree` there (in
    `ast.walk` order). Found once per tree: every fix of the file looks statements up."""
    found: dict[tuple, ast.stmt] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            found.setdefault((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset), node)
    return found


def parents(tree: ast.AST) -> dict[int, ast.AST]:
    out: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def containing_body(tree: ast.AST, stmt: ast.stmt) -> tuple[ast.AST, list[ast.stmt]] | None:
    """The node and the statement list (`body`, `orelse`, ...) that hold `stmt`."""
    where = (stmt.lineno, stmt.col_offset)
    stack = [tree]
    while stack:
        node = stack.pop()
        for field_name in ("body", "orelse", "finalbody"):
            value = getattr(node, field_name, None)
            if isinstance(value, list) and any(s is stmt for s in value):
                return node, value
        for handler in getattr(node, "handlers", ()) or ():
            if any(s is stmt for s in handler.body):
                return handler, handler.body
        for case in getattr(node, "cases", ()) or ():
            if any(s is stmt for s in case.body):
                return case, case.body
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) or hasattr(child, "body"):
                start = (getattr(child, "lineno", 0), getattr(child, "col_offset", 0))
                end = (getattr(child, "end_lineno", 0) or 0, getattr(child, "end_col_offset", 0) or 0)
                if not hasattr(child, "lineno") or start <= where <= end:
                    stack.append(child)
    return None


# --- call arguments -----------------------------------------------------------------------

def with_keyword(call: cst.Call, name: str, value: str, *, first: bool = False) -> cst.Call:
    """`call` with the keyword argument `name=value` added (first, or last)."""
    arg = cst.Arg(value=cst.parse_expression(value), keyword=cst.Name(name),
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                        whitespace_after=cst.SimpleWhitespace("")))
    args = list(call.args)
    if not args:
        return call.with_changes(args=[arg])
    if first:
        if args[0].keyword is None and args[0].star == "":
            raise FixNotPossible("a keyword cannot go before positional arguments")
        return call.with_changes(args=[arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
                                 + args)
    last = args[-1]
    if not isinstance(last.comma, cst.MaybeSentinel):
        raise FixNotPossible("a call ending with a comma")
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=args + [arg])


# --- expressions --------------------------------------------------------------------------

@or_none
def replace_by_part(text: str, whole: ast.expr, part: ast.expr, title: str, applicability: Applicability) -> Fix | None:
    """Replace the expression `whole` by its sub-expression `part` (`K.eval(t)` -> `t`,
    `t.numpy()` -> `t`), keeping the parentheses around `whole`."""
    rewrite = Rewrite(text, [whole])
    outer = rewrite.node(whole, cst.BaseExpression)
    inner = rewrite.node(part, cst.BaseExpression)

    def change(updated):
        kept = inner
        if updated.lpar:
            kept = inner.with_changes(lpar=list(updated.lpar) + list(inner.lpar),
                                      rpar=list(inner.rpar) + list(updated.rpar))
        return kept
    rewrite.change(outer, change)
    return rewrite.fix(title, applicability)
