from __future__ import annotations

import ast

from ..facts.model import Tape
from ..model import Severity
from .base import Context, Proof, Rule, invalid, valid

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
            proof=Proof(check="assert dy is None")),
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
            proof=Proof(raises=("RuntimeError", "A non-persistent GradientTape can only be used to compute one set of gradients"))),
        invalid("""
            import tensorflow as tf

            class Agent:
                def update(self, model, states):
                    with tf.GradientTape() as self.tape:
                        logits = model(states)
                        with tf.GradientTape() as self.tape:
                            loss = tf.reduce_mean(logits)
                    return self.tape.gradient(loss, model.trainable_variables)
        """, 7, "an attribute used as the tape name"),
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

    def check(self, ctx: Context) -> None:
        tapes = ctx.facts.tapes
        for tape in tapes:
            if tape.item is None or tape.name is None:
                continue
            outer = _enclosing_with_same_name(tape)
            if outer is None:
                continue
            uses = _uses_after(tape, tapes)
            if not uses:
                continue
            gradient_uses = [u for u in uses if _is_gradient_call(u, tape.name)]
            first = (gradient_uses or uses)[0]
            name = tape.name
            if gradient_uses:
                consequence = (f"`{name}.{first.func.attr}` on line {first.lineno} asks the inner tape, "  # type: ignore[union-attr]
                               "which did not record the outer computation: it returns None "
                               "(or raises RuntimeError if that tape was already used)")
            else:
                consequence = f"`{name}` on line {first.lineno} refers to the inner tape, not the outer one"
            item = tape.item
            ctx.report(
                ctx.facts.source.span(item.context_expr, item.optional_vars),  # type: ignore[arg-type]
                f"This GradientTape rebinds `{name}`, the tape opened on line {outer.node.lineno}: "
                f"{consequence}. Give the inner tape its own name, or remove it if the outer "
                "tape is the one you need.",
                related=[
                    ctx.related(outer.item.context_expr if outer.item else outer.node,
                                f"outer tape `{name}` opened here"),
                    ctx.related(first, f"this use of `{name}` gets the inner tape"),
                ],
            )


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


def _is_gradient_call(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in _TAPE_METHODS
