from __future__ import annotations

import ast

from ...facts.dataflow import Def, flow_of, inside, position
from ...facts.model import Binding, Facts, Scope
from ...facts.names import dotted
from ...model import Applicability, Severity
from ...versions import VersionRange
from ...analysis.values import VARIABLE, Value, ValueModel, join
from ..base import Context, Proof, Rule, invalid, shares_findings, valid

_GRADIENT_METHODS = ("gradient", "jacobian", "batch_jacobian", "watch")
_ASSIGN_METHODS = ("assign", "assign_add", "assign_sub")
_AUG_MESSAGES = {
    ast.Add: ("+=", "assign_add"), ast.Sub: ("-=", "assign_sub"),
    ast.Mult: ("*=", None), ast.Div: ("/=", None),
}


class VariableRebound(Rule):
    """
    ## What it does
    Finds a name (or `self.attr`) bound to a `tf.Variable` that is rebound to arithmetic
    of itself, such as `v = v - lr * g` or `self.w = self.w + 1`, where the name is used
    as a variable again afterwards (the next loop iteration, a later call of the method,
    a later `.assign`, or a gradient source). Also `v -= lr * g` on a variable.

    ## Why is this bad?
    `v - lr * g` is a new tensor, not an update of the variable. The first step works;
    from then on the name holds a plain tensor that no tape watches, so `tape.gradient`
    silently returns `None`, and a later `v.assign(...)` raises
    `AttributeError: 'EagerTensor' object has no attribute 'assign'`. On TensorFlow 2.21
    `v -= x` raises "RuntimeError: `variable -= value` with `tf.Variable`s is not
    supported"; older versions silently rebound the name to a tensor.

    ## Example
    ```python
    w = tf.Variable(3.0)
    for step in range(10):
        with tf.GradientTape() as tape:
            loss = w * w
        g = tape.gradient(loss, w)  # None from the second step on
        w = w - 0.1 * g
    ```

    ## Use instead
    ```python
    w = tf.Variable(3.0)
    for step in range(10):
        with tf.GradientTape() as tape:
            loss = w * w
        g = tape.gradient(loss, w)
        w.assign_sub(0.1 * g)
    ```
    """

    code = "TAPE011"
    name = "variable-rebound-to-tensor"
    summary = "A tf.Variable name is rebound to arithmetic of itself instead of being assigned"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("Variable",)
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf


            def layer(x):
                w = tf.Variable(tf.ones((4, 2)))
                w = w + w
                b = tf.Variable(tf.zeros((2,)))
                return tf.matmul(x, w) + b, (w, b)


            opt = tf.keras.optimizers.SGD(0.1)
            x = tf.ones((3, 4))
            with tf.GradientTape() as tape:
                out, params = layer(x)
                loss = tf.reduce_sum(out)
            grads = tape.gradient(loss, params)
            opt.apply_gradients(zip(grads, params))
        """, 6, "a helper returns the rebound name in the tuple its caller gives the optimizer",
            proof=Proof(raises=("AttributeError", "object has no attribute '_unique_id'")),
            fixed="""
            import tensorflow as tf


            def layer(x):
                w = tf.Variable(tf.ones((4, 2)))
                w.assign_add(w)
                b = tf.Variable(tf.zeros((2,)))
                return tf.matmul(x, w) + b, (w, b)


            opt = tf.keras.optimizers.SGD(0.1)
            x = tf.ones((3, 4))
            with tf.GradientTape() as tape:
                out, params = layer(x)
                loss = tf.reduce_sum(out)
            grads = tape.gradient(loss, params)
            opt.apply_gradients(zip(grads, params))
        """, fixed_proof=Proof(check="assert isinstance(params[0], tf.Variable) and abs(float(params[0][0, 0]) - 1.7) < 1e-6")),
        invalid("""
            import keras
            import numpy as np
            import tensorflow as tf

            W = keras.Variable(np.zeros((2, 1), "float32"))
            x = tf.ones((3, 2))
            kinds = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.matmul(x, W) ** 2 + tf.reduce_sum(W))
                grad = tape.gradient(loss, W)
                kinds.append(grad is None)
                W -= 0.1 * grad if grad is not None else 0.0
        """, 13, "`-=` on a Keras 3 variable rebinds the name to a tensor: the next step's gradient is None",
            proof=Proof(check="assert kinds == [False, True] and type(W).__name__ == 'EagerTensor'"),
            fixed="""
            import keras
            import numpy as np
            import tensorflow as tf

            W = keras.Variable(np.zeros((2, 1), "float32"))
            x = tf.ones((3, 2))
            kinds = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.matmul(x, W) ** 2 + tf.reduce_sum(W))
                grad = tape.gradient(loss, W)
                kinds.append(grad is None)
                W.assign_sub(0.1 * grad if grad is not None else 0.0)
        """, fixed_proof=Proof(check="assert kinds == [False, False]")),
        invalid("""
            import tensorflow as tf

            def sgd_step(params, grads, lr=0.1):
                kernel, bias = params
                g_kernel, g_bias = grads
                kernel.assign_sub(lr * g_kernel)
                bias = bias - lr * g_bias
                return kernel, bias

            params = (tf.Variable([[1.0]]), tf.Variable([0.0]))
            x = tf.ones((2, 1))
            missing = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((x @ params[0] + params[1]) ** 2)
                grads = tape.gradient(loss, list(params))
                missing.append(grads[1] is None)
                if grads[1] is not None:
                    params = sgd_step(params, grads)
        """, 7, "a helper rebinds one of the variables it returns, and the loop carries the tensor into the next step",
            proof=Proof(check="assert missing == [False, True]"),
            fixed="""
            import tensorflow as tf

            def sgd_step(params, grads, lr=0.1):
                kernel, bias = params
                g_kernel, g_bias = grads
                kernel.assign_sub(lr * g_kernel)
                bias.assign_sub(lr * g_bias)
                return kernel, bias

            params = (tf.Variable([[1.0]]), tf.Variable([0.0]))
            x = tf.ones((2, 1))
            missing = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((x @ params[0] + params[1]) ** 2)
                grads = tape.gradient(loss, list(params))
                missing.append(grads[1] is None)
                if grads[1] is not None:
                    params = sgd_step(params, grads)
        """, fixed_proof=Proof(check="assert missing == [False, False]")),
        valid("""
            import tensorflow as tf

            def adapt(w, x, steps=2):
                for _ in range(steps):
                    with tf.GradientTape() as inner:
                        inner.watch(w)
                        loss = tf.reduce_mean((x @ w) ** 2)
                    w = w - 0.1 * inner.gradient(loss, w)
                return w

            w0 = tf.Variable([[1.0], [2.0]])
            with tf.GradientTape() as outer:
                fast = adapt(w0, tf.ones((3, 2)))
                meta = tf.reduce_sum(fast)
            g = outer.gradient(meta, w0)
        """, "functional fast weights (MAML): the tensor is watched in every inner step",
            proof=Proof(check="assert g is not None")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(3.0)
            grads = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    loss = w * w
                g = tape.gradient(loss, w)
                grads.append(g)
                if g is None:
                    break
                w = w - 0.1 * g
        """, 12, "manual SGD in a loop: correct once, None afterwards",
            proof=Proof(check="assert grads[0] is not None and grads[1] is None"),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(3.0)
            grads = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    loss = w * w
                g = tape.gradient(loss, w)
                grads.append(g)
                if g is None:
                    break
                w.assign_sub(0.1 * g)
        """, fixed_proof=Proof(check="""
            assert [round(float(g), 4) for g in grads] == [6.0, 4.8]
            assert isinstance(w, tf.Variable) and abs(float(w) - 1.92) < 1e-6
        """)),
        invalid("""
            import tensorflow as tf

            class Scale(tf.Module):
                def __init__(self):
                    self.w = tf.Variable(1.0)

                def update(self, delta):
                    self.w = self.w + delta

            s = Scale()
            s.update(0.5)
            is_variable = isinstance(s.w, tf.Variable)
        """, 8, "an attribute rebound in a method",
            proof=Proof(check="assert not is_variable and s.trainable_variables == ()"),
            fixed="""
            import tensorflow as tf

            class Scale(tf.Module):
                def __init__(self):
                    self.w = tf.Variable(1.0)

                def update(self, delta):
                    self.w.assign_add(delta)

            s = Scale()
            s.update(0.5)
            is_variable = isinstance(s.w, tf.Variable)
        """, fixed_proof=Proof(check="assert is_variable and float(s.w) == 1.5 and len(s.trainable_variables) == 1")),
        invalid("""
            import tensorflow as tf

            v = tf.Variable(1.0)
            v = v * 0.5
            v.assign(2.0)
        """, 4, "a later `.assign` fails; the fix `v.assign(v * 0.5)` is unsafe (a value of another shape or "
                "dtype cannot be assigned)",
            proof=Proof(raises=("AttributeError", "object has no attribute 'assign'")),
            fixed="""
            import tensorflow as tf

            v = tf.Variable(1.0)
            v.assign(v * 0.5)
            v.assign(2.0)
        """, fixed_proof=Proof(check="assert isinstance(v, tf.Variable) and float(v) == 2.0")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                loss = w * w
            g = tape.gradient(loss, w)
            w -= 0.1 * g
        """, 7, "`-=` on a variable",
            proof=Proof(raises=("RuntimeError", "`variable -= value` with `tf.Variable`s is not supported")),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                loss = w * w
            g = tape.gradient(loss, w)
            w.assign_sub(0.1 * g)
        """, fixed_proof=Proof(check="assert isinstance(w, tf.Variable) and abs(float(w) - 2.4) < 1e-6")),
        invalid("""
            import tensorflow as tf

            decay = tf.Variable(1.0)
            for epoch in range(3):
                decay *= 0.5  # halve it
        """, 5, "`*=` on a variable: `decay.assign(decay * 0.5)` (unsafe)",
            proof=Proof(raises=("RuntimeError", "`var *= value` with `tf.Variable`s is not supported")),
            fixed="""
            import tensorflow as tf

            decay = tf.Variable(1.0)
            for epoch in range(3):
                decay.assign(decay * 0.5)  # halve it
        """, fixed_proof=Proof(check="assert isinstance(decay, tf.Variable) and float(decay) == 0.125")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(3.0)
            grads = []
            for step in range(2):
                with tf.GradientTape() as tape:
                    loss = w * w
                g = tape.gradient(loss, w)
                grads.append(g)
                w.assign_sub(0.1 * g)
        """, "assign_sub updates the variable in place",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                loss = w * w
            g = tape.gradient(loss, w)
            w = w - 0.1 * g
            print(float(w))
        """, "a final tensor value that is never used as a variable again",
            proof=Proof(check="assert abs(float(w) - 2.4) < 1e-6")),
        valid("""
            import tensorflow as tf

            for step in range(2):
                w = tf.Variable(3.0)
                w = w * 2.0
        """, "the variable is created again in each iteration",
            proof=Proof(check="assert float(w) == 6.0")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        seen: set[int] = set()
        self._reported: set[int] = set()
        for binding in facts.bindings:
            if binding.kind != "variable" or id(binding.node) in seen:
                continue
            seen.add(id(binding.node))
            if binding.name.startswith("self.") and binding.name.count(".") == 1:
                self._check_attribute(ctx, binding)
            elif "." not in binding.name:
                self._check_name(ctx, binding)
        self._check_values(ctx)

    # -- names the value model knows hold a variable --

    def _check_values(self, ctx: Context) -> None:
        """Variables the file does not create under that name: `keras.Variable(...)`, a
        parameter every caller gives a variable, an element unpacked from a tuple of them."""
        candidates = _self_rebinding_statements(ctx.facts)
        if not candidates:
            return
        # A model of its own: through a loop that threads a function's result back into its
        # argument, the shared model's answers depend on which rule asked what first (a cycle
        # is cut where it is entered), and this rule asks what the name holds when the
        # statement first runs.
        values = ValueModel(ctx.facts, ctx.targets, project=ctx.project, path=ctx.path)
        scopes = {id(scope): scope for scope in (values.scope_at(stmt) for stmt in candidates.values())}
        for scope in scopes.values():
            if scope.kind == "class":
                continue
            flow = flow_of(ctx.facts, scope)
            for d in flow.ordered:
                stmt = d.stmt
                if id(stmt) not in candidates or id(stmt) in self._reported or "." in d.name:
                    continue
                if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name)
                        and stmt.target.id == d.name) and not (
                        d.kind == "assign" and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name) and _arithmetic_of(stmt.value, d.name, ctx.facts)):
                    continue
                # What the name holds when the statement first runs (not what a loop carries back).
                earlier = [e for e in flow.reaching(d.name, stmt.value) if e.position < d.position]
                if not earlier or not any(_may_hold_variable(e) for e in earlier):
                    continue
                before = join(values.definition(e, d.name, scope) for e in earlier)
                if before.kind != VARIABLE or before.remote is not None:
                    continue
                if not before.certain and not (isinstance(stmt, ast.Assign) and _threaded_back(values, scope, d, stmt)):
                    # A maybe: the loop that threads the result back is what makes it unsure.
                    continue
                creation = before.origin if isinstance(before.origin, ast.Call) else None
                if isinstance(stmt, ast.AugAssign):
                    self._report_aug(ctx, stmt, d.name, None, before)
                    continue
                origin = next(iter(flow.reaching(d.name, stmt.value)), None)
                if origin is None or _watched(scope, d.name):
                    continue  # a tensor the tape watches: functional weights, on purpose
                if not (self._used_again(ctx, flow, d, d.name, origin) or _threaded_back(values, scope, d, stmt)):
                    continue
                self._report(ctx, stmt, d.name, None, creation)

    # -- plain names --

    def _check_name(self, ctx: Context, binding: Binding) -> None:
        facts = ctx.facts
        scope = _flow_scope(binding.scope)
        flow = flow_of(facts, scope)
        name = binding.name
        origin = next((d for d in flow.definitions(name) if d.stmt is binding.node), None)
        if origin is None:
            return
        for d in flow.definitions(name):
            if d is origin or d.position <= origin.position and not d.loops:
                continue
            if origin not in flow.reaching(name, d.stmt):
                continue
            if d.kind == "augassign" and isinstance(d.stmt, ast.AugAssign) and isinstance(d.stmt.target, ast.Name):
                self._report_aug(ctx, d.stmt, name, binding)
                continue
            if d.kind != "assign" or not _arithmetic_of(d.value, name, facts):
                continue
            if not (self._used_again(ctx, flow, d, name, origin) or _returned_to_optimizer(ctx, flow, d, name)):
                continue
            self._report(ctx, d.stmt, name, binding)

    def _used_again(self, ctx: Context, flow, d: Def, name: str, origin: Def) -> bool:
        """Is the rebound name used as a variable later: in the next iteration, by `.assign`,
        as a gradient source or watched?"""
        scope = flow.scope
        outer_loops = [loop for loop in d.loops if not inside(origin.stmt, loop)]
        if outer_loops:
            # The next iteration uses the tensor: a bug when a tape reads it there (and does not
            # watch it: functional fast weights, `tape.watch([w, b])`, are the right way).
            loop = outer_loops[0]
            tapes = [t for t in ctx.facts.tapes_in(scope) if t.item is not None and inside(t.node, loop)]
            watched = any(any(isinstance(n, ast.Name) and n.id == name for a in site.node.args for n in ast.walk(a))
                          for (receiver, method), sites in scope.method_calls.items() if method == "watch"
                          for site in sites if inside(site.node, loop))
            for load in scope.loads.get(name, ()):
                if not watched and inside(load, loop) and any(inside(load, t.node) for t in tapes):
                    return True
        for method in _ASSIGN_METHODS:
            for site in scope.method_calls.get((name, method), ()):
                if position(site.node) > position(d.stmt) and d in flow.reaching(name, site.node):
                    return True
        for load in scope.loads.get(name, ()):
            if position(load) <= position(d.stmt) or d not in flow.reaching(name, load):
                continue
            if _is_gradient_source(load, scope):
                return True
        return False

    # -- self attributes --

    def _check_attribute(self, ctx: Context, binding: Binding) -> None:
        cls = binding.scope.enclosing_class
        if cls is None:
            return
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for stmt in _statements(method.body):
                if isinstance(stmt, ast.Assign) and any(dotted(t) == binding.name for t in stmt.targets):
                    if stmt is binding.node or not _arithmetic_of(stmt.value, binding.name, ctx.facts):
                        continue
                    if method is _function_of(binding) and position(stmt) < position(binding.node):
                        continue
                    self._report(ctx, stmt, binding.name, binding)
                elif isinstance(stmt, ast.AugAssign) and dotted(stmt.target) == binding.name:
                    self._report_aug(ctx, stmt, binding.name, binding)

    # -- reporting --

    def _report(self, ctx: Context, stmt: ast.Assign, name: str, binding: Binding | None,
                creation: ast.AST | None = None) -> None:
        if id(stmt) in self._reported:
            return
        self._reported.add(id(stmt))
        fix = _suggest(stmt.value, name)
        method, operand = _method(stmt.value, name)
        created = binding.value if binding is not None else creation
        where = f", the tf.Variable created on {ctx.where(binding.node)}," if binding is not None else (
            f", a variable (created on {ctx.where(creation)})," if creation is not None else ", a variable,")
        ctx.report(
            stmt,
            f"`{ast.unparse(stmt)}` rebinds `{name}`{where} to a "
            "new tensor: it works once, then no tape watches the tensor, so `tape.gradient` returns None for "
            f"it, and a later `{name}.assign(...)` raises AttributeError. Update the variable in place: `{fix}`.",
            related=[ctx.related(created, f"`{name}` is created as a variable here")] if created is not None else [],
            fix=_offer(ctx, stmt, method, operand, fix) if len(stmt.targets) == 1 else None,
        )

    def _report_aug(self, ctx: Context, stmt: ast.AugAssign, name: str, binding: Binding | None,
                    value: "Value | None" = None) -> None:
        if id(stmt) in self._reported:
            return
        op, method = _AUG_MESSAGES.get(type(stmt.op), (None, None))
        if op is None:
            return
        self._reported.add(id(stmt))
        text = ast.unparse(stmt.value)
        # TensorFlow's own words: "`variable += value`", "`variable -= value`", "`var *= value`", ...
        subject = "variable" if method else "var"
        fix = f"{name}.{method}({text})" if method else \
            f"{name}.assign({name} {op[0]} {text})"
        offer = _offer(ctx, stmt, method, stmt.value, fix) if method else \
            _offer(ctx, stmt, "assign", stmt.value, fix, combine=op[0])
        creation = binding.value if binding is not None else (value.origin if value is not None else None)
        keras = value is not None and isinstance(value.origin, ast.Call) and \
            (ctx.facts.imports.resolve(value.origin.func) or "").startswith("keras.")
        if keras:
            effect = ("on a Keras variable rebinds the name to a new tensor (Keras 3 variables have no in-place "
                      "operators): the next `tape.gradient` with respect to it returns None, and a later "
                      f"`{name}.assign(...)` raises AttributeError")
        else:
            effect = (f"on a tf.Variable raises RuntimeError on TensorFlow 2.21 (\"`{subject} {op} value` "
                      "with `tf.Variable`s is not supported\"); older versions silently rebound the name to a tensor")
        ctx.report(
            stmt,
            f"`{name} {op} ...` {effect}. Use `{fix}`.",
            related=[ctx.related(creation, f"`{name}` is created as a variable here")] if creation is not None else [],
            fix=offer,
        )


_MAKERS = ("Variable", "add_weight", "add_variable")


def _returned_to_optimizer(ctx: Context, flow, d: Def, name: str) -> bool:
    """The function returns the rebound name in a tuple or list written out (`return out, (w,
    b)`) that a caller hands to an optimizer as the variables it updates (`logits, v = l(x)` then
    `opt.apply_gradients(zip(grads, v))`): the optimizer gets a tensor."""
    function = flow.scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    updated = _updated_containers(ctx)
    if not updated:
        return False
    for node in ast.walk(function):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        for held in ast.walk(node.value):
            if isinstance(held, (ast.Tuple, ast.List)) and id(held) in updated and any(
                    isinstance(e, ast.Name) and e.id == name and d in flow.reaching(name, e) for e in held.elts):
                return True
    return False


def _updated_containers(ctx: Context) -> set[int]:
    """The tuples and lists written out (by id) that the value model says a name holds where it
    is given to `apply_gradients(zip(grads, NAME))`."""
    facts = ctx.facts
    found = facts.__dict__.get("_tape011_updated")
    if found is None:
        found = set()
        sites = [site for site in facts.calls if site.method == "apply_gradients" and site.node.args]
        if sites:
            from ...analysis.values import LIST, TUPLE, values_for

            values = values_for(ctx)
            for site in sites:
                pairs = site.node.args[0]
                if isinstance(pairs, ast.Call) and isinstance(pairs.func, ast.Name) and pairs.func.id == "zip" \
                        and len(pairs.args) == 2 and isinstance(pairs.args[1], ast.Name):
                    held = values.value(pairs.args[1], site.scope)
                    if held.certain and held.remote is None and held.is_(LIST, TUPLE) \
                            and isinstance(held.origin, (ast.Tuple, ast.List)):
                        found.add(id(held.origin))
        facts.__dict__["_tape011_updated"] = found
    return found


def _self_rebinding_statements(facts) -> dict[int, ast.stmt]:
    """`x op= ...` and `x = <arithmetic of x>` statements of the file (by id), found in one
    walk, so flows are built only for the scopes that have one."""
    found = facts.__dict__.get("_tape011_candidates")
    if found is None:
        from ...facts.walk import statements_breadth_first

        found = {}
        for stmt in statements_breadth_first(facts.tree):
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                found[id(stmt)] = stmt
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and _arithmetic_of(stmt.value, stmt.targets[0].id, facts):
                found[id(stmt)] = stmt
        facts.__dict__["_tape011_candidates"] = found
    return found


def _may_hold_variable(d: Def) -> bool:
    """Could this definition give a variable? A parameter, an unpacking, an alias or item of
    something, or a variable constructor; not a literal, arithmetic or another call (the value
    model, which costs, is asked only then)."""
    if d.kind == "param":
        return True
    if d.kind not in ("assign", "for", "with"):
        return False
    value = d.value
    if d.kind == "for" or isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
        return True
    if isinstance(d.stmt, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in d.stmt.targets):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return last in _MAKERS
    return False


def _watched(scope: Scope, name: str) -> bool:
    return any(any(isinstance(n, ast.Name) and n.id == name for a in site.node.args for n in ast.walk(a))
               for (_receiver, method), sites in scope.method_calls.items() if method == "watch" for site in sites)


def _threaded_back(values, scope: Scope, d: Def, stmt: ast.Assign) -> bool:
    """`bias = bias + v` in a helper that returns `bias`, whose caller hands the result back in
    place of the variables on the next step (`params = step(params, grads)` in a loop): the
    next step's tape then differentiates a tensor."""
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    returned = [node for node in ast.walk(function) if isinstance(node, ast.Return) and node.value is not None
                and any(isinstance(n, ast.Name) and n.id == d.name for n in ast.walk(node.value))]
    if not returned:
        return False
    for call, caller_scope, _bound in values.callers(function):
        parent = _assignment_of(caller_scope, call)
        if parent is None:
            continue
        assigned = {n.id for t in parent.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        passed = {n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name)}
        caller_flow = flow_of(values.facts, caller_scope)
        if assigned & passed and any(d2.loops for d2 in caller_flow.definitions(next(iter(assigned & passed)))):
            return True
    return False


def _assignment_of(scope: Scope, call: ast.Call) -> ast.Assign | None:
    for stmt in ast.walk(scope.node):
        if isinstance(stmt, ast.Assign) and stmt.value is call:
            return stmt
    return None


def _flow_scope(scope: Scope) -> Scope:
    while scope.kind == "class" and scope.parent is not None:
        scope = scope.parent
    return scope


def _function_of(binding: Binding) -> ast.AST | None:
    function = binding.scope.function
    return function.node if function is not None else None


def _statements(body: list[ast.stmt]):
    """Statements of a function body, not entering nested defs or classes."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield stmt
        for field_name in ("orelse", "finalbody", "body"):
            stack.extend(reversed(getattr(stmt, field_name, []) or []))
        for handler in getattr(stmt, "handlers", []) or []:
            stack.extend(reversed(handler.body))


def _arithmetic_of(value: ast.expr | None, name: str, facts: Facts) -> bool:
    """Is `value` a new tensor computed from `name` by arithmetic or TensorFlow ops?"""
    if value is None:
        return False
    if isinstance(value, ast.BinOp):
        return _arithmetic_of(value.left, name, facts) or _arithmetic_of(value.right, name, facts)
    if isinstance(value, ast.UnaryOp) and not isinstance(value.op, ast.Not):
        return _arithmetic_of(value.operand, name, facts)
    if isinstance(value, ast.Call):
        qualname = facts.imports.resolve(value.func)
        if qualname is None or not qualname.startswith("tensorflow.") or qualname in (
                "tensorflow.Variable", "tensorflow.print", "tensorflow.debugging.assert_equal"):
            return False
        return any(_mentions(arg, name) for arg in value.args[:1])
    if isinstance(value, (ast.Name, ast.Attribute)):
        return dotted(value) == name
    return False


def _mentions(expr: ast.expr, name: str) -> bool:
    return dotted(expr) == name or (isinstance(expr, (ast.BinOp, ast.UnaryOp)) and any(
        dotted(n) == name for n in ast.walk(expr)))


def _is_gradient_source(load: ast.expr, scope: Scope) -> bool:
    for (receiver, method), sites in scope.method_calls.items():
        if method not in _GRADIENT_METHODS:
            continue
        for site in sites:
            args = site.node.args[1:] if method != "watch" else site.node.args
            keywords = [k.value for k in site.node.keywords if k.arg in ("sources", "source", "tensor")]
            if any(inside(load, arg) for arg in [*args, *keywords]):
                return True
    return False


def _method(value: ast.expr, name: str) -> tuple[str, ast.expr]:
    """The in-place update `name = value` means: (method, its argument)."""
    if isinstance(value, ast.BinOp):
        if isinstance(value.op, ast.Sub) and dotted(value.left) == name:
            return "assign_sub", value.right
        if isinstance(value.op, ast.Add):
            if dotted(value.left) == name:
                return "assign_add", value.right
            if dotted(value.right) == name:
                return "assign_add", value.left
    return "assign", value


def _offer(ctx: Context, stmt: ast.Assign | ast.AugAssign, method: str, operand: ast.expr, suggestion: str,
           combine: str | None = None):
    """`v.assign_sub(x)` / `v.assign_add(x)` are safe: the same value, kept in the variable.
    `v.assign(...)` is unsafe: a value of another shape or dtype cannot be assigned, where the
    rebinding took it."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    text = ctx.facts.source.text
    applicability = Applicability.SAFE if method in ("assign_add", "assign_sub") else Applicability.UNSAFE

    def build():
        from ...fixes.assign import assign_fix

        return assign_fix(text, stmt, method, operand, f"Update the variable in place: `{suggestion}`",
                          applicability, combine=combine)
    return build


def _suggest(value: ast.expr, name: str) -> str:
    if isinstance(value, ast.BinOp):
        if isinstance(value.op, ast.Sub) and dotted(value.left) == name:
            return f"{name}.assign_sub({ast.unparse(value.right)})"
        if isinstance(value.op, ast.Add):
            if dotted(value.left) == name:
                return f"{name}.assign_add({ast.unparse(value.right)})"
            if dotted(value.right) == name:
                return f"{name}.assign_add({ast.unparse(value.left)})"
    return f"{name}.assign({ast.unparse(value)})"
