from __future__ import annotations

import ast

from ...facts.dataflow import end_position, position
from ...model import Applicability, Severity
from ...versions import VersionRange
from ._fixes import movable, run_after
from ...analysis.gradcalls import (
    GradCall,
    calls_by_node,
    encloses,
    gradient_call_in,
    gradient_calls,
    recorded,
    tape_item_range_node,
)
from ..base import Context, Proof, Rule, invalid, valid


class InnerGradientOutsideOuter(Rule):
    """
    ## What it does
    Finds a higher-order derivative whose inner `gradient` (or `jacobian`) is taken after
    the outer tape's block has ended, while the outer tape is then asked to differentiate
    that result.

    ## Why is this bad?
    The outer tape can only differentiate the gradient computation if it recorded it, that
    is if the inner `gradient` call runs inside the outer `with` block. Taken after the
    block, the first derivative is a tensor the outer tape never saw:
    `outer.gradient(dy, x)` silently returns `None`.

    ## Example
    ```python
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x ** 3
    dy = inner.gradient(y, x)     # outside `outer`
    d2y = outer.gradient(dy, x)   # None
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x ** 3
        dy = inner.gradient(y, x)  # recorded by `outer`
    d2y = outer.gradient(dy, x)
    ```
    """

    code = "TAPE004"
    name = "inner-gradient-outside-outer-tape"
    summary = "A first derivative is taken outside the outer tape that differentiates it"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    y = x ** 3
            dy = inner.gradient(y, x)
            d2y = outer.gradient(dy, x)
        """, 7, "the second derivative of x**3",
            proof=Proof(check="assert float(dy) == 12.0 and d2y is None"),
            fixed="""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    y = x ** 3
                dy = inner.gradient(y, x)
            d2y = outer.gradient(dy, x)
        """, fixed_proof=Proof(check="assert float(dy) == 12.0 and float(d2y) == 12.0")),
        invalid("""
            import tensorflow as tf

            def hessian_diag(f, x):
                with tf.GradientTape() as t2:
                    t2.watch(x)
                    with tf.GradientTape() as t1:
                        t1.watch(x)
                        y = f(x)
                g = t1.gradient(y, x)
                return t2.gradient(g, x)

            h = hessian_diag(lambda v: tf.reduce_sum(v ** 3), tf.constant([1.0, 2.0]))
        """, 9, "watched tensors, in a helper function",
            proof=Proof(check="assert h is None"),
            fixed="""
            import tensorflow as tf

            def hessian_diag(f, x):
                with tf.GradientTape() as t2:
                    t2.watch(x)
                    with tf.GradientTape() as t1:
                        t1.watch(x)
                        y = f(x)
                    g = t1.gradient(y, x)
                return t2.gradient(g, x)

            h = hessian_diag(lambda v: tf.reduce_sum(v ** 3), tf.constant([1.0, 2.0]))
        """, fixed_proof=Proof(check="assert h.numpy().tolist() == [6.0, 12.0]")),
        invalid("""
            import tensorflow as tf

            x = tf.Variable([1.0, 2.0])
            with tf.GradientTape(persistent=True) as outer:
                with tf.GradientTape() as inner:
                    y = tf.reduce_sum(x ** 2)
            grad = inner.gradient(y, x)
            penalty = tf.reduce_sum(grad ** 2)
            dp = outer.gradient(penalty, x)
        """, 7, "a gradient penalty computed from a first derivative taken too late: the penalty moves in too",
            proof=Proof(check="assert dp is None"),
            fixed="""
            import tensorflow as tf

            x = tf.Variable([1.0, 2.0])
            with tf.GradientTape(persistent=True) as outer:
                with tf.GradientTape() as inner:
                    y = tf.reduce_sum(x ** 2)
                grad = inner.gradient(y, x)
                penalty = tf.reduce_sum(grad ** 2)
            dp = outer.gradient(penalty, x)
        """, fixed_proof=Proof(check="assert dp.numpy().tolist() == [8.0, 16.0]")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    y = x ** 3
                dy = inner.gradient(y, x)
            d2y = outer.gradient(dy, x)
        """, "the inner gradient inside the outer block",
            proof=Proof(check="assert float(dy) == 12.0 and float(d2y) == 12.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as first:
                y = x ** 2
            dy = first.gradient(y, x)
            with tf.GradientTape() as second:
                z = dy * x
            dz = second.gradient(z, x)
        """, "two tapes one after the other: the second does not differentiate the first's gradient",
            proof=Proof(check="assert float(dz) == 4.0")),
    )

    def check(self, ctx: Context) -> None:
        by_node = calls_by_node(ctx.facts)
        reported: set[int] = set()
        for outer in gradient_calls(ctx.facts):
            entry = outer.entry
            if entry is None or outer.target is None or outer.asks_zeros:
                continue
            if not any(encloses(entry, t) for t in ctx.facts.tapes_in(entry.scope)):
                continue  # no tape nested in this one: no higher-order derivative here
            holders = _holders(outer, by_node)
            if not holders:
                continue
            for d in outer.target_slice():
                inner = holders.get(id(d))
                if inner is None or recorded(d, entry):
                    continue
                if inner is None or id(inner.node) in reported or not _too_late(inner, outer):
                    continue
                reported.add(id(inner.node))
                assert inner.entry is not None
                ctx.report(
                    inner.node,
                    f"`{inner.label()}` on {ctx.where(inner.node)} runs after the block of the outer tape "
                    f"`{outer.name}` (opened on {ctx.where(entry.node)}) ended, so `{outer.name}` does not "
                    f"record it: `{outer.label()}` on {ctx.where(outer.node)} cannot differentiate through "
                    f"`{d.name}` and returns None (no higher-order derivative). Indent this call into the "
                    f"`with` block of `{outer.name}`.",
                    related=[ctx.related(tape_item_range_node(entry), f"the outer tape `{outer.name}`"),
                             ctx.related(tape_item_range_node(inner.entry), f"the inner tape `{inner.name}`"),
                             ctx.related(outer.node, "the call that gets None")],
                    fix=_indent_offer(ctx, inner, outer),
                )


def _indent_offer(ctx: Context, inner: GradCall, outer: GradCall):
    """Move the statements from the end of the outer block to the outer gradient call (the inner
    gradient and what is computed from it) to the end of the outer block, in their order."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    entry = outer.entry
    if entry is None or not isinstance(entry.node, (ast.With, ast.AsyncWith)):
        return None
    with_node = entry.node
    run = run_after(with_node, outer.node, outer.index)
    if not run or not any(position(s) <= position(inner.node) and end_position(inner.node) <= end_position(s)
                          for s in run):
        return None
    pure = movable(run, ctx.facts, {outer.name})
    if pure is None:
        return None
    text = ctx.facts.source.text
    title = f"Indent `{inner.label()}` (and what follows it up to `{outer.label()}`) into the block of `{outer.name}`" \
        if len(run) > 1 else f"Indent `{inner.label()}` into the block of `{outer.name}`"

    def build():
        from ...fixes.move import move_into_block_fix

        return move_into_block_fix(text, with_node, run, title,  # type: ignore[arg-type]
                                   Applicability.SAFE if pure else Applicability.UNSAFE)
    return build


def _holders(call: GradCall, by_node) -> dict:
    """Definitions of the call's scope whose value holds a gradient call (once per flow)."""
    flow = call.flow
    cached = flow.__dict__.get("_tape_gradient_holders")
    if cached is None:
        cached = {}
        scoped = {key: c for key, c in by_node.items() if c.flow is flow}
        if scoped:
            for d in flow.ordered:
                found = gradient_call_in(d.value, scoped)
                if found is not None:
                    cached[id(d)] = found
        flow.__dict__["_tape_gradient_holders"] = cached
    return cached


def _too_late(inner: GradCall, outer: GradCall) -> bool:
    """Is `inner` a call on a tape nested in `outer`'s block, made after that block ended?"""
    if inner.name == outer.name or inner.entry is None or outer.entry is None:
        return False
    if not encloses(outer.entry, inner.entry):
        return False
    return end_position(outer.entry.node) <= position(inner.node) < position(outer.node)
