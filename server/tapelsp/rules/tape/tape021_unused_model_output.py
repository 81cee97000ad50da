from __future__ import annotations

import ast

from ...analysis.gradcalls import fast_slice, gradient_calls
from ...analysis.keras_graph import functional_model_of, layers_feeding_only
from ...analysis.values import MODEL, values_for
from ...facts.names import dotted
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid

_VARIABLE_LISTS = ("trainable_variables", "trainable_weights")


class UnusedModelOutput(Rule):
    """
    ## What it does
    Finds `tape.gradient(loss, model.trainable_variables)` where `model` is a functional
    Keras model with several outputs, built in this file, the tape unpacks its outputs
    (`main, aux = model(x)`), and the loss is computed from some of them only, while layers
    of the model feed nothing but the outputs the loss leaves out (an auxiliary head).

    ## Why is this bad?
    The gradient with respect to the variables of those layers is None. `apply_gradients`
    warns "Gradients do not exist for variables [...] when minimizing the loss" and skips
    them: the head never trains, and nothing fails. Either add its loss (`loss = main_loss +
    0.3 * aux_loss`), or differentiate only the variables the loss uses.

    ## Example
    ```python
    inp = keras.Input((6,))
    h = keras.layers.Dense(16)(inp)
    model = keras.Model(inp, [keras.layers.Dense(1)(h), keras.layers.Dense(3)(h)])
    with tf.GradientTape() as tape:
        main_out, aux_out = model(x)
        loss = tf.reduce_mean((main_out - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)   # None for the aux head
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        main_out, aux_out = model(x)
        loss = tf.reduce_mean((main_out - y) ** 2) + 0.1 * aux_loss(aux_out, y_aux)
    grads = tape.gradient(loss, model.trainable_variables)
    ```
    """

    code = "TAPE021"
    name = "unused-model-output"
    summary = "The loss uses some outputs of a multi-output model: the layers of the others get None gradients"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape", "Model(")
    examples = (
        invalid("""
            import tensorflow as tf
            import keras

            inp = keras.Input((6,))
            h = keras.layers.Dense(8, activation="relu")(inp)
            main = keras.layers.Dense(1, name="main")(h)
            aux = keras.layers.Dense(3, name="aux")(h)
            model = keras.Model(inp, [main, aux])
            x = tf.ones((4, 6))
            with tf.GradientTape() as tape:
                main_out, aux_out = model(x)
                loss = tf.reduce_mean(main_out ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 13, "an auxiliary head left out of the loss",
            proof=Proof(check="""
                missing = {v.path for v, g in zip(model.trainable_variables, grads) if g is None}
                assert missing and all(p.startswith("aux/") for p in missing), missing
            """)),
        valid("""
            import tensorflow as tf
            import keras

            inp = keras.Input((6,))
            h = keras.layers.Dense(8, activation="relu")(inp)
            main = keras.layers.Dense(1, name="main")(h)
            aux = keras.layers.Dense(3, name="aux")(h)
            model = keras.Model(inp, [main, aux])
            x = tf.ones((4, 6))
            with tf.GradientTape() as tape:
                main_out, aux_out = model(x)
                loss = tf.reduce_mean(main_out ** 2) + 0.1 * tf.reduce_mean(aux_out ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, "both outputs in the loss",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf
            import keras

            inp = keras.Input((6,))
            h = keras.layers.Dense(8, activation="relu")(inp)
            features = keras.layers.Dense(4)(h)
            logits = keras.layers.Dense(2)(features)
            model = keras.Model(inp, [logits, features])
            x = tf.ones((4, 6))
            with tf.GradientTape() as tape:
                logits_out, features_out = model(x)
                loss = tf.reduce_mean(logits_out ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, "the output left out is an intermediate the used one is computed from",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf
            import keras

            inp = keras.Input((6,))
            h = keras.layers.Dense(8, activation="relu")(inp)
            model = keras.Model(inp, [keras.layers.Dense(1)(h), keras.layers.Dense(3)(h)])
            optimizer = keras.optimizers.SGD(0.1)
            x = tf.ones((4, 6))
            with tf.GradientTape() as tape:
                main_out, _ = model(x)
                loss = tf.reduce_mean(main_out ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            pairs = [(g, v) for g, v in zip(grads, model.trainable_variables) if g is not None]
            optimizer.apply_gradients(pairs)
        """, "the head discarded on purpose (`_`) and the None gradients filtered out",
            proof=Proof(check="assert len(pairs) == 4")),
    )

    def check(self, ctx: Context) -> None:
        values = values_for(ctx)
        for call in gradient_calls(ctx.facts):
            if call.entry is None or call.target is None or call.asks_zeros:
                continue
            sources = call.sources
            if not (isinstance(sources, ast.Attribute) and sources.attr in _VARIABLE_LISTS):
                continue
            owner = dotted(sources.value)
            if owner is None:
                continue
            unpack = _unpacked_call(call.entry.node, owner)
            if unpack is None:
                continue
            stmt, names = unpack
            model_value = values.value(stmt.value.func, call.site.scope)  # type: ignore[attr-defined]
            if model_value.kind != MODEL:
                continue
            model = functional_model_of(ctx, model_value)
            if model is None or len(model.outputs) != len(names) or len(names) < 2:
                continue
            used = _names_read(call, names)
            if used is None or not used:
                continue
            unused = {i for i, name in enumerate(names) if name not in used}
            if not unused or any(names[i].startswith("_") for i in unused):
                continue  # `main, _ = model(x)`: left out on purpose
            if _none_filtered(call):
                continue  # the caller drops the None gradients itself: the head is left alone on purpose
            starved = layers_feeding_only(model, unused)
            if not starved:
                continue
            left_out = ", ".join(f"`{names[i]}`" for i in sorted(unused))
            layers = ", ".join(node.label or "a layer" for node in starved[:3])
            ctx.report(
                call.node,
                f"`{ast.unparse(call.target)}` is computed from {', '.join(f'`{n}`' for n in names if n in used)} "
                f"only, not from {left_out}: the layers that feed nothing else ({layers}) get None in "
                f"`{call.label()}(..., {owner}.{sources.attr})`, and `apply_gradients` warns \"Gradients do not "
                "exist for variables\" and leaves them untrained. Add a loss for that output, or differentiate "
                "only the variables the loss uses.",
                related=[ctx.related(stmt, f"the outputs of `{owner}` unpacked here")],
            )


def _none_filtered(call) -> bool:
    """Is the gradient list filtered for None in the same scope (`[(g, v) for g, v in zip(grads,
    ...) if g is not None]`)?"""
    parent = call.site.scope.node
    grads = None
    for node in ast.walk(parent):
        if isinstance(node, ast.Assign) and node.value is call.node and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            grads = node.targets[0].id
    if grads is None:
        return False
    for node in ast.walk(parent):
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            for gen in node.generators:
                if any(isinstance(n, ast.Name) and n.id == grads for n in ast.walk(gen.iter)) and any(
                        isinstance(c, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in c.ops)
                        for cond in gen.ifs for c in ast.walk(cond)):
                    return True
    return False


def _unpacked_call(block: ast.AST, owner: str) -> tuple[ast.Assign, list[str]] | None:
    """`a, b = owner(...)` in the tape's block (not in nested defs): the statement and the names."""
    found = None
    for node in ast.walk(block):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)) \
                and isinstance(node.value, ast.Call) and dotted(node.value.func) == owner \
                and all(isinstance(e, ast.Name) for e in node.targets[0].elts):
            if found is not None:
                return None  # called twice: which call the loss uses is not followed here
            found = (node, [e.id for e in node.targets[0].elts])  # type: ignore[union-attr]
    return found


def _names_read(call, names: list[str]) -> set[str] | None:
    """Which of `names` the target is computed from (through its definitions)."""
    exprs: list[ast.AST] = [call.target]
    exprs.extend(d.value for d in fast_slice(call.flow, call.target, call.node) if d.value is not None)
    read = {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name) and n.id in names}
    return read
