"""What the GradientTape rules of issue 3 share: every `tape.gradient(...)` call resolved
to the tape object it asks, and the statement structure around it.

`gradient_calls(facts)` lists each `gradient` / `jacobian` / `batch_jacobian` call on a
name bound to a tape in the same scope, with
- `binding`: the `Tape` record that created the object (`with tf.GradientTape() as t:` or
  `t = tf.GradientTape()`), found through the def-use layer (exactly one reaching
  definition, else the call is left out: we do not guess);
- `entry`: the `with` block of that object that was entered last before the call (the
  block that recorded what the call can differentiate), or None;
- `flow`: the def-use flow of the scope; `index`: the statement tree of the scope.

Built once per file and cached on the Facts; flows are built only for scopes that hold
a gradient call.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..facts.dataflow import (
    Def,
    Flow,
    _walk_same_scope,
    end_position,
    flow_of,
    inside,
    position,
)
from ..facts.model import CallSite, Facts, Scope, Tape
from ..facts.names import dotted

TAPE_METHODS = ("gradient", "jacobian", "batch_jacobian")
TERMINATORS = (ast.Return, ast.Raise)
LOOP_EXITS = (ast.Return, ast.Raise, ast.Break)
# Methods that hand back something a container already holds (no TensorFlow op).
ALIAS_METHODS = frozenset({"get", "pop", "copy", "setdefault", "values", "items", "keys"})
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)

PathEntry = tuple[ast.stmt, "int | None"]


# --- the statement tree of one scope -----------------------------------------------------

def sub_bodies(stmt: ast.stmt) -> list[tuple[int, list[ast.stmt]]]:
    """The statement lists directly inside a compound statement, with an arm number.

    Arms of an `if`/`match`, and a `try` body against its handlers, exclude each other;
    arm -1 (a `finally`) runs whatever happened.
    """
    if isinstance(stmt, ast.If):
        return [(0, stmt.body), (1, stmt.orelse)]
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
        return [(0, stmt.body), (0, stmt.orelse)]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [(0, stmt.body)]
    if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        out = [(0, stmt.body), (0, stmt.orelse)]
        out.extend((i, h.body) for i, h in enumerate(stmt.handlers, start=1))
        out.append((-1, stmt.finalbody))
        return out
    if isinstance(stmt, ast.Match):
        return [(i, case.body) for i, case in enumerate(stmt.cases)]
    return []


class ScopeIndex:
    """Paths from a scope's body down to any node in it."""

    def __init__(self, scope: Scope) -> None:
        node = scope.node
        body = getattr(node, "body", [])
        self.body: list[ast.stmt] = body if isinstance(body, list) else []
        self.scope = scope
        self._paths: dict[int, list[PathEntry]] = {}

    def path(self, node: ast.AST) -> list[PathEntry]:
        """(statement, arm) from the outermost statement containing `node` to the innermost.

        The arm of each entry is the sub-body that holds the next entry; the last entry's
        arm is None (the node is in that statement's own expressions, or is it).
        """
        cached = self._paths.get(id(node))
        if cached is not None:
            return cached
        out: list[PathEntry] = []
        block = self.body
        while True:
            found = _containing(block, node)
            if found is None:
                break
            inner: tuple[int, list[ast.stmt]] | None = None
            if not isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for arm, sub in sub_bodies(found):
                    if _containing(sub, node) is not None:
                        inner = (arm, sub)
                        break
            if inner is None or found is node:
                out.append((found, None))
                break
            out.append((found, inner[0]))
            block = inner[1]
        self._paths[id(node)] = out
        return out

    def statement(self, node: ast.AST) -> ast.stmt | None:
        path = self.path(node)
        return path[-1][0] if path else None

    def block_of(self, path: list[PathEntry], level: int) -> list[ast.stmt]:
        """The statement list holding `path[level]`."""
        if level == 0:
            return self.body
        parent, arm = path[level - 1]
        for sub_arm, sub in sub_bodies(parent):
            if sub_arm == arm and any(s is path[level][0] for s in sub):
                return sub
        return []


def _containing(block: list[ast.stmt], node: ast.AST) -> ast.stmt | None:
    where = position(node)
    end = end_position(node)
    for stmt in block:
        if position(stmt) <= where and end <= end_position(stmt):
            return stmt
        if position(stmt) > where:
            break
    return None


def common_length(a: list[PathEntry], b: list[PathEntry]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n][0] is b[n][0]:
        n += 1
    return n


def exclusive(a: list[PathEntry], b: list[PathEntry]) -> bool:
    """Can at most one of two places run (different arms of one if / match / try)?"""
    n = common_length(a, b)
    if n == 0 or n > len(a) or n > len(b):
        return False
    stmt, arm_a = a[n - 1]
    arm_b = b[n - 1][1]
    if arm_a is None or arm_b is None or arm_a == arm_b:
        return False
    if isinstance(stmt, (ast.If, ast.Match)):
        return True
    if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        return arm_a != -1 and arm_b != -1
    return False


def ends_after(index: ScopeIndex, path: list[PathEntry], from_level: int,
               kinds: tuple[type, ...] = TERMINATORS, until: tuple[int, int] | None = None) -> bool:
    """Does control leave for good after the innermost statement of `path`, at some level
    at or below `from_level` (a `return`/`raise` following it in its block, before
    `until` when given, or the statement itself is one)?"""
    if not path:
        return False
    if isinstance(path[-1][0], kinds):
        return True
    for level in range(max(from_level, 0), len(path)):
        block = index.block_of(path, level)
        stmt = path[level][0]
        after = False
        for other in block:
            if other is stmt:
                after = True
                continue
            if after and isinstance(other, kinds) and (until is None or position(other) < until):
                return True
    return False


# --- gradient calls --------------------------------------------------------------------

@dataclass(eq=False)
class GradCall:
    site: CallSite
    method: str
    name: str
    binding: Tape
    entry: Tape | None
    flow: Flow
    index: ScopeIndex
    # Every `with` block of the same tape object in the scope (the binding's own first).
    entries: list[Tape] = field(default_factory=list)

    @property
    def node(self) -> ast.Call:
        return self.site.node

    @property
    def target(self) -> ast.expr | None:
        return argument(self.node, "target", 0)

    @property
    def sources(self) -> ast.expr | None:
        return argument(self.node, "source" if self.method == "batch_jacobian" else "sources", 1)

    @property
    def persistent(self) -> bool | None:
        return self.binding.option("persistent")

    @property
    def asks_zeros(self) -> bool:
        """`unconnected_gradients=...` given: the caller expects unconnected sources (zeros or
        None on purpose), so the None-gradient rules leave the call alone."""
        return any(k.arg == "unconnected_gradients" for k in self.node.keywords) or len(self.node.args) > 3

    def inside_entry(self) -> bool:
        return self.entry is not None and inside(self.node, self.entry.node)

    def after_entry(self) -> bool:
        return self.entry is not None and position(self.node) >= end_position(self.entry.node)

    def label(self) -> str:
        return f"{self.name}.{self.method}"

    def target_slice(self) -> list[Def]:
        """`flow.slice(target, call)`, computed once for all the rules."""
        cached = self.__dict__.get("_target_slice")
        if cached is None:
            cached = fast_slice(self.flow, self.target, self.node) if self.target is not None else []
            self.__dict__["_target_slice"] = cached
        return cached


def fast_slice(flow: Flow, expr: ast.AST, at: ast.AST | None = None, limit: int = 2000) -> list[Def]:
    """`flow.slice(expr, at)` with what it recomputes per call (the names each definition
    reads, the reaching definitions of a name at a statement) remembered on the flow, so
    that many gradient calls in one long function share the work."""
    at = at if at is not None else expr
    names_cache: dict[int, list[str]] = flow.__dict__.setdefault("_tape_names_used", {})
    reach_cache: dict[tuple[str, int], list[Def]] = flow.__dict__.setdefault("_tape_reaching", {})
    seen: set[int] = set()
    out: list[Def] = []
    pending: list[tuple[str, ast.AST]] = [
        (n.id, at) for n in _walk_same_scope(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    while pending and len(out) < limit:
        name, where = pending.pop()
        key = (name, id(where))
        defs = reach_cache.get(key)
        if defs is None:
            defs = reach_cache[key] = flow.reaching(name, where)
        for d in defs:
            if id(d) in seen:
                continue
            seen.add(id(d))
            out.append(d)
            used = names_cache.get(id(d))
            if used is None:
                used = names_cache[id(d)] = [n.id for n in d.names_used()]
            pending.extend((n, d.stmt) for n in used)
    out.sort(key=lambda d: d.position)
    return out


def calls_in_scope(facts: Facts, scope: Scope) -> list[CallSite]:
    """Every call of one scope, in source order (indexed once per file)."""
    index = facts.__dict__.get("_tape_calls_by_scope")
    if index is None:
        index = {}
        for site in facts.calls:
            index.setdefault(id(site.scope), []).append(site)
        facts.__dict__["_tape_calls_by_scope"] = index
    return index.get(id(scope), [])


def argument(call: ast.Call, name: str, pos: int | None) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if pos is not None and len(call.args) > pos and not any(isinstance(a, ast.Starred) for a in call.args[:pos + 1]):
        return call.args[pos]
    return None


def gradient_calls(facts: Facts) -> list[GradCall]:
    cache = facts.__dict__.get("_tape_gradient_calls")
    if cache is None:
        cache = _collect(facts)
        facts.__dict__["_tape_gradient_calls"] = cache
    return cache


def scope_index(facts: Facts, scope: Scope) -> ScopeIndex:
    indexes = facts.__dict__.setdefault("_tape_scope_indexes", {})
    found = indexes.get(id(scope))
    if found is None:
        found = indexes[id(scope)] = ScopeIndex(scope)
    return found


def _collect(facts: Facts) -> list[GradCall]:
    names_by_scope: dict[int, tuple[Scope, set[str]]] = {}
    for tape in facts.tapes:
        if tape.name is not None:
            names_by_scope.setdefault(id(tape.scope), (tape.scope, set()))[1].add(tape.name)
    out: list[GradCall] = []
    for scope, names in names_by_scope.values():
        sites = [(site, method) for (receiver, method), calls in scope.method_calls.items()
                 if method in TAPE_METHODS and receiver in names for site in calls]
        if not sites:
            continue
        flow = flow_of(facts, scope)
        index = scope_index(facts, scope)
        tapes = [t for t in facts.tapes_in(scope) if t.name in names]
        reentered = _reentries(scope)
        for site, method in sites:
            found = _resolve(site, flow, index, tapes)
            if found is None:
                continue
            binding = found[0]
            if binding.item is not None and any(
                    position(binding.node) < where < position(site.node)
                    for where in reentered.get(site.receiver or "", ())):
                continue  # `with tape:` entered again: a recording the facts do not describe
            binding, entry, entries = found
            out.append(GradCall(site, method, site.receiver or "", binding, entry, flow, index, entries))
    out.sort(key=lambda c: position(c.node))
    return out


def _reentries(scope: Scope) -> dict[str, list[tuple[int, int]]]:
    """Positions of `with name:` statements (a tape object entered again) in the scope."""
    out: dict[str, list[tuple[int, int]]] = {}
    body = getattr(scope.node, "body", [])
    stack = list(body) if isinstance(body, list) else []
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                name = dotted(item.context_expr)
                if name is not None:
                    out.setdefault(name, []).append(position(stmt))
        for _arm, sub in sub_bodies(stmt):
            stack.extend(sub)
    return out


def _resolve(site: CallSite, flow: Flow, index: ScopeIndex, tapes: list[Tape]) -> tuple[Tape, Tape | None, list[Tape]] | None:
    name = site.receiver
    assert name is not None
    defs = live_reaching(flow, index, name, site.node)
    if len(defs) != 1 or defs[0].kind not in ("with", "assign"):
        return None
    made = defs[0].stmt
    binding = next((t for t in tapes if t.node is made and t.name == name), None)
    if binding is None:
        return None
    # `with tape:` blocks that re-enter an object made by `tape = tf.GradientTape()`.
    entries = [binding] if binding.item is not None else []
    entries.extend(t for t in tapes if t is not binding and t.name == name and t.item is not None
                   and t.call is binding.call and position(t.node) > position(made))
    if binding.item is not None and len(entries) > 1:
        return None
    entry = None
    where = position(site.node)
    for candidate in entries:
        if position(candidate.node) < where:
            entry = candidate
    return binding, entry, entries


def live_reaching(flow: Flow, index: ScopeIndex, name: str, at: ast.AST) -> list[Def]:
    """`flow.reaching`, without loop-carried definitions that cannot survive to `at`.

    The def-use layer adds every later definition in a loop around the use. When the
    last definition before the use is in that same loop and on every path to the use
    (`with tf.GradientTape() as tape:` at the top of the loop body, `del tape` at its
    end), the later one is overwritten before the use on every iteration.
    """
    defs = flow.reaching(name, at)
    if len(defs) < 2:
        return defs
    where = position(at)
    before = [d for d in defs if d.position < where]
    if not before:
        return defs
    last = max(before, key=lambda d: d.position)
    last_path = index.path(last.stmt)[:-1]
    use_path = index.path(at)
    dominates = len(use_path) >= len(last_path) and all(
        a[0] is b[0] and a[1] == b[1] for a, b in zip(last_path, use_path))
    if not dominates:
        return defs
    kept = []
    for d in defs:
        if d is last or d.position < where:
            kept.append(d)
            continue
        # loop-carried: dropped when `last` sits in a loop around both the use and `d`
        if any(inside(last.stmt, loop) and inside(at, loop) for loop in d.loops):
            continue
        kept.append(d)
    return kept


# --- values --------------------------------------------------------------------------------

@dataclass(eq=False)
class Origin:
    """Where (part of) a value is computed, following plain aliases back.

    kind: "compute" (an op, call or arithmetic: `expr` is computed in `stmt`, or at the
    use itself when `d` is None), "param", "unknown" (a global, closure, import, a
    container filled item by item ...), or the Def kind ("with", "def", "handler", "del").
    """

    kind: str
    expr: ast.expr | None
    d: Def | None
    at: ast.AST


def origins(flow: Flow, expr: ast.expr, at: ast.AST, *, _seen: set[int] | None = None,
            _depth: int = 0, _def: Def | None = None) -> list[Origin]:
    """Where the parts of `expr` (evaluated at `at`) are computed, through plain aliases."""
    seen = _seen if _seen is not None else set()
    kw = {"_seen": seen, "_depth": _depth + 1, "_def": _def}
    if _depth > 40:
        return [Origin("unknown", expr, None, at)]
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        out: list[Origin] = []
        for element in expr.elts:
            out.extend(origins(flow, element, at, **kw))
        return out
    if isinstance(expr, ast.Dict):
        out = []
        for value in expr.values:
            out.extend(origins(flow, value, at, **kw))
        return out
    if isinstance(expr, ast.Starred):
        return origins(flow, expr.value, at, **kw)
    if isinstance(expr, ast.IfExp):
        return origins(flow, expr.body, at, **kw) + \
            origins(flow, expr.orelse, at, **kw)
    name = dotted(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    if name is not None and (isinstance(expr, ast.Name) or flow.definitions(name)):
        defs = flow.reaching(name, at)
        if not defs:
            if isinstance(expr, ast.Attribute):
                return origins(flow, expr.value, at, **kw)
            return [Origin("unknown", expr, None, at)]
        out = []
        for d in defs:
            if id(d) in seen:
                continue
            seen.add(id(d))
            out.extend(_origin_of_def(flow, d, seen, _depth))
        return out
    if isinstance(expr, ast.Attribute):
        return origins(flow, expr.value, at, **kw)
    if isinstance(expr, ast.Subscript):
        return origins(flow, expr.value, at, **kw)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ALIAS_METHODS \
            and isinstance(expr.func.value, (ast.Name, ast.Attribute)):
        return origins(flow, expr.func.value, at, **kw)
    if isinstance(expr, ast.Constant):
        return []
    return [Origin("compute", expr, _def, at)]


def _origin_of_def(flow: Flow, d: Def, seen: set[int], depth: int) -> list[Origin]:
    if d.kind == "param":
        return [Origin("param", None, d, d.stmt)]
    if d.kind == "for" and d.value is not None:
        return origins(flow, d.value, d.stmt, _seen=seen, _depth=depth + 1, _def=d)
    if d.kind == "augassign" and isinstance(d.stmt, ast.Assign):
        # `x[i] = v`: a container filled item by item.
        return [Origin("unknown", d.value, d, d.stmt)]
    if d.kind in ("assign", "augassign") and d.value is not None:
        if d.kind == "assign" and _alias_like(d.value):
            return origins(flow, d.value, d.stmt, _seen=seen, _depth=depth + 1, _def=d)
        return [Origin("compute", d.value, d, d.stmt)]
    return [Origin(d.kind, d.value, d, d.stmt)]


def _alias_like(expr: ast.expr) -> bool:
    if isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript, ast.List, ast.Tuple, ast.Starred, ast.IfExp,
                         ast.Dict)):
        return True
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ALIAS_METHODS


def recorded(d: Def, tape: Tape) -> bool:
    """Is the statement of `d` recorded by the tape object of `tape` (this block or a
    re-entry with the same name), and not paused by its `stop_recording()`?"""
    return any(t.name == tape.name and t.scope is tape.scope and d.recorded_by(t) for t in d.tapes)


def in_foreign_tape(d: Def, tape: Tape) -> Tape | None:
    """A tape block around `d` that belongs to another tape and is not one around `tape`."""
    ancestors = set()
    parent = tape.parent
    while parent is not None:
        ancestors.add(id(parent))
        parent = parent.parent
    for t in d.tapes:
        if t.name != tape.name and id(t) not in ancestors and not _encloses(tape, t):
            return t
    return None


def _encloses(outer: Tape, inner: Tape) -> bool:
    parent = inner.parent
    while parent is not None:
        if parent is outer:
            return True
        parent = parent.parent
    return False


def names_loaded(expr: ast.AST) -> list[ast.Name]:
    out = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.Lambda):
                stack.append(child)
    return out


def mentions(expr: ast.AST | None, name: str) -> bool:
    """Does `expr` load `name` (a plain or dotted name), or an attribute chain under it?"""
    if expr is None:
        return False
    head = name.split(".")[0]
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id == head and isinstance(node.ctx, ast.Load) and "." not in name:
            return True
        if isinstance(node, ast.Attribute):
            chain = dotted(node)
            if chain is not None and (chain == name or chain.startswith(name + ".")):
                return True
    return False


def tape_item_range_node(tape: Tape) -> ast.AST:
    """The node to point at for a tape: its `tf.GradientTape(...)` item, else its statement."""
    if tape.item is not None:
        return tape.item.context_expr
    return tape.call if tape.call is not None else tape.node


def in_comprehension(stmt: ast.stmt | None, node: ast.AST) -> ast.expr | None:
    """The comprehension of `stmt` whose element part holds `node` (evaluated per item)."""
    if stmt is None:
        return None
    for candidate in ast.walk(stmt):
        if not isinstance(candidate, COMPREHENSIONS):
            continue
        parts: list[ast.AST] = []
        if isinstance(candidate, ast.DictComp):
            parts += [candidate.key, candidate.value]
        else:
            parts.append(candidate.elt)
        for generator in candidate.generators:
            parts.extend(generator.ifs)
        parts.extend(g.iter for g in candidate.generators[1:])
        if any(inside(node, part) for part in parts):
            return candidate
    return None


def stop_recording_around(index: ScopeIndex, node: ast.AST, tape_name: str) -> ast.withitem | None:
    for stmt, _arm in index.path(node):
        if isinstance(stmt, (ast.With, ast.AsyncWith)) and not inside(node, stmt.items[0].context_expr):
            for item in stmt.items:
                expr = item.context_expr
                if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                        and expr.func.attr == "stop_recording" and dotted(expr.func.value) == tape_name \
                        and any(inside(node, s) for s in stmt.body):
                    return item
    return None


def calls_by_node(facts: Facts) -> dict[int, GradCall]:
    return {id(c.node): c for c in gradient_calls(facts)}


def gradient_call_in(expr: ast.AST | None, by_node: dict[int, GradCall]) -> GradCall | None:
    if expr is None:
        return None
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and id(node) in by_node:
            return by_node[id(node)]
    return None


def connected(flow: Flow, expr: ast.AST, at: ast.AST, tape: Tape) -> Def | None:
    """A definition recorded by `tape` that the value of `expr` (at `at`) is computed from."""
    for d in fast_slice(flow, expr, at):
        if recorded(d, tape):
            return d
    return None


def encloses(outer: Tape, inner: Tape) -> bool:
    return _encloses(outer, inner)


# --- watch() ----------------------------------------------------------------------------------

def watch_calls(call: GradCall) -> list[CallSite]:
    """`name.watch(...)` calls on the tape object of `call`, from its creation up to the call."""
    scope = call.binding.scope
    start = position(call.binding.node)
    here = position(call.node)
    return [site for site in scope.method_calls.get((call.name, "watch"), ())
            if start <= position(site.node) < here]


def watch_position(facts: Facts, call: GradCall, name: str) -> tuple[int, int] | None | bool:
    """Where the tape first watches `name`: a position, False when it clearly never does,
    None when it cannot be told (a watch of something that may hold it, the tape handed
    to other code)."""
    if tape_escapes(call):
        return None
    for site in watch_calls(call):
        arg = argument(site.node, "tensor", 0)
        if arg is None:
            return None
        if mentions(arg, name):
            return position(site.node)
        for d in call.flow.slice(arg, site.node):
            if mentions(d.value, name):
                return None
        if any(isinstance(node, ast.Call) and not _library_call(facts, node) for node in ast.walk(arg)):
            return None
    return False


def _library_call(facts: Facts, node: ast.Call) -> bool:
    qualname = facts.imports.resolve(node.func)
    return qualname is not None and qualname.startswith(("tensorflow.", "numpy.", "keras."))


def tape_escapes(call: GradCall) -> bool:
    """Is the tape's name used other than as `tape.method(...)` / `with tape:` (handed to a
    helper that might watch for us)?"""
    scope = call.binding.scope
    loads = scope.loads.get(call.name, [])
    receivers = sum(len(sites) for (receiver, _m), sites in scope.method_calls.items() if receiver == call.name)
    reentries = sum(1 for t in call.entries if t is not call.binding)
    if len(loads) <= receivers + reentries:
        return False
    # The loads that hand it on. One after this call that cannot come back to it without a new
    # tape being made first (`alive.append(weakref.ref(tape))` at the end of a loop body that
    # opens the tape) cannot watch anything for this call.
    known = {id(site.node.func.value) for (receiver, _m), sites in scope.method_calls.items()
             if receiver == call.name for site in sites
             if isinstance(site.node, ast.Call) and isinstance(site.node.func, ast.Attribute)}
    known |= {id(t.item.context_expr) for t in call.entries if t is not call.binding and t.item is not None}
    handed = [load for load in loads if id(load) not in known]
    if len(handed) != len(loads) - receivers - reentries:
        return True  # the loads cannot be told apart
    return any(not _only_after(call, load) for load in handed)


def _only_after(call: GradCall, load: ast.expr) -> bool:
    """Does `load` come after the call, and every loop around both also around the tape's
    binding (so that the next time round a new tape is bound before the call runs again)?"""
    if position(load) < end_position(call.node):
        return False
    binding = call.binding.node
    for node in ast.walk(call.binding.scope.node):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and inside(call.node, node) \
                and inside(load, node) and not inside(binding, node):
            return False
    return True


def foreign_target(call: GradCall) -> tuple[Def, Tape] | None:
    """A definition the target is directly computed in (through plain aliases) that another,
    unrelated tape recorded and this call's tape did not: the call asks the wrong tape."""
    entry = call.entry
    if entry is None or call.target is None or call.asks_zeros:
        return None
    for origin in origins(call.flow, call.target, call.node):
        d = origin.d
        if origin.kind != "compute" or d is None or recorded(d, entry):
            continue
        other = in_foreign_tape(d, entry)
        if other is not None and d.recorded_by(other):
            return d, other
    return None
