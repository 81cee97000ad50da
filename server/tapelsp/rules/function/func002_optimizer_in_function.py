from __future__ import annotations

import ast

from ...facts.model import Scope, TfFunction
from ...model import Severity
from ...versions import Version, VersionRange
from ._fixes import hoist_offer
from ...analysis import library
from ...analysis.guards import created_lazily, eager_context, used_after_construction, variable_error
from ...analysis.traced import function_name, trace_of
from ...analysis.values import FUNCTION, LIBRARY, OPTIMIZER, ValueModel, values_for
from ..tape._fixes import unfixed
from ...facts.names import dotted
from ..base import Context, Proof, Rule, invalid, valid

_USES = ("apply_gradients", "minimize")
# Keras 2's optimizers create their `iterations` variable in the constructor since TF 2.11
# (the "new" optimizers); `keras.optimizers.legacy.*` and older ones create it on first use.
_NEW_KERAS2_OPTIMIZERS_SINCE = Version.parse("2.11")
# TF1 optimizers without slot variables: applying them creates no variable.
_SLOTLESS_V1 = frozenset({"tensorflow.train.GradientDescentOptimizer"})


class OptimizerInFunction(Rule):
    """
    ## What it does
    Finds a Keras optimizer (or a TF1 `tf.compat.v1.train.*Optimizer`) constructed in the
    body of a `tf.function` without a first-call guard (directly, through a factory function
    of the file or the project that constructs one on every call, in a helper the trace
    calls, or in a Keras model's `train_step`), and a tf.function that applies
    gradients with an optimizer passed as an argument when the calls in this file pass it
    two different optimizers (a GAN's generator and discriminator optimizers through one
    `train_step(opt, ...)`).

    ## Why is this bad?
    Optimizers own variables: the step counter `iterations` (created by the constructor in
    Keras 3 and in Keras 2 since TensorFlow 2.11) and slot variables such as Adam's moments
    (created the first time `apply_gradients` runs for them). TensorFlow allows a
    tf.function to create variables only on its first trace; a constructor in the body makes
    new ones on every trace, and a second optimizer object passed to the same tf.function
    makes a new trace that creates its slots. Either way TensorFlow raises
    `ValueError: tf.function only supports singleton tf.Variables created on the first call.`
    (before TensorFlow 2.7: "tf.function-decorated function tried to create variables on
    non-first call."). Keras 3's plain `SGD` (no momentum) has no slots, so passing two of
    them is fine.

    ## Example
    ```python
    @tf.function
    def train_step(x, y):
        optimizer = tf.keras.optimizers.Adam(1e-3)
        ...
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    ```

    ## Use instead
    ```python
    optimizer = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def train_step(x, y):
        ...
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    ```
    With several optimizers, make one tf.function per optimizer, or build each optimizer
    before the first call (`optimizer.build(model.trainable_variables)`).
    """

    code = "FUNC002"
    name = "optimizer-created-in-tf-function"
    summary = "Keras optimizer constructed inside a tf.function, or several optimizers through one"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    # An optimizer made here, or by a factory of the project called from a tf.function here.
    triggers = ("optimizers", "Optimizer", ".function", "import function")
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.build((None, 3))

            @tf.function
            def train_step(x, y):
                optimizer = tf.keras.optimizers.Adam(1e-3)
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            loss = train_step(tf.ones([4, 3]), tf.zeros([4, 1]))
        """, 8, "an optimizer made on every trace; the fix makes it once, before the function",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables created on the first call")),
            fixed="""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.build((None, 3))
            optimizer = tf.keras.optimizers.Adam(1e-3)

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            loss = train_step(tf.ones([4, 3]), tf.zeros([4, 1]))
        """, fixed_proof=Proof(check="""
            second = train_step(tf.ones([4, 3]), tf.zeros([4, 1]))
            assert int(optimizer.iterations) == 2 and float(second) < float(loss)
        """)),
        unfixed(invalid("""
            import tensorflow as tf

            generator = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            discriminator = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            generator.build((None, 2))
            discriminator.build((None, 2))
            gen_opt = tf.keras.optimizers.Adam(1e-4)
            disc_opt = tf.keras.optimizers.Adam(1e-4)

            @tf.function
            def apply_step(optimizer, model, x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x) ** 2)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            x = tf.ones([4, 2])
            apply_step(gen_opt, generator, x)
            apply_step(disc_opt, discriminator, x)
        """, 20, "a GAN's two optimizers through one tf.function (no fix: one tf.function per optimizer is a "
                 "design choice)",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")))),
        unfixed(invalid("""
            import tensorflow as tf

            class GAN(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.generator = tf.keras.Sequential([tf.keras.layers.Dense(2)])
                    self.discriminator = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                    self.generator.build((None, 2))
                    self.discriminator.build((None, 2))
                    self.gen_opt = tf.keras.optimizers.Adam(1e-4)
                    self.disc_opt = tf.keras.optimizers.Adam(1e-4)

                @tf.function
                def apply(self, optimizer, model, x):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(model(x) ** 2)
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                    return loss

                def train(self, x):
                    self.apply(self.disc_opt, self.discriminator, x)
                    self.apply(self.gen_opt, self.generator, x)

            gan = GAN()
            gan.train(tf.ones([4, 2]))
        """, 23, "the same with a tf.function method and optimizers held by the instance",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(1.0)

            @tf.function
            def step():
                opt = tf.compat.v1.train.AdamOptimizer(0.1)
                with tf.GradientTape() as tape:
                    loss = w * w
                opt.apply_gradients([(tape.gradient(loss, w), w)])
                return loss

            step()
        """, 7, "a TF1 optimizer creates its slots when it is applied",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(1.0)
            opt = tf.compat.v1.train.AdamOptimizer(0.1)

            @tf.function
            def step():
                with tf.GradientTape() as tape:
                    loss = w * w
                opt.apply_gradients([(tape.gradient(loss, w), w)])
                return loss

            step()
        """, fixed_proof=Proof(check="""
            step()
            assert abs(float(w) - 0.8) < 1e-3, float(w)
        """)),
        invalid("""
            import tensorflow as tf

            class Trainer(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.w = tf.Variable(2.0)

                @tf.function
                def step(self, lr):
                    # the learning rate comes with the call
                    optimizer = tf.keras.optimizers.SGD(lr, momentum=0.9)
                    with tf.GradientTape() as tape:
                        loss = self.w * self.w
                    optimizer.apply_gradients([(tape.gradient(loss, self.w), self.w)])
                    return loss

            trainer = Trainer()
            trainer.step(0.1)
        """, 11, "an optimizer built from the call's arguments: the fix creates it on the first call only (unsafe)",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")),
            fixed="""
            import tensorflow as tf

            class Trainer(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.w = tf.Variable(2.0)
                    self.optimizer_2 = None

                @tf.function
                def step(self, lr):
                    # the learning rate comes with the call
                    if self.optimizer_2 is None:
                        self.optimizer_2 = tf.keras.optimizers.SGD(lr, momentum=0.9)
                    with tf.GradientTape() as tape:
                        loss = self.w * self.w
                    self.optimizer_2.apply_gradients([(tape.gradient(loss, self.w), self.w)])
                    return loss

            trainer = Trainer()
            trainer.step(0.1)
        """, fixed_proof=Proof(check="""
            trainer.step(0.1)
            assert float(trainer.w) < 1.7 and int(trainer.optimizer_2.iterations) == 2
        """)),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(1.0)

            @tf.function
            def train_step():
                optimizer = tf.keras.optimizers.Adam(1e-3)
                with tf.GradientTape() as tape:
                    loss = w * w
                optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        """, 7, "TensorFlow 2.6: Keras 2 optimizers made their variables when first applied",
            tensorflow_version="2.6", fixed="""
            import tensorflow as tf

            w = tf.Variable(1.0)
            optimizer = tf.keras.optimizers.Adam(1e-3)

            @tf.function
            def train_step():
                with tf.GradientTape() as tape:
                    loss = w * w
                optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        """),
        valid("""
            import tensorflow as tf

            def train_step(w, x, y, optimizer):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(tf.abs(y - w * x))
                optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

            w = tf.Variable(2.0)
            x = tf.constant([-1.0])
            y = tf.constant([2.0])
            opt1 = tf.keras.optimizers.Adam(0.1)
            opt2 = tf.keras.optimizers.Adam(0.1)
            step_1 = tf.function(train_step)
            step_2 = tf.function(train_step)
            for i in range(6):
                if i % 2 == 0:
                    step_1(w, x, y, opt1)
                else:
                    step_2(w, x, y, opt2)
        """, "one tf.function per optimizer, wrapping the same def (TensorFlow's tf.function guide)",
            proof=Proof(check="assert float(w) != 2.0")),
        valid("""
            import tensorflow as tf

            @tf.function
            def train_step(x):
                optimizer = tf.keras.optimizers.Adam(1e-3)
                return x
        """, "TensorFlow 2.6: a Keras 2 optimizer that is never applied creates no variable",
            tensorflow_version="2.6"),
        valid("""
            import tensorflow as tf

            class Trainer(tf.Module):
                def __init__(self):
                    super().__init__()
                    self.w = tf.Variable(2.0)
                    self.optimizer = None

                @tf.function
                def step(self):
                    if self.optimizer is None:
                        self.optimizer = tf.keras.optimizers.Adam(0.1)
                    with tf.GradientTape() as tape:
                        loss = self.w * self.w
                    self.optimizer.apply_gradients([(tape.gradient(loss, self.w), self.w)])
                    return loss

            trainer = Trainer()
            first = float(trainer.step())
            second = float(trainer.step())
        """, "an optimizer created lazily behind a first-call guard",
            proof=Proof(check="assert second < first")),
        valid("""
            import tensorflow as tf

            w1, w2 = tf.Variable(1.0), tf.Variable(2.0)
            opt1 = tf.keras.optimizers.Adam(0.1)
            opt2 = tf.keras.optimizers.Adam(0.1)
            opt2.build([w2])

            @tf.function
            def step(optimizer, w):
                with tf.GradientTape() as tape:
                    loss = w * w
                optimizer.apply_gradients([(tape.gradient(loss, w), w)])
                return loss

            step(opt1, w1)
            step(opt2, w2)
        """, "the second optimizer is built before its first call",
            proof=Proof(check="assert float(w1) < 1.0 and float(w2) < 2.0")),
        valid("""
            import tensorflow as tf

            w1, w2 = tf.Variable(1.0), tf.Variable(2.0)
            sgd1 = tf.keras.optimizers.SGD(0.1)
            sgd2 = tf.keras.optimizers.SGD(0.1)

            @tf.function
            def step(optimizer, w):
                with tf.GradientTape() as tape:
                    loss = w * w
                optimizer.apply_gradients([(tape.gradient(loss, w), w)])
                return loss

            step(sgd1, w1)
            step(sgd2, w2)
        """, "Keras 3's plain SGD has no slot variables",
            proof=Proof(check="assert abs(float(w1) - 0.8) < 1e-6 and abs(float(w2) - 1.6) < 1e-6")),
        unfixed(invalid("""
            import tensorflow as tf

            w = tf.Variable(1.0)

            def make_optimizer(lr):
                return tf.keras.optimizers.Adam(lr)

            @tf.function
            def step():
                optimizer = make_optimizer(0.1)
                with tf.GradientTape() as tape:
                    loss = w * w
                optimizer.apply_gradients([(tape.gradient(loss, w), w)])
                return loss

            step()
        """, 10, "a factory that constructs an optimizer on every call (no fix: the factory may take the call's "
                 "arguments)",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables")))),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        wording = variable_error(ctx.targets.tensorflow)
        self._constructed_in_body(ctx, values, wording)
        for tf_function in facts.tf_functions:
            self._several_optimizers(ctx, values, tf_function, wording)

    # --- an optimizer constructed in the body ----------------------------------------------

    def _constructed_in_body(self, ctx: Context, values: ValueModel, wording: str) -> None:
        facts = ctx.facts
        for site in facts.calls:
            traced = trace_of(values, site.scope)
            if traced is None:
                continue
            made = _constructs_optimizer(site.node, site.scope, values)
            if made is None:
                continue
            function = site.scope.function
            if function is not None and function.node is not traced.node and _factory(function.node, values):
                continue  # reported where the trace calls the factory
            if created_lazily(site.node, site.guards, facts):
                continue
            eager = eager_context(site.node, facts)
            if eager is not None and "init_scope" not in eager:
                continue
            when = self._creates_variables(site.node, site.scope, values)
            if when is None:
                continue
            where = traced.how if function is None or function.node is traced.node else \
                f"{function_name(function.node)}, which {traced.how} calls"
            if made != "constructor":
                where += f" (by `{ast.unparse(site.node.func)}`, which constructs one on every call)"
            related = [traced.related(ctx)]
            if isinstance(when, ast.AST):
                related.append(ctx.related(when, "its slot variables are created here"))
                how = "it creates its slot variables when it is applied, on every trace"
            else:
                how = "its constructor creates the `iterations` variable on every trace"
            ctx.report(
                site.node,
                f"Optimizer constructed inside {where}: {how}, and TensorFlow raises "
                f"ValueError \"{wording}\" Construct the optimizer once outside the function (in `__init__` or "
                "at module level), or behind a first-call guard (`if self.optimizer is None:`).",
                related=related,
                fix=_hoist(ctx, site, traced.node) if made == "constructor" and not traced.keras else None,
            )

    def _creates_variables(self, call: ast.Call, scope: Scope, values: ValueModel) -> ast.AST | bool | None:
        """True when the constructor itself creates variables, the node where the optimizer is
        applied when that creates them, else None."""
        qualname = values.value(call, scope).ref or ""
        if qualname.startswith("tensorflow.train."):
            if qualname in _SLOTLESS_V1:
                return None
            return used_after_construction(call, scope, values.facts, _USES)
        major = values.keras_major(call)
        legacy = ".legacy." in qualname
        if major >= 3 or (not legacy and qualname != "keras.optimizers.get"
                          and values.targets.tensorflow >= _NEW_KERAS2_OPTIMIZERS_SINCE):
            return True
        return used_after_construction(call, scope, values.facts, _USES)

    # --- several optimizers through one tf.function ------------------------------------------

    def _several_optimizers(self, ctx: Context, values: ValueModel, tf_function: TfFunction, wording: str) -> None:
        node = tf_function.node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        facts = ctx.facts
        body = facts.function_scopes.get(node)
        if body is None:
            return
        callers = sorted(values.callers(node), key=lambda c: (c[0].lineno, c[0].col_offset))
        for param in values.positional_parameters(node):
            applied = [site for method in _USES for site in body.method_calls.get((param, method), ())]
            if not applied:
                continue
            # (the call, what it passes for the parameter, the optimizer's constructor call)
            passed: list[tuple[ast.Call, ast.expr, ast.Call]] = []
            for call, scope, bound in callers:
                expr = values.argument(call, node, param, bound)
                if expr is None:
                    continue
                optimizer = values.value(expr, scope)
                if not optimizer.is_or_none(OPTIMIZER) or not isinstance(optimizer.origin, ast.Call) \
                        or optimizer.remote is not None:
                    passed = []  # an unknown optimizer: which one traces first is unknown
                    break
                passed.append((call, expr, optimizer.origin))
            if not passed:
                continue
            # `step_1 = tf.function(train_step)`, `step_2 = tf.function(train_step)`: two
            # tf.functions, each with its own traces; only calls through one name share them.
            groups: dict[str | None, list[tuple[ast.Call, ast.expr, ast.Call]]] = {}
            for entry in passed:
                groups.setdefault(dotted(entry[0].func), []).append(entry)
            for group in groups.values():
                first_call, first_expr, first_origin = group[0]
                for call, expr, origin in group[1:]:
                    if origin is first_origin or not self._applying_creates_slots(origin, values):
                        continue
                    if _built_beforehand(expr, facts):
                        continue
                    first_text = ast.unparse(first_expr)
                    text = ast.unparse(expr)
                    ctx.report(
                        call,
                        f"This call passes the optimizer `{text}` to the tf.function {function_name(node)}, which "
                        f"is also called with `{first_text}` on {ctx.where(first_call)}: whichever optimizer comes "
                        f"second makes TensorFlow trace again, and that trace creates its slot variables when "
                        f"`{param}.{applied[0].method}` runs, so TensorFlow raises ValueError \"{wording}\" Use one "
                        f"tf.function per optimizer, or build every optimizer before the first call "
                        f"(`{text}.build(variables)`).",
                        related=[ctx.related(first_call, f"also called with `{first_text}` here"),
                                 ctx.related(applied[0].node, "the optimizer creates its slots here")],
                    )
                    break

    def _applying_creates_slots(self, origin: ast.Call, values: ValueModel) -> bool:
        qualname = values.facts.imports.resolve(origin.func) or ""
        if qualname in _SLOTLESS_V1:
            return False
        if qualname.rsplit(".", 1)[-1] == "SGD" and values.keras_major(origin) >= 3:
            momentum = next((k.value for k in origin.keywords if k.arg == "momentum"), None)
            if momentum is None and len(origin.args) >= 2:
                momentum = origin.args[1]
            return momentum is not None and not (isinstance(momentum, ast.Constant) and momentum.value == 0)
        return True


def _constructs_optimizer(call: ast.Call, scope: Scope, values: ValueModel) -> str | None:
    """"constructor" when this call makes a new optimizer (a constructor, `keras.optimizers.get`),
    "factory" when it calls a function (of this file or the project's) every `return` of which
    constructs one; else None."""
    called = values.value(call.func, scope)
    if called.kind == LIBRARY:
        api = library.api(called.ref) if isinstance(called.ref, str) else None
        if api is None or api.kind != OPTIMIZER:
            return None  # (cheap: most calls in a traced body are ops)
    elif called.kind != FUNCTION:
        return None
    made = values.value(call, scope)
    if not made.is_(OPTIMIZER):
        return None
    if made.origin is call:
        return "constructor"
    if called.kind != FUNCTION or not _factory(called.ref, called.home or values):
        return None
    return "factory"


def _factory(function: ast.AST, values: ValueModel) -> bool:
    """A def every `return` of which constructs an optimizer (`values` is its file's model)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    returns = [node for node in ast.walk(function) if isinstance(node, ast.Return)]
    for node in returns:
        value = values.value(node.value) if node.value is not None else None
        if value is None or not value.is_(OPTIMIZER) or value.origin is not node.value:
            return False
    return bool(returns)


def _hoist(ctx: Context, site, traced_node: ast.AST | None):
    """Construct the optimizer once: in `__init__`, before the function, or behind a first-call
    guard when its arguments need the call (hoist.py decides, and says safe or unsafe)."""
    function = site.scope.function
    if function is None or function.node is not traced_node:
        return None
    qualname = ctx.facts.imports.resolve(site.node.func) or ""
    noun = f"optimizer `{qualname.rsplit('.', 1)[-1]}`" if qualname else "optimizer"
    return hoist_offer(ctx, site.node, traced_node, noun=noun, base_name="optimizer")


def _built_beforehand(expr: ast.expr, facts) -> bool:
    """`opt.build(...)` anywhere in the file for this optimizer (conservatively: by its text)."""
    text = ast.unparse(expr)
    for scope in facts.scopes:
        if (text, "build") in scope.method_calls:
            return True
    return False
