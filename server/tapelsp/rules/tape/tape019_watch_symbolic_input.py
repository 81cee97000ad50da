from __future__ import annotations

import ast

from ...analysis import library
from ...analysis.gradcalls import GradCall, argument, calls_in_scope, gradient_calls
from ...analysis.values import LAYER, LIBRARY, MODEL, TENSOR, ValueModel, values_for
from ...facts.dataflow import inside
from ...facts.model import CallSite, Facts, Scope
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid

WATCH_ERROR = "of type 'KerasTensor', not tf.Tensor or tf.Variable or ExtensionType."
SOURCE_ERROR = "'KerasTensor' object has no attribute '_id'"
KERAS3_OP_ERROR = "A KerasTensor cannot be used as input to a TensorFlow function."
# The attributes of a Keras model or layer that are its symbolic graph ends (KerasTensors).
# The table lists them (@model.input ...) without saying they are symbolic; until its rows
# carry that, the rule names them here.
_SYMBOLIC_ATTRS = frozenset({"input", "inputs", "output", "outputs"})
_MAX_DEPTH = 8


class WatchSymbolicInput(Rule):
    """
    ## What it does
    Finds `tape.watch(...)` and `tape.gradient(target, sources)` given the symbolic input or
    output of a Keras model or layer: `model.input`, `model.inputs`, `model.output`, a
    `keras.Input(...)`, or a tensor computed from one (`tf.convert_to_tensor(model.input)`),
    instead of the tensor the model is called on.

    ## Why is this bad?
    `model.input` is a `KerasTensor`: a placeholder for the shape and dtype the model was
    built with, not the batch it runs on. Watching it raises
    `ValueError: Passed in object <KerasTensor ...> of type 'KerasTensor', not tf.Tensor or
    tf.Variable or ExtensionType.` (Keras 3 and tf_keras on TensorFlow 2.21), asking for the
    gradient with respect to it raises `AttributeError: 'KerasTensor' object has no attribute
    '_id'`, and a TensorFlow op on it raises in Keras 3 ("A KerasTensor cannot be used as
    input to a TensorFlow function"). Before TensorFlow 2.4 the gradient was silently `None`:
    the computation the tape recorded started from the batch, never from the placeholder.

    ## Example
    ```python
    with tf.GradientTape() as tape:
        predictions = model(images)
        tape.watch(model.inputs)
        loss = loss_object(labels, predictions)
    tape.gradient(loss, model.inputs)
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        tape.watch(images)
        predictions = model(images)
        loss = loss_object(labels, predictions)
    tape.gradient(loss, images)
    ```
    """

    code = "TAPE019"
    name = "watch-symbolic-keras-input"
    summary = "tape.watch / tape.gradient given a model's symbolic input, not the tensor it is called on"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    examples = (
        invalid("""
            import numpy as np
            import keras
            import tensorflow as tf

            inputs = keras.Input((4,))
            hidden = keras.layers.Dense(3, name="hidden")(inputs)
            model = keras.Model(inputs, keras.layers.Dense(1)(hidden))
            x = tf.constant(np.ones((2, 4), "float32"))
            with tf.GradientTape() as tape:
                tape.watch(model.get_layer("hidden").output)
                y = model(x)
        """, 10, "a layer's symbolic output, found with get_layer (Keras 3)",
            proof=Proof(raises=("ValueError", WATCH_ERROR))),
        invalid("""
            import numpy as np
            import tensorflow as tf
            import keras

            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
            images = tf.constant(np.ones((2, 4), np.float32))
            with tf.GradientTape() as tape:
                predictions = model(images)
                tape.watch(model.inputs)
                loss = tf.reduce_sum(predictions)
            grads = tape.gradient(loss, model.inputs)
        """, 9, "the model's inputs watched instead of the batch (Keras 3)",
            proof=Proof(raises=("ValueError", WATCH_ERROR))),
        invalid("""
            import tensorflow as tf
            import tf_keras

            inputs = tf_keras.Input(shape=(3,))
            model = tf_keras.Model(inputs, tf_keras.layers.Dense(1)(inputs))
            v = tf.Variable(tf.ones((5, 3)))
            with tf.GradientTape() as tape:
                tape.watch(model.input)
                out = model(v)
            by_input = tape.gradient(out, model.input)
        """, 8, "tf_keras: model.input watched while a variable is fed to the model",
            proof=Proof(raises=("ValueError", WATCH_ERROR))),
        invalid("""
            import tensorflow as tf
            import keras

            inputs = keras.Input(shape=(3,))
            model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
            x = tf.ones((5, 3))
            with tf.GradientTape() as tape:
                out = model(x)
            dx = tape.gradient(out, model.input)
        """, 9, "the gradient asked with respect to model.input, never watched",
            proof=Proof(raises=("AttributeError", SOURCE_ERROR))),
        invalid("""
            import tensorflow as tf
            import tf_keras

            model = tf_keras.Sequential([tf_keras.Input((2,)), tf_keras.layers.Dense(1)])

            def physics_residual():
                x = tf.convert_to_tensor(model.input, dtype=tf.float32)
                with tf.GradientTape() as t:
                    t.watch(x)
                    y = model(x)
                return t.gradient(y, x)

            residual = physics_residual()
        """, 7, "a tensor converted from model.input (tf_keras: another KerasTensor; Keras 3 raises at the "
                "conversion)",
            proof=Proof(raises=("ValueError", WATCH_ERROR))),
        invalid("""
            import tensorflow as tf
            import keras

            inputs = keras.Input(shape=(3,))
            model = keras.Model(inputs, keras.layers.Dense(1)(inputs))

            @tf.function
            def input_gradient(batch):
                with tf.GradientTape() as tape:
                    tape.watch(inputs)
                    out = model(batch)
                return tape.gradient(out, inputs)

            g = input_gradient(tf.ones((2, 3)))
        """, 10, "keras.Input watched inside a tf.function: still a KerasTensor",
            proof=Proof(raises=("ValueError", WATCH_ERROR))),
        valid("""
            import numpy as np
            import tensorflow as tf
            import keras

            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
            images = tf.constant(np.ones((2, 4), np.float32))
            with tf.GradientTape() as tape:
                tape.watch(images)
                predictions = model(images)
                loss = tf.reduce_sum(predictions)
            grads = tape.gradient(loss, images)
        """, "the batch fed to the model is watched",
            proof=Proof(check="assert grads is not None and tuple(grads.shape) == (2, 4)")),
        valid("""
            import tensorflow as tf
            import keras

            inputs = keras.Input(shape=(3,))
            hidden = keras.layers.Dense(4, activation="tanh")(inputs)
            model = keras.Model(inputs, keras.layers.Dense(1)(hidden))
            features = keras.Model(model.inputs, model.layers[1].output)
            x = tf.ones((2, 3))
            with tf.GradientTape() as tape:
                tape.watch(x)
                h = features(x)
            dh = tape.gradient(h, x)
        """, "model.inputs used to build another model, the batch watched",
            proof=Proof(check="assert dh is not None and tuple(dh.shape) == (2, 3)")),
        valid("""
            import tensorflow as tf
            import keras

            inputs = keras.Input(shape=(3,))
            model = keras.Model(inputs, keras.layers.Dense(1)(inputs))

            @tf.function
            def input_gradient(batch):
                with tf.GradientTape() as tape:
                    tape.watch(batch)
                    out = model(batch)
                return tape.gradient(out, batch)

            g = input_gradient(tf.ones((2, 3)))
        """, "the tf.function's argument watched",
            proof=Proof(check="assert tuple(g.shape) == (2, 3)")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        done: set[int] = set()
        # (scope, tape, symbolic tensor) watched and reported: the watch raises before the gradient call.
        watched: set[tuple[int, str, str]] = set()
        for scope, name in _tape_names(facts):
            for site in scope.method_calls.get((name, "watch"), ()):
                arg = argument(site.node, "tensor", 0)
                if arg is None or facts.graph_mode(site.node, site.scope):
                    continue
                found = _symbolic_root(arg, site.scope, values, 0)
                if found is None:
                    continue
                root, op = found
                key = (id(scope), name, ast.unparse(root))
                if id(root) in done or key in watched:
                    continue
                done.add(id(root))
                watched.add(key)
                self._report_watch(ctx, site, arg, root, op, values)
        for call in gradient_calls(facts):
            sources = call.sources
            if sources is None or facts.graph_mode(call.node, call.site.scope):
                continue
            found = _symbolic_root(sources, call.site.scope, values, 0)
            if found is None or id(found[0]) in done or \
                    (id(call.binding.scope), call.name, ast.unparse(found[0])) in watched:
                continue
            done.add(id(found[0]))
            self._report_source(ctx, call, sources, found[0], found[1], values)

    def _report_watch(self, ctx: Context, site: CallSite, arg: ast.expr, root: ast.expr,
                      op: ast.Call | None, values: ValueModel) -> None:
        what = _describe(root)
        fed = _fed_tensor(ctx.facts, site, root, values)
        instead = (f"Watch the tensor the model is called on (`{fed}`) and ask the gradient with respect to it."
                   if fed else "Watch the tensor the model is called on, and ask the gradient with respect to it.")
        watch_effect = (f"`{ast.unparse(site.node)}` on {ctx.where(site.node)} raises ValueError "
                        f"\"Passed in object <KerasTensor ...> {WATCH_ERROR}\"")
        if op is not None:
            ctx.report(
                op,
                f"`{_short(op)}` computes with {what} as if it were data: Keras 3 raises ValueError "
                f"\"{KERAS3_OP_ERROR}\" here, and with tf_keras the result is another KerasTensor, so "
                f"{watch_effect} {instead}",
                related=[ctx.related(site.node, "the watch of the symbolic tensor")])
            return
        ctx.report(
            site.node,
            f"{what[0].upper()}{what[1:]}, not the tensor the model was called on: {watch_effect} "
            f"(TensorFlow before 2.4: the gradient is silently None). {instead}",
            related=[ctx.related(root, "the symbolic tensor")] if not inside(root, site.node) else [])

    def _report_source(self, ctx: Context, call: GradCall, sources: ast.expr, root: ast.expr,
                       op: ast.Call | None, values: ValueModel) -> None:
        what = _describe(root)
        effect = (f"`{call.label()}` on {ctx.where(call.node)} raises AttributeError \"{SOURCE_ERROR}\" "
                  "(TensorFlow before 2.4: None)")
        fed = _fed_tensor(ctx.facts, call.site, root, values)
        instead = (f"Ask the gradient with respect to the tensor the model is called on (`{fed}`), watched "
                   "in the tape." if fed else
                   "Ask the gradient with respect to the tensor the model is called on, watched in the tape.")
        where = op if op is not None else call.node
        ctx.report(where, f"The gradient source is {what}, not the tensor the model was called on: {effect}. "
                          f"{instead}",
                   related=[ctx.related(call.node, "the gradient call")] if where is not call.node else [])


def _tape_names(facts: Facts) -> list[tuple[Scope, str]]:
    seen: set[tuple[int, str]] = set()
    out: list[tuple[Scope, str]] = []
    for tape in facts.tapes:
        if tape.name is not None and (id(tape.scope), tape.name) not in seen:
            seen.add((id(tape.scope), tape.name))
            out.append((tape.scope, tape.name))
    return out


def _symbolic_root(expr: ast.AST, scope: Scope, values: ValueModel, depth: int,
                   op: ast.Call | None = None) -> tuple[ast.expr, ast.Call | None] | None:
    """The symbolic Keras tensor `expr` is or is computed from (`model.input`, `keras.Input(...)`),
    with the TensorFlow op nearest to it on the way (None when `expr` is it or an alias)."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, (ast.List, ast.Tuple)):
        for element in expr.elts:
            found = _symbolic_root(element, scope, values, depth + 1, op)
            if found is not None:
                return found
        return None
    if isinstance(expr, ast.Subscript):
        return _symbolic_root(expr.value, scope, values, depth + 1, op)
    if isinstance(expr, ast.Attribute) and expr.attr in _SYMBOLIC_ATTRS:
        base = values.value(expr.value, scope)
        if base.is_(MODEL, LAYER) and (library.method(MODEL, expr.attr) or library.method(LAYER, expr.attr)):
            return expr, op
        return None
    if isinstance(expr, ast.Call):
        value = values.value(expr, scope)
        if value.is_(TENSOR) and value.symbolic and not values.traced(scope) and value.origin is expr:
            return expr, op  # keras.Input(...)
        func = values.value(expr.func, scope)
        api = library.api(func.ref) if func.kind == LIBRARY and isinstance(func.ref, str) else None
        if api is None or api.kind not in (TENSOR, "same") or not api.name.startswith(("tensorflow.", "keras.")):
            return None
        first = expr.args[0] if expr.args else None
        if first is None:
            return None
        return _symbolic_root(first, scope, values, depth + 1, expr)
    if isinstance(expr, ast.BinOp):
        return _symbolic_root(expr.left, scope, values, depth + 1, op) or \
            _symbolic_root(expr.right, scope, values, depth + 1, op)
    if isinstance(expr, ast.Name):
        value = values.value(expr, scope)
        origin = value.origin
        if not value.certain or origin is None or origin is expr or value.remote is not None:
            return None
        if not isinstance(origin, (ast.Attribute, ast.Call, ast.Subscript, ast.BinOp, ast.Name)):
            return None
        # What an op on the root computes is reported at the op: the op nearest the root wins.
        found = _symbolic_root(origin, values.scope_at(origin), values, depth + 1, None)
        if found is not None:
            return found[0], found[1] if found[1] is not None else op
    return None


def _describe(root: ast.expr) -> str:
    if isinstance(root, ast.Attribute):
        owner = ast.unparse(root.value)
        plural = root.attr.endswith("s")
        kind = "input" if root.attr.startswith("input") else "output"
        return (f"`{ast.unparse(root)}`, the symbolic {kind}{'s' if plural else ''} of `{owner}` "
                f"(KerasTensor{'s' if plural else ''})")
    return f"`{_short(root)}`, a symbolic Keras input (KerasTensor)"


def _fed_tensor(facts: Facts, site: CallSite, root: ast.expr, values: ValueModel) -> str | None:
    """The tensor the model of `root` is called on in the scope of `site` (`model(images)`)."""
    if not isinstance(root, ast.Attribute) or not root.attr.startswith("input"):
        return None
    owner = ast.unparse(root.value)
    for other in calls_in_scope(facts, site.scope):
        call = other.node
        if ast.unparse(call.func) == owner and call.args:
            arg = call.args[0]
            if _symbolic_root(arg, site.scope, values, 0) is None:
                return _short(arg)
    return None


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 50 else text[:47] + "..."
