from __future__ import annotations

import ast

from ...analysis import library
from ...analysis.gradcalls import gradient_calls
from ...analysis.values import (DISTRIBUTION, LAYER, MODEL, NDARRAY, NONE, NP_SCALAR, NUMBER, STR, TENSOR,
                                ValueModel, values_for)
from ...facts.walk import assigned_calls, breadth_first
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid

# The lists of variables a Keras model or layer (and a TFP object) hands out.
_VARIABLE_LISTS = frozenset({"trainable_variables", "trainable_weights", "variables", "weights"})
_BLANKS = " \t\f\r\n\\"


def _read_in_text(text: str) -> bool:
    """Is a name of `_VARIABLE_LISTS` written after a dot in this (ASCII) text: the dot, then
    blanks or line continuations, then the name? A comment between them (inside brackets) is
    taken as yes. Each occurrence of the words is looked at where `str.find` puts it (a regex
    search from every dot of the text cost TAPE020 most of its time)."""
    for word in ("variables", "weights"):  # the other two names end with these
        at = text.find(word)
        while at >= 0:
            end = at + len(word)
            if end == len(text) or not (text[end].isalnum() or text[end] == "_"):
                start = at
                while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
                    start -= 1
                if text[start:end] in _VARIABLE_LISTS:
                    before = start
                    while before > 0 and text[before - 1] in _BLANKS:
                        before -= 1
                    if before > 0 and text[before - 1] == ".":
                        return True
                    if "\n" in text[before:start] or "\r" in text[before:start]:
                        line_start = max(text.rfind("\n", 0, before), text.rfind("\r", 0, before)) + 1
                        if "#" in text[line_start:before]:
                            return True  # maybe a comment between the dot and the name
            at = text.find(word, end)
    return False
# What builds a Sequential model at construction: an Input first, or a first layer told its shape.
_BUILDING_LAYERS = frozenset({"keras.Input", "keras.layers.Input", "keras.layers.InputLayer"})
_SHAPE_KEYWORDS = frozenset({"input_shape", "input_dim", "batch_input_shape", "batch_shape"})
# What holds no variable for a TFP object built from it (a function, a linear operator, a
# bijector or another distribution may).
_PLAIN = frozenset({TENSOR, NUMBER, NDARRAY, NP_SCALAR, NONE, STR})


class EmptySources(Rule):
    """
    ## What it does
    Finds a list of variables that is empty when it is taken and then used as the sources
    of a gradient:
    - `model.trainable_variables` (or `trainable_weights`, `variables`, `weights`) of a
      `keras.Sequential` built without an input shape, or of a layer, read and kept before
      the model is first called, in the same function;
    - `dist.trainable_variables` of a TFP distribution made from computed tensors (not from
      variables) given to `tape.gradient`.

    ## Why is this bad?
    A Keras model without an `Input` creates its variables on its first call. Before it,
    `model.trainable_variables` is `[]`, and the list kept in a name stays empty after the
    model is built: `tape.gradient(loss, params)` returns `[]`, the update loop updates
    nothing, and the loss never moves. A TFP distribution tracks only the variables it was
    given: `Poisson(rate=tf.exp(beta))` holds a tensor computed from `beta`, so its
    `trainable_variables` is `()` and `beta` is never trained.

    ## Example
    ```python
    model = tf.keras.Sequential([tf.keras.layers.Dense(16), tf.keras.layers.Dense(1)])
    params = model.trainable_variables          # [] : nothing is built yet
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, params)         # []
    ```

    ## Use instead
    ```python
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(16), tf.keras.layers.Dense(1)])
    params = model.trainable_variables
    ```
    or read `model.trainable_variables` after the first call; for TFP, differentiate with
    respect to the variables themselves (`[beta]`).
    """

    code = "TAPE020"
    name = "empty-gradient-sources"
    summary = "gradient sources taken from a model before it is built, or from a TFP object that holds no variable"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("trainable_variables", "trainable_weights", "variables", "weights")
    examples = (
        invalid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
            params = model.trainable_variables
            x = np.ones((2, 3), np.float32)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) ** 2)
            grads = tape.gradient(loss, params)
        """, 5, "the variable list of a Sequential model without an Input, kept before its first call",
            proof=Proof(check="assert params == [] and grads == [] and len(model.trainable_variables) == 4")),
        invalid("""
            import numpy as np
            import tensorflow as tf

            def fit(x, y, steps=3):
                layer = tf.keras.layers.Dense(1)
                weights = layer.trainable_weights
                for _ in range(steps):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((layer(x) - y) ** 2)
                    for w, g in zip(weights, tape.gradient(loss, weights)):
                        w.assign_sub(0.1 * g)
                return weights

            kept = fit(np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32))
        """, 6, "a layer's weights kept before it is called in a function",
            proof=Proof(check="assert kept == []")),
        invalid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            beta = tf.Variable([0.5])
            with tf.GradientTape() as tape:
                dist = tfp.distributions.Poisson(rate=tf.exp(beta))
                loss = -dist.log_prob(2.0)
            grads = tape.gradient(loss, dist.trainable_variables)
        """, 8, "a TFP distribution made from a tensor computed from the variable",
            proof=Proof(check="assert len(dist.trainable_variables) == 0 and len(grads) == 0")),
        valid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
            params = model.trainable_variables
            x = np.ones((2, 3), np.float32)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) ** 2)
            grads = tape.gradient(loss, params)
        """, "an Input first: the model is built when it is made",
            proof=Proof(check="assert len(params) == 4 and all(g is not None for g in grads)")),
        valid("""
            import numpy as np
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
            x = np.ones((2, 3), np.float32)
            model(x)
            params = model.trainable_variables
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) ** 2)
            grads = tape.gradient(loss, params)
        """, "the list is read after the first call built the model",
            proof=Proof(check="assert len(params) == 4 and all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf
            import tensorflow_probability as tfp

            beta = tf.Variable([0.5])
            with tf.GradientTape() as tape:
                dist = tfp.distributions.Normal(loc=beta, scale=1.0)
                loss = -dist.log_prob(2.0)
            grads = tape.gradient(loss, dist.trainable_variables)
        """, "a distribution given the variable itself tracks it",
            proof=Proof(check="assert len(grads) == 1 and grads[0] is not None")),
        invalid("""
            import numpy as np
            import tensorflow as tf


            def fit(model, x, y, steps=3):
                params = model.trainable_variables
                for _ in range(steps):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((model(x) - y) ** 2)
                    grads = tape.gradient(loss, params)
                return len(params)


            def mlp():
                layers = [tf.keras.layers.Dense(h, activation="relu") for h in (8, 4)]
                layers.append(tf.keras.layers.Dense(1))
                return tf.keras.Sequential(layers)


            x = np.ones((4, 3), np.float32)
            n_params = fit(mlp(), x, np.zeros((4, 1), np.float32))
        """, 6, "every call passes a Sequential, made from a list its code fills, that was never called",
            proof=Proof(check="assert n_params == 0")),
        valid("""
            import numpy as np
            import tensorflow as tf


            def fit(model, x, y, steps=3):
                params = model.trainable_variables
                for _ in range(steps):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((model(x) - y) ** 2)
                    grads = tape.gradient(loss, params)
                return len(params)


            def mlp():
                layers = [tf.keras.Input((3,))] + [tf.keras.layers.Dense(h, activation="relu") for h in (8, 4)]
                layers.append(tf.keras.layers.Dense(1))
                return tf.keras.Sequential(layers)


            x = np.ones((4, 3), np.float32)
            n_params = fit(mlp(), x, np.zeros((4, 1), np.float32))
        """, "the same list, after an Input: not a list of layers only, so nothing is claimed (the model has its variables)",
            proof=Proof(check="assert n_params == 6")),
        valid("""
            import numpy as np
            import tensorflow as tf


            def fit(model, x, y, steps=3):
                params = model.trainable_variables
                for _ in range(steps):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((model(x) - y) ** 2)
                    grads = tape.gradient(loss, params)
                return len(params)


            def mlp():
                layers = [tf.keras.layers.Dense(h, activation="relu") for h in (8, 4)]
                layers.append(tf.keras.layers.Dense(1))
                return tf.keras.Sequential(layers)


            x = np.ones((4, 3), np.float32)
            model = mlp()
            model(x)
            n_params = fit(model, x, np.zeros((4, 1), np.float32))
        """, "the caller calls the model before passing it: built",
            proof=Proof(check="assert n_params == 6")),
    )

    def check(self, ctx: Context) -> None:
        text = ctx.facts.source.text
        if "gradient" not in text and "minimize" not in text:
            return
        values = values_for(ctx)
        self._unbuilt_reads(ctx, values)
        self._tfp_sources(ctx, values)

    # -- Keras models read before they are built --

    def _unbuilt_reads(self, ctx: Context, values: ValueModel) -> None:
        text = ctx.facts.source.text
        if "variables" not in text and "weights" not in text:
            return  # no `.trainable_variables` / `.weights` (...) read: no tree walk
        if text.isascii() and not _read_in_text(text):
            return  # the words, but never after a dot: no such attribute in the tree
        resolve = ctx.facts.imports.resolve
        makers = any(_unbuilt_maker(resolve(site.node.func)) for site in ctx.facts.calls)
        if not makers and not _reads_a_parameter(ctx.facts):
            return  # no Keras model or layer made without its variables, none passed in: no tree walk
        for holder, read in _kept_reads(ctx.facts.tree):
            model = read.value
            if not isinstance(model, ast.Name):
                continue
            scope = values.scope_at(read)
            if not makers or not any(_unbuilt(ctx, made) for made in assigned_calls(ctx.facts, scope.node, model.id)):
                self._unbuilt_parameter(ctx, values, scope, read)
                continue  # not made here as an unbuilt Keras model or layer
            value = values.value(model, scope)
            made = value.origin
            if not value.is_(MODEL, LAYER) or value.remote is not None or not isinstance(made, ast.Call):
                continue
            how = _unbuilt(ctx, made)
            if how is None or values.scope_at(made) is not scope or made.lineno >= read.lineno:
                continue
            if _in_loop(scope.node, read) or _mentioned_between(scope.node, model.id, made, read):
                continue
            first_call = _first_call(scope.node, model.id, read)
            related = [ctx.related(made, f"`{model.id}` is made here, {how}")]
            if first_call is not None:
                related.append(ctx.related(first_call, f"the first call, which builds `{model.id}`"))
            later = f" on {ctx.where(first_call)}" if first_call is not None else ""
            ctx.report(
                read,
                f"`{ast.unparse(read)}` is read before `{model.id}` has any variable ({how}: Keras creates them "
                f"on its first call{later}): it is an empty list, and the list kept here stays empty once the "
                "model is built, so a gradient with respect to it is `[]` and the update trains nothing. "
                f"Read it after the first call, or give `{model.id}` its input shape (`keras.Input(shape)` first).",
                related=related,
            )

    def _unbuilt_parameter(self, ctx: Context, values: ValueModel, scope, read: ast.Attribute) -> None:
        """`opt = SGD(model.trainable_variables)` first thing in `def fit(model, ...)`, and every
        call of `fit` (here or in a module of the project) passes a model made right there
        without its variables (`fit(mlp(), x, y)`, `mlp` returning a Sequential with no input
        shape): the list is empty, and stays so."""
        function = scope.node
        name = read.value.id  # type: ignore[attr-defined]
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or name not in {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}:
            return
        if _in_loop(function, read) or any(_position(n) < _position(read) for n in _names_in(function, name)) \
                or any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                       for n in _scope_nodes(function)):
            return  # used (called, built) before the read, or rebound
        passed = values.passed_arguments(function, name)
        if not passed:
            return
        hows = set()
        for expr, model in passed:
            if not isinstance(expr, ast.Call):
                return  # a name: the caller may have called (built) it before
            value = model.value(expr, model.scope_at(expr))
            made = value.origin
            if not value.is_(MODEL, LAYER) or not isinstance(made, ast.Call):
                return
            home = value.home or model
            how = _unbuilt_in(home.facts, made, home.scope_at(made).node)
            if how is None:
                return
            hows.add(how)
        first_call = _first_call(function, name, read)
        how = hows.pop() if len(hows) == 1 else "a Keras model made without its variables"
        related = [ctx.related(expr, f"`{name}` is passed here, {how}") for expr, model in passed if model is values]
        if first_call is not None:
            related.append(ctx.related(first_call, f"the first call, which builds `{name}`"))
        later = f" on {ctx.where(first_call)}" if first_call is not None else ""
        ctx.report(
            read,
            f"`{ast.unparse(read)}` is read before `{name}` has any variable (every call of `{function.name}` "
            f"passes {how}: Keras creates its variables on its first call{later}): it is an empty list, "
            "and the list kept here stays empty once the model is built, so a gradient with respect to it is `[]` "
            f"and the update trains nothing. Read it after the first call, or give the model its input shape "
            "(`keras.Input(shape)` first).",
            related=related,
        )

    # -- TFP objects that hold no variable --

    def _tfp_sources(self, ctx: Context, values: ValueModel) -> None:
        for call in gradient_calls(ctx.facts):
            sources = call.sources
            if not isinstance(sources, ast.Attribute) or sources.attr != "trainable_variables" \
                    or not isinstance(sources.value, ast.Name):
                continue
            scope = call.site.scope
            value = values.value(sources.value, scope)
            made = value.origin
            if not value.is_(DISTRIBUTION) or value.remote is not None or not isinstance(made, ast.Call):
                continue
            operands = [*made.args, *(k.value for k in made.keywords)]
            if not operands or any(isinstance(o, ast.Starred) for o in operands) or any(k.arg is None for k in made.keywords):
                continue
            made_scope = values.scope_at(made)
            if not all(values.value(o, made_scope).is_(*_PLAIN) for o in operands):
                continue
            maker = ast.unparse(made.func)
            ctx.report(
                call.node,
                f"`{ast.unparse(sources)}` is empty: `{maker}(...)` on {ctx.where(made)} is made from computed "
                "tensors, not from variables, and a TFP distribution tracks only the variables it is given; "
                f"`{call.label()}` returns an empty list and nothing is trained. Differentiate with respect to "
                "the variables themselves, or give the distribution a variable (`tfp.util.TransformedVariable`, "
                "`tfp.util.DeferredTensor`).",
                related=[ctx.related(made, "made from tensors here")],
            )


def _kept_reads(tree: ast.AST) -> list[tuple[ast.AST, ast.Attribute]]:
    """`x = m.trainable_variables` and `f(m.trainable_variables)`: variable lists kept (a name
    bound to them, or handed to a call), with what keeps them."""
    out = []
    for node in breadth_first(tree):  # ast.walk's order
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], (ast.Name, ast.Attribute)):
            candidates = [node.value]
        elif isinstance(node, ast.Call):
            candidates = [*node.args, *(k.value for k in node.keywords)]
        else:
            continue
        for expr in candidates:
            if isinstance(expr, ast.Attribute) and expr.attr in _VARIABLE_LISTS and isinstance(expr.ctx, ast.Load):
                out.append((node, expr))
    return out


def _unbuilt_maker(qualname: str | None) -> bool:
    """Can a call of `qualname` make a Keras model or layer without its variables (the APIs
    `_unbuilt` looks further at)?"""
    api = library.api(qualname) if qualname is not None else None
    return api is not None and (api.name == "keras.Sequential" or (
        api.kind == "layer" and api.has("creates") and api.name.startswith("keras.layers.")
        and api.name not in _BUILDING_LAYERS))


def _unbuilt(ctx: Context, made: ast.Call) -> str | None:
    return _unbuilt_in(ctx.facts, made)


def _unbuilt_in(facts, made: ast.Call, where: ast.AST | None = None) -> str | None:
    """How the Keras model or layer `made` (a call of the file of `facts`) is made without its
    variables, or None when it may have them (an Input, a first layer given its shape, a model of
    another kind). With `where`, the scope that makes it, a Sequential may take a name its code
    fills with layers (`layers = [Dense(h) for h in hidden]`, `layers.append(Dense(1))`)."""
    resolve = facts.imports.resolve
    api = library.api(resolve(made.func))
    if api is None:
        return None
    if api.name == "keras.Sequential":
        layers = made.args[0] if made.args else next((k.value for k in made.keywords if k.arg == "layers"), None)
        if isinstance(layers, ast.Name) and where is not None:
            elements = _layers_held(where, layers, made)
        elif isinstance(layers, (ast.List, ast.Tuple)):
            elements = layers.elts
        else:
            return None
        if not elements:
            return None
        if any(k.arg not in ("layers", "name", "trainable") for k in made.keywords):
            return None
        for element in elements:
            if not isinstance(element, ast.Call):
                return None
            row = library.api(resolve(element.func))
            if row is None or row.kind != "layer" or row.name in _BUILDING_LAYERS:
                return None
            if any(k.arg in _SHAPE_KEYWORDS or k.arg is None for k in element.keywords):
                return None
        return "a `Sequential` with no input shape"
    if api.kind == "layer" and api.has("creates") and api.name.startswith("keras.layers.") \
            and api.name not in _BUILDING_LAYERS:
        if any(k.arg is None for k in made.keywords):
            return None
        return f"a `{api.name.rsplit('.', 1)[-1]}` layer not called yet"
    return None


def _layers_held(scope_node: ast.AST, name: ast.Name, made: ast.Call) -> list[ast.expr] | None:
    """The layer constructions the list `name` holds where `made` reads it: one assignment of a
    list (written out or a comprehension over constructions) and `name.append(...)` statements,
    and no other use of the name in the scope before `made`."""
    elements: list[ast.expr] = []
    assigned = 0
    for node in _scope_nodes(scope_node):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name.id for t in node.targets):
            if len(node.targets) != 1 or _position(node) > _position(made):
                return None
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple)):
                elements.extend(value.elts)
            elif isinstance(value, ast.ListComp):
                elements.append(value.elt)
            else:
                return None
            assigned += 1
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.Delete)) and any(
                isinstance(n, ast.Name) and n.id == name.id and isinstance(n.ctx, (ast.Store, ast.Del))
                for n in ast.walk(node.target if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) else node)):
            return None
    if assigned != 1:
        return None
    for load in _names_in(scope_node, name.id):
        if load is name or not isinstance(load.ctx, ast.Load):
            continue
        parent_call = _append_call(scope_node, load)
        if parent_call is None or _position(parent_call) > _position(made) or len(parent_call.args) != 1:
            return None
        elements.append(parent_call.args[0])
    return elements


def _scope_nodes(scope_node: ast.AST):
    """The nodes of the scope's own code (not of nested functions, lambdas or classes)."""
    stack = list(ast.iter_child_nodes(scope_node))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _append_call(scope_node: ast.AST, load: ast.Name) -> ast.Call | None:
    """The `load.append(x)` call `load` is the receiver of, as a statement of its own."""
    for node in _scope_nodes(scope_node):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "append" \
                and node.value.func.value is load:
            return node.value
    return None


def _reads_a_parameter(facts) -> bool:
    """Does a def of the file read a variable list of one of its parameters (`model.weights` in
    `def fit(model, ...)`)? From the facts pass's loads, no tree walk."""
    for node, scope in facts.function_scopes.items():
        args = getattr(node, "args", None)
        if args is None or isinstance(node, ast.Lambda) or not scope.loads:
            continue
        loads = scope.loads
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if any(f"{arg.arg}.{attr}" in loads for attr in _VARIABLE_LISTS):
                return True
    return False


def _in_loop(scope_node: ast.AST, node: ast.AST) -> bool:
    """Is `node` inside a loop of its own scope's code (a later iteration may read it built)?"""
    for loop in ast.walk(scope_node):
        if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and loop is not scope_node \
                and any(inner is node for inner in ast.walk(loop)):
            return True
    return False


def _names_in(scope_node: ast.AST, name: str) -> list[ast.Name]:
    """Loads of `name` in the scope's own code (not in nested functions or classes)."""
    out = []
    stack = list(ast.iter_child_nodes(scope_node))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Name) and node.id == name:
            out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _mentioned_between(scope_node: ast.AST, name: str, made: ast.Call, read: ast.Attribute) -> bool:
    """Is `name` used between the end of the call that makes it and the read (a call, an `add`,
    a `build` may give it variables)?"""
    after = (made.end_lineno or made.lineno, made.end_col_offset or 0)
    return any(after <= _position(n) < _position(read) for n in _names_in(scope_node, name) if n is not read.value)


def _first_call(scope_node: ast.AST, name: str, read: ast.Attribute) -> ast.Call | None:
    calls = [node for node in ast.walk(scope_node)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
             and _position(node) > _position(read)]
    return min(calls, key=_position) if calls else None
