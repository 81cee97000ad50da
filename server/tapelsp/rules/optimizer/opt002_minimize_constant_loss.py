from __future__ import annotations

import ast

from ...facts.dataflow import flow_of
from ...facts.model import CallSite
from ...model import Severity
from ...versions import VersionRange
from ...analysis.guards import ancestors
from ...analysis.values import NDARRAY, NP_SCALAR, NUMBER, TENSOR, VARIABLE, ValueModel, values_for
from ._optimizers import loss_function, minimize_calls
from ..base import Context, Proof, Rule, invalid, valid

NO_GRADIENTS = "No gradients provided for any variable"
TAPE_REQUIRED = "`tape` is required when a `Tensor` loss is passed."
V1_EAGER = "`loss` passed to Optimizer.compute_gradients should be a function when eager execution is enabled."


class MinimizeConstantLoss(Rule):
    """
    ## What it does
    Finds `optimizer.minimize(lambda: loss, var_list)` where `loss` is a value computed
    before the call (the lambda, or a def that only returns it, may be bound to a name
    first), and `optimizer.minimize(loss_tensor, var_list)` with an eager tensor
    and no `tape=`.

    ## Why is this bad?
    `minimize` calls the loss function under its own GradientTape and differentiates
    what it records. A lambda that returns a loss computed earlier records nothing, so
    every gradient is `None`: tf_keras (Keras 2) and `tf.compat.v1.train` optimizers raise
    `ValueError: No gradients provided for any variable`. A tensor loss without the tape
    that computed it raises ``ValueError: `tape` is required when a `Tensor` loss is
    passed.`` (tf_keras), or, for `tf.compat.v1.train` optimizers in eager mode,
    ``RuntimeError: `loss` passed to Optimizer.compute_gradients should be a function when
    eager execution is enabled.`` Keras 3 optimizers (`tf.keras` from TensorFlow 2.16,
    `keras` 3) have no `minimize` at all: `AttributeError`.

    Not reported in TF1 graph code, where a tensor loss is the intended use: a file that
    disables eager execution or v2 behaviour, uses placeholders or a Session, or imports
    `tensorflow.compat.v1`; code in a `with tf.Graph().as_default():` block; an Estimator's
    model_fn (given as `model_fn=`, or returning an EstimatorSpec); code that runs only when
    TensorFlow is not executing eagerly (after `if tf.executing_eagerly(): raise ...`, or in
    the branch of `if not tf.executing_eagerly():`).

    ## Example
    ```python
    loss = tf.reduce_sum(w * w)
    optimizer.minimize(lambda: loss, [w])
    ```

    ## Use instead
    ```python
    optimizer.minimize(lambda: tf.reduce_sum(w * w), [w])   # tf_keras / Keras 2
    # Keras 3: compute gradients with a tape and apply them
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
    optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    ```
    """

    code = "OPT002"
    name = "minimize-constant-loss"
    summary = "optimizer.minimize given a loss computed before the call"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("minimize", "compute_gradients")
    examples = (
        invalid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.SGD(0.1)
            loss = w * w
            optimizer.minimize(lambda: loss, [w])
        """, 7, "the catalogue's constant closure with a tf_keras optimizer",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
            loss = tf.square(w - 1.0)
            optimizer.minimize(lambda: loss, var_list=[w])
        """, 6, "a tf.compat.v1.train optimizer in eager mode",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.Adam(0.1)
            loss = tf.square(w - 1.0)
            optimizer.minimize(loss, [w])
        """, 7, "an eager tensor loss without its tape",
            proof=Proof(raises=("ValueError", TAPE_REQUIRED))),
        invalid("""
            import numpy as np
            import tensorflow as tf
            import tf_keras


            def l1_error(truth, output):
                return np.sum(np.abs(truth - output))


            k = tf.Variable(np.ones((3, 2), np.float32))
            x = np.ones((4, 3), np.float32)
            truth = np.zeros((4, 2), np.float32)
            optimizer = tf_keras.optimizers.Adam(0.01)
            optimizer.minimize(l1_error(truth, x @ k), [k])
        """, 14, "the loss given as a call of a function that returns a NumPy value",
            proof=Proof(raises=("ValueError", TAPE_REQUIRED))),
        invalid("""
            import tensorflow as tf
            import tf_keras


            class Model:
                def __init__(self):
                    self.w = tf.Variable([1.0, 2.0])
                    self.loss = tf.reduce_sum(self.w ** 2)
                    self.optimizer = tf_keras.optimizers.Adam(0.1)
                    self.grads_and_vars = self.optimizer.compute_gradients(self.loss, [self.w])


            Model()
        """, 10, "a TF1-style model run eagerly hands `compute_gradients` its finished loss tensor",
            proof=Proof(raises=("ValueError", TAPE_REQUIRED))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            optimizer = tf.keras.optimizers.SGD(0.1)
            loss = w * w
            optimizer.minimize(lambda: loss, [w])
        """, 6, "Keras 3 (tf.keras on TensorFlow 2.16+): no minimize at all",
            proof=Proof(raises=("AttributeError", "object has no attribute 'minimize'"))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            optimizer = tf.keras.optimizers.SGD(0.1)
            loss = w * w
            optimizer.minimize(lambda: loss, [w])
        """, 6, "TensorFlow 2.15: tf.keras is Keras 2", tensorflow_version="2.15"),
        invalid("""
            import tensorflow as tf
            import tf_keras

            y = tf.Variable([1.0, 2.0, 3.0])
            cost = -tf.reduce_mean(tf.math.log(y))
            loss = lambda: cost

            tf_keras.optimizers.Adam(0.5).minimize(loss, var_list=[y])
        """, 6, "a lambda bound to a name, returning a tensor computed before",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
            penalty = tf.square(w - 1.0)

            def loss_fn():
                return 2.0 * penalty

            optimizer.minimize(loss_fn, var_list=[w])
        """, 8, "a def that returns arithmetic of a precomputed tensor",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        valid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.SGD(0.1)
            optimizer.minimize(lambda: tf.square(w), [w])
        """, "the loss computed inside the lambda",
            proof=Proof(check="assert abs(float(w) - 1.6) < 1e-6")),
        valid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.SGD(0.1)

            def loss_fn():
                return tf.square(w)

            optimizer.minimize(loss_fn, [w])
        """, "a named loss function",
            proof=Proof(check="assert abs(float(w) - 1.6) < 1e-6")),
        valid("""
            import tensorflow as tf
            import tf_keras

            w = tf.Variable(2.0)
            optimizer = tf_keras.optimizers.SGD(0.1)
            with tf.GradientTape() as tape:
                loss = tf.square(w)
            optimizer.minimize(loss, [w], tape=tape)
        """, "a tensor loss with the tape that recorded it",
            proof=Proof(check="assert abs(float(w) - 1.6) < 1e-6")),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_eager_execution()
            w = tf.Variable(2.0)
            loss = tf.square(w)
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
            with tf.compat.v1.Session() as session:
                session.run(tf.compat.v1.global_variables_initializer())
                session.run(train_op)
                value = session.run(w)
        """, "TF1 graph mode: a tensor loss is how minimize is used",
            proof=Proof(check="assert abs(value - 1.6) < 1e-6", isolated=True)),
        valid("""
            import numpy as np
            import tensorflow as tf

            with tf.Graph().as_default():
                x = tf.compat.v1.placeholder(tf.float32, [None, 1])
                w = tf.compat.v1.get_variable("w", initializer=[[2.0]])
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
                train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
                with tf.compat.v1.Session() as session:
                    session.run(tf.compat.v1.global_variables_initializer())
                    session.run(train_op, {x: np.ones((4, 1), np.float32)})
                    value = session.run(w)[0, 0]
        """, "TF1 code in `with tf.Graph().as_default():` with a placeholder and a Session, eager left on",
            proof=Proof(check="assert abs(value - 1.6) < 1e-6, value")),
        valid("""
            import tensorflow as tf

            graph = tf.Graph()
            with graph.as_default():
                w = tf.compat.v1.get_variable("w", initializer=2.0)
                loss = tf.square(w)
                train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
            ops = [op.type for op in graph.get_operations()]
        """, "a graph bound to a name and made the default: minimize builds the update op",
            proof=Proof(check="assert 'ResourceApplyGradientDescent' in ops, ops")),
        valid("""
            import tensorflow as tf

            def model_fn(features):
                w = tf.compat.v1.get_variable("w", initializer=2.0)
                loss = tf.square(w * features)
                return tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)

            def build(model_fn):
                graph = tf.Graph()
                with graph.as_default():
                    model_fn(tf.constant(1.0))
                return graph

            ops = [op.type for op in build(model_fn=model_fn).get_operations()]
        """, "a model_fn given as `model_fn=` (an Estimator's, built in its graph; tf.estimator is gone "
             "from TensorFlow 2.16 on)",
            proof=Proof(check="assert 'ResourceApplyGradientDescent' in ops, ops")),
        valid("""
            import tensorflow as tf

            def train_op():
                if tf.executing_eagerly():
                    raise RuntimeError("train_op builds a TF1 graph: call it under tf.Graph().as_default()")
                w = tf.compat.v1.get_variable("w", initializer=2.0)
                loss = tf.square(w)
                optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
                return optimizer.minimize(loss)
        """, "code past an `if tf.executing_eagerly(): raise` runs only in graph mode, where a tensor loss "
             "is minimize's API",
            proof=Proof(check="""
                try:
                    train_op()
                    raise AssertionError("the guard let eager code through")
                except RuntimeError:
                    pass
                with tf.Graph().as_default():
                    op = train_op()
                    with tf.compat.v1.Session() as session:
                        session.run(tf.compat.v1.global_variables_initializer())
                        session.run(op)
                        value = session.run(tf.compat.v1.global_variables()[0])
                assert abs(value - 1.6) < 1e-6, value
            """)),
        valid("""
            import tensorflow as tf

            def deferred_in_eager_mode(fn):
                def wrapper(*args, **kwargs):
                    if tf.executing_eagerly():
                        return lambda: fn(*args, **kwargs)
                    return fn(*args, **kwargs)
                return wrapper

            w = tf.Variable(3.0)

            @deferred_in_eager_mode
            def loss_fn(x):
                return tf.square(w * x)

            @deferred_in_eager_mode
            def minimize_loss(loss, optimizer):
                return optimizer.minimize(loss, var_list=[w])

            loss = loss_fn(tf.constant(1.0))
            train_step = minimize_loss(loss, tf.compat.v1.train.GradientDescentOptimizer(0.1))
            train_step()
        """, "decorated defs (tf_agents' future_in_eager_mode does this): in eager mode the decorator returns a "
             "callable, so `loss` is a function minimize calls, and nothing here says otherwise",
            proof=Proof(check="assert abs(float(w) - 2.4) < 1e-6, float(w)")),
    )

    def check(self, ctx: Context) -> None:
        values = values_for(ctx)
        for found in minimize_calls(ctx):
            site, loss, family = found.site, found.loss, found.family
            if _graph_only(site.node, ctx):
                continue
            function = loss_function(loss, site, values)
            if function is not None:
                names = _precomputed(function, values)
                if names is None or site.method != "minimize":
                    continue  # (compute_gradients hands the None gradients back without raising)
                self._constant_closure(ctx, site, function, names, family)
            elif site.scope.traced_by is None and not any(k.arg == "tape" for k in site.node.keywords) \
                    and len(site.node.args) < 3:
                kind = _value_not_function(loss, values, site)
                # An expression computed in the call itself is a loss only for an optimizer known to
                # be eager's (a TF1 optimizer handed in to graph code takes `minimize(loss_fn())`).
                if kind is not None and (isinstance(loss, (ast.Name, ast.Attribute)) or family != "unknown"):
                    self._tensor_loss(ctx, site, loss, family, kind)

    def _constant_closure(self, ctx: Context, site: CallSite, loss: ast.Lambda | ast.FunctionDef,
                          names: list[ast.Name], family: str) -> None:
        shown = ", ".join(f"`{n.id}`" for n in names)
        where = _defined_at(ctx, site, names[0])
        what = "the lambda" if isinstance(loss, ast.Lambda) else f"`{loss.name}`"
        if not _inside(loss, site.node):
            what += f" (given to {site.method} on {ctx.where(site.node)})"
        cause = (f"{what} returns {shown}, computed {where}before {site.method}: {site.method} runs it under "
                 "its own GradientTape, which records no computation, so every gradient is None")
        if family == "keras3":
            message = (f"Keras 3 optimizers have no `{site.method}`: AttributeError \"'...' object has no attribute "
                       f"'{site.method}'\". And {cause} (a Keras 2 / tf_keras optimizer raises ValueError "
                       f"\"{NO_GRADIENTS}\"). Compute the loss inside a GradientTape and call apply_gradients.")
        else:
            which = {"keras2": "", "v1": "", "unknown": " (tf_keras / Keras 2 and tf.compat.v1 optimizers)"}[family]
            message = (f"Constant loss: {cause}; the optimizer raises ValueError \"{NO_GRADIENTS}\"{which}. "
                       "Compute the loss inside the function (`lambda: loss_fn(...)`).")
        where = loss if isinstance(loss, ast.Lambda) else _returned(loss)
        ctx.report(where, message, related=[ctx.related(site.node, "the optimizer differentiates this call")])

    def _tensor_loss(self, ctx: Context, site: CallSite, loss: ast.expr, family: str, kind: str) -> None:
        where = _defined_at(ctx, site, loss) if isinstance(loss, ast.Name) else ""
        text = ast.unparse(loss)
        if family == "keras3":
            message = (f"Keras 3 optimizers have no `{site.method}`: AttributeError \"'...' object has no attribute "
                       f"'{site.method}'\". `{text}` is {kind} computed {where}before the call; compute it "
                       "inside a GradientTape and call apply_gradients.")
        elif family == "v1":
            eager = "an eager tensor" if kind == "a tensor" else f"{kind}, not a function"
            message = (f"`{text}` is {eager}: a tf.compat.v1.train optimizer raises RuntimeError "
                       f"\"{V1_EAGER}\" Pass a function (`lambda: ...` computing the loss).")
        else:
            which = "" if family == "keras2" else " (tf_keras / Keras 2 optimizers)"
            message = (f"`{text}` is {kind} computed {where}before the call and no `tape=` is given: the "
                       f"optimizer raises ValueError \"{TAPE_REQUIRED}\"{which} Pass the loss as a function "
                       "(`lambda: ...` computing it), or the GradientTape that recorded it as `tape=`.")
        ctx.report(loss, message, related=[ctx.related(site.node, f"the {site.method} call")])


# What minimize is given when it is a value, not a function: how messages name it.
_NOT_FUNCTIONS = {TENSOR: "a tensor", NDARRAY: "a NumPy array", NP_SCALAR: "a NumPy scalar", NUMBER: "a Python number"}


def _value_not_function(loss: ast.expr, values: ValueModel, site: CallSite) -> str | None:
    """How messages name what `loss` certainly holds when it is a value that minimize cannot call
    (a tensor, NumPy or Python number computed before the call), else None."""
    if not isinstance(loss, (ast.Name, ast.Attribute, ast.Call, ast.BinOp, ast.Subscript)):
        return None
    value = values.value(loss, site.scope)
    return _NOT_FUNCTIONS.get(value.kind) if value.certain else None


def _graph_only(node: ast.AST, ctx: Context) -> bool:
    """Does `node` run only when TensorFlow is not executing eagerly: after an earlier
    `if tf.executing_eagerly(): raise ...` (or `return`) of an enclosing block, after
    `assert not tf.executing_eagerly()`, or in the graph branch of an `executing_eagerly()` test?"""
    imports = ctx.facts.imports

    def eagerly(test: ast.expr) -> bool | None:  # True: `tf.executing_eagerly()`, False: its negation
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = eagerly(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.Call) and not test.args:
            name = imports.resolve(test.func) or ""
            if name == "executing_eagerly" or name.endswith(".executing_eagerly"):
                return True
        return None

    for child, parent in ancestors(node, ctx.facts):
        if isinstance(parent, ast.If) and eagerly(parent.test) is not None:
            branch = parent.body if eagerly(parent.test) else parent.orelse
            if child in (parent.orelse if branch is parent.body else parent.body):
                return True  # the branch taken when not executing eagerly
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if not isinstance(block, list) or child not in block:
                continue
            for earlier in block[:block.index(child)]:
                if isinstance(earlier, ast.Assert) and eagerly(earlier.test) is False:
                    return True
                if isinstance(earlier, ast.If) and eagerly(earlier.test) and not earlier.orelse \
                        and isinstance(earlier.body[-1], (ast.Raise, ast.Return)):
                    return True
    return False


def _precomputed(loss: ast.Lambda | ast.FunctionDef, values: ValueModel) -> list[ast.Name] | None:
    """The names a parameterless lambda (or a def that only returns) returns when it computes
    nothing itself: a name or arithmetic of names and numbers, at least one a tensor, none a
    tf.Variable."""
    args = loss.args
    if args.args or args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg:
        return None
    if isinstance(loss, ast.Lambda):
        body = loss.body
    else:
        returned = _returned(loss)
        if loss.decorator_list or returned is None or returned.value is None:
            return None
        body = returned.value
    names: list[ast.Name] = []
    for node in ast.walk(body):
        if isinstance(node, ast.Name):
            names.append(node)
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float)):
                return None
        elif not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Load)):
            return None  # a call, an attribute, a subscript: the function computes something
    found = [values.value(n) for n in names]
    if not names or any(v.may_be(VARIABLE) for v in found) or not any(v.is_(TENSOR) for v in found):
        return None
    return names


def _returned(function: ast.FunctionDef) -> ast.Return | None:
    """The return statement of a def whose body (past its docstring) is only that."""
    statements = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return statements[0] if len(statements) == 1 and isinstance(statements[0], ast.Return) else None


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (node.lineno, node.col_offset) and \
        (node.end_lineno, node.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def _defined_at(ctx: Context, site: CallSite, name: ast.Name) -> str:
    scope = site.scope.function or ctx.facts.module
    reaching = flow_of(ctx.facts, scope).reaching(name.id, site.node)
    if len(reaching) == 1 and reaching[0].kind in ("assign", "augassign"):
        return f"on {ctx.where(reaching[0].stmt)} "
    return ""
