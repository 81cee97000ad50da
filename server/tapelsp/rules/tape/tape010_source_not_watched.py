from __future__ import annotations

import ast
from dataclasses import replace

from ...facts.dataflow import inside, position
from ...facts.names import dotted
from ...model import Applicability, Severity
from ...versions import VersionRange
from ._fixes import first_after_watches, unfixed
from ...analysis.gradcalls import (
    GradCall,
    gradient_calls,
    tape_escapes,
    tape_item_range_node,
    watch_calls,
    watch_position,
)
from ...analysis.values import NUMBER, TENSOR, TF_VALUES, VARIABLE, Value, is_integer_dtype, values_for
from ..base import Context, Proof, Rule, invalid, shares_findings, valid

_VARIABLE_LISTS = ("trainable_variables", "trainable_weights", "variables", "weights")


class SourceNotWatched(Rule):
    """
    ## What it does
    Finds gradients asked with respect to something the tape does not watch: a plain
    tensor (`tf.constant`, `tf.zeros`, NumPy data, arithmetic of those) with no
    `tape.watch(...)`; a `tf.Variable(..., trainable=False)`; or any variable of a tape
    opened with `watch_accessed_variables=False` that never calls `watch`.

    ## Why is this bad?
    A GradientTape only records operations on what it watches. On its own it watches the
    trainable `tf.Variable`s that the block reads, nothing else. Asked for the gradient
    with respect to an unwatched tensor or a non-trainable variable, `tape.gradient`
    silently returns `None`.

    ## Example
    ```python
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    dy_dx = tape.gradient(y, x)  # None
    ```

    ## Use instead
    ```python
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    dy_dx = tape.gradient(y, x)  # 6.0
    ```
    """

    code = "TAPE010"
    name = "gradient-source-not-watched"
    summary = "The gradient source is a tensor or variable the tape does not watch"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    fixable = True
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf

            def saliency(model, images):
                images = tf.convert_to_tensor(images)
                with tf.GradientTape() as tape:
                    score = tf.reduce_sum(model(images))
                return tape.gradient(score, images)

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            grad = saliency(model, np.ones((2, 3), np.float32))
        """, 8, "a tensor converted from the caller's NumPy data before the tape, never watched",
            proof=Proof(check="assert grad is None"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            def saliency(model, images):
                images = tf.convert_to_tensor(images)
                with tf.GradientTape() as tape:
                    tape.watch(images)
                    score = tf.reduce_sum(model(images))
                return tape.gradient(score, images)

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            grad = saliency(model, np.ones((2, 3), np.float32))
        """, fixed_proof=Proof(check="assert grad is not None and grad.shape == (2, 3)")),
        invalid("""
            import tensorflow as tf

            def left_flux(coords):
                x_left = coords[:, :1]
                with tf.GradientTape() as tape:
                    tape.watch(coords)
                    u = tf.reduce_sum(tf.concat([x_left, coords[:, 1:]], axis=1) ** 2)
                return tape.gradient(u, x_left)

            flux = left_flux(tf.ones((4, 2)))
        """, 8, "a slice taken before the tape: watching the whole tensor does not watch the slice",
            proof=Proof(check="assert flux is None"),
            fixed="""
            import tensorflow as tf

            def left_flux(coords):
                x_left = coords[:, :1]
                with tf.GradientTape() as tape:
                    tape.watch(coords)
                    tape.watch(x_left)
                    u = tf.reduce_sum(tf.concat([x_left, coords[:, 1:]], axis=1) ** 2)
                return tape.gradient(u, x_left)

            flux = left_flux(tf.ones((4, 2)))
        """, fixed_proof=Proof(check="assert flux.numpy().tolist() == [[2.0]] * 4")),
        valid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * 2.0
                z = tf.reduce_sum(y ** 2)
            g = tape.gradient(z, y)
        """, "an intermediate the tape computed from a watched tensor has its gradient",
            proof=Proof(check="assert g.numpy().tolist() == [4.0, 8.0]")),
        invalid("""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                y = x * x
            dy_dx = tape.gradient(y, x)
        """, 6, "a constant, never watched",
            proof=Proof(check="assert dy_dx is None"),
            fixed="""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            dy_dx = tape.gradient(y, x)
        """, fixed_proof=Proof(check="assert float(dy_dx) == 6.0")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable([[1.0], [2.0]])
            inputs = tf.convert_to_tensor(np.ones((3, 2), dtype=np.float32))
            with tf.GradientTape() as tape:
                tape.watch(w)
                out = tf.reduce_sum(inputs @ w)
            saliency, dw = tape.gradient(out, [inputs, w])
        """, 9, "input saliency: the input tensor is not watched (the variable is)",
            proof=Proof(check="assert saliency is None and dw is not None"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable([[1.0], [2.0]])
            inputs = tf.convert_to_tensor(np.ones((3, 2), dtype=np.float32))
            with tf.GradientTape() as tape:
                tape.watch(w)
                tape.watch(inputs)
                out = tf.reduce_sum(inputs @ w)
            saliency, dw = tape.gradient(out, [inputs, w])
        """, fixed_proof=Proof(check="""
            assert saliency.numpy().tolist() == [[1.0, 2.0]] * 3
            assert dw.numpy().tolist() == [[3.0], [3.0]]
        """)),
        unfixed(invalid("""
            import tensorflow as tf

            scale = tf.Variable(2.0, trainable=False)
            with tf.GradientTape() as tape:
                y = scale * 3.0
            g = tape.gradient(y, scale)
        """, 6, "a non-trainable variable: no fix (watching it or making it trainable is the author's call)",
            proof=Proof(check="assert g is None"))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(1.5)
            b = tf.Variable(0.5)
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                y = w * 2.0 + b
            gw, gb = tape.gradient(y, [w, b])
        """, (7, 7), "watch_accessed_variables=False and no watch: both sources are reported",
            proof=Proof(check="assert gw is None and gb is None"),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(1.5)
            b = tf.Variable(0.5)
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(w)
                tape.watch(b)
                y = w * 2.0 + b
            gw, gb = tape.gradient(y, [w, b])
        """, fixed_proof=Proof(check="assert float(gw) == 2.0 and float(gb) == 1.0")),
        invalid("""
            import tensorflow as tf

            x0 = tf.Variable(0.0)
            x1 = tf.Variable(10.0)
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(x1)
                y = tf.math.sin(x0) + tf.nn.softplus(x1)
            grad = tape.gradient(y, {"x0": x0, "x1": x1})
        """, 8, "sources given as a dict: its values are the sources (x0 is not watched, x1 is)",
            proof=Proof(check="assert grad['x0'] is None and grad['x1'] is not None"),
            fixed="""
            import tensorflow as tf

            x0 = tf.Variable(0.0)
            x1 = tf.Variable(10.0)
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(x1)
                tape.watch(x0)
                y = tf.math.sin(x0) + tf.nn.softplus(x1)
            grad = tape.gradient(y, {"x0": x0, "x1": x1})
        """, fixed_proof=Proof(check="assert abs(float(grad['x0']) - 1.0) < 1e-6 and grad['x1'] is not None")),
        unfixed(invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.build((None, 2))
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                out = model(tf.ones([1, 2]))
            grads = tape.gradient(out, model.trainable_variables)
        """, 7, "a model's variables under watch_accessed_variables=False: no fix (Keras 3 variables cannot be "
                "passed to `tape.watch`, and the model may create them inside the block)",
            proof=Proof(check="""
                assert all(g is None for g in grads)
                try:
                    tape.watch(model.trainable_variables)
                except ValueError as error:
                    assert "not tf.Tensor or tf.Variable" in str(error)
            """))),
        invalid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])

            def loss_and_grad():
                with tf.GradientTape() as tape:  # x is a plain tensor
                    # the forward pass
                    y = tf.reduce_sum(x ** 2)
                return y, tape.gradient(y, x)

            loss, grad = loss_and_grad()
        """, 9, "a module-level constant used in a function: the watch goes above the first statement's comment",
            proof=Proof(check="assert grad is None"),
            fixed="""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])

            def loss_and_grad():
                with tf.GradientTape() as tape:  # x is a plain tensor
                    tape.watch(x)
                    # the forward pass
                    y = tf.reduce_sum(x ** 2)
                return y, tape.gradient(y, x)

            loss, grad = loss_and_grad()
        """, fixed_proof=Proof(check="assert grad.numpy().tolist() == [2.0, 4.0]")),
        invalid("""
            import tensorflow as tf

            with tf.GradientTape() as tape:
                x = tf.constant(2.0)
                y = x ** 3
            g = tape.gradient(y, x)
        """, 6, "a constant made inside the block: the watch goes right after it",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            with tf.GradientTape() as tape:
                x = tf.constant(2.0)
                tape.watch(x)
                y = x ** 3
            g = tape.gradient(y, x)
        """, fixed_proof=Proof(check="assert float(g) == 12.0")),
        invalid("""
            import tensorflow as tf

            xs = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            ys = tf.constant([5.0, 11.0])
            w = tf.constant([0.0, 0.0])
            for step in range(20):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((tf.linalg.matvec(xs, w) - ys) ** 2)
                grad = tape.gradient(loss, w)
                w.assign_sub(0.01 * grad)
        """, 9, "a tensor the code updates as a variable: it is made a tf.Variable (watching it would give "
                "the gradient, and `assign_sub` would raise AttributeError)",
            proof=Proof(raises=("AttributeError", "no attribute 'assign_sub'")),
            fixed="""
            import tensorflow as tf

            xs = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            ys = tf.constant([5.0, 11.0])
            w = tf.Variable([0.0, 0.0])
            for step in range(20):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((tf.linalg.matvec(xs, w) - ys) ** 2)
                grad = tape.gradient(loss, w)
                w.assign_sub(0.01 * grad)
        """, fixed_proof=Proof(check="assert isinstance(w, tf.Variable) and float(loss) < 10.0, float(loss)")),
        valid("""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            dy_dx = tape.gradient(y, x)
        """, "the constant is watched",
            proof=Proof(check="assert float(dy_dx) == 6.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                y = x * x
                c = tf.constant(y)
                z = c * 2.0
            dz_dx, dz_dc = tape.gradient(z, [x, c])
        """, "tf.constant of an eager tensor inside the tape is that tensor: its gradient is kept",
            proof=Proof(check="assert float(dz_dx) == 8.0 and float(dz_dc) == 2.0")),
        valid("""
            import tensorflow as tf

            a = tf.constant(1.0)
            b = tf.constant(2.0)
            inputs = [a, b]
            with tf.GradientTape() as tape:
                tape.watch(inputs)
                y = a * b
            ga, gb = tape.gradient(y, [a, b])
        """, "watched through a list",
            proof=Proof(check="assert float(ga) == 2.0 and float(gb) == 1.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(1.5)
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(w)
                y = w * 2.0
            g = tape.gradient(y, w)
        """, "watch_accessed_variables=False with an explicit watch",
            proof=Proof(check="assert float(g) == 2.0")),
        valid("""
            import tensorflow as tf

            def watch_all(tape, tensors):
                for t in tensors:
                    tape.watch(t)

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                watch_all(tape, [x])
                y = x * x
            g = tape.gradient(y, x)
        """, "the tape handed to a helper that watches",
            proof=Proof(check="assert float(g) == 6.0")),
        invalid("""
            import weakref
            import tensorflow as tf

            w = tf.constant(2.0)
            alive = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    y = w * w
                dy = tape.gradient(y, w)
                alive.append(weakref.ref(tape))
        """, 9, "the tape handed on only after the gradient call, and the loop opens a new tape each time round",
            proof=Proof(check="assert dy is None"),
            fixed="""
            import weakref
            import tensorflow as tf

            w = tf.constant(2.0)
            alive = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    tape.watch(w)
                    y = w * w
                dy = tape.gradient(y, w)
                alive.append(weakref.ref(tape))
        """, fixed_proof=Proof(check="assert float(dy) == 4.0")),
        invalid("""
            import tensorflow as tf

            class Linear:
                def __init__(self):
                    self.w = tf.constant([[2.0]])

                def predict(self, x):
                    return x @ self.w

            model = Linear()
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model.predict(tf.ones((3, 1))))
            g = tape.gradient(loss, model.w)
        """, 13, "an attribute made a plain tensor (no fix offered: a watch or a variable are both possible)",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            class Linear:
                def __init__(self):
                    self.w = tf.constant([[2.0]])

                def predict(self, x):
                    return x @ self.w

            model = Linear()
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model.predict(tf.ones((3, 1))))
            g = tape.gradient(loss, model.w)
        """),
        valid("""
            import tensorflow as tf

            class Linear:
                def __init__(self):
                    self.w = tf.Variable([[2.0]])

                def predict(self, x):
                    return x @ self.w

            model = Linear()
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model.predict(tf.ones((3, 1))))
            g = tape.gradient(loss, model.w)
        """, "an attribute that is a variable",
            proof=Proof(check="assert g is not None")),
        valid("""
            import tensorflow as tf

            class Probe:
                def __init__(self, net):
                    self.net = net
                    self.features = None

                def run(self, x):
                    self.features = self.net(x)
                    return tf.reduce_sum(self.features)

            probe = Probe(tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2)]))
            with tf.GradientTape() as tape:
                out = probe.run(tf.ones([3, 2]))
            g = tape.gradient(out, probe.features)
        """, "an attribute a method sets while the tape records, from the model's variables",
            proof=Proof(check="assert g is not None")),
        invalid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            with tf.GradientTape() as tape:
                y = tf.exp(x) * 2.0
                z = tf.reduce_sum(y ** 2)
            g = tape.gradient(z, y)
        """, 7, "an intermediate computed in the block from a constant the tape never watches",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            with tf.GradientTape() as tape:
                y = tf.exp(x) * 2.0
                tape.watch(y)
                z = tf.reduce_sum(y ** 2)
            g = tape.gradient(z, y)
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert np.allclose(g.numpy(), 4.0 * np.exp([1.0, 2.0]))
        """)),
        invalid("""
            import tensorflow as tf

            def adapt(w0, xs, ys, steps=3, alpha=0.1):
                w = w0
                for _ in range(steps):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((xs @ w - ys) ** 2)
                    g = tape.gradient(loss, w)
                    w = w - alpha * g
                return w

            w = adapt(tf.Variable([[0.5], [0.5]]), tf.ones((4, 2)), tf.zeros((4, 1)))
        """, 8, "functional fast weights: from the second step on the source is the tensor the loop computed",
            proof=Proof(raises=("TypeError", "unsupported operand type(s) for *: 'float' and 'NoneType'")),
            fixed="""
            import tensorflow as tf

            def adapt(w0, xs, ys, steps=3, alpha=0.1):
                w = w0
                for _ in range(steps):
                    with tf.GradientTape() as tape:
                        tape.watch(w)
                        loss = tf.reduce_mean((xs @ w - ys) ** 2)
                    g = tape.gradient(loss, w)
                    w = w - alpha * g
                return w

            w = adapt(tf.Variable([[0.5], [0.5]]), tf.ones((4, 2)), tf.zeros((4, 1)))
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert np.allclose(w.numpy(), 0.108)
        """)),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        values = values_for(ctx)
        for call in gradient_calls(ctx.facts):
            if call.entry is None or call.sources is None or call.asks_zeros:
                continue
            watch_all = call.binding.option("watch_accessed_variables")
            for element in _elements(call.sources):
                if isinstance(element, ast.Name):
                    value = values.value(element, call.site.scope)
                    if is_integer_dtype(value.dtype):
                        continue  # integer sources: TAPE012
                    problem = _problem(value, watch_all, call, element.id, values)
                    if problem is None and not value.is_(VARIABLE):
                        carried = _carried_tensor(values, call, element.id)
                        if carried is not None:
                            problem, value = "carried", carried
                    if problem is None or watch_position(ctx.facts, call, element.id) is not False:
                        continue
                    self._report(ctx, call, element, value, problem)
                elif _variable_list(element) and watch_all is False and not watch_calls(call) \
                        and not tape_escapes(call):
                    self._report(ctx, call, element, None, "unwatched-list")
                elif isinstance(element, ast.Attribute) and dotted(element) is not None:
                    # `model.w`, `self.w`: an attribute that the value model knows holds, every way
                    # it is set, a tensor made from plain data (`self.w = tf.constant(...)`). One
                    # computed from other tensors may be set while the tape records, by a method
                    # the block calls (`self.features = ...` in `call`): its gradient exists.
                    value = values.value(element, call.site.scope)
                    if not value.is_(TENSOR) or not value.data or is_integer_dtype(value.dtype):
                        continue
                    problem = _problem(value, watch_all, call, dotted(element), values)
                    if problem != "constant" or watch_position(ctx.facts, call, dotted(element)) is not False:
                        continue
                    self._report(ctx, call, element, value, problem)

    def _report(self, ctx: Context, call: GradCall, element: ast.expr, value: Value | None, problem: str) -> None:
        text = ast.unparse(element)
        opened = call.entry or call.binding
        related = [ctx.related(tape_item_range_node(opened), f"the tape `{call.name}`")]
        made = ""
        origin = value.origin if value is not None else None
        if value is not None and value.remote is not None:
            made = f" in {value.remote}"
        elif origin is not None and hasattr(origin, "lineno"):
            related.append(ctx.related(origin, f"`{text}` is made here"))
            made = f" on {ctx.where(origin)}"
        fix = f"Call `{call.name}.watch({text})` at the start of the `with` block, before `{text}` is used."
        updated = _updated_as_variable(ctx, call, element) if problem in ("constant", "computed") else None
        if updated is not None:
            fix = (f"The code updates it as a variable on {ctx.where(updated)}, which a tensor cannot be (OPT003): "
                   f"make `{text}` a tf.Variable where it is made; the tape then watches it.")
        if problem == "constant":
            why = (f"`{text}` is a plain tensor (made{made}), not a variable, and `{call.name}` never watches it: "
                   "a tape watches only trainable tf.Variables on its own")
        elif problem == "computed":
            why = (f"`{text}` is a tensor computed before the tape `{call.name}` opened (made{made}), not a variable, "
                   f"and `{call.name}` never watches it: a tape watches only trainable tf.Variables on its own")
        elif problem == "carried":
            why = (f"`{text}` is, from the loop's second iteration on, the tensor computed after the tape's block "
                   f"(made{made}), not a variable, and the tape `{call.name}` opened again never watches it: "
                   "a tape watches only trainable tf.Variables on its own")
        elif problem == "unwatched-inputs":
            why = (f"`{text}` is computed in the block of `{call.name}` only from plain tensors and numbers that "
                   f"`{call.name}` never watches (a tape records an op only when an input is watched or made by an "
                   f"op it recorded): it recorded none of the ops that made `{text}`")
            fix = (f"Call `{call.name}.watch(...)` on the tensors `{text}` is computed from at the start of the "
                   f"`with` block, or `{call.name}.watch({text})` right after it is made.")
        elif problem == "non-trainable":
            why = (f"`{text}` is a tf.Variable created with trainable=False{made}: tapes do not watch "
                   "non-trainable variables on their own")
            fix += " Or make the variable trainable."
            if value is not None and value.detail is not None and value.remote is None:
                related.append(ctx.related(value.detail, "trainable=False"))
        else:
            why = (f"`{call.name}` is opened with watch_accessed_variables=False on {ctx.where(opened.node)} and "
                   f"never watches `{text}`")
            fix = (f"Call `{call.name}.watch({text})` at the start of the block, or drop "
                   "watch_accessed_variables=False.")
        ctx.report(
            element,
            f"{why}, so `{call.label()}` on {ctx.where(call.node)} returns None for it. {fix}",
            related=related,
            fix=None if problem == "non-trainable" else _watch_offer(ctx, call, element, problem),
        )


def _watch_offer(ctx: Context, call: GradCall, element: ast.expr, problem: str = ""):
    """A builder inserting `tape.watch(element)` into the block, or None when there is no
    certain place for it. A tensor the code updates as a variable (`w.assign_sub(...)`, an
    optimizer's variable list) is made a tf.Variable where it is created instead: watched, its
    gradient would be there, and the update would raise."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    if problem in ("constant", "computed") and isinstance(element, ast.Name):
        from ..optimizer._optimizers import loop_update
        from ._fixes import variable_use

        values = values_for(ctx)
        defs, owner = values.definitions(element.id, call.site.scope, call.node)
        scopes = [call.site.scope.node] + ([owner.node] if owner is not None and owner.node is not call.site.scope.node
                                           else [])
        used = variable_use(scopes, element.id) or loop_update(scopes, element.id)
        if used is not None:
            return _variable_offer(ctx, element, defs, used)
    entry = call.entry
    if entry is None or not isinstance(entry.node, (ast.With, ast.AsyncWith)) or not entry.node.body:
        return None
    if not isinstance(element, ast.Name):
        # `model.trainable_variables`: Keras 3 variables are not tf.Variables (`watch` rejects
        # them), and a model may create its variables inside the block.
        return None
    block = entry.node
    body = block.body
    defs = call.flow.reaching(element.id, call.node)
    within = [d for d in defs if inside(d.stmt, block)]
    if not within:
        before = first_after_watches(body, 0, call.name)
    elif len(defs) == 1 and any(stmt is defs[0].stmt for stmt in body):
        index = next(i for i, stmt in enumerate(body) if stmt is defs[0].stmt)
        before = first_after_watches(body, index + 1, call.name)
    else:
        return None
    code = f"{call.name}.watch({element.id})"
    text = ctx.facts.source.text

    def build():
        from ...fixes.watch import watch_fix

        return watch_fix(text, block, before, code, f"Watch `{element.id}`: add `{code}` to the block",
                         Applicability.SAFE)
    return build


def _updated_as_variable(ctx: Context, call: GradCall, element: ast.expr) -> ast.AST | None:
    """Where the code updates the tensor source `element` as a tf.Variable (`w.assign_sub(...)`,
    a loop over its parameters, an optimizer's variable list), or None."""
    if not isinstance(element, ast.Name):
        return None
    from ..optimizer._optimizers import loop_update
    from ._fixes import variable_use

    values = values_for(ctx)
    _defs, owner = values.definitions(element.id, call.site.scope, call.node)
    scopes = [call.site.scope.node] + ([owner.node] if owner is not None and owner.node is not call.site.scope.node
                                       else [])
    return variable_use(scopes, element.id) or loop_update(scopes, element.id)


def _variable_offer(ctx: Context, element: ast.Name, defs: list, used: ast.AST):
    """`w = tf.constant(v)` -> `w = tf.Variable(v)` (else `tf.Variable(<value>)`), for a tensor
    whose one definition is a plain assignment and that the code updates as a variable; None
    otherwise (neither a watch nor a variable is certain then)."""
    from ..function._fixes import tf_alias

    alias = tf_alias(ctx.facts)
    if alias is None or len(defs) != 1:
        return None
    stmt, value = defs[0].stmt, defs[0].value
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name) \
            or stmt.targets[0].id != element.id or value is not stmt.value:
        return None
    text = ctx.facts.source.text
    name = element.id
    title = f"Make `{name}` a tf.Variable: the code updates it as one on {ctx.where(used)}"
    constant = isinstance(value, ast.Call) and ctx.facts.imports.resolve(value.func) == "tensorflow.constant" \
        and len(value.args) == 1 and not isinstance(value.args[0], ast.Starred) \
        and all(k.arg in ("dtype", "name") for k in value.keywords)

    def build():
        if constant:
            from ...fixes.callee import callee_fix

            return callee_fix(text, value, f"{alias}.Variable", title, Applicability.SAFE)  # type: ignore[arg-type]
        from ...fixes.wrap import wrap_fix

        return wrap_fix(text, value, f"{alias}.Variable", title, Applicability.SAFE)
    return build


def _problem(value: Value, watch_all: bool | None, call: GradCall, name: str, values) -> str | None:
    """Why the tape does not watch the source `name`, or None when it may."""
    if value.is_(VARIABLE):
        if value.trainable is False:
            return "non-trainable"
        if watch_all is False and value.trainable is True:
            return "unwatched-variable"
        return None
    if not value.is_(TENSOR):
        return None
    # A tensor is watched only through `watch`; but one the tape computed from what it
    # watches is recorded, and its gradient exists. Made before the block (or passed in),
    # or made inside it from plain data: the tape has nothing for it.
    defs = call.flow.reaching(name, call.node)
    entry = call.entry
    recorded = [d for d in defs if d.recorded_by(entry)]
    if recorded:
        # Made inside the block: unwatched only when made there from data (`tf.constant(...)`),
        # not when computed from other tensors (which the tape may watch).
        made = value.data and all(_creation(values, d.value, call.site.scope) and d.value is value.origin
                                  for d in recorded)
        if made:
            return "constant"
        return "unwatched-inputs" if _from_unwatched_data(values, call, name, call.node) else None
    return "constant" if value.data else "computed"


def _carried_tensor(values, call: GradCall, name: str) -> Value | None:
    """`w = w - alpha * gw` after the block, in the loop that opens the tape: from the second
    iteration on the source is that tensor, which the new tape does not watch. The value of
    the definition (certainly a tensor, not a variable), or None. A definition under a
    condition inside the loop may not run: left alone."""
    entry = call.entry
    if entry is None:
        return None
    here = position(call.node)
    for d in call.flow.reaching(name, call.node):
        if d.kind not in ("assign", "augassign") or d.value is None or d.position <= here or d.recorded_by(entry):
            continue
        loops = [loop for loop in d.loops if inside(call.node, loop) and inside(entry.node, loop)]
        if not loops:
            continue
        loop = loops[-1]
        if any(inside(branch, loop) for branch, _arm in d.branches):
            continue
        if not isinstance(d.stmt, (ast.Assign, ast.AugAssign)):
            continue
        value = values.value(d.value, call.site.scope)
        if is_integer_dtype(value.dtype):
            continue
        if value.is_(TENSOR):
            return value
        if value.kind == TENSOR and _tf_arithmetic(values, call, d):
            return replace(value, certain=True)
    return None


def _tf_arithmetic(values, call: GradCall, d) -> bool:
    """`w = w - alpha * gw` in a loop, `w` a variable at first and this tensor later (the value
    model joins the two to a maybe-tensor): arithmetic with an operand that is, by every
    definition reaching it, a tf.Variable or a tensor (or this very definition, on the loop's
    earlier iterations) makes a tensor, or raises."""
    expr = d.value
    operands: list[ast.expr] = []
    if isinstance(d.stmt, ast.AugAssign):
        operands.append(d.stmt.target)
    elif isinstance(expr, ast.BinOp):
        operands.extend((expr.left, expr.right))
    elif isinstance(expr, ast.UnaryOp):
        operands.append(expr.operand)
    scope = call.site.scope
    for operand in operands:
        if not isinstance(operand, ast.Name):
            continue
        defs = call.flow.reaching(operand.id, d.stmt)
        others = [r for r in defs if r is not d]
        if others and all(
                values.definition(r, operand.id, scope).kind in TF_VALUES
                and values.definition(r, operand.id, scope).certain for r in others):
            return True
    return False


def _from_unwatched_data(values, call: GradCall, name: str, at: ast.AST, seen: set[int] | None = None) -> bool:
    """Is every value `name` may hold at `at` computed inside the block only from tensors the
    tape never watches (`y = x * 2.0` with `x = tf.constant(...)` and no `tape.watch(x)`)? A tape
    records an op only when an input is watched (or computed from a watched one): such a
    tensor is no more watched than its inputs, and its gradient is None. Library ops of tensors,
    numbers and plain tensors only; a model, a layer, a variable or a user function anywhere
    on the way may bring in what the tape watches."""
    seen = seen if seen is not None else set()
    defs = call.flow.reaching(name, at)
    if not defs or len(seen) > 32:
        return False
    entry = call.entry
    for d in defs:
        if id(d) in seen:
            continue
        seen.add(id(d))
        if d.kind != "assign" or d.value is None or not isinstance(d.stmt, ast.Assign) \
                or not all(isinstance(t, ast.Name) for t in d.stmt.targets):
            return False
        if not d.recorded_by(entry):
            return False
        if not _data_ops(values, call, d.value, d.stmt, seen):
            return False
    return True


def _data_ops(values, call: GradCall, expr: ast.expr, at: ast.stmt, seen: set[int]) -> bool:
    """Is `expr` (in the block, at `at`) computed only from unwatched plain tensors and numbers?"""
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.BinOp):
        return _data_ops(values, call, expr.left, at, seen) and _data_ops(values, call, expr.right, at, seen)
    if isinstance(expr, ast.UnaryOp):
        return _data_ops(values, call, expr.operand, at, seen)
    if isinstance(expr, (ast.List, ast.Tuple)):
        return all(_data_ops(values, call, e, at, seen) for e in expr.elts)
    if isinstance(expr, ast.Call):
        from ...analysis import library

        qualname = values.facts.imports.resolve(expr.func)
        api = library.api(qualname) if isinstance(qualname, str) and qualname.startswith("tensorflow.") else None
        if api is None or api.kind != "tensor" or api.traced_fn or api.py_callback or api.has("creates"):
            return False
        return all(_data_ops(values, call, a, at, seen) for a in [*expr.args, *(k.value for k in expr.keywords)])
    if isinstance(expr, ast.Name):
        value = values.value(expr, call.site.scope)
        if value.is_(NUMBER):
            return True
        defs = call.flow.reaching(expr.id, at)
        if defs and all(d.recorded_by(call.entry) for d in defs):
            return _from_unwatched_data(values, call, expr.id, at, seen)
        if any(d.recorded_by(call.entry) for d in defs):
            return False
        # made before the block (or passed in): a plain tensor the tape never watches
        return value.is_(TENSOR) and value.data and not is_integer_dtype(value.dtype) \
            and watch_position(values.facts, call, expr.id) is False
    return False


def _creation(values, value: ast.expr | None, scope) -> bool:
    """`tf.constant(...)`, `tf.zeros(...)`, `tf.linspace(0.0, 1.0, 5)`: a call that makes a tensor
    from Python or NumPy data only, nothing the tape could watch (not an op of other tensors)."""
    if not isinstance(value, ast.Call):
        return False
    operands = [*value.args, *(k.value for k in value.keywords)]
    return all(values.value(a, scope).kind not in TF_VALUES for a in operands)


def _elements(sources: ast.expr) -> list[ast.expr]:
    """The sources one by one: of a list or tuple, and the values of a dict (`tape.gradient`
    takes any nest of sources and returns the same structure)."""
    if isinstance(sources, (ast.List, ast.Tuple)):
        return list(sources.elts)
    if isinstance(sources, ast.Dict) and None not in sources.keys:
        return list(sources.values)
    return [sources]


def _variable_list(expr: ast.expr) -> bool:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _variable_list(expr.left) and _variable_list(expr.right)
    return isinstance(expr, ast.Attribute) and expr.attr in _VARIABLE_LISTS
