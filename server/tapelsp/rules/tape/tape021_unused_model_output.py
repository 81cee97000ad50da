from __future__ import annotations

import ast

from ...analysis.gradcalls import fast_slice, gradient_calls
from ...facts.dataflow import flow_of, position
from ...analysis.keras_graph import functional_model_of, layers_feeding_only
from ...analysis.values import LAYER, MODEL, values_for
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

    Also a subclassed model of this file whose `call` runs a sub-layer only under `if
    self.flag` (or `... if self.flag else ...`), built with the flag on (`model =
    Net(flag=True)`, then `model(x)`) and switched off (`model.flag = False`) before
    `tape.gradient(loss, model.trainable_variables)` in the same function: the sub-layer's
    variables stay in the list but are off the path.

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
    summary = "Layers the loss never reaches (another output's head, a sub-layer switched off) get None gradients"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
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
        invalid("""
            import tensorflow as tf
            import keras

            class WideDeep(keras.Model):
                def __init__(self, use_wide=False):
                    super().__init__()
                    self.use_wide = use_wide
                    self.wide = keras.layers.Dense(1)
                    self.deep = keras.layers.Dense(1)

                def call(self, x):
                    out = self.deep(x)
                    if self.use_wide:
                        out = out + self.wide(x)
                    return out

            def train():
                x = tf.ones((4, 3))
                model = WideDeep(use_wide=True)
                model(x)
                model.use_wide = False
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x) ** 2)
                return model, tape.gradient(loss, model.trainable_variables)

            model, grads = train()
        """, 24, "a sub-layer switched off by a flag after the model was built (dev corpus 170)",
            proof=Proof(check="""
                missing = [v for v, g in zip(model.trainable_variables, grads) if g is None]
                assert len(missing) == 2 and all(any(v is w for w in model.wide.weights) for v in missing)
            """)),
        valid("""
            import tensorflow as tf
            import keras

            class WideDeep(keras.Model):
                def __init__(self, use_wide=False):
                    super().__init__()
                    self.use_wide = use_wide
                    self.wide = keras.layers.Dense(1)
                    self.deep = keras.layers.Dense(1)

                def call(self, x):
                    out = self.deep(x)
                    if self.use_wide:
                        out = out + self.wide(x)
                    return out

            def train():
                x = tf.ones((4, 3))
                model = WideDeep(use_wide=False)
                model(x)
                model.use_wide = False
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x) ** 2)
                return model, tape.gradient(loss, model.trainable_variables)

            model, grads = train()
        """, "built with the flag off: the sub-layer never made its variables, none is missing",
            proof=Proof(check="assert len(grads) == 2 and all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf
            import keras

            class Gen(keras.Model):
                def __init__(self, use_mapping=True):
                    super().__init__()
                    self.use_mapping = use_mapping
                    self.mapping = keras.layers.Dense(3)
                    self.synthesis = keras.layers.Dense(2)

                def call(self, z):
                    w = self.mapping(z) if self.use_mapping else z
                    return self.synthesis(w)

            def train():
                z = tf.ones((4, 3))
                gen = Gen()
                gen(z)
                gen.use_mapping = False
                gen.use_mapping = True
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(gen(z) ** 2)
                return tape.gradient(loss, gen.trainable_variables)

            grads = train()
        """, "switched back on before the tape",
            proof=Proof(check="assert len(grads) == 4 and all(g is not None for g in grads)")),
        invalid("""
            import tensorflow as tf


            class Regressor(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.hidden = tf.keras.layers.Dense(8, activation="relu")
                    self.out = tf.keras.layers.Dense(1)

                def call(self, x):
                    h = self.hidden(x)
                    h = self.out(x)
                    return h


            model = Regressor()
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, 11, "`call` overwrites a layer's output before reading it: that layer's variables get None",
            proof=Proof(check="assert grads[0] is None and grads[1] is None and grads[2] is not None")),
        valid("""
            import tensorflow as tf


            class Regressor(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.hidden = tf.keras.layers.Dense(8, activation="relu")
                    self.out = tf.keras.layers.Dense(1)

                def call(self, x):
                    h = self.hidden(x)
                    h = self.out(h)
                    return h


            model = Regressor()
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
        """, "each layer's output feeds the next",
            proof=Proof(check="assert all(g is not None for g in grads)")),
    )

    def check(self, ctx: Context) -> None:
        values = values_for(ctx)
        for call in gradient_calls(ctx.facts):
            if call.entry is None or call.target is None or call.asks_zeros:
                continue
            sources = call.sources
            if not (isinstance(sources, ast.Attribute) and sources.attr in _VARIABLE_LISTS):
                continue
            if _switched_off(ctx, values, call) or _overwritten(ctx, values, call):
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
            if _none_filtered(call, ctx.facts):
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


def _none_filtered(call, facts) -> bool:
    """Is the gradient list filtered for None in the same scope (`[(g, v) for g, v in zip(grads,
    ...) if g is not None]`)?"""
    assigned, filtered = _none_filters(facts, call.site.scope.node)
    return assigned.get(id(call.node)) in filtered


def _none_filters(facts, parent: ast.AST) -> tuple[dict[int, str], set[str]]:
    """In `parent`'s code: the name each call is assigned to (`grads = ...`), by the call; and the
    names a comprehension iterates over with an `is` / `is not` test in its conditions. Worked out
    once per scope (a script may have hundreds of gradient calls in its module scope)."""
    cache = facts.__dict__.setdefault("_tape021_none_filters", {})
    found = cache.get(id(parent))
    if found is not None:
        return found
    assigned: dict[int, str] = {}
    filtered: set[str] = set()
    for node in ast.walk(parent):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            assigned[id(node.value)] = node.targets[0].id
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            for gen in node.generators:
                # `if g is not None` keeps the gradients there are (`if g is None` lists the missing ones)
                if any(isinstance(c, ast.Compare) and any(isinstance(op, ast.IsNot) for op in c.ops)
                       for cond in gen.ifs for c in ast.walk(cond)):
                    filtered.update(n.id for n in ast.walk(gen.iter) if isinstance(n, ast.Name))
    found = cache[id(parent)] = (assigned, filtered)
    return found


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


# --- a sub-layer switched off by a flag after the model was built -------------------------------

def _switched_off(ctx: Context, values, call) -> bool:
    """`model.trainable_variables` of a subclassed model of this file whose `call` runs a sub-layer
    only under `if self.flag` (or `... if self.flag else ...`), built with the flag on
    (`model = Net(flag=True)`, then `model(x)`), then switched off by `model.flag = False` before
    the gradient call, in the same function: the sub-layer's variables are in the list and not on
    the path, so their gradients are None. Reports and returns True when found."""
    sources = call.sources
    if not isinstance(sources.value, ast.Name) or _none_filtered(call, ctx.facts):
        return False
    owner = sources.value.id
    model = values.value(sources.value, call.site.scope)
    cls = model.user_class
    if model.kind != MODEL or cls is None:
        return False
    methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    forward, init = methods.get("call"), methods.get("__init__")
    if forward is None or init is None:
        return False
    scope_node = call.site.scope.node
    statements = sorted((n for n in ast.walk(scope_node) if isinstance(n, ast.stmt) and n is not scope_node),
                        key=lambda n: (n.lineno, n.col_offset))
    for layer, flag, enabling, branch in _gated_layers(forward):
        if any(_loads_self_attr(m, layer) for name, m in methods.items() if name not in ("__init__", "call")):
            continue
        if values.instance_attribute(cls, layer).kind not in (LAYER, MODEL):
            continue
        switch = _switch(statements, owner, flag, enabling, call.node.lineno)
        if switch is None:
            continue
        built = _built_with_flag_on(statements, owner, cls, init, flag, enabling, switch.lineno)
        if built is None:
            continue
        label = ctx.facts.line_label
        ctx.report(
            call.node,
            f"`{owner}.{flag}` is set to {not enabling} on {label(switch.lineno)}, after `{owner}` was built "
            f"with it {enabling} on {label(built.lineno)}: `{cls.name}.call` now skips `self.{layer}` "
            f"({label(branch.lineno)}), whose variables are still in `{owner}.{sources.attr}`. "
            f"`{call.label()}` returns None for them, and `apply_gradients` warns \"Gradients do not exist for "
            "variables\" and leaves them untrained. Differentiate only the variables the loss uses, or drop "
            "the None gradients before applying them.",
            related=[ctx.related(switch, "the flag switched off here"),
                     ctx.related(branch, f"`self.{layer}` runs only when `self.{flag}` is {enabling}")],
        )
        return True
    return False


def _flag_test(test: ast.expr) -> tuple[str, bool] | None:
    """`self.flag` -> (flag, True); `not self.flag` -> (flag, False)."""
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == "self":
        return test.attr, not negated
    return None


def _loads_self_attr(node: ast.AST, attr: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name)
               and n.value.id == "self" for n in ast.walk(node))


def _gated_layers(forward: ast.AST) -> list[tuple[str, str, bool, ast.AST]]:
    """Sub-layers `self.L(...)` that `call` runs only in one branch of a test of `self.flag`:
    (L, flag, the flag's value that runs it, the branch's statement or expression)."""
    gated: list[tuple[str, str, bool, ast.AST]] = []
    for node in ast.walk(forward):
        if isinstance(node, ast.If):
            test = _flag_test(node.test)
            if test is None:
                continue
            branches = [(node.body, test[1]), (node.orelse, not test[1])]
        elif isinstance(node, ast.IfExp):
            test = _flag_test(node.test)
            if test is None:
                continue
            branches = [([node.body], test[1]), ([node.orelse], not test[1])]
        else:
            continue
        for body, enabling in branches:
            for part in body:
                for sub in ast.walk(part):
                    if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                            and isinstance(sub.func.value, ast.Name) and sub.func.value.id == "self":
                        gated.append((sub.func.attr, test[0], enabling, part if isinstance(part, ast.stmt) else node))
    found = []
    for layer, flag, enabling, where in gated:
        inside = [n for layer2, _f, _e, w in gated if layer2 == layer for n in ast.walk(w)]
        loads = [n for n in ast.walk(forward) if isinstance(n, ast.Attribute) and n.attr == layer
                 and isinstance(n.value, ast.Name) and n.value.id == "self"]
        flags = {(f, e) for layer2, f, e, _w in gated if layer2 == layer}
        if len(flags) == 1 and all(any(n is i for i in inside) for n in loads) \
                and not any(f[0] == layer for f in found):
            found.append((layer, flag, enabling, where))
    return found


def _is_attr_assign(stmt: ast.stmt, owner: str, flag: str) -> bool:
    return isinstance(stmt, ast.Assign) and any(
        isinstance(t, ast.Attribute) and t.attr == flag and isinstance(t.value, ast.Name) and t.value.id == owner
        for t in stmt.targets)


def _switch(statements: list[ast.stmt], owner: str, flag: str, enabling: bool, before: int) -> ast.stmt | None:
    """The last `owner.flag = <literal>` before line `before`, when it switches the branch off."""
    found = None
    for stmt in statements:
        if stmt.lineno >= before:
            break
        if _is_attr_assign(stmt, owner, flag):
            found = stmt
    if found is None or not isinstance(found.value, ast.Constant) or not isinstance(found.value.value, bool):
        return None
    return found if found.value.value is not enabling else None


def _built_with_flag_on(statements: list[ast.stmt], owner: str, cls: ast.ClassDef, init: ast.AST, flag: str,
                        enabling: bool, before: int) -> ast.stmt | None:
    """`owner = Cls(...)` with the flag on, then a call `owner(...)` (its build), both before line
    `before` with no other assignment to the flag in between: the statement of the build."""
    made = None
    for stmt in statements:
        if stmt.lineno >= before:
            break
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id == owner:
            made = stmt if isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
                and stmt.value.func.id == cls.name and _initial_flag(stmt.value, init, flag) is enabling else None
            continue
        if made is None:
            continue
        if _is_attr_assign(stmt, owner, flag):
            return None
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == owner
               for n in ast.walk(stmt)):
            return stmt
    return None


def _initial_flag(construct: ast.Call, init: ast.FunctionDef, flag: str) -> bool | None:
    """The flag's value after `Cls(...)`: `self.flag = <literal>` or `self.flag = param` in
    `__init__`, the parameter given by keyword, by position or by its default."""
    assigned = [n for n in ast.walk(init) if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Attribute) and t.attr == flag and isinstance(t.value, ast.Name) and t.value.id == "self"
        for t in n.targets)]
    if len(assigned) != 1:
        return None
    value = assigned[0].value
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return value.value
    if not isinstance(value, ast.Name):
        return None
    params = [a.arg for a in init.args.args][1:]
    if value.id not in params:
        return None
    given = next((k.value for k in construct.keywords if k.arg == value.id), None)
    index = params.index(value.id)
    if given is None and index < len(construct.args):
        given = construct.args[index]
    if given is None:
        defaults = init.args.defaults
        offset = len(params) - len(defaults)
        given = defaults[index - offset] if index >= offset else None
    if isinstance(given, ast.Constant) and isinstance(given.value, bool):
        return given.value
    return None


# --- a sub-layer whose output `call` overwrites before reading it ---------------------------------

def _overwritten(ctx: Context, values, call) -> bool:
    """`tape.gradient(loss, model.trainable_variables)` for a subclassed model of this file, called
    in the tape's block, whose `call` stores a sub-layer's output in a name and overwrites it before
    reading it (`out = self.l1(x)`, then `out = self.l2(x)`), the sub-layer named nowhere else in the
    class: its variables are in the list and off the path. Reports each such store; True when any."""
    sources = call.sources
    if not isinstance(sources.value, ast.Name) or _none_filtered(call, ctx.facts):
        return False
    owner = sources.value.id
    model = values.value(sources.value, call.site.scope)
    cls = model.user_class
    if model.kind != MODEL or cls is None or not _called_in(call.entry.node, owner):
        return False
    forward = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "call"), None)
    scope = ctx.facts.function_scopes.get(forward) if forward is not None else None
    if scope is None:
        return False
    flow = flow_of(ctx.facts, scope)
    read: set[int] = set()
    for node in ast.walk(forward):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.update(id(d.stmt) for d in flow.reaching(node.id, node))
    found = False
    for stmt in ast.walk(forward):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
                and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == "self"):
            continue
        if id(stmt) in read or any(isinstance(n, (ast.Global, ast.Nonlocal, ast.Lambda, ast.FunctionDef))
                                   for n in ast.walk(forward) if n is not forward):
            continue
        layer = stmt.value.func.attr
        name = stmt.targets[0].id
        if name.startswith("_"):
            continue  # `_ = self.layer(x)`: run for its effect (building it), on purpose
        later = next((d for d in flow.definitions(name) if d.stmt is not stmt and d.position > position(stmt)
                      and d.kind == "assign"), None)
        if later is None or any(_loads_self_attr(m, layer) for m in cls.body if m is not forward and not (
                isinstance(m, ast.FunctionDef) and m.name == "__init__")) \
                or sum(1 for n in ast.walk(forward) if isinstance(n, ast.Attribute) and n.attr == layer
                       and isinstance(n.value, ast.Name) and n.value.id == "self") != 1:
            continue
        held = values.instance_attribute(cls, layer)
        if not (held.certain and held.kind == LAYER and _holds_variables(held, ctx.facts)):
            continue
        label = ctx.facts.line_label
        ctx.report(
            stmt,
            f"`{cls.name}.call` stores the output of `self.{layer}` in `{name}` and overwrites it on "
            f"{label(later.stmt.lineno)} before reading it: `self.{layer}` runs, but nothing the model returns "
            f"comes from it, so `{call.label()}(..., {owner}.{sources.attr})` returns None for its variables "
            "and `apply_gradients` warns \"Gradients do not exist for variables\" and leaves them untrained. "
            f"Feed `{name}` to the next layer (`self.next_layer({name})`), or remove the layer.",
            related=[ctx.related(later.stmt, f"`{name}` overwritten here"),
                     ctx.related(call.node, f"this {call.label()} call gets None for `self.{layer}`'s variables")],
        )
        found = True
    return found


def _called_in(block: ast.AST, owner: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == owner for n in ast.walk(block))


def _holds_variables(layer, facts) -> bool:
    """A library layer that creates variables (`Dense`, `Conv2D`; not `Dropout` or `Flatten`)."""
    from ...analysis import library

    made = layer.origin
    qualname = facts.imports.resolve(made.func) if isinstance(made, ast.Call) and layer.home is None else None
    api = library.api(qualname) if qualname is not None else None
    return api is not None and api.has("creates") and not api.has("seed_keras3")
