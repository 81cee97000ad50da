"""NumPy (and `math`) calls on a tape's differentiable path -> their TensorFlow twins (TAPE007).

`tf_equivalent(qualname, call)` says, on `ast` and without libcst, whether a call has a
TensorFlow equivalent that takes exactly the same arguments (`np.square(t)` ->
`tf.square(t)`, `np.sum(t, axis=1)` -> `tf.reduce_sum(t, axis=1)`, `np.log(t)` ->
`tf.math.log(t)`); `numpy_call_fix` rewrites the callee with libcst, using the file's
TensorFlow alias, and adds `import tensorflow as tf` when the file has none.

Only maps whose arguments mean the same on both sides are listed: `np.matmul` (1-D
operands), `np.concatenate` (the axis default), `np.dot`, `np.clip` with keywords and the
like are left alone.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..model import Applicability, Fix


@dataclass(frozen=True)
class Twin:
    path: str                 # after the TensorFlow alias: "square", "math.log"
    positional: tuple[int, int]  # how many positional arguments (min, max); max -1: any
    # keyword names accepted, with their TensorFlow names
    keywords: dict[str, str] = field(default_factory=dict)


_UNARY = {
    "square": "square", "exp": "exp", "log": "math.log", "sqrt": "sqrt", "abs": "abs", "absolute": "abs",
    "tanh": "tanh", "sin": "sin", "cos": "cos", "log1p": "math.log1p", "expm1": "math.expm1",
    "sign": "sign", "negative": "negative",
}
_BINARY = {
    "maximum": "maximum", "minimum": "minimum", "multiply": "multiply", "add": "add",
    "subtract": "subtract", "divide": "divide", "power": "pow",
}
_REDUCTIONS = {
    "sum": "reduce_sum", "mean": "reduce_mean", "max": "reduce_max", "amax": "reduce_max",
    "min": "reduce_min", "amin": "reduce_min", "prod": "reduce_prod", "std": "math.reduce_std",
    "var": "math.reduce_variance",
}
_AXIS = {"axis": "axis"}

NUMPY_TWINS: dict[str, Twin] = {
    **{f"numpy.{name}": Twin(path, (1, 1)) for name, path in _UNARY.items()},
    **{f"numpy.{name}": Twin(path, (2, 2)) for name, path in _BINARY.items()},
    **{f"numpy.{name}": Twin(path, (1, 2), {"axis": "axis", "keepdims": "keepdims"})
       for name, path in _REDUCTIONS.items()},
    "numpy.reshape": Twin("reshape", (2, 2)),
    "numpy.transpose": Twin("transpose", (1, 2), {"axes": "perm"}),
    "numpy.expand_dims": Twin("expand_dims", (1, 2), _AXIS),
    "numpy.squeeze": Twin("squeeze", (1, 2), _AXIS),
    "numpy.stack": Twin("stack", (1, 2), _AXIS),
    "numpy.where": Twin("where", (3, 3)),
    "numpy.clip": Twin("clip_by_value", (3, 3)),
    "numpy.einsum": Twin("einsum", (2, -1)),
    # `math` functions of one tensor (a scalar here): the same value, kept a tensor.
    **{f"math.{name}": Twin(path, (1, 1)) for name, path in {
        "exp": "exp", "log": "math.log", "sqrt": "sqrt", "tanh": "tanh", "sin": "sin", "cos": "cos",
        "log1p": "math.log1p", "expm1": "math.expm1", "fabs": "abs"}.items()},
}


def tf_equivalent(qualname: str | None, call: ast.Call) -> Twin | None:
    """The TensorFlow function taking exactly this call's arguments, or None."""
    twin = NUMPY_TWINS.get(qualname or "")
    if twin is None:
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    low, high = twin.positional
    if len(call.args) < low or (high >= 0 and len(call.args) > high):
        return None
    if any(k.arg not in twin.keywords for k in call.keywords):
        return None
    if "axis" in {k.arg for k in call.keywords} and len(call.args) > 1:
        return None
    if any(isinstance(a, ast.Constant) and a.value is None for a in [*call.args, *(k.value for k in call.keywords)]):
        return None  # `np.clip(t, None, 1)`: TensorFlow wants both bounds
    return twin


def enclosing_twins(tree: ast.AST, call: ast.Call, resolve) -> list[tuple[ast.Call, Twin]]:
    """The calls around `call` in its statement (innermost first) that have a TensorFlow twin and
    take `call`'s value as an argument: once `call` is a TensorFlow op they would be next."""
    stmt = _statement_around(tree, call)
    if stmt is None:
        return []
    found = []
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and node is not call and any(
                _within(call, argument) for argument in [*node.args, *(k.value for k in node.keywords)]):
            twin = tf_equivalent(resolve(node.func), node)
            if twin is not None:
                found.append((node, twin))
    found.sort(key=lambda pair: _size(pair[0]))
    return found


def _statement_around(tree: ast.AST, node: ast.AST) -> ast.stmt | None:
    best = None
    stack = [tree]
    while stack:
        current = stack.pop()
        for child in ast.iter_child_nodes(current):
            if isinstance(child, ast.stmt) and _within(node, child):
                best = child
                stack.append(child)
            elif not isinstance(child, ast.stmt) and hasattr(child, "body"):
                stack.append(child)  # except handlers, match cases
    return best


def _within(node: ast.AST, container: ast.AST) -> bool:
    start = (container.lineno, container.col_offset)  # type: ignore[attr-defined]
    end = (container.end_lineno or 0, container.end_col_offset or 0)  # type: ignore[attr-defined]
    return start <= (node.lineno, node.col_offset) and \
        (node.end_lineno or 0, node.end_col_offset or 0) <= end  # type: ignore[attr-defined]


def _size(node: ast.AST) -> tuple[int, int]:
    return ((node.end_lineno or 0) - node.lineno, (node.end_col_offset or 0) - node.col_offset)  # type: ignore[attr-defined]


def numpy_call_fix(text: str, calls: list[tuple[ast.Call, Twin]], alias: str, add_import: bool, title: str,
                   applicability: Applicability) -> Fix | None:
    """Every call of `calls` -> its TensorFlow twin."""
    from .blocks import or_none

    return or_none(_build)(text, calls, alias, add_import, title, applicability)


def _build(text: str, calls: list[tuple[ast.Call, Twin]], alias: str, add_import: bool, title: str,
           applicability: Applicability) -> Fix | None:
    import libcst as cst

    from .blocks import Rewrite

    rewrite = Rewrite(text, () if add_import else [call for call, _twin in calls])
    for call, twin in calls:
        node = rewrite.node(call, cst.Call)
        assert isinstance(node, cst.Call)
        func = cst.parse_expression(f"{alias}.{twin.path}")

        def change(updated, func=func, twin=twin):
            args = []
            for arg in updated.args:
                renamed = twin.keywords.get(arg.keyword.value) if arg.keyword is not None else None
                if renamed is not None and renamed != arg.keyword.value:
                    arg = arg.with_changes(keyword=cst.Name(renamed))
                args.append(arg)
            return updated.with_changes(func=func.with_changes(lpar=updated.func.lpar, rpar=updated.func.rpar),
                                        args=args)
        rewrite.change(node, change)
    if add_import:
        module = rewrite.parsed.module
        rewrite.insert(module, _import_index(module), [f"import tensorflow as {alias}"])
    return rewrite.fix(title, applicability)


def _import_index(module) -> int:
    """Where a new import goes: after the imports at the top of the module (after its
    docstring and `__future__` imports when there are no others)."""
    import libcst as cst

    index = 0
    body = module.body
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        index = 1
    last_import = None
    for position in range(index, len(body)):
        statement = body[position]
        if isinstance(statement, cst.SimpleStatementLine) and all(
                isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body):
            last_import = position
            continue
        break
    return last_import + 1 if last_import is not None else index
