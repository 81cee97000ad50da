from __future__ import annotations

import ast

from ...facts.model import Tape
from ...model import Applicability, Severity
from ..base import Context, Proof, Rule, invalid, shares_findings, valid

_TAPE_METHODS = ("gradient", "jacobian", "batch_jacobian")


class ShadowedTape(Rule):
    """
    ## What it does
    Finds a `with tf.GradientTape() as tape` nested inside another tape block that is
    bound to the same name, when that name is used after the inner tape opens.

    ## Why is this bad?
    From the inner `with` on, the name means the inner tape. A `tape.gradient(...)` that
    was meant for the outer tape asks the inner one, which did not record the outer
    computation: TensorFlow silently returns `None`. If the inner tape was already used,
    a second call raises "A non-persistent GradientTape can only be used to compute one
    set of gradients (or jacobians)".

    ## Example
    ```python
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x * x
        with tf.GradientTape() as tape:  # rebinds `tape`
            dy = tape.gradient(y, x)     # None
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x * x
    dy = tape.gradient(y, x)
    ```
    For higher-order derivatives give each tape its own name (`outer`, `inner`).
    """

    code = "TAPE001"
    name = "shadowed-outer-tape"
    summary = "An inner GradientTape rebinds the name of the tape around it"
    severity = Severity.ERROR
    triggers = ("GradientTape",)
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape(persistent=False) as tape:
                tape.watch(x)
                y = x * x * x * x
                with tf.GradientTape(persistent=False) as tape:
                    dy = tape.gradient(target=y, sources=x)
        """, 7, "the seed report: the gradient asks the empty inner tape",
            proof=Proof(check="assert dy is None"),
            fixed="""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape(persistent=False) as tape:
                tape.watch(x)
                y = x * x * x * x
                dy = tape.gradient(target=y, sources=x)
        """, fixed_proof=Proof(check="assert float(dy) == 108.0")),
        invalid("""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = x * x * x
                dy = tape.gradient(y, x)
            d2y = tape.gradient(dy, x)
        """, 6, "second derivative with one name: the outer call reuses the inner tape",
            proof=Proof(raises=("RuntimeError", "A non-persistent GradientTape can only be used to compute one set of gradients")),
            fixed="""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                with tf.GradientTape() as inner_tape:
                    inner_tape.watch(x)
                    y = x * x * x
                dy = inner_tape.gradient(y, x)
            d2y = tape.gradient(dy, x)
        """, fixed_proof=Proof(check="assert float(dy) == 27.0 and float(d2y) == 18.0")),
        invalid("""
            import tensorflow as tf

            class Agent:
                def update(self, model, states):
                    with tf.GradientTape() as self.tape:
                        logits = model(states)
                        with tf.GradientTape() as self.tape:
                            loss = tf.reduce_mean(logits)
                    return self.tape.gradient(loss, model.trainable_variables)

            model = tf.keras.layers.Dense(2)
            model.build((None, 3))
            grads = Agent().update(model, tf.ones([4, 3]))
        """, 7, "an attribute used as the tape name",
            proof=Proof(check="assert len(grads) == 2 and all(g is None for g in grads)"),
            fixed="""
            import tensorflow as tf

            class Agent:
                def update(self, model, states):
                    with tf.GradientTape() as self.tape:
                        logits = model(states)
                        loss = tf.reduce_mean(logits)
                    return self.tape.gradient(loss, model.trainable_variables)

            model = tf.keras.layers.Dense(2)
            model.build((None, 3))
            grads = Agent().update(model, tf.ones([4, 3]))
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert len(grads) == 2 and all(np.allclose(g.numpy(), 0.5) for g in grads)
        """)),
        invalid("""
            import tensorflow as tf

            x = tf.constant(2.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                with tf.GradientTape() as tape:  # the inner tape
                    tape.watch(x)
                    y = x * x
                tape.watch(y)
                dy = tape.gradient(y, x)
            d2y = tape.gradient(dy, x)
        """, 6, "a use between the inner block and its gradient is ambiguous: the rename is unsafe",
            proof=Proof(raises=("RuntimeError", "A non-persistent GradientTape can only be used to compute one set of gradients")),
            fixed="""
            import tensorflow as tf

            x = tf.constant(2.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                with tf.GradientTape() as inner_tape:  # the inner tape
                    inner_tape.watch(x)
                    y = x * x
                tape.watch(y)
                dy = inner_tape.gradient(y, x)
            d2y = tape.gradient(dy, x)
        """, fixed_proof=Proof(check="assert float(dy) == 4.0 and float(d2y) == 2.0")),
        invalid("""
            import tensorflow as tf

            x = tf.constant(1.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                with tf.GradientTape() as tape:
                    y = x * x
                g = tape.gradient(y, x)
        """, 6, "the source is watched by the outer tape only",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            x = tf.constant(1.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
                g = tape.gradient(y, x)
        """, fixed_proof=Proof(check="assert float(g) == 2.0")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(0.5)
            x = tf.constant([0.1, 0.4, 0.9])
            t = tf.constant([0.0, 0.5, 1.0])
            with tf.GradientTape() as g:
                with tf.GradientTape(persistent=True) as g:
                    g.watch(x)
                    g.watch(t)
                    u = tf.tanh(w * x) * tf.exp(-t)
                    u_x = g.gradient(u, x)
                u_t = g.gradient(u, t)
                u_xx = g.gradient(u_x, x)
                residual = u_t - 0.1 * u_xx
                loss = tf.reduce_mean(residual ** 2)
            dw = g.gradient(loss, w)
        """, 7, "a physics-informed loss: the persistent inner tape answers u_x, u_t and u_xx, the outer one the "
                "loss; the rename follows every call the inner tape answers",
            proof=Proof(check="assert dw is None and u_xx is not None"),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(0.5)
            x = tf.constant([0.1, 0.4, 0.9])
            t = tf.constant([0.0, 0.5, 1.0])
            with tf.GradientTape() as g:
                with tf.GradientTape(persistent=True) as inner_g:
                    inner_g.watch(x)
                    inner_g.watch(t)
                    u = tf.tanh(w * x) * tf.exp(-t)
                    u_x = inner_g.gradient(u, x)
                u_t = inner_g.gradient(u, t)
                u_xx = inner_g.gradient(u_x, x)
                residual = u_t - 0.1 * u_xx
                loss = tf.reduce_mean(residual ** 2)
            dw = g.gradient(loss, w)
        """, fixed_proof=Proof(check="""
            # the outer tape recorded the whole residual, derivatives included: check dw by central differences
            def loss_at(v):
                with tf.GradientTape(persistent=True) as tape:
                    tape.watch(x)
                    tape.watch(t)
                    uu = tf.tanh(v * x) * tf.exp(-t)
                    ux = tape.gradient(uu, x)
                r = tape.gradient(uu, t) - 0.1 * tape.gradient(ux, x)
                return float(tf.reduce_mean(r ** 2))
            numeric = (loss_at(0.5 + 1e-3) - loss_at(0.5 - 1e-3)) / 2e-3
            assert dw is not None and abs(float(dw) - numeric) < 1e-3 * max(1.0, abs(numeric)), (float(dw), numeric)
        """)),
        valid("""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = x * x * x
                dy = inner.gradient(y, x)
            d2y = outer.gradient(dy, x)
        """, "higher-order derivatives with differently named tapes",
            proof=Proof(check="assert float(dy) == 27.0 and float(d2y) == 18.0")),
        valid("""
            import tensorflow as tf

            x = tf.constant(2.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            dy = tape.gradient(y, x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                z = x * x * x
            dz = tape.gradient(z, x)
        """, "the same name reused by tapes one after the other",
            proof=Proof(check="assert float(dy) == 4.0 and float(dz) == 12.0")),
        valid("""
            import tensorflow as tf

            x = tf.constant(2.0)
            with tf.GradientTape() as tape:
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = x * x
                g = tape.gradient(y, x)
        """, "a needless outer tape: the one gradient call gets what the inner tape recorded",
            proof=Proof(check="assert float(g) == 4.0")),
        valid("""
            import tensorflow as tf

            x = tf.constant(2.0)
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = x * x
                z = y * x

                def inner_grad(v):
                    with tf.GradientTape() as tape:
                        tape.watch(v)
                        w = v * v
                    return tape.gradient(w, v)

                g = inner_grad(tf.constant(5.0))
            dy = tape.gradient(y, x)
            dz = tape.gradient(z, x)
            del tape
        """, "a tape with the same name inside a nested function is a different variable",
            proof=Proof(check="assert float(g) == 10.0 and float(dy) == 4.0 and float(dz) == 12.0")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        tapes = ctx.facts.tapes
        for tape in tapes:
            if tape.item is None or tape.item.optional_vars is None or tape.name is None:
                continue  # `with tape:` re-enters the same tape object: nothing is rebound
            outer = _enclosing_with_same_name(tape)
            if outer is None:
                continue
            uses = _uses_after(tape, tapes)
            found = _first_problem(tape, outer, uses, ctx)
            if found is None:
                continue
            use, consequence = found
            fix = _fix_offer(ctx, tape, outer, uses)
            name = tape.name
            item = tape.item
            ctx.report(
                ctx.facts.source.span(item.context_expr, item.optional_vars),  # type: ignore[arg-type]
                f"This GradientTape rebinds `{name}`, the tape opened on {ctx.where(outer.node)}: "
                f"{consequence}. Give the inner tape its own name, or remove it if the outer "
                "tape is the one you need.",
                related=[
                    ctx.related(outer.item.context_expr if outer.item else outer.node,
                                f"outer tape `{name}` opened here"),
                    ctx.related(use, f"this use of `{name}` gets the inner tape"),
                ],
                fix=fix,
            )


def _first_problem(tape: Tape, outer: Tape, uses: list[ast.AST], ctx: Context) -> tuple[ast.AST, str] | None:
    """The first use of the rebound name that goes wrong, and what happens there."""
    name = tape.name
    block_end = (tape.node.end_lineno or 0, tape.node.end_col_offset or 0)
    gradients = [u for u in uses if _is_gradient_call(u)]
    if len(gradients) >= 2 and tape.option("persistent") is False:
        second = gradients[1]
        return second, (f"`{name}.{second.func.attr}` on {ctx.where(second)} raises RuntimeError "  # type: ignore[attr-defined]
                        "\"A non-persistent GradientTape can only be used to compute one set of gradients\", "
                        f"because the inner tape was already used on {ctx.where(gradients[0])}")
    inner_assigned = _assignments(tape.body)
    outer_only = _assigned_between(outer, tape)
    for use in gradients:
        target = _target(use)  # type: ignore[arg-type]
        if not isinstance(target, ast.Name):
            continue
        if target.id not in inner_assigned:
            return use, (f"`{name}.{use.func.attr}` on {ctx.where(use)} asks the inner tape, which did "  # type: ignore[attr-defined]
                         f"not record how `{target.id}` was computed: it returns None")
        lost = _depends_on(target.id, inner_assigned, outer_only)
        if lost is not None:
            return use, (f"`{name}.{use.func.attr}` on {ctx.where(use)} asks the inner tape, but "  # type: ignore[attr-defined]
                         f"`{target.id}` depends on `{lost}`, which only the outer tape recorded: "
                         "the gradient is None")
        inside = [u for u in uses if _position(u) < block_end]
        if _sources_watched_by_outer_only([use], inside, outer, tape):
            return use, (f"`{name}.{use.func.attr}` on {ctx.where(use)} asks the inner tape for a source "  # type: ignore[attr-defined]
                         "that only the outer tape watches: the gradient is None")
    for use in uses:
        if not _is_gradient_call(use) and _position(use) >= block_end:
            return use, f"`{name}` on {ctx.where(use)} refers to the inner tape, not the outer one"
    return None


# --- the fix ------------------------------------------------------------------------------
# Decided here on `ast`, rewritten with libcst (tapelsp.fixes.tape) only when fixes are asked for.

def _fix_offer(ctx: Context, tape: Tape, outer: Tape, uses: list[ast.AST]):
    """A builder for the fix (rename the inner tape, or remove it), or None when neither fits."""
    if not isinstance(tape.node, ast.With) or tape.item is None or tape.item.optional_vars is None:
        return None
    block_start, block_end = _position(tape.node), (tape.node.end_lineno or 0, tape.node.end_col_offset or 0)
    inside = [u for u in uses if block_start <= _position(u) <= block_end]
    after = [u for u in uses if _position(u) > block_end]
    inner_assigned = _assignments(tape.body)
    outer_assigned = _assignments(outer.body)
    outer_only = _assigned_between(outer, tape)
    persistent_inner = tape.option("persistent") is True

    def serves(use: ast.AST) -> str | None:
        """Which tape a gradient call can be answered by: "inner", "outer" or None (unknown)."""
        target = _target(use)  # type: ignore[arg-type]
        if not isinstance(target, ast.Name):
            return None
        if target.id in inner_assigned:
            derivatives = [value for value in inner_assigned[target.id] if _is_gradient_call(value)]
            if derivatives:
                if persistent_inner and all(_receiver(value) is not None and _same_name(_receiver(value), tape.name)
                                            for value in derivatives):
                    # A persistent inner tape recorded its own gradient computation (a PINN's u_x,
                    # then u_xx): it answers the derivative of that derivative.
                    return "inner"
                return "outer"  # a derivative of a derivative: the tape around the inner one records it
            if _sources_watched_by_outer_only([use], inside, outer, tape):
                return "outer"  # only the outer tape watches what it differentiates against
            return "outer" if _depends_on(target.id, inner_assigned, outer_only) is not None else "inner"
        return "outer" if target.id in outer_assigned else None

    gradients = [u for u in uses if _is_gradient_call(u)]
    kinds = {id(g): serves(g) for g in gradients}
    target_node = tape.item.optional_vars
    text, tree = ctx.facts.source.text, ctx.facts.tree

    if any(kind == "inner" for kind in kinds.values()):
        used_inside = any(_is_gradient_call(u) and kinds[id(u)] == "inner" for u in inside)
        # Every call after the block that the inner tape answers is renamed with it, up to the
        # name's next binding (`uses` stops there): a persistent tape answers them all, a
        # non-persistent one its first call only, and none more once it answered inside its block.
        owned_after = [u for u in after if _is_gradient_call(u) and kinds[id(u)] == "inner"]
        if tape.option("persistent") is False:
            owned_after = [] if used_inside else owned_after[:1]
        owned = inside + owned_after
        last_owned = owned_after[-1] if owned_after else None
        rest = [u for u in after if not any(u is o for o in owned_after)]
        before_owned = [u for u in rest if last_owned is not None and _position(u) < _position(last_owned)]
        safe = (all(kinds[id(u)] == "inner" for u in inside if _is_gradient_call(u))
                and not before_owned
                and all(_is_gradient_call(u) and kinds[id(u)] == "outer" for u in rest)
                and not _sources_watched_by_outer_only(owned, inside, outer, tape))
        receivers = [target_node] + [_receiver(u) for u in owned]
        if any(r is None for r in receivers):
            return None
        def rename():
            from ...fixes.tape import rename_fix

            # Choosing a fresh name reads the whole module: only when the fix is built.
            new_name = _fresh_tape_name(target_node, tree)
            return rename_fix(text, tree, receivers, new_name,  # type: ignore[arg-type]
                              f"Give the inner tape its own name, `{new_name}`",
                              Applicability.SAFE if safe else Applicability.UNSAFE)
        return rename

    if any(kind != "outer" for kind in kinds.values()) or any(not _is_gradient_call(u) for u in inside) \
            or len(tape.node.items) != 1 or not uses:
        return None
    safe = (len(gradients) == 1 or outer.option("persistent") is True) \
        and all(_is_gradient_call(u) for u in uses)
    with_node = tape.node

    def unwrap():
        from ...fixes.tape import unwrap_fix

        return unwrap_fix(text, tree, with_node, "Remove the inner tape, so the gradient call asks the outer tape",
                          Applicability.SAFE if safe else Applicability.UNSAFE)
    return unwrap


def _same_name(expr: ast.expr | None, name: str | None) -> bool:
    """Is `expr` the tape name `name` (`tape`, or `self.tape`)?"""
    from ...facts.names import dotted

    return expr is not None and name is not None and dotted(expr) == name


def _receiver(use: ast.AST) -> ast.expr | None:
    """The `tape` (or `self.tape`) expression of a use."""
    if isinstance(use, ast.Call) and isinstance(use.func, ast.Attribute):
        return use.func.value
    return use if isinstance(use, (ast.Name, ast.Attribute)) else None


def _fresh_tape_name(target: ast.expr, tree: ast.Module) -> str:
    from ...fixes.names import attribute_names, fresh, identifiers

    if isinstance(target, ast.Attribute):
        stem, taken = f"inner_{target.attr}", attribute_names(tree)
    else:
        stem, taken = f"inner_{getattr(target, 'id', 'tape')}", identifiers(tree)
    return fresh([stem], stem, taken)


def _sources_watched_by_outer_only(owned: list[ast.AST], inside: list[ast.AST], outer: Tape, tape: Tape) -> bool:
    """A renamed gradient call differentiates w.r.t. a tensor only the outer tape watches."""
    def watched(calls: list[ast.AST]) -> set[str]:
        return {arg.id for call in calls if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "watch" for arg in call.args if isinstance(arg, ast.Name)}

    inner_watched = watched(inside)
    start = _position(tape.node)
    outer_watched = watched([site.node for site in outer.uses("watch")
                             if _position(outer.node) < _position(site.node) < start])
    for use in owned:
        if not _is_gradient_call(use):
            continue
        sources = next((k.value for k in use.keywords if k.arg == "sources"),  # type: ignore[attr-defined]
                       use.args[1] if len(use.args) > 1 else None)  # type: ignore[attr-defined]
        names = [n.id for n in ast.walk(sources) if isinstance(n, ast.Name)] if sources is not None else []
        if any(n in outer_watched and n not in inner_watched for n in names):
            return True
    return False


def _target(call: ast.Call) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "target":
            return keyword.value
    return call.args[0] if call.args else None


def _assignments(stmts: list[ast.stmt]) -> dict[str, list[ast.expr]]:
    """Names assigned in these statements (not inside nested defs), with their values."""
    found: dict[str, list[ast.expr]] = {}
    stack = list(stmts)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        found.setdefault(node.id, []).append(stmt.value)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            for node in ast.walk(stmt.target):
                if isinstance(node, ast.Name):
                    found.setdefault(node.id, []).append(stmt.iter)
        for field_name in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(stmt, field_name, ()) or ())
    return found


def _assigned_between(outer: Tape, inner: Tape) -> set[str]:
    """Names assigned in the outer block before the inner tape opens."""
    start = _position(inner.node)
    before = [s for s in outer.body if _position(s) < start and not _contains(s, inner.node)]
    return set(_assignments(before))


def _contains(stmt: ast.stmt, node: ast.AST) -> bool:
    return (stmt.lineno, stmt.col_offset) <= _position(node) <= (stmt.end_lineno or 0, stmt.end_col_offset or 0)


def _depends_on(name: str, inner: dict[str, list[ast.expr]], outer_only: set[str]) -> str | None:
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        for value in inner.get(current, ()):
            for node in ast.walk(value):
                if isinstance(node, ast.Name) and node.id != current:
                    if node.id in inner:
                        pending.append(node.id)
                    elif node.id in outer_only:
                        return node.id
    return None


def _enclosing_with_same_name(tape: Tape) -> Tape | None:
    parent = tape.parent
    while parent is not None:
        if parent.name == tape.name and parent.item is not None:
            return parent
        parent = parent.parent
    return None


def _position(node: ast.AST) -> tuple[int, int]:
    return (node.lineno, node.col_offset)


def _uses_after(tape: Tape, tapes: list[Tape]) -> list[ast.AST]:
    """Loads of the tape's name from the inner `with` on, until the name is bound to a later tape."""
    start = _position(tape.item.optional_vars)  # type: ignore[union-attr]
    later = [_position(t.node) for t in tapes
             if t.scope is tape.scope and t.name == tape.name and _position(t.node) > _position(tape.node)
             and t.parent is not tape and not _inside(t, tape)]
    stop = min(later) if later else (1 << 60, 0)
    loads = tape.scope.loads.get(tape.name, [])  # type: ignore[arg-type]
    found = []
    for load in loads:
        pos = _position(load)
        if start < pos < stop:
            found.append(_enclosing_call(load, tape) or load)
    return found


def _inside(candidate: Tape, tape: Tape) -> bool:
    parent = candidate.parent
    while parent is not None:
        if parent is tape:
            return True
        parent = parent.parent
    return False


def _enclosing_call(load: ast.AST, tape: Tape) -> ast.Call | None:
    for (receiver, _method), sites in tape.scope.method_calls.items():
        if receiver != tape.name:
            continue
        for site in sites:
            func = site.node.func
            if isinstance(func, ast.Attribute) and func.value is load:
                return site.node
    return None


def _is_gradient_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in _TAPE_METHODS
