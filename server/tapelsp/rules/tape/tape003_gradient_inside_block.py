from __future__ import annotations

import ast

from ...facts.dataflow import Def, end_position, inside, position
from ...model import Applicability, Severity
from ...versions import VersionRange
from ._fixes import dedent_safe, differentiated_again, records_py_function, release_point, unfixed
from ...analysis.gradcalls import (
    GradCall,
    gradient_calls,
    mentions,
    recorded,
    stop_recording_around,
    tape_item_range_node,
)
from ..base import Context, Proof, Rule, invalid, valid

PERSISTENT_WARNING = ("Calling GradientTape.gradient on a persistent tape inside its context is significantly "
                      "less efficient than calling it outside the context")
REUSE_MESSAGE = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"


class GradientInsideBlock(Rule):
    """
    ## What it does
    Finds `tape.gradient(...)` (or `jacobian`) called inside the tape's own `with` block
    while statements after it in the block compute what a later gradient call on the same
    tape differentiates.

    A single gradient call at the end of the block, nested tapes for higher-order
    derivatives, and calls under `tape.stop_recording()` are fine and not reported.

    ## Why is this bad?
    On a non-persistent tape the call stops the recording: nothing after it in the block
    is recorded, and the later call raises "A non-persistent GradientTape can only be used
    to compute one set of gradients (or jacobians)". On a persistent tape the gradient
    computation itself is recorded on the tape, costing CPU time and memory, and TensorFlow
    warns "Calling GradientTape.gradient on a persistent tape inside its context is
    significantly less efficient than calling it outside the context".

    ## Example
    ```python
    with tf.GradientTape(persistent=True) as tape:
        actor_loss = ...
        actor_grads = tape.gradient(actor_loss, actor.trainable_variables)
        critic_loss = ...
    critic_grads = tape.gradient(critic_loss, critic.trainable_variables)
    ```

    ## Use instead
    ```python
    with tf.GradientTape(persistent=True) as tape:
        actor_loss = ...
        critic_loss = ...
    actor_grads = tape.gradient(actor_loss, actor.trainable_variables)
    critic_grads = tape.gradient(critic_loss, critic.trainable_variables)
    del tape
    ```
    """

    code = "TAPE003"
    name = "gradient-inside-tape-block"
    summary = "tape.gradient is called inside the tape's block while the block goes on recording"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            actor = tf.Variable(1.0)
            critic = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                actor_loss = actor * actor
                actor_grad = tape.gradient(actor_loss, actor)
                critic_loss = critic * 3.0
            critic_grad = tape.gradient(critic_loss, critic)
        """, 7, "a persistent tape: the first gradient computation is recorded too",
            proof=Proof(check="""
                assert float(actor_grad) == 2.0 and float(critic_grad) == 3.0
                # the gradient ops were recorded on the tape: it can even differentiate them
                assert float(tape.gradient(actor_grad, actor)) == 2.0
            """),
            fixed="""
            import tensorflow as tf

            actor = tf.Variable(1.0)
            critic = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                actor_loss = actor * actor
                critic_loss = critic * 3.0
            actor_grad = tape.gradient(actor_loss, actor)
            critic_grad = tape.gradient(critic_loss, critic)
        """, fixed_proof=Proof(check="""
            assert float(actor_grad) == 2.0 and float(critic_grad) == 3.0
            # computed after the block: nothing of the gradient computation was recorded
            assert tape.gradient(actor_grad, actor) is None
        """)),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                first = w * w
                g_first = tape.gradient(first, w)
                second = w * 5.0
            g_second = tape.gradient(second, w)
        """, 6, "a non-persistent tape stops recording at the first call; the second call raises: the fix "
                "moves the call out and makes the tape persistent",
            proof=Proof(raises=("RuntimeError", REUSE_MESSAGE)),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape(persistent=True) as tape:
                first = w * w
                second = w * 5.0
            g_first = tape.gradient(first, w)
            g_second = tape.gradient(second, w)
            del tape
        """, fixed_proof=Proof(check="assert float(g_first) == 6.0 and float(g_second) == 5.0")),
        invalid("""
            import tensorflow as tf

            x = tf.Variable(1.0)
            with tf.GradientTape(persistent=True) as tape:
                for step in range(3):
                    y = x * x * float(step)
                    g = tape.gradient(y, x)
        """, 7, "a gradient per step of a loop inside a persistent tape: the fix pauses the recording around it",
            proof=Proof(check="""
                assert float(g) == 4.0
                # the gradient computation was recorded: d(g)/dx = 2 * step
                assert float(tape.gradient(g, x)) == 4.0
            """),
            fixed="""
            import tensorflow as tf

            x = tf.Variable(1.0)
            with tf.GradientTape(persistent=True) as tape:
                for step in range(3):
                    y = x * x * float(step)
                    with tape.stop_recording():
                        g = tape.gradient(y, x)
        """, fixed_proof=Proof(check="assert float(g) == 4.0 and tape.gradient(g, x) is None")),
        invalid("""
            import tensorflow as tf

            actor = tf.Variable(1.0)
            critic = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                actor_loss = actor * actor
                actor_grad = tape.gradient(actor_loss, actor)
                grad_size = tf.abs(actor_grad)
                critic_loss = critic * 3.0
            critic_grad = tape.gradient(critic_loss, critic)
        """, 7, "the result is used further down the block: it cannot move, the recording is paused instead",
            proof=Proof(check="assert float(tape.gradient(actor_grad, actor)) == 2.0"),
            fixed="""
            import tensorflow as tf

            actor = tf.Variable(1.0)
            critic = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                actor_loss = actor * actor
                with tape.stop_recording():
                    actor_grad = tape.gradient(actor_loss, actor)
                grad_size = tf.abs(actor_grad)
                critic_loss = critic * 3.0
            critic_grad = tape.gradient(critic_loss, critic)
        """, fixed_proof=Proof(check="""
            assert float(actor_grad) == 2.0 and float(critic_grad) == 3.0 and float(grad_size) == 2.0
            assert tape.gradient(actor_grad, actor) is None
        """)),
        unfixed(invalid("""
            import tensorflow as tf

            w = tf.Variable(0.5)
            x = tf.constant([0.1, 0.4, 0.9])
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                u = tf.tanh(w * x)
                u_x = tape.gradient(u, x)
                energy = tf.reduce_mean(u ** 2)
            u_xx = tape.gradient(u_x, x)
            grad_w = tape.gradient(energy, w)
            del tape
        """, 8, "u_x is differentiated again by the same tape (u_xx): no fix, the call must stay where the "
                "tape records it (moved out, or under stop_recording, u_xx would be None)",
            proof=Proof(check="""
                import numpy as np
                # the tape recorded u_x, so it gives the second derivative: d2/dx2 tanh(w x) = -2 w^2 tanh sech^2
                v = tf.tanh(0.5 * x)
                assert np.allclose(u_xx.numpy(), (-2 * 0.25 * v * (1 - v ** 2)).numpy(), atol=1e-6)
            """))),
        valid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                y = x * x
                g = tape.gradient(y, x)
        """, "one call at the end of the block, nothing recorded after it",
            proof=Proof(check="assert float(g) == 4.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                y = x ** 3
                dy = tape.gradient(y, x)
                z = dy * 1.0
            d2y = tape.gradient(z, x)
            del tape
        """, "a persistent tape for a second derivative: recording the gradient is the point",
            proof=Proof(check="assert float(dy) == 12.0 and float(d2y) == 12.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                y = x * x
                with tape.stop_recording():
                    g = tape.gradient(y, x)
                z = y * 3.0
            gz = tape.gradient(z, x)
            del tape
        """, "the in-block call under tape.stop_recording()",
            proof=Proof(check="assert float(g) == 4.0 and float(gz) == 12.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    y = x ** 3
                    dy = inner.gradient(y, x)
                z = dy * 2.0
            d2 = outer.gradient(z, x)
        """, "nested tapes: the outer one records the inner gradient",
            proof=Proof(check="assert float(d2) == 24.0")),
    )

    def check(self, ctx: Context) -> None:
        calls = [c for c in gradient_calls(ctx.facts) if c.inside_entry()]
        all_calls = gradient_calls(ctx.facts)
        for call in calls:
            if stop_recording_around(call.index, call.node, call.name) is not None:
                continue
            found = _later_use(call, all_calls)
            if found is None:
                continue
            later, fed = found
            self._report(ctx, call, later, fed)

    def _report(self, ctx: Context, call: GradCall, later: GradCall, fed: Def) -> None:
        entry = call.entry
        assert entry is not None
        again = later is call
        later_text = ("the same call on the next iteration" if again
                      else f"`{later.label()}` on {ctx.where(later.node)}")
        if call.persistent:
            message = (
                f"`{call.label()}` runs inside the block of the persistent tape `{call.name}` (opened on "
                f"{ctx.where(entry.node)}), which keeps recording: `{fed.name}` on {ctx.where(fed.stmt)} is "
                f"recorded for {later_text}. TensorFlow warns \"{PERSISTENT_WARNING}\": the gradient "
                "computation is recorded on the tape too, costing CPU time and memory. Call it after the "
                "`with` block (unless you want a higher-order derivative of it).")
        else:
            message = (
                f"`{call.label()}` inside the block of the non-persistent tape `{call.name}` (opened on "
                f"{ctx.where(entry.node)}) stops its recording, so `{fed.name}` on {ctx.where(fed.stmt)} is not "
                f"recorded, and {later_text} raises RuntimeError \"{REUSE_MESSAGE}\". Compute every target "
                "in the block, then call the gradients after it (with `persistent=True` for several calls).")
        ctx.report(call.node, message, related=[
            ctx.related(tape_item_range_node(entry), f"the tape `{call.name}`"),
            ctx.related(fed.stmt, "recorded after the call"),
            ctx.related(later.node, "the later gradient call"),
        ], fix=_offer(ctx, call, later))


def _offer(ctx: Context, call: GradCall, later: GradCall):
    """Move the call's statement after the block when nothing below in the block needs it (for a
    non-persistent tape, also `persistent=True` and `del`, as two calls then follow the block);
    else, on a persistent tape, compute it under `tape.stop_recording()`. Both safe: the same
    gradients, and the rule has checked that nothing differentiates this one."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    entry = call.entry
    if entry is None or not isinstance(entry.node, (ast.With, ast.AsyncWith)):
        return None
    if differentiated_again(call, gradient_calls(ctx.facts)):
        return None  # its result is differentiated again: the tape must record the call (u_x, then u_xx)
    with_node = entry.node
    body = with_node.body
    innermost = call.index.statement(call.node)
    k = next((i for i, stmt in enumerate(body) if stmt is innermost), None)
    text = ctx.facts.source.text
    name = call.name
    if k is not None and dedent_safe(innermost, call.node, body[k + 1:]):  # type: ignore[arg-type]
        stmt = innermost
        if call.persistent:
            def build_dedent():
                from ...fixes.move import dedent_fix

                return dedent_fix(text, stmt, with_node, f"Call `{call.label()}` after the `with` block",  # type: ignore[arg-type]
                                  Applicability.SAFE)
            return build_dedent
        if call.persistent is False and later is not call and position(later.node) >= end_position(with_node) \
                and not any(mentions(s, name) for s in body[k + 1:]):
            return _dedent_persistent(ctx, call, stmt, with_node)  # type: ignore[arg-type]
        return None
    if call.persistent and isinstance(innermost, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)) \
            and stop_recording_around(call.index, call.node, name) is None:
        def build_pause():
            from ...fixes.move import stop_recording_fix

            return stop_recording_fix(text, innermost, name,  # type: ignore[arg-type]
                                      f"Compute the gradient under `{name}.stop_recording()`", Applicability.SAFE)
        return build_pause
    return None


def _dedent_persistent(ctx: Context, call: GradCall, stmt: ast.stmt, with_node: ast.With | ast.AsyncWith):
    binding = call.binding
    tape_call = binding.call
    if tape_call is None or "." in call.name or any(isinstance(a, ast.Starred) for a in tape_call.args) \
            or any(k.arg is None for k in tape_call.keywords):
        return None
    persistent = binding.persistent
    if persistent is not None and not (isinstance(persistent, ast.Constant) and persistent.value is False):
        return None
    if records_py_function(call, ctx.facts):
        return None  # a persistent tape cannot differentiate a tf.py_function twice
    found, after = release_point(binding, call.index, call.name, call.flow)
    if not found:
        return None
    text = ctx.facts.source.text
    name = call.name

    def build():
        from ...fixes.move import dedent_fix

        return dedent_fix(text, stmt, with_node,
                          f"Call `{call.label()}` after the `with` block, with a persistent tape",
                          Applicability.SAFE, tape_call=tape_call, persistent=persistent, make_it_persistent=True,
                          release_after=after, name=name)
    return build


def _later_use(call: GradCall, all_calls: list[GradCall]) -> tuple[GradCall, Def] | None:
    entry = call.entry
    assert entry is not None
    here = position(call.node)
    result_defs = [d for d in call.flow.ordered if d.value is not None and inside(call.node, d.value)]
    for later in all_calls:
        if later.binding is not call.binding or later.entry is not entry or later.target is None:
            continue
        if later is call:
            loop = _loop_inside_block(call)
            if loop is None or not call.persistent:
                continue  # non-persistent: TAPE002 reports the repeated call
            fed = _fed(later, entry, lambda d, loop=loop: inside(d.stmt, loop), result_defs)
        elif position(later.node) > here:
            fed = _fed(later, entry, lambda d: d.position > here, result_defs)
        else:
            continue
        if fed is not None:
            return later, fed
    return None


def _fed(later: GradCall, entry, where, result_defs: list[Def]) -> Def | None:
    assert later.target is not None
    slice_ = later.target_slice()
    if any(d in slice_ for d in result_defs):
        return None  # differentiates the first gradient: a higher-order derivative
    for d in slice_:
        if d.kind in ("assign", "augassign") and recorded(d, entry) and where(d):
            return d
    return None


def _loop_inside_block(call: GradCall) -> ast.stmt | None:
    entry = call.entry
    assert entry is not None
    for loop in reversed(call.site.loops):
        if inside(loop, entry.node) and loop is not entry.node:
            return loop
    return None
