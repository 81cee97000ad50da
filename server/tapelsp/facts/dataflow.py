"""Def-use facts inside one function (or module) body, built on demand.

`flow_of(facts, scope)` lists every assignment of the scope in source order with
what was open around it (tape blocks, `tape.stop_recording()` blocks, loops), and
answers the questions the GradientTape rules ask:

- which definitions of a name can reach a given use (`reaching`), approximately:
  the last one before the use, plus the ones later in a loop around the use
  (loop-carried), plus the ones in other branches of an if/try before the use;
- the backward slice of an expression (`slice`): every definition its value is
  computed from, transitively;
- where a value is computed relative to a tape (`Def.tapes`, `Def.stop_recording`).

It is built lazily, only for scopes where a rule asks, and cached on the Facts.
Nested defs and lambdas are separate scopes; comprehension variables are ignored.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property

from .model import Facts, Scope, Tape
from .names import dotted as _dotted
from .walk import children as child_nodes

Position = tuple[int, int]


def position(node: ast.AST) -> Position:
    return (node.lineno, node.col_offset)


def end_position(node: ast.AST) -> Position:
    return (node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)


def inside(node: ast.AST, container: ast.AST) -> bool:
    return position(container) <= position(node) and end_position(node) <= end_position(container)


@dataclass(eq=False)
class Def:
    """One binding of one name."""

    name: str
    stmt: ast.stmt
    # The expression the name's value comes from: the right-hand side of an assignment,
    # the iterable of a `for`, the context expression of `with ... as name`.
    value: ast.expr | None
    kind: str  # "assign", "augassign", "for", "with", "import", "def", "param", "del", "handler"
    tapes: tuple[Tape, ...]  # tape blocks open around the statement, innermost last
    stop_recording: tuple[ast.withitem, ...]  # `with tape.stop_recording():` items around it
    loops: tuple[ast.stmt, ...]
    # (if / try / match statement, arm) pairs around it within the scope, outermost first.
    branches: tuple[tuple[ast.stmt, int], ...]

    @cached_property
    def position(self) -> Position:
        return position(self.stmt)

    def names_used(self) -> list[ast.Name]:
        """Name loads in the value (and, for `x += ...`, the old value of x). Computed once per
        definition; the list is shared, do not change it."""
        found = self.__dict__.get("_names_used")
        if found is not None:
            return found
        if self.value is None:
            found = []
        else:
            found = [n for n in _walk_same_scope(self.value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
            if self.kind == "augassign":
                found.append(ast.Name(id=self.name, ctx=ast.Load(), lineno=self.stmt.lineno,
                                      col_offset=self.stmt.col_offset))
        self.__dict__["_names_used"] = found
        return found

    def recorded_by(self, tape: Tape) -> bool:
        """Does `tape` record this statement (open around it and not paused)?"""
        return tape in self.tapes and not any(_pauses(item, tape) for item in self.stop_recording)


@dataclass(eq=False)
class Flow:
    scope: Scope
    defs: dict[str, list[Def]] = field(default_factory=dict)
    ordered: list[Def] = field(default_factory=list)

    def definitions(self, name: str) -> list[Def]:
        return self.defs.get(name, [])

    def reaching(self, name: str, at: ast.AST) -> list[Def]:
        """The definitions of `name` that may provide its value at `at`."""
        defs = self.defs.get(name)
        if not defs:
            return []
        where = position(at)
        before: list[Def] = []
        other: list[Def] = []  # at or after `at`, or the statement that holds `at`
        for d in defs:
            if d.position < where and not _defines_itself(d, at):
                before.append(d)
            else:
                other.append(d)
        reaching: list[Def] = []
        if before:
            last = before[-1]
            reaching.append(last)
            # Earlier definitions in a different branch of an if/try may also reach.
            for d in reversed(before[:-1]):
                if not _dominates(last, d):
                    reaching.append(d)
                else:
                    break
        # Loop-carried: a later definition in a loop that also contains `at`.
        for d in other:
            if any(inside(at, loop) for loop in d.loops) and d not in reaching:
                reaching.append(d)
        return reaching

    def slice(self, expr: ast.AST, at: ast.AST | None = None, limit: int = 2000) -> list[Def]:
        """Every definition the value of `expr` (evaluated at `at`) is computed from."""
        at = at if at is not None else expr
        seen: set[int] = set()
        out: list[Def] = []
        pending: list[tuple[str, ast.AST]] = [
            (n.id, at) for n in _walk_same_scope(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
        while pending and len(out) < limit:
            name, where = pending.pop()
            for d in self.reaching(name, where):
                if id(d) in seen:
                    continue
                seen.add(id(d))
                out.append(d)
                pending.extend((n.id, d.stmt) for n in d.names_used())
        out.sort(key=lambda d: d.position)
        return out

    def defs_in(self, tape: Tape) -> list[Def]:
        return [d for d in self.ordered if tape in d.tapes]


def flow_of(facts: Facts, scope: Scope) -> Flow:
    cache = facts.__dict__.setdefault("_flows", {})
    flow = cache.get(id(scope))
    if flow is None:
        flow = _build(facts, scope)
        cache[id(scope)] = flow
    return flow


def flow_at(facts: Facts, node: ast.AST) -> Flow | None:
    """The flow of the innermost function or module scope containing `node`."""
    best: Scope | None = None
    for scope in facts.scopes:
        if scope.kind == "class":
            continue
        if scope.kind == "module" or inside(node, scope.node):
            if best is None or best.kind == "module" or (scope.kind != "module" and inside(scope.node, best.node)):
                best = scope
    return flow_of(facts, best) if best is not None else None


_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.If, ast.Try,
             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Match)


def _defines_itself(d: Def, at: ast.AST) -> bool:
    """Is `at` part of the simple statement that makes `d` (the `x` on the right of `x = x + 1`)?"""
    return not isinstance(d.stmt, _COMPOUND) and inside(at, d.stmt)


def _pauses(item: ast.withitem, tape: Tape) -> bool:
    expr = item.context_expr
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
        and expr.func.attr == "stop_recording" and _dotted(expr.func.value) == tape.name



def _dominates(later: Def, earlier: Def) -> bool:
    """Does `later` run whenever `earlier` did (it is in the same arm or an enclosing one)?"""
    return later.branches == earlier.branches[:len(later.branches)]


def _walk_same_scope(node: ast.AST):
    """ast.walk that does not enter lambdas or comprehensions' own scopes."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in child_nodes(current):
            if isinstance(child, ast.Lambda):
                continue
            stack.append(child)


class _Builder:
    def __init__(self, facts: Facts, scope: Scope) -> None:
        self.flow = Flow(scope)
        index = _file_index(facts)
        self.tapes_by_node: dict[int, list[Tape]] = index.tapes_by_scope.get(id(scope), {})
        self.tapes: list[Tape] = []
        self.paused: list[ast.withitem] = []
        self.loops: list[ast.stmt] = []
        self.branches: list[tuple[ast.stmt, int]] = []
        # Looking for `:=` in every statement is most of the build time; skip it when absent.
        self.has_walrus = index.has_walrus

    def add(self, name: str, stmt: ast.stmt, value: ast.expr | None, kind: str) -> None:
        d = Def(name, stmt, value, kind, tuple(self.tapes), tuple(self.paused), tuple(self.loops),
                tuple(self.branches))
        self.flow.defs.setdefault(name, []).append(d)
        self.flow.ordered.append(d)

    def targets(self, target: ast.AST, stmt: ast.stmt, value: ast.expr | None, kind: str) -> None:
        if isinstance(target, ast.Name):
            self.add(target.id, stmt, value, kind)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.targets(element, stmt, value, kind)
        elif isinstance(target, ast.Starred):
            self.targets(target.value, stmt, value, kind)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            name = _dotted(target) if isinstance(target, ast.Attribute) else None
            if name is not None:
                self.add(name, stmt, value, kind)
            # `x[i] = v` and `x.a = v` change x: record a use-def through the container.
            base = target.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name) and isinstance(target, ast.Subscript):
                self.add(base.id, stmt, value, "augassign")

    def statements(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self.targets(target, stmt, stmt.value, "assign")
            self._walrus(stmt)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.targets(stmt.target, stmt, stmt.value, "assign")
        elif isinstance(stmt, ast.AugAssign):
            self.targets(stmt.target, stmt, stmt.value, "augassign")
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.add(stmt.name, stmt, None, "def")
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                self.add((alias.asname or alias.name).split(".")[0], stmt, None, "import")
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.loops.append(stmt)
            self.targets(stmt.target, stmt, stmt.iter, "for")
            self.statements(stmt.body)
            self.loops.pop()
            self.statements(stmt.orelse)
        elif isinstance(stmt, ast.While):
            self.loops.append(stmt)
            self.statements(stmt.body)
            self.loops.pop()
            self.statements(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            opened = self.tapes_by_node.get(id(stmt), [])
            paused = [item for item in stmt.items if _is_stop_recording(item)]
            for item in stmt.items:
                if item.optional_vars is not None:
                    self.targets(item.optional_vars, stmt, item.context_expr, "with")
            self.tapes.extend(opened)
            self.paused.extend(paused)
            self.statements(stmt.body)
            if opened:
                del self.tapes[-len(opened):]
            if paused:
                del self.paused[-len(paused):]
        elif isinstance(stmt, ast.If):
            self._walrus_in(stmt.test, stmt)
            self.arm(stmt, 0, stmt.body)
            self.arm(stmt, 1, stmt.orelse)
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.arm(stmt, 0, stmt.body + stmt.orelse)
            for index, handler in enumerate(stmt.handlers, start=1):
                self.branches.append((stmt, index))
                if handler.name:
                    self.add(handler.name, stmt, None, "handler")
                self.statements(handler.body)
                self.branches.pop()
            self.statements(stmt.finalbody)
        elif isinstance(stmt, ast.Match):
            for index, case in enumerate(stmt.cases):
                self.arm(stmt, index, case.body)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self.add(target.id, stmt, None, "del")
        else:
            self._walrus(stmt)

    def arm(self, stmt: ast.stmt, index: int, body: list[ast.stmt]) -> None:
        self.branches.append((stmt, index))
        self.statements(body)
        self.branches.pop()

    def _walrus(self, stmt: ast.stmt) -> None:
        self._walrus_in(stmt, stmt)

    def _walrus_in(self, node: ast.AST, stmt: ast.stmt) -> None:
        if not self.has_walrus:
            return
        for child in _walk_same_scope(node):
            if isinstance(child, ast.NamedExpr) and isinstance(child.target, ast.Name):
                self.add(child.target.id, stmt, child.value, "assign")


@dataclass
class _FileIndex:
    """What every scope's build needs from the whole file, computed once per file."""

    # id(scope) -> id(with statement) -> the tapes that statement opens.
    tapes_by_scope: dict[int, dict[int, list[Tape]]]
    has_walrus: bool


def _file_index(facts: Facts) -> _FileIndex:
    index = facts.__dict__.get("_flow_file_index")
    if index is None:
        tapes_by_scope: dict[int, dict[int, list[Tape]]] = {}
        for tape in facts.tapes:
            if tape.item is not None:
                tapes_by_scope.setdefault(id(tape.scope), {}).setdefault(id(tape.node), []).append(tape)
        index = _FileIndex(tapes_by_scope, ":=" in facts.source.text)
        facts.__dict__["_flow_file_index"] = index
    return index


def _is_stop_recording(item: ast.withitem) -> bool:
    expr = item.context_expr
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "stop_recording"


def _build(facts: Facts, scope: Scope) -> Flow:
    builder = _Builder(facts, scope)
    node = scope.node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                d = Def(arg.arg, node, None, "param", (), (), (), ())  # type: ignore[arg-type]
                builder.flow.defs.setdefault(arg.arg, []).append(d)
                builder.flow.ordered.append(d)
        if isinstance(node, ast.Lambda):
            return builder.flow
    body = getattr(node, "body", [])
    builder.statements(body if isinstance(body, list) else [])
    return builder.flow
