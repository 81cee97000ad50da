from __future__ import annotations

import ast

from ...facts.dataflow import flow_of, inside, position
from ...facts.model import Scope, Tape
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid


class PersistentTapeNotReleased(Rule):
    """
    ## What it does
    Finds a `tf.GradientTape(persistent=True)` opened inside a loop with no `del tape`
    (or `tape = None`) after its last use in the loop body.

    ## Why is this bad?
    A persistent tape keeps every intermediate tensor it recorded alive until the tape
    object itself is released. In a loop that means the previous step's activations stay
    in memory through the optimizer step, logging and evaluation until the name is
    rebound, and the last one until the function returns. With large activations this is
    a second copy of the forward pass held for nothing. A non-persistent tape frees its
    resources after the first `gradient` call; a persistent one needs `del tape`.

    ## Example
    ```python
    for x in batches:
        with tf.GradientTape(persistent=True) as tape:
            y = model(x)
            loss = tf.reduce_mean(y)
        g1 = tape.gradient(loss, model.trainable_variables)
        g2 = tape.gradient(y, x)
    ```

    ## Use instead
    ```python
    for x in batches:
        with tf.GradientTape(persistent=True) as tape:
            y = model(x)
            loss = tf.reduce_mean(y)
        g1 = tape.gradient(loss, model.trainable_variables)
        g2 = tape.gradient(y, x)
        del tape
    ```
    """

    code = "TAPE018"
    name = "persistent-tape-not-released"
    summary = "A persistent GradientTape in a loop is never released with `del`"
    severity = Severity.INFORMATION
    tensorflow = VersionRange(">=2.0")
    triggers = ("persistent",)
    examples = (
        invalid("""
            import weakref
            import tensorflow as tf

            w = tf.Variable(2.0)
            alive = []
            for step in range(3):
                with tf.GradientTape(persistent=True) as tape:
                    y = w * w
                    z = y * w
                dy = tape.gradient(y, w)
                dz = tape.gradient(z, w)
                alive.append(weakref.ref(tape))
        """, 7, "the last tape (and what it recorded) outlives the loop",
            proof=Proof(check="assert alive[-1]() is not None")),
        valid("""
            import weakref
            import tensorflow as tf

            w = tf.Variable(2.0)
            alive = []
            for step in range(3):
                with tf.GradientTape(persistent=True) as tape:
                    y = w * w
                    z = y * w
                dy = tape.gradient(y, w)
                dz = tape.gradient(z, w)
                alive.append(weakref.ref(tape))
                del tape
        """, "persistent tape used twice, then deleted",
            proof=Proof(check="assert all(ref() is None for ref in alive) and float(dz) == 12.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            for step in range(3):
                with tf.GradientTape() as tape:
                    y = w * w
                dy = tape.gradient(y, w)
        """, "a non-persistent tape releases its resources on the gradient call",
            proof=Proof(check="assert float(dy) == 4.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                y = w * w
                z = y * w
            dy = tape.gradient(y, w)
            dz = tape.gradient(z, w)
        """, "not in a loop", proof=Proof(check="assert float(dz) == 12.0")),
    )

    def check(self, ctx: Context) -> None:
        for tape in ctx.facts.tapes:
            if not tape.loops or tape.option("persistent") is not True or tape.name is None:
                continue
            if tape.scope.traced_by is not None or tape.call is None:
                continue
            if isinstance(tape.node, (ast.Assign, ast.AnnAssign)) and _opened_later(ctx, tape):
                continue
            loop = tape.loops[-1]
            if _released(ctx, tape, loop):
                continue
            anchor = tape.item.context_expr if tape.item is not None else tape.call
            ctx.report(
                anchor,
                f"This persistent GradientTape is opened in a loop and never released: `{tape.name}` keeps "
                "every tensor it recorded alive until the next iteration rebinds it (the last one until the "
                f"scope ends). Add `del {tape.name}` after its last gradient call.",
                related=[ctx.related(loop, "the loop")],
            )


def _opened_later(ctx: Context, tape: Tape) -> bool:
    """`tape = tf.GradientTape(persistent=True)` followed by `with tape:` has its own record."""
    return any(other is not tape and other.name == tape.name
               and other.item is not None and other.call is tape.call for other in ctx.facts.tapes_in(tape.scope))


def _flow_scope(scope: Scope) -> Scope:
    while scope.kind == "class" and scope.parent is not None:
        scope = scope.parent
    return scope


def _released(ctx: Context, tape: Tape, loop: ast.stmt) -> bool:
    flow = flow_of(ctx.facts, _flow_scope(tape.scope))
    for d in flow.definitions(tape.name):  # type: ignore[arg-type]
        if not inside(d.stmt, loop) or position(d.stmt) <= position(tape.node):
            continue
        if d.kind == "del":
            return True
        if d.kind == "assign" and isinstance(d.value, ast.Constant) and d.value.value is None:
            return True
    if "." in (tape.name or ""):
        # `del self.tape` is not a definition of a plain name; look at the statements.
        for node in ast.walk(loop):
            if isinstance(node, ast.Delete) and any(ast.unparse(t) == tape.name for t in node.targets):
                return True
    return False
