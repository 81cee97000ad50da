"""What the optimizer rules (and TAPE012, for the variables minimize is given) share: the
`optimizer.minimize(...)` calls of a file, with the optimizer's family."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...analysis.gradcalls import argument
from ...analysis.values import FUNCTION, OPTIMIZER, UNKNOWN, Value, ValueModel, values_for
from ...facts.model import CallSite

# The in-place updates of a tf.Variable that a tf.Tensor does not have.
ASSIGNS = frozenset({"assign", "assign_add", "assign_sub"})


@dataclass(eq=False)
class MinimizeCall:
    site: CallSite
    loss: ast.expr
    var_list: ast.expr | None
    optimizer: Value
    # "keras2", "keras3", "v1" or "unknown" (see optimizer_family)
    family: str


# Optimizer methods that take (loss, var_list) and call the loss under their own tape when it is a
# function: `compute_gradients` is `minimize` without the update (tf_keras, tf.compat.v1.train).
MINIMIZE_METHODS = ("minimize", "compute_gradients")


def minimize_calls(ctx) -> list[MinimizeCall]:
    """`optimizer.minimize(loss, var_list)` (and `compute_gradients`) calls of eager TensorFlow 2 code (not TF1 graph
    code, where a tensor loss is the API), on an optimizer or on a receiver the value model
    cannot name (not scipy's or TFP's `minimize`)."""
    facts = ctx.facts
    cached = facts.__dict__.get("_minimize_calls")
    if cached is not None:
        return cached
    values = values_for(ctx)
    out: list[MinimizeCall] = []
    for site in facts.calls:
        if site.method not in MINIMIZE_METHODS or not isinstance(site.node.func, ast.Attribute):
            continue
        if facts.graph_mode(site.node, site.scope):
            continue
        if site.qualname is not None and not site.qualname.startswith(("keras.", "tensorflow.train.")):
            continue  # scipy.optimize.minimize, tfp.math.minimize...
        call = site.node
        loss = argument(call, "loss", 0)
        if loss is None:
            continue
        optimizer = values.value(site.node.func.value, site.scope)
        if optimizer.kind not in (OPTIMIZER, UNKNOWN):
            continue
        out.append(MinimizeCall(site, loss, argument(call, "var_list", 1), optimizer,
                                optimizer_family(optimizer, values)))
    facts.__dict__["_minimize_calls"] = out
    return out


def optimizer_family(optimizer: Value, values: ValueModel) -> str:
    """"keras2", "keras3", "v1" or "unknown", from what the optimizer was constructed with."""
    qualname = optimizer.ref if optimizer.is_(OPTIMIZER) and isinstance(optimizer.ref, str) else ""
    if qualname.startswith("tensorflow.train.") and qualname.endswith("Optimizer"):
        return "v1"
    if not qualname.startswith("keras.optimizers."):
        return "unknown"
    if qualname.startswith("keras.optimizers.legacy."):
        return "keras2"
    origin = optimizer.origin if optimizer.remote is None else None
    return "keras3" if values.keras_major(origin) >= 3 else "keras2"


def loss_function(loss: ast.expr, site: CallSite, values: ValueModel) -> ast.Lambda | ast.FunctionDef | None:
    """The lambda or def of this file that `loss` is (written there, or a name bound to it)."""
    if isinstance(loss, ast.Lambda):
        return loss
    if not isinstance(loss, ast.Name):
        return None
    value = values.value(loss, site.scope)
    if value.is_(FUNCTION) and value.home is None and isinstance(value.ref, (ast.Lambda, ast.FunctionDef)):
        return value.ref
    return None


def parameter_loops(facts) -> list[tuple[ast.For, str, list[ast.expr]]]:
    """`for p, g in zip([w, b], grads):` / `for p in [w, b]:` loops: the loop, the name bound to
    each listed parameter, and the listed expressions."""
    from ...facts.walk import statements_breadth_first

    out = []
    for node in statements_breadth_first(facts.tree):  # loops are statements: ast.walk's order, fewer nodes
        if isinstance(node, (ast.For, ast.AsyncFor)):
            listed = _listed(node)
            if listed is not None:
                out.append((node, *listed))
    return out


def _listed(loop: ast.For | ast.AsyncFor) -> tuple[str, list[ast.expr]] | None:
    iterated, target = loop.iter, loop.target
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "zip" \
            and iterated.args and isinstance(target, (ast.Tuple, ast.List)) and target.elts:
        iterated, target = iterated.args[0], target.elts[0]
    if isinstance(iterated, (ast.List, ast.Tuple)) and isinstance(target, ast.Name):
        return target.id, list(iterated.elts)
    return None


def assigns_on(loop: ast.For | ast.AsyncFor, name: str) -> list[tuple[ast.Call, str]]:
    """`name.assign*(...)` calls in the loop's body (not in functions defined there), before `name`
    is bound again."""
    out = []
    stack: list[ast.AST] = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id == name
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                for t in ast.walk(target)):
            return []  # rebound in the loop: what it holds there is not told here
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ASSIGNS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            out.append((node, node.func.attr))
        stack.extend(ast.iter_child_nodes(node))
    out.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
    return out


def loop_update(scopes: list[ast.AST], name: str) -> ast.Call | None:
    """The first `p.assign*(...)` of a loop over a written-out list holding `name` (`for p, g in
    zip([w, name], grads): p.assign_sub(lr * g)`), in these scopes' code."""
    found = []
    for scope in scopes:
        for loop in ast.walk(scope):
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                continue
            listed = _listed(loop)
            if listed is None or not any(isinstance(e, ast.Name) and e.id == name for e in listed[1]):
                continue
            found.extend(call for call, _method in assigns_on(loop, listed[0]))
    return min(found, key=lambda n: (n.lineno, n.col_offset)) if found else None
