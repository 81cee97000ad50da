from __future__ import annotations

import ast

from dataclasses import replace

from ...analysis import library
from ...analysis.values import BIJECTOR, DICT, DISTRIBUTION, LIBRARY, METHOD, TENSOR, VARIABLE, Value, values_for
from ...facts.dataflow import inside
from ...facts.walk import body_nodes, body_statements
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid
from ..function.func005_numpy_in_function import _TF_EQUIVALENT

# The NumPy array methods a tf.Tensor does not have (the table's numpy_only rows).
_METHODS = frozenset(row.name.split(".", 1)[1] for row in library.rows()
                     if row.name.startswith("@tensor.") and row.has("numpy_only") and not row.attribute)
# What TensorFlow 2.21 says: the methods NumPy behaviour would add name it in the message.
_WITH_HINT = frozenset({"tolist", "astype", "reshape", "transpose", "clip", "ravel"})
# Methods whose NumPy result the code can get from the tensor's `.numpy()`, in eager code.
_VIA_NUMPY = frozenset({"tolist", "item"})


class NumpyMethodOnTensor(Rule):
    """
    ## What it does
    Finds a NumPy array method (`.tolist()`, `.astype(...)`, `.reshape(...)`, `.mean()`,
    `.item()`, `.flatten()`...) called on a tf.Tensor or tf.Variable in eager code (and in TF1
    graph code): the result of a TensorFlow or `keras.ops` op, of calling a Keras model or
    layer, of a function returning one, an entry of the structure a tf.function returns, a
    batch of a tf.data dataset, or arithmetic on any of these. (In code a tf.function traces, FUNC005 reports it; `.item()` and `.tolist()` inside
    a tape, TAPE007.)

    ## Why is this bad?
    A tf.Tensor is not a NumPy array. TensorFlow 2.21 raises
    `AttributeError: EagerTensor object has no attribute 'tolist'` (for `.mean()`, `.item()`,
    `.flatten()`: `'tensorflow.python.framework.ops.EagerTensor' object has no attribute
    'mean'`; on a variable `'ResourceVariable' object has no attribute 'mean'`; in graph code
    `SymbolicTensor`), unless the program enables NumPy behaviour with
    `tf.experimental.numpy.experimental_enable_numpy_behavior()`.

    ## Example
    ```python
    ids = tf.argmax(model(batch), axis=-1)
    labels = [LABELS[i] for i in ids.tolist()]
    ```

    ## Use instead
    ```python
    labels = [LABELS[i] for i in ids.numpy().tolist()]
    ```
    and the TensorFlow op for the others: `tf.cast`, `tf.reshape`, `tf.reduce_mean`.
    """

    code = "TNS001"
    name = "numpy-method-on-tensor"
    summary = "a NumPy array method called on an eager tf.Tensor"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = tuple(f".{name}(" for name in sorted(_METHODS))
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
            ids = tf.argmax(model(np.ones((2, 4), np.float32)), axis=-1)
            labels = [["a", "b", "c"][i] for i in ids.tolist()]
        """, 6, "`.tolist()` on the result of tf.argmax",
            proof=Proof(raises=("AttributeError", "EagerTensor object has no attribute 'tolist'"))),
        invalid("""
            import numpy as np
            import tensorflow as tf

            conv = tf.keras.Sequential([tf.keras.Input((4, 4, 1)), tf.keras.layers.Conv2D(2, 3, padding="same")])

            def classify(images):
                features = conv(images)
                return features.reshape(-1, 4 * 4 * 2)

            flat = classify(np.ones((3, 4, 4, 1), np.float32))
        """, 8, "`.reshape` on a Keras model's output in a function called eagerly",
            proof=Proof(raises=("AttributeError", "EagerTensor object has no attribute 'reshape'"))),
        invalid("""
            import tensorflow as tf

            scores = tf.nn.softmax(tf.constant([[1.0, 2.0, 3.0]]))
            average = scores.mean()
        """, 4, "`.mean()` on a tensor",
            proof=Proof(raises=("AttributeError", "object has no attribute 'mean'"))),
        valid("""
            import numpy as np
            import tensorflow as tf

            ids = tf.argmax(tf.constant([[1.0, 2.0], [3.0, 0.0]]), axis=-1)
            listed = ids.numpy().tolist()
            arr = np.ones((2, 2)).reshape(-1)
        """, "NumPy's methods on NumPy arrays",
            proof=Proof(check="assert listed == [1, 0] and arr.shape == (4,)")),
        valid("""
            import tensorflow as tf

            tf.experimental.numpy.experimental_enable_numpy_behavior()
            t = tf.constant([[1.0, 2.0]])
            flat = t.reshape(-1)
        """, "NumPy behaviour enabled: tensors have NumPy's methods",
            proof=Proof(check="assert flat.shape == (2,)", isolated=True)),
        invalid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = np.ones((4, 3), np.float32)
            y = np.zeros((4, 1), np.float32)
            with tf.GradientTape() as tape:
                loss = ((model(x) - y) ** 2).mean()
        """, 8, "`.mean()` on arithmetic of a model's output with NumPy data, inside a tape",
            proof=Proof(raises=("AttributeError", "object has no attribute 'mean'"))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])

            def forward(x):
                return tf.nn.relu(x @ w)

            mask = (w > 0.0).astype("float32")
            flat = forward(tf.ones((1, 2))).reshape(-1)
        """, (8, 9), "`.astype` on a comparison of a variable; `.reshape` on what a function returns",
            proof=Proof(raises=("AttributeError", "EagerTensor object has no attribute 'astype'"))),
        invalid("""
            import numpy as np
            import tensorflow as tf

            inp = tf.keras.Input((3,))
            h = tf.keras.layers.Dense(4)(inp)
            model = tf.keras.Model(inp, [tf.keras.layers.Dense(1)(h), tf.keras.layers.Dense(2)(h)])
            x = np.ones((5, 3), np.float32)
            main, aux = model(x)
            loss = (main ** 2).mean()
        """, 9, "`.mean()` on one of the outputs a functional model with a list of outputs gives when unpacked",
            proof=Proof(raises=("AttributeError", "object has no attribute 'mean'"))),
        invalid("""
            import tensorflow as tf

            class Logged(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(2)

                def call(self, x):
                    return self.dense(x)

                def train_step(self, data):
                    x, y = data
                    return ((self(x) - y) ** 2).mean()

            model = Logged()
            loss = model.train_step((tf.ones((4, 3)), tf.zeros((4, 2))))
        """, 13, "a `train_step` the file only calls directly, never through `fit`: it runs eagerly",
            proof=Proof(raises=("AttributeError", "object has no attribute 'mean'"))),
        valid("""
            import numpy as np
            import tensorflow as tf

            inp = tf.keras.Input((3,))
            h = tf.keras.layers.Dense(4)(inp)
            model = tf.keras.Model(inp, [tf.keras.layers.Dense(1)(h), tf.keras.layers.Dense(2)(h)])
            main, aux = model(np.ones((5, 3), np.float32))
            loss = (main.numpy() ** 2).mean()
            spread = tf.math.reduce_std(aux)
        """, "the unpacked outputs of a functional model converted with `.numpy()` first, or given to TensorFlow ops",
            proof=Proof(check="assert loss.shape == () and spread.shape == ()")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            inputs = tf.keras.Input((3,))
            heads = {name: tf.keras.layers.Dense(1)(inputs) for name in ("a", "b")}
            model = tf.keras.Model(inputs, (heads, tf.keras.layers.Dense(2)(inputs)))
            outputs, aux = model(np.ones((4, 3), np.float32))
            losses = {name: outputs[name].mean() for name in outputs}
        """, 8, "`.mean()` on an entry of the dict of outputs a functional model gives as the first of its outputs",
            proof=Proof(raises=("AttributeError", "object has no attribute 'mean'"))),
        valid("""
            import numpy as np
            import tensorflow as tf

            inputs = tf.keras.Input((3,))
            heads = {name: tf.keras.layers.Dense(1)(inputs) for name in ("a", "b")}
            model = tf.keras.Model(inputs, (heads, tf.keras.layers.Dense(2)(inputs)))
            outputs, aux = model(np.ones((4, 3), np.float32))
            losses = {name: outputs[name].numpy().mean() for name in outputs}
        """, "the entries of a functional model's dict of outputs converted with `.numpy()` first",
            proof=Proof(check="assert sorted(losses) == ['a', 'b'] and losses['a'].shape == ()")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            w = tf.Variable(np.ones((2, 2), np.float32))
            flat = w.reshape(-1)
        """, 5, "`.reshape` on a tf.Variable",
            proof=Proof(raises=("AttributeError", "'ResourceVariable' object has no attribute 'reshape'"))),
        invalid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            ds = tf.data.Dataset.from_tensor_slices((np.ones((8, 3), np.float32), np.zeros((8, 1), np.float32)))
            for xb, yb in ds.batch(4):
                error = (model(xb) - yb).mean()
        """, 7, "`.mean()` on a model's output for a batch of a dataset",
            proof=Proof(raises=("AttributeError", "object has no attribute 'mean'"))),
        invalid("""
            import numpy as np
            import keras

            probabilities = keras.ops.softmax(np.ones((2, 3), np.float32))
            flat = probabilities.reshape(-1)
        """, 5, "`.reshape` on a `keras.ops` result (a tf.Tensor with TensorFlow as Keras's backend)",
            proof=Proof(raises=("AttributeError", "EagerTensor object has no attribute 'reshape'"))),
        invalid("""
            import tensorflow as tf

            with tf.Graph().as_default():
                x = tf.compat.v1.placeholder(tf.float32, [None, 1])
                loss = tf.square(x).mean()
        """, 5, "`.mean()` on a symbolic tensor of TF1 graph code",
            proof=Proof(raises=("AttributeError", "'SymbolicTensor' object has no attribute 'mean'"))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def detect(image):
                scores = tf.sigmoid(tf.reduce_sum(image, axis=-1))
                return {"scores": scores, "classes": tf.cast(scores > 0.5, tf.float32)}

            detections = detect(tf.ones((1, 4, 3)))
            detections["classes"] = detections["classes"].astype("int64")
        """, 9, "`.astype` on an entry of the dict a tf.function returns: every entry is an EagerTensor",
            proof=Proof(raises=("AttributeError", "EagerTensor object has no attribute 'astype'"))),
        valid("""
            import tensorflow as tf

            @tf.function
            def detect(image):
                scores = tf.sigmoid(tf.reduce_sum(image, axis=-1))
                return {"scores": scores, "classes": tf.cast(scores > 0.5, tf.float32), "count": 4}

            detections = detect(tf.ones((1, 4, 3)))
            count = int(detections.pop("count"))
            detections = {key: value[0, :count].numpy() for key, value in detections.items()}
            classes = detections["classes"].astype("int64")
            raw = detect(tf.ones((1, 4, 3)))
            raw["scores"] = raw["scores"].numpy()
            top = raw["scores"].max()
        """, "the entries of a tf.function's dict converted with `.numpy()` first (a new dict, or stored back)",
            proof=Proof(check="assert classes.dtype == 'int64' and classes.shape == (4,) and top > 0.5")),
        valid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            x = np.ones((4, 3), np.float32)
            error = ((model(x).numpy() - 1.0) ** 2).mean()
            predicted = model.predict(x, verbose=0).reshape(-1)
            squared = np.square(model(x)).mean()
            batches = [b.reshape(-1) for b in tf.data.Dataset.from_tensor_slices(x).batch(2).as_numpy_iterator()]
        """, "NumPy's methods on NumPy results: `.numpy()`, `predict`, a NumPy function, `as_numpy_iterator`",
            proof=Proof(check="assert predicted.shape == (4,) and error.shape == () and len(batches) == 2")),
        valid("""
            import numpy as np
            import tensorflow as tf

            xs, ts = np.meshgrid(np.linspace(-1.0, 1.0, 4), np.linspace(0.0, 1.0, 3))
            points = tf.constant(np.hstack((xs.flatten()[:, None], ts.flatten()[:, None])))
            scores = np.ones((2, 5))
            kept = (scores.shape[1] - np.argmax(scores > 0.5, axis=1)).reshape(-1, 1)
        """, "NumPy arrays unpacked from `np.meshgrid`, arithmetic on an array's shape",
            proof=Proof(check="assert points.shape == (12, 2) and kept.shape == (2, 1)")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        if facts.calls_to("tensorflow.experimental.numpy.experimental_enable_numpy_behavior"):
            return
        values = None
        for site in facts.calls:
            method = site.method
            call = site.node
            if method not in _METHODS or not isinstance(call.func, ast.Attribute):
                continue
            receiver = call.func.value
            if not _may_hold_a_tensor(ctx, receiver, site.scope.node, 0):
                continue  # nothing here makes it with TensorFlow or a call: not asked further
            if values is None:
                values = values_for(ctx)
            graph = facts.graph_mode(call, site.scope)
            stepped = False
            if graph:
                function = site.scope.function
                if function is not None and function.traced_by is not None:
                    continue  # a tf.function's body: FUNC005's
            elif values.traced(site.scope) is not False:
                stepped = _keras_step_run_directly(values, site.scope)
                if not stepped:
                    continue  # traced code is FUNC005's; unknown stays silent
            value = values.value(receiver, site.scope)
            if not value.is_(TENSOR, VARIABLE):
                value = _dict_entry(ctx, values, receiver, site.scope) or value
            # In a Keras step the file only calls directly, the value model's "symbolic" (it takes
            # the step for traced by `fit`) does not hold: the step runs eagerly.
            if not value.is_(TENSOR, VARIABLE) or value.remote is not None \
                    or (value.symbolic and not graph and not stepped) \
                    or not _made_by_tensorflow(ctx, values, receiver, site.scope):
                continue
            if method in _VIA_NUMPY and any(inside(call, tape.node) for tape in facts.tapes_in(site.scope)):
                continue  # `.item()` / `.tolist()` inside a tape: TAPE007 says what it does to the gradient
            self._report(ctx, call, receiver, method, value, graph)

    def _report(self, ctx: Context, call: ast.Call, receiver: ast.expr, method: str, value, graph: bool) -> None:
        text = ast.unparse(receiver)
        if len(text) > 40:
            text = text[:37] + "..."
        if value.kind == VARIABLE:
            made_by_tf = isinstance(value.origin, ast.Call) and \
                ctx.facts.imports.resolve(value.origin.func) in ("tensorflow.Variable", "tensorflow.get_variable")
            cls = "ResourceVariable" if made_by_tf else "Variable"
            error = f"'{cls}' object has no attribute '{method}'"
            what = "a tf.Variable"
        else:
            cls = "SymbolicTensor" if graph else "EagerTensor"
            error = (f"{cls} object has no attribute '{method}'" if method in _WITH_HINT
                     else f"'{'SymbolicTensor' if graph else 'tensorflow.python.framework.ops.EagerTensor'}' object "
                     f"has no attribute '{method}'")
            what = "a symbolic tf.Tensor (TF1 graph code)" if graph else "a tf.Tensor"
        made = f" (made on {ctx.where(value.origin)})" if value.origin is not None and hasattr(value.origin, "lineno") \
            and value.origin is not receiver else ""
        if method in _VIA_NUMPY and not graph:
            advice = f"Convert it first: `{text}.numpy().{method}()`."
        elif method in _TF_EQUIVALENT:
            advice = f"Use the TensorFlow op: `{_TF_EQUIVALENT[method]}`."
        elif graph:
            advice = "Use the TensorFlow op that does the same."
        else:
            advice = f"Use the TensorFlow op, or `{text}.numpy().{method}(...)` for a NumPy result."
        ctx.report(
            call,
            f"`.{method}()` is a NumPy array method, and `{text}` is {what}{made}: TensorFlow raises "
            f"AttributeError \"{error}\" (unless the program enables NumPy behaviour). {advice}",
        )


def _keras_step_run_directly(values, scope) -> bool:
    """Code of a Keras model's `train_step` / `test_step` / `predict_step` that the file only
    calls directly (`model.train_step(batch)`), never through `fit` or another method that traces
    it: plain Python in eager mode."""
    function = scope.function
    if function is None or function.traced_by is not None or getattr(function.node, "name", None) \
            not in ("train_step", "test_step", "predict_step"):
        return False
    from ...analysis.traced_bodies import stepped_directly_only

    return stepped_directly_only(function.node, values)


def _dict_entry(ctx: Context, values, receiver: ast.expr, scope) -> Value | None:
    """`outputs["classes"]` of a dict every entry of which is certainly a tensor (what a
    tf.function returns: TensorFlow makes every leaf of its output a tensor), when nothing in the
    scope may put another value in it: no other store into `outputs[...]`, no method of it that
    adds entries, and it is handed to no call (the model says a dict's entry only "maybe")."""
    if not (isinstance(receiver, ast.Subscript) and isinstance(receiver.value, ast.Name)
            and isinstance(receiver.slice, ast.Constant)):
        return None
    base = values.value(receiver.value, scope)
    if not base.is_(DICT) or base.item is None or not base.item.is_(TENSOR):
        return None
    name = receiver.value.id
    own = None
    for node in ast.walk(scope.node):  # breadth first: the last statement around it is the innermost
        if isinstance(node, ast.stmt) and node is not scope.node and inside(receiver, node):
            own = node
    for node in ast.walk(scope.node):  # nested defs too: a closure may fill the dict
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Call, ast.For,
                                 ast.AsyncFor, ast.With, ast.AsyncWith)):
            continue
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name \
                    and func.attr not in _DICT_READS:
                return None
            if any(isinstance(n, ast.Name) and n.id == name for a in (*node.args, *(k.value for k in node.keywords))
                   for n in ast.walk(a)):
                return None
            continue
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)) else \
            [item.optional_vars for item in node.items if item.optional_vars is not None]
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id == name:
                    # `outputs["classes"] = outputs["classes"].astype(...)`: its own store comes after
                    # the read, unless a loop repeats the statement
                    if node is own and not _in_loop(scope.node, node):
                        continue
                    return None
    return replace(base.item, origin=base.origin)


_DICT_READS = frozenset({"get", "keys", "values", "items", "copy"})


def _in_loop(owner: ast.AST, stmt: ast.stmt) -> bool:
    return any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and n is not stmt and inside(stmt, n)
               for n in ast.walk(owner))


def _may_make_a_tensor(ctx: Context, made: ast.Call) -> bool:
    """Syntactically: a TensorFlow function, or a call of something that is no library's."""
    qualname = ctx.facts.imports.resolve(made.func)
    if qualname is None:
        return isinstance(made.func, (ast.Name, ast.Attribute))
    return qualname.startswith(("tensorflow.", "keras."))


_BINDINGS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)


def _may_hold_a_tensor(ctx: Context, expr: ast.expr, owner: ast.AST, depth: int) -> bool:
    """A cheap look before the value model is asked: could the receiver be a tensor? Not when
    it is a literal, or a name every binding of which in its scope is `name = f(...)` with `f`
    a library function outside TensorFlow (`a = np.zeros(3)`)."""
    if depth > 8:
        return False
    if isinstance(expr, ast.Call):
        return _may_make_a_tensor(ctx, expr)
    if isinstance(expr, (ast.Attribute, ast.Starred)):
        return True
    operands = _operands(expr) or ((expr.left, *expr.comparators) if isinstance(expr, ast.Compare) else None)
    if operands is not None:
        return any(_may_hold_a_tensor(ctx, e, owner, depth + 1) for e in operands)
    if isinstance(expr, (ast.IfExp, ast.BoolOp, ast.NamedExpr)):
        return True
    if not isinstance(expr, ast.Name):
        return False
    # Asked again for every call on the same name (`ops.reshape(...)`, `ops.mean(...)`): the
    # bindings of a name in a scope are looked at once.
    known = ctx.facts.__dict__.setdefault("_tns001_may_hold", {})
    key = (id(owner), expr.id)
    if key not in known:
        known[key] = _name_may_hold_a_tensor(ctx, expr, owner)
    return known[key]


def _bindings(ctx: Context, owner: ast.AST) -> dict[str, list[ast.AST]]:
    """The binding statements (and `:=`) of `owner`'s own code, by the names their targets
    mention. Without a `:=` in the file they are all statements, found without visiting the
    expressions. Worked out once per scope."""
    facts = ctx.facts
    cache = facts.__dict__.setdefault("_tns001_bindings", {})
    found = cache.get(id(owner))
    if found is not None:
        return found
    walrus = cache.get("walrus")
    if walrus is None:
        walrus = cache["walrus"] = ":=" in facts.source.text
    nodes = body_nodes(facts, owner, _BINDINGS) if walrus else \
        [node for node in body_statements(owner) if isinstance(node, _BINDINGS)]
    found = cache[id(owner)] = {}
    for node in nodes:
        for target in _targets(node):
            names = (target.id,) if type(target) is ast.Name else \
                {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            for name in names:
                held = found.setdefault(name, [])
                if not held or held[-1] is not node:
                    held.append(node)
    return found


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, (ast.For, ast.AsyncFor, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return list(node.targets)


def _name_may_hold_a_tensor(ctx: Context, expr: ast.Name, owner: ast.AST) -> bool:
    calls = 0
    for node in _bindings(ctx, owner).get(expr.id, ()):
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            if not isinstance(node.value, ast.Call) or _may_make_a_tensor(ctx, node.value):
                return True
            calls += 1
            continue
        return True  # any other binding of the name (an unpacking, a loop, `with`, `+=`, an item)
    return calls == 0  # bound elsewhere (a parameter, an enclosing scope): the value model says


def _operands(expr: ast.AST) -> tuple[ast.expr, ...] | None:
    """What indexing and arithmetic compute from (a tensor's result, when one of them is)."""
    if isinstance(expr, ast.Subscript):
        return (expr.value,)
    if isinstance(expr, ast.BinOp):
        return (expr.left, expr.right)
    if isinstance(expr, ast.UnaryOp):
        return (expr.operand,)
    return None


def _made_by_tensorflow(ctx: Context, values, receiver: ast.expr, scope) -> bool:
    """Is the tensor TensorFlow's as far as the code shows? In a file with TFP, not when it may
    come from calling a Keras model or layer (TFP's probabilistic layers return distributions,
    which have `.mean()`), or from a function of the program."""
    return not _imports_tfp(ctx.facts.tree) or not _maybe_from_a_model(values, receiver, scope, 0)


def _maybe_from_a_model(values, expr: ast.AST | None, scope, depth: int) -> bool:
    if depth > 8 or expr is None:
        return True
    if isinstance(expr, ast.Name):
        origin = values.value(expr, scope).origin
        if origin is None or origin is expr:
            return True
        return _maybe_from_a_model(values, origin, values.scope_at(origin), depth + 1)
    operands = _operands(expr)
    if operands is not None:
        return any(_maybe_from_a_model(values, e, scope, depth + 1) for e in operands)
    if isinstance(expr, ast.Call):
        callee = values.value(expr.func, scope)
        if callee.kind == LIBRARY or (callee.kind == METHOD and isinstance(callee.ref, Value)
                                      and callee.ref.is_(TENSOR, VARIABLE, DISTRIBUTION, BIJECTOR)):
            return False  # a library function (TensorFlow's converts distributions), a method of a tensor
        return True
    return not isinstance(expr, (ast.Constant, ast.Compare))


def _imports_tfp(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name.startswith("tensorflow_probability") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tensorflow_probability"):
            return True
    return False
