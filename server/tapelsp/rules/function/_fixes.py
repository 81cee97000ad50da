"""What the fixable tf.function rules (FUNC002-FUNC009) share about their fixes, on `ast`.

- `tf_alias(facts)`: the name the file binds TensorFlow to, or None (the fixes then offer
  nothing rather than add an import: a file with a tf.function imports TensorFlow).
- `tensor_context(expr, function, facts)`: can the value of `expr` become a tensor without
  changing what the code around it does (it feeds TensorFlow ops or arithmetic, not NumPy,
  Python conversions, methods of NumPy arrays, or a Python `if`)?
- `hoist_offer(ctx, call, traced, noun, base_name)`: the lazy builder of the hoist fix
  (fixes/hoist.py) for a creation call directly in the traced function, else None.
"""

from __future__ import annotations

import ast

from ...analysis import library
from ...facts.model import Facts

_TENSORFLOW = ("tensorflow", "tensorflow.compat.v2")


def tf_alias(facts: Facts) -> str | None:
    imports = facts.imports
    bound = sorted(local for local, qualname in imports.names.items()
                   if qualname in _TENSORFLOW and local not in imports.assumed)
    if not bound:
        return None
    return "tf" if "tf" in bound else bound[0]


def _parents(root: ast.AST) -> dict[int, ast.AST]:
    out: dict[int, ast.AST] = {}
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def tensor_context(expr: ast.expr, function: ast.AST, facts: Facts) -> bool:
    """True when `expr` (inside `function`) only feeds TensorFlow ops or arithmetic: directly,
    or through a local name assigned from it whose every read does. False when a tensor
    there could change what the code does (a NumPy method or function, `int()`, `range()`,
    an `if`/`while` test that AutoGraph would have to convert, a return value, ...)."""
    parents = _parents(function)
    return _feeds_tensors(expr, function, facts, parents, depth=0)


def _feeds_tensors(expr: ast.AST, function: ast.AST, facts: Facts, parents: dict[int, ast.AST], depth: int) -> bool:
    node = expr
    while True:
        parent = parents.get(id(node))
        if parent is None:
            return False
        if isinstance(parent, (ast.BinOp, ast.UnaryOp)):
            node = parent
            continue
        if isinstance(parent, ast.Compare):
            node = parent
            continue
        break
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and getattr(parent, "test", None) is node:
        return False
    if isinstance(parent, ast.BoolOp):
        return False
    if isinstance(parent, ast.keyword):
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and _tensorflow_call(call, facts) and parent.arg not in ("seed", "dtype")
    if isinstance(parent, ast.Call):
        if parent.func is node:
            return False
        return _tensorflow_call(parent, facts)
    if isinstance(parent, ast.Subscript):
        return parent.slice is node and _feeds_tensors(parent, function, facts, parents, depth)
    if isinstance(parent, ast.Assign) and depth == 0 and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name) and node is parent.value:
        name = parent.targets[0].id
        loads = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name]
        stores = [n for n in loads if not isinstance(n.ctx, ast.Load)]
        reads = [n for n in loads if isinstance(n.ctx, ast.Load)]
        if len(stores) != 1 or not reads:
            return False
        nested = {id(m) for n in ast.walk(function) if isinstance(n, _SCOPES) and n is not function
                  for m in ast.walk(n)}
        if any(id(read) in nested for read in reads):
            return False  # read by a nested function or lambda
        return all(_feeds_tensors(read, function, facts, parents, depth + 1) for read in reads)
    return False


def _tensorflow_call(call: ast.Call, facts: Facts) -> bool:
    """A TensorFlow function that takes tensors in the graph (not one that hands its arguments to
    Python on every call: the table's py_callback rows, tf.py_function and tf.numpy_function)."""
    qualname = facts.imports.resolve(call.func) or ""
    if not qualname.startswith("tensorflow."):
        return False
    api = library.api(qualname)
    return api is None or not api.py_callback


def hoist_offer(ctx, call: ast.Call, traced_node: ast.AST | None, *, noun: str, base_name: str):
    """The hoist fix's builder for `call` created directly in the traced function (not in a
    function nested in it, nor a lambda), else None."""
    if not isinstance(traced_node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    text, tree = ctx.facts.source.text, ctx.facts.tree

    def build():
        from ...fixes.hoist import hoist_fix

        return hoist_fix(text, tree, call, traced_node, noun=noun, base_name=base_name)
    return build


def snake_case(name: str) -> str:
    out = []
    for index, char in enumerate(name):
        if char.isupper() and index and (not name[index - 1].isupper()
                                         or (index + 1 < len(name) and name[index + 1].islower())):
            out.append("_")
        out.append(char.lower())
    return "".join(out)
