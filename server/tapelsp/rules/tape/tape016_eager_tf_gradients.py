from __future__ import annotations

import ast

from ...facts.model import CallSite, Facts, Scope
from ...model import Severity
from ...versions import VersionRange
from ...analysis import library
from ...analysis.values import LAYER, LIST, MODEL, NDARRAY, NUMBER, TENSOR, TUPLE, VARIABLE, values_for
from ..base import Context, Proof, Rule, invalid, valid

MESSAGE = "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."
_GRAPH_MODES = ("disable_eager_execution", "disable_v2_behavior", "session", "placeholder")


class EagerTfGradients(Rule):
    """
    ## What it does
    Finds `tf.gradients(...)` (also `tf.compat.v1.gradients`) and `K.gradients(...)`
    called eagerly in TensorFlow 2: at module level, in a method this file calls eagerly
    on instances of its class (`agent.learn(...)`), or in a plain function that this
    file calls eagerly, itself or through a library function that calls the functions it
    is given in the caller's mode (an objective given to `tfp.optimizer.lbfgs_minimize`),
    or in the function of a Keras `Lambda` layer when the file calls the layer, or a model
    whose graph applies it, on eager inputs (`model(tf.constant(...))`: building the model
    ran the function on symbolic tensors, each eager call reruns it eagerly; `predict`,
    `fit` and `evaluate` run it inside a tf.function),
    with no `tf.function` around it and no TF1 graph mode
    (`tf.compat.v1.disable_eager_execution()`, `disable_v2_behavior()`, sessions,
    placeholders, `with graph.as_default():`).

    ## Why is this bad?
    `tf.gradients` builds symbolic gradient ops in a graph. With eager execution, the
    default in TensorFlow 2, it raises
    `RuntimeError: tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead.`
    `K.gradients` of tf_keras calls it and fails the same way; Keras 3 has no
    `K.gradients` at all. Inside a `tf.function` or in TF1 graph mode it works, and
    functions this file never calls are left alone (they may well be traced).

    ## Example
    ```python
    x = tf.Variable(3.0)
    y = x * x
    dy = tf.gradients(y, x)  # RuntimeError
    ```

    ## Use instead
    ```python
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    dy = tape.gradient(y, x)
    ```
    """

    code = "TAPE016"
    name = "eager-tf-gradients"
    summary = "tf.gradients / K.gradients called eagerly in TensorFlow 2"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("gradients",)
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.Variable(3.0)
            y = x * x
            dy = tf.gradients(y, x)
        """, 5, "module-level tf.gradients",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf

            def input_gradient(model, x):
                y = model(x)
                return tf.compat.v1.gradients(y, x)

            model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
            g = input_gradient(model, tf.ones((1, 2)))
        """, 5, "a helper called eagerly",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf
            import tf_keras
            from tf_keras import backend as K

            w = tf.Variable(2.0)
            loss = w * w
            grads = K.gradients(loss, [w])
        """, 7, "K.gradients of tf_keras",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            def quadratic(x):
                value = tf.reduce_sum((x - 1.0) ** 2)
                return value, tf.gradients(value, x)[0]

            results = tfp.optimizer.lbfgs_minimize(quadratic, initial_position=tf.zeros(3))
        """, 6, "an objective that TFP's L-BFGS calls eagerly (the TFP documentation's TF1 example)",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf
            import tf_keras
            from tf_keras import backend as K

            inputs = tf_keras.Input((4,))
            model = tf_keras.Model(inputs, tf_keras.layers.Dense(2, activation="softmax")(inputs))
            grads = K.gradients(K.log(model.output), model.weights)
            fisher = K.function([model.input], grads)
        """, 7, "K.gradients feeding K.function: K.function runs eagerly in TensorFlow 2, K.gradients raises first",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf

            class Fitter:
                def __init__(self):
                    self.w = tf.Variable(2.0)

                def step(self, x):
                    loss = self.w * x
                    return tf.gradients(loss, [self.w])

            fitter = Fitter()
            grads = fitter.step(tf.constant(3.0))
        """, 9, "a method the file calls eagerly on an instance of its class",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf
            import tf_keras
            from tf_keras import backend as K

            inputs = tf_keras.Input((2,))
            squares = inputs * inputs
            slopes = tf_keras.layers.Lambda(lambda z: K.gradients(z[0], z[1]))([squares, inputs])
            model = tf_keras.Model(inputs, slopes)
            out = model(tf.constant([[2.0, 3.0]]))
        """, 7, "K.gradients in a Lambda layer of a functional model called on an eager tensor: building the "
                "model runs it on symbolic tensors, the call reruns it eagerly",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        invalid("""
            import tensorflow as tf
            import keras

            inputs = keras.Input((2,))
            squares = inputs * inputs
            slopes = keras.layers.Lambda(lambda z: tf.gradients(z[0], z[1]), output_shape=(2,))([squares, inputs])
            model = keras.Model(inputs, slopes)
            out = model(tf.constant([[2.0, 3.0]]))
        """, 6, "tf.gradients in a Keras 3 Lambda layer, the model called eagerly",
            proof=Proof(raises=("RuntimeError", MESSAGE))),
        valid("""
            import tensorflow as tf
            import tf_keras
            from tf_keras import backend as K

            inputs = tf_keras.Input((2,))
            squares = inputs * inputs
            slopes = tf_keras.layers.Lambda(lambda z: K.gradients(z[0], z[1]))([squares, inputs])
            model = tf_keras.Model(inputs, slopes)
            out = model.predict(tf.constant([[2.0, 3.0]]), verbose=0)
        """, "the same model run by model.predict, which calls it inside a tf.function",
            proof=Proof(check="assert out.tolist() == [[4.0, 6.0]]")),
        valid("""
            import tensorflow as tf
            import keras

            inputs = keras.Input((2,))
            squares = inputs * inputs
            slopes = keras.layers.Lambda(lambda z: tf.gradients(z[0], z[1]), output_shape=(2,))([squares, inputs])
            model = keras.Model(inputs, slopes)

            @tf.function
            def slopes_at(x):
                return model(x)

            out = slopes_at(tf.constant([[2.0, 3.0]]))
        """, "the Keras 3 model called only inside a tf.function",
            proof=Proof(check="assert out.numpy().tolist() == [[4.0, 6.0]]")),
        valid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            def quadratic(x):
                value = tf.reduce_sum((x - 1.0) ** 2)
                return value, tf.gradients(value, x)[0]

            @tf.function
            def optimize():
                return tfp.optimizer.lbfgs_minimize(quadratic, initial_position=tf.zeros(3))

            results = optimize()
        """, "the same objective, L-BFGS run inside a tf.function: the objective is traced",
            proof=Proof(check="assert bool(results.converged) and abs(float(results.position[0]) - 1.0) < 1e-4")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(3.0)

            @tf.function
            def derivative():
                y = x * x
                return tf.gradients(y, x)[0]

            dy = derivative()
        """, "inside a tf.function",
            proof=Proof(check="assert float(dy) == 6.0")),
        valid("""
            import tensorflow as tf

            class Fitter:
                def __init__(self):
                    self.w = tf.Variable(2.0)

                def step(self, x):
                    loss = self.w * x
                    return tf.gradients(loss, [self.w])

            fitter = Fitter()

            @tf.function
            def run(x):
                return fitter.step(x)

            grads = run(tf.constant(3.0))
        """, "the same method, called only inside a tf.function",
            proof=Proof(check="assert float(grads[0]) == 3.0")),
        valid("""
            import tensorflow as tf

            tf.compat.v1.disable_eager_execution()
            x = tf.compat.v1.placeholder(tf.float32, ())
            y = x * x
            dy = tf.gradients(y, x)
            with tf.compat.v1.Session() as sess:
                value = sess.run(dy, {x: 3.0})
        """, "TF1 graph mode", proof=Proof(check="assert value[0] == 6.0", isolated=True)),
        valid("""
            import tensorflow as tf

            graph = tf.Graph()
            with graph.as_default():
                x = tf.constant(3.0)
                y = x * x
                dy = tf.gradients(y, x)
        """, "inside `with graph.as_default():`",
            proof=Proof(check="assert dy[0].graph is graph")),
        valid("""
            import tensorflow as tf

            def hessian_vector_product(f, x, v):
                g = tf.gradients(f(x), x)[0]
                return tf.gradients(tf.reduce_sum(g * v), x)[0]
        """, "a library helper this file never calls eagerly"),
        valid("""
            import tensorflow as tf

            x = tf.Variable(3.0)
            y = x * x
            dy = tf.gradients(y, x)
        """, "TensorFlow 1 targets: graph mode is the default", tensorflow_version="1.15"),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        sites = facts.calls_to("tensorflow.gradients", "keras.backend.gradients")
        if not sites or facts.has_mode(*_GRAPH_MODES) or _graph_blocks(facts):
            return
        values = values_for(ctx)
        for site in sites:
            runner = _eager_runner(facts, site.scope, 0, values)
            layer_call = None
            if runner is None:
                layer_call = _eager_lambda_layer_call(ctx, site.scope, values)
                if layer_call is None:
                    continue
            if site.qualname == "keras.backend.gradients":
                if values.keras_major(site.node) >= 3:
                    ctx.report(site.node, "Keras 3 has no `backend.gradients`: this line raises AttributeError "
                                          "when it runs. Compute the gradient with a tf.GradientTape.")
                    continue
                what = "`K.gradients` calls `tf.gradients`, which"
            else:
                what = f"`{ast.unparse(site.node.func)}`"
            how = "runs here with eager execution on (TensorFlow 2, no tf.function around it)"
            related = []
            if layer_call is not None:
                callee = ast.unparse(layer_call.func)
                how = (f"runs in a Keras `Lambda` layer, and `{callee}(...)` on {ctx.where(layer_call)} calls "
                       "it on eager tensors (no tf.function around it), so the layer's function runs eagerly")
                related.append(ctx.related(layer_call, f"`{callee}` runs the Lambda layer here, eagerly"))
            elif isinstance(runner, _Remote):
                callee = ast.unparse(runner.call.func)
                how = (f"runs with eager execution on: `{callee}(...)` in {runner.where} calls this function "
                       "eagerly (TensorFlow 2, no tf.function around it)")
            elif isinstance(runner, ast.Call):
                callee = ast.unparse(runner.func)
                how = (f"runs with eager execution on: `{callee}` on {ctx.where(runner)} calls this function "
                       "eagerly (TensorFlow 2, no tf.function around it)")
                related.append(ctx.related(runner, f"`{callee}` calls the function here, eagerly"))
            ctx.report(
                site.node,
                f"{what} {how}: it raises RuntimeError \"{MESSAGE}\" Record the computation under a "
                "tf.GradientTape and call `tape.gradient`, or run this code inside a tf.function.",
                related=related,
            )


def _graph_blocks(facts: Facts) -> bool:
    """The file builds graphs explicitly (`graph.as_default()`, `tf.Graph()`, a Session): assume
    graph mode. (`K.function` is no sign of it: in TensorFlow 2 it runs eagerly, and the
    `K.gradients` that feeds it raises before it.)"""
    if facts.calls_to("tensorflow.Graph", "tensorflow.get_default_graph", "tensorflow.Session",
                      "keras.backend.get_session"):
        return True
    return any(site.method in ("as_default", "as_graph_def") for site in facts.calls)


def _eager_runner(facts: Facts, scope: Scope, depth: int, values) -> ast.AST | None:
    """What runs code of `scope` eagerly, or None when it may not run eagerly: the module
    itself, or, for a plain function, its scope node when this file only ever calls it
    directly from eager code, or the library call (the table's `calls_fn`: TFP's
    `lbfgs_minimize`) that is given the function and calls it in the caller's mode; for a
    method, its scope node when every use of its name in the file is a call on an instance
    of its class (`agent.learn(...)`, `self.learn(...)`) from eager code."""
    if scope.traced_by is not None:
        return None
    if scope.kind == "module":
        return scope.node
    if scope.kind != "function" or depth > 3:
        return None
    node = scope.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return None
    parent = scope.parent
    if parent is None:
        return None
    if parent.kind == "class":
        return _eager_method(facts, node, parent.node, depth, values)
    uses = _uses(facts, node.name)
    if uses == [] and parent.kind == "module":
        return _remote_runner(node, depth, values)
    if not uses:
        return None
    runner: ast.AST | None = None
    for site, passed in uses:
        if _eager_runner(facts, site.scope, depth + 1, values) is None:
            return None
        if passed and runner is None:
            runner = site.node
    return runner if runner is not None else node


class _Remote:
    """A call in another module of the project that runs a function of this file eagerly."""

    def __init__(self, call: ast.Call, where: str) -> None:
        self.call = call
        self.where = where


def _remote_runner(node: ast.FunctionDef | ast.AsyncFunctionDef, depth: int, values) -> "_Remote | None":
    """A module-level function this file never uses, which the project's other modules import:
    the first of their calls of it when every module that may import it was read, and there
    every use of the name is a call from eager code (`from fit import fit`, then `fit(...)` in
    a `main()` the module runs). None when a use is anything else (passed to `tf.function`,
    stored) or when one module could not be read."""
    project, path = values.project, values.path
    if project is None or path is None or depth > 2:
        return None
    try:
        importers = project.importers(path, node.name)
    except (OSError, AttributeError, TypeError, ValueError):
        return None
    if not importers or len(importers) > 2:
        return None
    found: _Remote | None = None
    for other in importers:
        model = values._remote_model(other)
        if model is None:
            return None
        local = [site for site in model.facts.calls if isinstance(site.node.func, ast.Name)
                 and values._runs_here(model.value(site.node.func, site.scope), node, None) is False]
        called = {id(site.node.func) for site in local}
        for mention in ast.walk(model.facts.tree):
            if (isinstance(mention, ast.Name) and mention.id == node.name and isinstance(mention.ctx, ast.Load)
                    or isinstance(mention, ast.Attribute) and mention.attr == node.name) \
                    and id(mention) not in called:
                return None  # `fit.fit`, `tf.function(fit)`: used otherwise than called by its name
        for name in {site.node.func.id for site in local}:
            uses = _uses(model.facts, name)
            if uses is None:
                return None
            for site, _passed in uses:
                if _eager_runner(model.facts, site.scope, depth + 1, model) is None:
                    return None
        if local and found is None:
            from ...analysis.modules import label

            found = _Remote(local[0].node, f"{label(other)} line {local[0].node.lineno}")
    return found


# Methods that Keras, tf.Module or Python call for the program (`model(x)` runs `call`, `fit`
# traces `train_step`): not known to run eagerly from this file's calls alone.
_IMPLICIT_METHODS = frozenset({"call", "build", "train_step", "test_step", "predict_step", "compute_loss",
                               "compute_metrics", "get_config", "from_config"})


def _eager_method(facts: Facts, node: ast.FunctionDef | ast.AsyncFunctionDef, cls: ast.AST, depth: int,
                  values) -> ast.AST | None:
    """A method this file only ever calls on instances of its class, each call from eager code:
    its def. None when a use of its name is anything else (passed on as `agent.learn`, called on
    an object of unknown class), or when Keras or Python may call it (`call`, dunders)."""
    if node.name in _IMPLICIT_METHODS or node.name.startswith("__") or not isinstance(cls, ast.ClassDef):
        return None
    by_node = {id(site.node.func): site for site in facts.calls if isinstance(site.node.func, ast.Attribute)
               and site.node.func.attr == node.name}
    eager_calls = 0
    for attribute in ast.walk(facts.tree):
        if not isinstance(attribute, ast.Attribute) or attribute.attr != node.name:
            continue
        site = by_node.get(id(attribute))
        if site is None:
            return None  # `agent.learn` stored or passed on: it may be traced elsewhere
        owner = values.value(attribute.value, site.scope).user_class
        if owner is None:
            return None
        if owner is not cls:
            continue  # another class's method of the same name
        if _eager_runner(facts, site.scope, depth + 1, values) is None:
            return None
        eager_calls += 1
    return node if eager_calls else None


def _uses(facts: Facts, name: str) -> list[tuple[CallSite, bool]] | None:
    """Each use of `name` in the file, as the call that uses it: `name(...)` (False), or a
    library call that runs a function it is given in the caller's mode, given `name` (True);
    None when the name is also used otherwise (passed on, stored, decorated)."""
    out: list[tuple[CallSite, bool]] = []
    for site in facts.calls:
        call = site.node
        if isinstance(call.func, ast.Name) and call.func.id == name:
            out.append((site, False))
        elif any(isinstance(arg, ast.Name) and arg.id == name
                 for arg in (*call.args, *(k.value for k in call.keywords))):
            api = library.api(site.qualname)
            if api is None or not api.has("calls_fn"):
                return None
            out.append((site, True))
    loads = sum(len(scope.loads.get(name, ())) for scope in facts.scopes)
    if loads != len(out):
        return None
    return out


_LAMBDA_LAYER = "keras.layers.Lambda"


def _eager_lambda_layer_call(ctx: Context, scope: Scope, values) -> ast.Call | None:
    """The function of `scope` is given to a Keras `Lambda` layer (`Lambda(lambda z: ...)`, or a
    def of the file given by name), and the file calls that layer, or a model whose graph
    applies it (a functional `keras.Model(inputs, outputs)` or a `Sequential`), on eager inputs
    in eager code: `model(tf.constant(...))`. Keras reruns the layer's function on every such
    call; `model.predict`/`fit`/`evaluate` run it inside their tf.function, and applying the
    layer to `keras.Input` tensors runs it on symbolic tensors. The call, or None."""
    if scope.kind not in ("lambda", "function") or scope.traced_by is not None:
        return None
    facts = ctx.facts
    function = scope.node
    constructions = [site.node for site in facts.calls_to(_LAMBDA_LAYER)
                     if site.scope.traced_by is None and _given(site.node, function)]
    if not constructions:
        return None
    from ...analysis.keras_graph import _graphs

    graphs = _graphs(values, ctx.project, ctx.path)
    keys = {id(c) for c in constructions}
    for site in facts.calls:
        if site.method is not None or not isinstance(site.node.func, (ast.Name, ast.Attribute)) \
                or not site.node.args:
            continue
        value = values.value(site.node.func, site.scope)
        if not value.certain or value.kind not in (MODEL, LAYER):
            continue
        if value.kind == LAYER:
            if graphs.key_of(value) not in keys:
                continue
        else:
            model = graphs.model_of(value)
            if model is None or not _applies(model, keys, 0):
                continue
        if _eager_runner(facts, site.scope, 0, values) is None:
            continue
        if not _eager_input(values, site.node.args[0], site.scope):
            continue
        return site.node
    return None


def _given(construction: ast.Call, function: ast.AST) -> bool:
    """Is `function` the function given to this `Lambda(...)` construction?"""
    argument = construction.args[0] if construction.args else next(
        (k.value for k in construction.keywords if k.arg == "function"), None)
    if argument is None:
        return False
    if argument is function:
        return True
    return isinstance(argument, ast.Name) and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and argument.id == function.name


def _applies(model, keys: set[int], depth: int) -> bool:
    """Does the model's graph (or a model it uses as a layer) apply one of these layers?"""
    for node in model.nodes:
        if node.kind == "layer" and node.key in keys:
            return True
        if node.submodel is not None and depth < 3 and _applies(node.submodel, keys, depth + 1):
            return True
    return False


def _eager_input(values, argument: ast.expr, scope: Scope, depth: int = 0) -> bool:
    """An input that is a concrete value: an eager tensor or variable, a NumPy array, a number,
    or a list of them (not a `keras.Input`, not a tensor of a trace, nothing unknown)."""
    value = values.value(argument, scope)
    if not value.known:
        return False
    if value.kind in (TENSOR, VARIABLE):
        return value.symbolic is False
    if value.kind in (NDARRAY, NUMBER):
        return True
    if value.kind in (LIST, TUPLE) and isinstance(argument, (ast.List, ast.Tuple)) and argument.elts \
            and depth < 3:
        return all(_eager_input(values, e, scope, depth + 1) for e in argument.elts)
    return False
