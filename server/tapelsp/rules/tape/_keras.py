"""How TAPE009 and TAPE014 word a cut that Keras runs (analysis/keras_graph.py): in a layer of a
model the file builds, or in a loss given to `model.compile`."""

from __future__ import annotations

import ast

from ...analysis.keras_graph import KerasFinding, keras_findings
from ...analysis.paths import gradient_phrase
from ..base import Context

_NO_GRADIENTS = 'ValueError "No gradients provided for any variable"'
_NOT_EXIST = '"Gradients do not exist for variables [...] when minimizing the loss"'


def findings(ctx: Context, kind: str, reported: set[int]) -> list[KerasFinding]:
    """Keras findings of one kind of cut, leaving out cut nodes the tape analysis reported."""
    out = []
    for finding in keras_findings(ctx):
        if finding.kind == kind and id(finding.cut.node) not in reported:
            reported.add(id(finding.cut.node))
            out.append(finding)
    return out


def short_name(node: ast.AST) -> str:
    """`argmax` for `K.argmax(x)` and for `K.argmax` given to a Lambda layer."""
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target).rsplit(".", 1)[-1]


def _layers(finding: KerasFinding) -> str:
    labels: list[str] = []
    for node in finding.starved:
        if node.label not in labels:
            labels.append(node.label)
    return ", ".join(labels)


def consequence(ctx: Context, finding: KerasFinding) -> str:
    """What TensorFlow or Keras then does, after a colon in the message."""
    model = finding.model.name if finding.model is not None else "the model"
    if finding.how == "tape":
        root = finding.result.root
        source = f"the variables of `{root.name}`" if root.owner else f"`{root.label}`"
        return (f"every route from {source} to the target goes through it in {model}, so "
                f"{gradient_phrase(ctx, finding.result)}")
    if finding.how == "tape-partial":
        use = finding.result.use
        return (f"no gradient reaches the layers of {model} before it ({_layers(finding)}): {use.describe()} on "
                f"{ctx.where(use.call)} returns None for their variables, and only the layers after it learn")
    train = finding.train
    method = ast.unparse(train.func) if train is not None else "`model.fit`"
    line = ctx.where(train) if train is not None else "a later line"
    if finding.how == "fit":
        effect = f"raises {_NO_GRADIENTS}" if finding.every else \
            f"leaves them untrained (Keras warns {_NOT_EXIST})"
        return f"no gradient reaches the layers of {model} before it ({_layers(finding)}), so `{method}` on {line} {effect}"
    loss = finding.loss
    name = f"`{loss.name}`" if isinstance(loss, (ast.FunctionDef, ast.AsyncFunctionDef)) else "(a lambda)"
    params = [a.arg for a in (*loss.args.posonlyargs, *loss.args.args)] if loss is not None else []
    y_pred = params[1] if len(params) > 1 else "y_pred"
    return (f"every route from `{y_pred}` (the model's output) to what the loss {name} returns goes through it, "
            f"so `{method}` on {line} raises {_NO_GRADIENTS}")


def related(ctx: Context, finding: KerasFinding) -> list:
    out = []
    layer = finding.layer
    if layer is not None and finding.where:
        out.append(ctx.related(layer.expr, "the layer that runs it"))
    if finding.result is not None:
        use = finding.result.use
        what = f"gets {finding.result.none_for()}" if finding.how == "tape" else "gets None for the layers before it"
        out.append(ctx.related(use.call, f"this {use.method} call {what}"))
    if finding.train is not None:
        out.append(ctx.related(finding.train, "trains the model here"))
    if finding.loss is not None and finding.how == "loss":
        out.append(ctx.related(finding.loss, "the loss given to compile"))
    for node in finding.starved[:3]:
        out.append(ctx.related(node.expr, f"{node.label} gets no gradient"))
    return out
