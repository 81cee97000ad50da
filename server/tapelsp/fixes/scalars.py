"""The dtype of the tensor a Python number becomes when FUNC009 passes `tf.constant(x)`.

`tf.constant(3)` is an int32 tensor and `tf.constant(0.5)` a float32 one. A tf.function that
did float arithmetic with a Python int (`0.99 ** step`, `obs * t`) raises once it is given an
int32 tensor ("cannot compute Mul as input #1 was expected to be a float tensor but is a int32
tensor"), and one that mixes a Python float with float64 tensors raises for a float32 one. So
the dtype is chosen from how the function uses the parameter the argument binds:

- an operand of arithmetic or of a comparison whose other operand is a float (a Python float,
  a float tensor): that tensor's dtype, else float32;
- any integer evidence (an int operand, an index, `range(...)`) and no float one: no dtype
  (the int32 of `tf.constant`); both kinds of evidence: no dtype either.

`constant_dtype` answers None when `tf.constant(x)` as it is gives the right dtype (or when
the function is not found in this file); decided on `ast` with the value model.
"""

from __future__ import annotations

import ast
from typing import Any

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod, ast.FloorDiv)
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def target_function(facts: Any, call: ast.Call) -> ast.FunctionDef | None:
    """The one tf.function defined in this file that `call` names (by its last name)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    found = [t.node for t in facts.tf_functions
             if isinstance(t.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and t.node.name == name]
    return found[0] if len(found) == 1 else None  # type: ignore[return-value]


def parameter_for(values: Any, call: ast.Call, function: ast.AST, argument: ast.expr) -> str | None:
    """The parameter of `function` that `call` passes `argument` for."""
    for keyword in call.keywords:
        if keyword.value is argument:
            return keyword.arg
    params = values.positional_parameters(function)
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if arg is argument:
            return params[index] if index < len(params) else None
    return None


def constant_dtype(values: Any, facts: Any, call: ast.Call, argument: ast.expr, number: Any) -> str | None:
    """The dtype `tf.constant(argument)` should be given (TensorFlow's name), or None for its own."""
    function = target_function(facts, call)
    if function is None:
        return None
    param = parameter_for(values, call, function, argument)
    if param is None:
        return None
    scope = facts.function_scopes.get(function)
    parents = {id(child): node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    floats: list[str] = []
    integers = False
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and node.id == param and isinstance(node.ctx, ast.Load)):
            continue
        evidence = _evidence(values, node, parents, scope)
        if evidence == "int":
            integers = True
        elif evidence is not None:
            floats.append(evidence)
    if integers or not floats:
        return None
    wanted = "float64" if "float64" in floats else next((f for f in floats if f != "float"), "float32")
    if wanted == "float":
        wanted = "float32"
    if number.dtype == "float" and wanted == "float32":
        return None  # what tf.constant makes of a Python float anyway
    return wanted


def _evidence(values: Any, use: ast.Name, parents: dict[int, ast.AST], scope: Any) -> str | None:
    """"int", a float dtype ("float" for a Python float), or None: what one use says."""
    node: ast.AST = use
    parent = parents.get(id(node))
    while isinstance(parent, ast.UnaryOp):
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, _ARITHMETIC):
        other = parent.right if parent.left is node else parent.left
    elif isinstance(parent, ast.Compare) and len(parent.comparators) == 1:
        other = parent.comparators[0] if parent.left is node else parent.left
    elif isinstance(parent, ast.Subscript) and parent.slice is node:
        return "int"
    elif isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "range":
        return "int"
    else:
        return None
    value = values.value(other, scope)
    if not value.known:
        return None
    if value.kind == "number":
        return "float" if value.dtype == "float" else "int" if value.dtype == "int" else None
    if value.kind in ("tensor", "variable", "ndarray", "np_scalar") and value.dtype is not None:
        if value.dtype in _FLOATS:
            return value.dtype
        if value.dtype.startswith(("int", "uint")):
            return "int"
    return None
