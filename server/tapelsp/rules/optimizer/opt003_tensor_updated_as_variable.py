from __future__ import annotations

import ast

from ...analysis.values import BUILTIN, TENSOR, VARIABLE, Value, ValueModel, values_for
from ...facts.model import Scope
from ...facts.names import dotted
from ...model import Applicability, Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid
from ..tape._fixes import unfixed
from ._optimizers import ASSIGNS, assigns_on, minimize_calls, parameter_loops

NO_ASSIGN = "object has no attribute '{method}'"
NO_UNIQUE_ID = "object has no attribute '_unique_id'"
ITERATING = "Iterating over a symbolic `tf.Tensor` is not allowed"
V1_TENSOR = "Trying to update a Tensor"


class TensorUpdatedAsVariable(Rule):
    """
    ## What it does
    Finds a plain tensor that the code updates as if it were a trainable variable: a
    parameter made with `tf.zeros(...)`, `tf.random.normal(...)` or `tf.constant(...)`
    instead of `tf.Variable(...)`, then updated with `.assign_sub(...)` (directly or in a
    loop over a list of parameters), or given to an optimizer's `apply_gradients` /
    `minimize(var_list=...)`. Also finds `apply_gradients(zip(grads, x))` where `x` is a
    single tensor or variable instead of a list.

    ## Why is this bad?
    Only a `tf.Variable` can be updated in place. A tensor has no `assign_sub`:
    `AttributeError: 'tensorflow.python.framework.ops.EagerTensor' object has no attribute
    'assign_sub'` ('SymbolicTensor' inside a tf.function). Keras optimizers (Keras 3 and
    tf_keras) raise `AttributeError: ... object has no attribute '_unique_id'` for a tensor
    among the variables, a `tf.compat.v1.train` optimizer raises `NotImplementedError:
    ('Trying to update a Tensor ', ...)`. A tape does not watch such a tensor either, so it
    would never be trained. `zip(grads, x)` with a single tensor pairs its rows: inside a
    tf.function TensorFlow raises "Iterating over a symbolic `tf.Tensor` is not allowed".

    ## Example
    ```python
    w = tf.Variable(tf.random.truncated_normal([784, 10]))
    b = tf.zeros([10])
    ...
    for p, g in zip([w, b], grads):
        p.assign_sub(lr * g)
    ```

    ## Use instead
    ```python
    b = tf.Variable(tf.zeros([10]))
    ```
    """

    code = "OPT003"
    name = "tensor-updated-as-variable"
    summary = "A plain tensor updated as a variable (assign_sub, apply_gradients, minimize)"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("assign", "apply_gradients", "minimize", "compute_gradients")
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.ones((8, 4))
            w = tf.Variable(tf.random.normal([4, 2]))
            b = tf.zeros([2])
            for step in range(2):
                with tf.GradientTape() as tape:
                    tape.watch(b)
                    loss = tf.reduce_mean(tf.square(x @ w + b))
                grads = tape.gradient(loss, [w, b])
                for p, g in zip([w, b], grads):
                    p.assign_sub(0.01 * g)
        """, 5, "a bias made with tf.zeros, updated in the parameter loop",
            proof=Proof(raises=("AttributeError", NO_ASSIGN.format(method="assign_sub"))),
            fixed="""
            import tensorflow as tf

            x = tf.ones((8, 4))
            w = tf.Variable(tf.random.normal([4, 2]))
            b = tf.Variable(tf.zeros([2]))
            for step in range(2):
                with tf.GradientTape() as tape:
                    tape.watch(b)
                    loss = tf.reduce_mean(tf.square(x @ w + b))
                grads = tape.gradient(loss, [w, b])
                for p, g in zip([w, b], grads):
                    p.assign_sub(0.01 * g)
        """, fixed_proof=Proof(check="assert float(tf.reduce_sum(tf.abs(b))) > 0.0")),
        invalid("""
            import tensorflow as tf

            counter = tf.constant(0.0)
            counter.assign_add(1.0)
        """, 3, "assign_add on a constant",
            proof=Proof(raises=("AttributeError", NO_ASSIGN.format(method="assign_add"))),
            fixed="""
            import tensorflow as tf

            counter = tf.Variable(0.0)
            counter.assign_add(1.0)
        """, fixed_proof=Proof(check="assert float(counter) == 1.0")),
        invalid("""
            import tensorflow as tf
            import keras

            image = tf.random.uniform((1, 4))
            opt = keras.optimizers.Adam(0.1)
            with tf.GradientTape() as tape:
                tape.watch(image)
                score = tf.reduce_sum(image ** 2)
            grads = tape.gradient(score, [image])
            opt.apply_gradients(zip(grads, [image]))
        """, 4, "an input optimised with a Keras optimizer, made as a tensor",
            proof=Proof(raises=("AttributeError", NO_UNIQUE_ID)),
            fixed="""
            import tensorflow as tf
            import keras

            image = tf.Variable(tf.random.uniform((1, 4)))
            opt = keras.optimizers.Adam(0.1)
            with tf.GradientTape() as tape:
                tape.watch(image)
                score = tf.reduce_sum(image ** 2)
            grads = tape.gradient(score, [image])
            opt.apply_gradients(zip(grads, [image]))
        """, fixed_proof=Proof(check="assert isinstance(image, tf.Variable)")),
        unfixed(invalid("""
            import tensorflow as tf

            @tf.function
            def train(opt, input):
                with tf.GradientTape() as tape:
                    tape.watch(input)
                    loss = tf.reduce_mean(input)
                gradients = tape.gradient(loss, input)
                opt.apply_gradients(zip(gradients, input))

            opt = tf.keras.optimizers.Adam(learning_rate=1.0)
            train(opt, tf.random.normal((1, 1)))
        """, 9, "zip over a single tensor in a tf.function (the report's code): no fix (which lists are "
                "meant is the author's call)",
            proof=Proof(raises=("OperatorNotAllowedInGraphError", ITERATING)))),
        invalid("""
            import tensorflow as tf

            w = tf.zeros([3])
            opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
            opt.minimize(lambda: tf.reduce_sum((w - 1.0) ** 2), var_list=[w])
        """, 3, "a tf.compat.v1 optimizer given a tensor to minimise",
            proof=Proof(raises=("NotImplementedError", V1_TENSOR)),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(tf.zeros([3]))
            opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
            opt.minimize(lambda: tf.reduce_sum((w - 1.0) ** 2), var_list=[w])
        """, fixed_proof=Proof(check="assert all(abs(v - 0.2) < 1e-6 for v in w.numpy().tolist()), w.numpy()")),
        valid("""
            import tensorflow as tf

            x = tf.ones((8, 4))
            w = tf.Variable(tf.random.normal([4, 2]))
            b = tf.Variable(tf.zeros([2]))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(x @ w + b))
            grads = tape.gradient(loss, [w, b])
            for p, g in zip([w, b], grads):
                p.assign_sub(0.01 * g)
        """, "every parameter a tf.Variable",
            proof=Proof(check="assert float(tf.reduce_sum(tf.abs(b))) > 0.0")),
        valid("""
            import tensorflow as tf

            @tf.function
            def train(opt, input):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(input)
                gradients = tape.gradient(loss, [input])
                opt.apply_gradients(zip(gradients, [input]))

            opt = tf.keras.optimizers.Adam(learning_rate=1.0)
            input = tf.Variable(tf.random.normal((1, 1)))
            before = float(input[0, 0])
            train(opt, input)
        """, "the answer's version: a variable, in lists",
            proof=Proof(check="assert float(input[0, 0]) < before")),
        valid("""
            import tensorflow as tf

            v = tf.Variable([1.0, 2.0, 3.0])
            v[0].assign(5.0)
            part = v[1:]
            part.assign([0.0, 0.0])
        """, "a slice of a variable can be assigned",
            proof=Proof(check="assert v.numpy().tolist() == [5.0, 0.0, 0.0]")),
    )

    def check(self, ctx: Context) -> None:
        values = values_for(ctx)
        facts = ctx.facts
        reported: set[int] = set()

        def report(tensor: ast.expr, value: Value, use: ast.AST, effect: str) -> None:
            made = _made(value)
            where: ast.AST = made if made is not None else tensor
            if id(where) in reported:
                return
            reported.add(id(where))
            self._report(ctx, tensor, value, made, use, effect)

        for site in facts.calls:
            method = site.method
            func = site.node.func
            if method in ASSIGNS and isinstance(func, ast.Attribute) and dotted(func.value) is not None:
                value = _plain_tensor(values, func.value, site.scope)
                if value is not None:
                    report(func.value, value, site.node, _assign_effect(ctx, site.node, method, values, site.scope))
            elif method == "apply_gradients" and site.node.args:
                self._apply_gradients(ctx, site, values, report)
        for found in minimize_calls(ctx):
            if found.var_list is None or found.family == "keras3":
                continue
            for element in _elements(found.var_list):
                value = _plain_tensor(values, element, found.site.scope)
                if value is None:
                    continue
                if found.family == "v1":
                    effect = (f"the tf.compat.v1 optimizer's `minimize` on {ctx.where(found.site.node)} raises "
                              f"NotImplementedError \"('{V1_TENSOR} ', <tf.Tensor ...>)\"")
                else:
                    effect = (f"`minimize` on {ctx.where(found.site.node)} raises AttributeError "
                              f"\"... {NO_UNIQUE_ID}\" (a Keras 2 optimizer updates tf.Variables only)")
                report(element, value, found.site.node, effect)
        # A loop's update is a `.assign*(...)` call: no such word in the text, no loop to look at.
        for loop, target, listed in parameter_loops(facts) if "assign" in facts.source.text else ():
            scope = values.scope_at(loop)
            for use, method in assigns_on(loop, target):
                for element in listed:
                    value = _plain_tensor(values, element, scope)
                    if value is not None:
                        report(element, value, use, _assign_effect(ctx, use, method, values, scope, target))

    def _apply_gradients(self, ctx: Context, site, values: ValueModel, report) -> None:
        pairs = site.node.args[0]
        if not (isinstance(pairs, ast.Call) and isinstance(pairs.func, ast.Name) and pairs.func.id == "zip"
                and len(pairs.args) == 2 and values.value(pairs.func, site.scope).kind == BUILTIN):
            return
        variables = pairs.args[1]
        traced = values.traced(site.scope)
        if isinstance(variables, (ast.Name, ast.Attribute)):
            single = values.value(variables, site.scope)
            if single.is_(TENSOR, VARIABLE) and single.items is None:
                self._zip_single(ctx, site, pairs, variables, single, traced)
                return
        for element in _elements(variables):
            value = _plain_tensor(values, element, site.scope)
            if value is None:
                continue
            tensor = "'SymbolicTensor'" if traced else "'tensorflow.python.framework.ops.EagerTensor'"
            effect = (f"`{ast.unparse(site.node.func)}` on {ctx.where(site.node)} raises AttributeError "
                      f"\"{tensor} {NO_UNIQUE_ID}\" (Keras 3 and tf_keras optimizers update tf.Variables only)")
            report(element, value, site.node, effect)

    def _zip_single(self, ctx: Context, site, pairs: ast.Call, variables: ast.expr, value: Value,
                    traced: bool | None) -> None:
        text = ast.unparse(variables)
        what = "tf.Variable" if value.kind == VARIABLE else "tensor"
        if traced:
            effect = (f"in this tf.function TensorFlow raises OperatorNotAllowedInGraphError \"{ITERATING}\"")
        elif traced is False:
            effect = (f"the optimizer gets the rows of `{text}` as tensors and raises AttributeError "
                      f"\"'tensorflow.python.framework.ops.EagerTensor' {NO_UNIQUE_ID}\"")
        else:
            return
        grads = ast.unparse(pairs.args[0])
        fix = f"`zip([{grads}], [{text}])`" if value.kind == VARIABLE else \
            f"`zip([{grads}], [{text}])` with `{text}` a tf.Variable"
        ctx.report(
            site.node,
            f"`{ast.unparse(pairs)}` iterates `{text}`, a single {what}, not a list of variables: {effect}. "
            f"Pass lists: {fix}.",
        )

    def _report(self, ctx: Context, tensor: ast.expr, value: Value, made: ast.Call | None, use: ast.AST,
                effect: str) -> None:
        text = ast.unparse(tensor)
        related = [ctx.related(use, "updated as a variable here")]
        if made is not None:
            where = f"made here by `{_short(made)}`"
        elif value.remote is not None:
            where = f"made in {value.remote}"
        else:
            where = "made as a tensor"
        ctx.report(
            made if made is not None else tensor,
            f"`{text}` is a tf.Tensor ({where}), not a tf.Variable, but the code updates it as a variable: "
            f"{effect}. Make it a variable: `tf.Variable(...)`.",
            related=related,
            fix=_variable_offer(ctx, made, value, values_for(ctx)) if made is not None else None,
        )


def _plain_tensor(values: ValueModel, expr: ast.expr, scope: Scope) -> Value | None:
    """The value of `expr` when it is certainly a plain tensor that a call made (`tf.zeros(...)`,
    a parameter given one), not a variable, a slice of one (`v[0].assign` is fine) or arithmetic
    of one (a variable rebound to arithmetic: TAPE011)."""
    if not isinstance(expr, (ast.Name, ast.Attribute)) or dotted(expr) is None:
        return None
    value = values.value(expr, scope)
    if not value.is_(TENSOR) or not isinstance(value.origin, ast.Call):
        return None
    return value


def _made(value: Value) -> ast.Call | None:
    """The call that made the tensor, in this file, when it is the value of a plain assignment."""
    origin = value.origin
    if value.remote is not None or not isinstance(origin, ast.Call):
        return None
    return origin


def _elements(expr: ast.expr) -> list[ast.expr]:
    if isinstance(expr, (ast.List, ast.Tuple)):
        return list(expr.elts)
    return []


def _assign_effect(ctx: Context, use: ast.Call, method: str, values: ValueModel, scope: Scope,
                   through: str | None = None) -> str:
    traced = values.traced(scope)
    tensor = "'SymbolicTensor'" if traced else "'tensorflow.python.framework.ops.EagerTensor'"
    via = f" (through the loop variable `{through}`)" if through else ""
    return (f"`{_short(use)}` on {ctx.where(use)}{via} raises AttributeError "
            f"\"{tensor} {NO_ASSIGN.format(method=method)}\"")


def _variable_offer(ctx: Context, made: ast.Call, value: Value, values: ValueModel):
    """`b = tf.zeros([2])` -> `b = tf.Variable(tf.zeros([2]))` (`tf.constant(v)` -> `tf.Variable(v)`),
    for a tensor made by a plain assignment outside any tf.function (a variable created in one
    is FUNC001's error)."""
    if not ctx.fixes:
        return None
    from ..function._fixes import tf_alias

    alias = tf_alias(ctx.facts)
    if alias is None:
        return None
    scope = values.scope_at(made)
    if values.traced(scope) is not False:
        return None
    statement = next((s for s in ast.walk(scope.node) if isinstance(s, ast.Assign) and s.value is made), None)
    if statement is None or len(statement.targets) != 1 or not isinstance(statement.targets[0], (ast.Name, ast.Attribute)):
        return None
    text = ctx.facts.source.text
    title = "Make it a tf.Variable"
    constant = ctx.facts.imports.resolve(made.func) == "tensorflow.constant" and len(made.args) == 1 \
        and not isinstance(made.args[0], ast.Starred) and all(k.arg in ("dtype", "name") for k in made.keywords)

    def build():
        if constant:
            from ...fixes.callee import callee_fix

            return callee_fix(text, made, f"{alias}.Variable", title, Applicability.SAFE)
        from ...fixes.wrap import wrap_fix

        return wrap_fix(text, made, f"{alias}.Variable", title, Applicability.SAFE)
    return build


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 50 else text[:47] + "..."
