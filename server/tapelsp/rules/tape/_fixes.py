"""What the fixable GradientTape rules share about their fixes and examples.

- `unfixed(example)`: an invalid example for which the rule deliberately offers no fix;
  its expected fixed source is the source itself (the fix tests then check that no fix
  of the rule applies, and the runtime fix proofs skip it).
- `leading_watches(body, tape)`: how many `tape.watch(...)` statements open a block.
- `differentiated_again(call, calls)`: a later gradient call of the same tape differentiates
  this call's result (a higher-order derivative: moving or pausing the call breaks it).
- `records_py_function(call, facts)`: the tape records a `tf.py_function`, whose gradient
  TensorFlow computes once only (a persistent tape asked twice raises KeyError 'pyfunc_N').
- `variable_use(scopes, name)`: where the code updates `name` as a tf.Variable (`.assign_sub`,
  an optimizer's `apply_gradients`/`minimize` variables), or None.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ...facts.names import dotted
from ...analysis.gradcalls import live_reaching
from ..base import Example


def unfixed(example: Example) -> Example:
    return replace(example, fixed=example.source)


def is_watch(stmt: ast.stmt, tape: str) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
        and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "watch" \
        and dotted(stmt.value.func.value) == tape


def first_after_watches(body: list[ast.stmt], start: int, tape: str) -> ast.stmt | None:
    """The first statement of `body` from `start` on that is not `tape.watch(...)` (None: the end)."""
    index = start
    while index < len(body) and is_watch(body[index], tape):
        index += 1
    return body[index] if index < len(body) else None


# --- where a tape is released ----------------------------------------------------------------

def release_point(tape, index, name: str, flow=None) -> tuple[bool, ast.stmt | None]:
    """Where `del name` goes once the tape made by `tape` (a facts Tape: `with ... as name` or
    `name = tf.GradientTape()`) is used for the last time, in the statement list that holds
    its creation: (True, statement) to put it after that statement; (True, None) when no
    `del` is needed (the last use returns, or the name is deleted already); (False, None) when
    there is no certain place (the name is used outside that list, in a nested function, by
    an earlier iteration of a loop, or declared global).

    `index` is the scope's ScopeIndex (analysis/gradcalls.py), `flow` its def-use flow (a
    use before the creation, in a loop, is the previous iteration's only if this creation
    reaches it)."""
    scope = tape.scope
    if name in scope.globals or "." in name:
        return False, None
    made = tape.node
    path = index.path(made)
    if not path or path[-1][0] is not made:
        return False, None
    block = index.block_of(path, len(path) - 1)
    start = next((i for i, stmt in enumerate(block) if stmt is made), None)
    if start is None:
        return False, None
    stop = len(block)
    for i in range(start + 1, len(block)):
        if _rebinds(block[i], name):
            stop = i
            break
    region = block[start:stop]
    last = None
    for i, stmt in enumerate(region):
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and _mentions(n, name)
               for n in ast.walk(stmt)):
            return False, None  # a closure may use the name after a `del`
        if _mentions(stmt, name, skip_binding=stmt is made):
            last = i
    begin = (made.lineno, made.col_offset)
    end_stmt = region[last] if last is not None else made
    end = (end_stmt.end_lineno or 0, end_stmt.end_col_offset or 0)
    region_end = (region[-1].end_lineno or 0, region[-1].end_col_offset or 0)
    for load in scope.loads.get(name, ()):
        where = (load.lineno, load.col_offset)
        if begin <= where <= end:
            continue
        if where < begin:
            if any(_encloses(loop, made) and _encloses(loop, load) for loop in tape.loops) and (
                    flow is None or any(d.stmt is made for d in live_reaching(flow, index, name, load))):
                return False, None
            continue
        if stop < len(block) and where >= (block[stop].lineno, block[stop].col_offset):
            continue  # a later binding's
        if where > region_end or where > end:
            return False, None
    if last is None:
        return True, None
    final = region[last]
    if isinstance(final, (ast.Return, ast.Raise)):
        return True, None
    if isinstance(final, ast.Delete) and any(isinstance(t, ast.Name) and t.id == name for t in final.targets):
        return True, None
    return True, final


def _rebinds(stmt: ast.stmt, name: str) -> bool:
    targets: list[ast.AST] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        targets = [stmt.target]
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name == name
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return any((alias.asname or alias.name.split(".")[0]) == name for alias in stmt.names)
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))


def _mentions(node: ast.AST, name: str, skip_binding: bool = False) -> bool:
    """Does the code load or delete `name`? (`skip_binding`: not counting the `as name` of a with.)"""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id == name and isinstance(inner.ctx, (ast.Load, ast.Del)):
            return True
        if not skip_binding and isinstance(inner, ast.Name) and inner.id == name:
            return True
    return False


def _encloses(outer: ast.AST, inner: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and \
        (inner.end_lineno or 0, inner.end_col_offset or 0) <= (outer.end_lineno or 0, outer.end_col_offset or 0)


# --- statements that can move into (or out of) a tape's block ----------------------------------

def run_after(with_node: ast.stmt, upto: ast.AST, index) -> list[ast.stmt] | None:
    """The statements between the end of `with_node` and the statement holding `upto`, in the
    statement list that holds the `with`; None when `upto` is not in that list after it."""
    path = index.path(with_node)
    if not path or path[-1][0] is not with_node:
        return None
    block = index.block_of(path, len(path) - 1)
    start = next((i for i, stmt in enumerate(block) if stmt is with_node), None)
    if start is None:
        return None
    for i in range(start + 1, len(block)):
        if _encloses(block[i], upto):
            return block[start + 1:i]
    return None


_MOVABLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.If, ast.For, ast.Pass, ast.Assert)
_NOT_MOVABLE_INSIDE = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.FunctionDef,
                       ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith, ast.Try, ast.While, ast.Raise,
                       ast.Delete, ast.Import, ast.ImportFrom) + ((ast.Match,) if hasattr(ast, "Match") else ())
_IMPURE_TF = ("tensorflow.print", "tensorflow.summary.", "tensorflow.io.", "tensorflow.py_function",
              "tensorflow.numpy_function", "tensorflow.py_func", "tensorflow.debugging.", "tensorflow.Variable",
              "tensorflow.keras.utils.")
_PURE_LIBRARIES = ("keras.losses.", "keras.ops.", "keras.activations.", "numpy.", "math.")
_PURE_BUILTINS = frozenset({"float", "int", "len", "abs", "min", "max", "sum", "range", "zip", "list", "tuple",
                            "dict", "enumerate", "isinstance", "sorted", "round", "reversed", "bool"})
_TAPE_READS = ("gradient", "jacobian", "batch_jacobian")


def movable(stmts: list[ast.stmt], facts, tape_names: set[str]) -> bool | None:
    """Can these statements move into (or out of) a tape block as they are, keeping their order?
    None: no (control flow leaves them, they use the tape itself, they open a block of their
    own...); True: yes, and they are pure (TensorFlow / arithmetic only, no I/O); False: yes,
    but they call something that may have effects (the move is then unsafe)."""
    pure = True
    for stmt in stmts:
        if not isinstance(stmt, _MOVABLE):
            return None
        if _leaves(stmt, in_loop=False):
            return None
        for node in ast.walk(stmt):
            if isinstance(node, _NOT_MOVABLE_INSIDE):
                return None
            if isinstance(node, ast.Name) and node.id in tape_names:
                return None
            if isinstance(node, ast.Attribute) and _dotted_in(node, tape_names):
                return None
            if isinstance(node, ast.Call) and not pure_call(node, facts):
                pure = False
        if isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Constant):
            pure = False  # an expression statement is there for its effect
    return pure


def _dotted_in(node: ast.Attribute, names: set[str]) -> bool:
    text = dotted(node)
    return text is not None and any(text == n or text.startswith(n + ".") for n in names if "." in n)


def _leaves(stmt: ast.stmt, in_loop: bool) -> bool:
    """Does a `break`/`continue` of `stmt` leave a loop that is not inside it?"""
    if isinstance(stmt, (ast.Break, ast.Continue)):
        return not in_loop
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
        return any(_leaves(s, True) for s in stmt.body) or any(_leaves(s, in_loop) for s in stmt.orelse)
    for field_name in ("body", "orelse", "finalbody"):
        for child in getattr(stmt, field_name, []) or []:
            if isinstance(child, ast.stmt) and _leaves(child, in_loop):
                return True
    return False


def pure_call(call: ast.Call, facts) -> bool:
    qualname = facts.imports.resolve(call.func)
    if qualname is not None:
        if qualname.startswith("tensorflow."):
            return not qualname.startswith(_IMPURE_TF)
        return qualname.startswith(_PURE_LIBRARIES)
    func = call.func
    if isinstance(func, ast.Name) and func.id in _PURE_BUILTINS and func.id not in facts.imports.names:
        return True
    name = dotted(func)
    kinds = _binding_kinds(facts)
    if name is not None and kinds.get(name, set()) & {"model", "layer"}:
        return True  # a forward pass
    if isinstance(func, ast.Attribute) and func.attr in _TAPE_READS and "tape" in kinds.get(dotted(func.value) or "", ()):
        return True
    return False


def _binding_kinds(facts) -> dict[str, set[str]]:
    cached = facts.__dict__.get("_fix_binding_kinds")
    if cached is None:
        cached = {}
        for binding in facts.bindings:
            cached.setdefault(binding.name, set()).add(binding.kind)
        for tape in facts.tapes:
            if tape.name is not None:
                cached.setdefault(tape.name, set()).add("tape")
        facts.__dict__["_fix_binding_kinds"] = cached
    return cached


def dedent_safe(stmt: ast.stmt, call: ast.Call, following: list[ast.stmt]) -> bool:
    """Can `stmt` (`g = tape.gradient(...)`, inside the tape's block) move after the block,
    past the statements `following` it there, and still compute the same thing?"""
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
        return False
    calls = [n for n in ast.walk(stmt) if isinstance(n, ast.Call)]
    if calls != [call]:
        return False  # other calls would run in another order (or a target computed in the call)
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    read = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
    read |= {n.id for t in targets if not isinstance(t, ast.Name) for n in ast.walk(t) if isinstance(n, ast.Name)}
    for later in following:
        for node in ast.walk(later):
            if isinstance(node, ast.Name) and (node.id in bound or (node.id in read and not isinstance(node.ctx, ast.Load))):
                return False
            if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load) \
                    and _base_name(node) in read:
                return False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                    and _base_name(node.func.value) in read:
                return False
    return True


_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "sort",
                       "reverse", "popitem", "add", "discard"})


def _base_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


# --- what a fix must not break ---------------------------------------------------------------

def differentiated_again(call, calls) -> bool:
    """Does a later gradient call of `call`'s tape differentiate `call`'s result (through the
    names assigned from it)? Then the first call must stay where the tape records it."""
    from ...facts.dataflow import inside, position

    results = [d for d in call.flow.ordered if d.value is not None and inside(call.node, d.value)]
    if not results:
        return False
    here = position(call.node)
    for later in calls:
        if later is call or later.binding is not call.binding or later.target is None:
            continue
        if position(later.node) <= here and not _in_loop_with(call, later):
            continue
        if any(d in later.target_slice() for d in results):
            return True
    return False


def _in_loop_with(call, later) -> bool:
    return any(_encloses(loop, call.node) and _encloses(loop, later.node) for loop in call.site.loops)


_PY_FUNCTIONS = ("tensorflow.py_function", "tensorflow.compat.v1.py_function", "tensorflow.compat.v2.py_function")


def records_py_function(call, facts) -> bool:
    """Does the block that records for `call`'s tape (every `with` of it in the scope; the
    whole function when the tape is not used in a `with`) call `tf.py_function`?"""
    blocks = [entry.node for entry in (call.entries or ([call.entry] if call.entry is not None else []))]
    if not blocks:
        blocks = [call.site.scope.node]
    for block in blocks:
        for node in ast.walk(block):
            if isinstance(node, ast.Call) and facts.imports.resolve(node.func) in _PY_FUNCTIONS:
                return True
    return False


_ASSIGNS = frozenset({"assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub",
                      "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub"})


def variable_use(scopes, name: str) -> ast.AST | None:
    """The first place in these scopes' code that uses `name` as a tf.Variable: `name.assign*(...)`,
    `opt.apply_gradients(... name ...)`, `opt.minimize(loss, [name])` / `var_list=[name]`."""
    found = []
    for scope in scopes:
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            func = node.func
            if func.attr in _ASSIGNS and isinstance(func.value, ast.Name) and func.value.id == name:
                found.append(node)
            elif func.attr == "apply_gradients":
                if any(_names(arg, name) for arg in [*node.args, *(k.value for k in node.keywords)]):
                    found.append(node)
            elif func.attr == "minimize":
                given = [*node.args[1:], *(k.value for k in node.keywords if k.arg == "var_list")]
                if any(_names(arg, name) for arg in given):
                    found.append(node)
    return min(found, key=lambda n: (n.lineno, n.col_offset)) if found else None


def _names(expr: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))
