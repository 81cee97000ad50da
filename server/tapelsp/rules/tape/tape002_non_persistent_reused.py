from __future__ import annotations

import ast

from ...facts.dataflow import inside, position
from ...model import Applicability, Severity
from ...versions import VersionRange
from ._fixes import records_py_function, release_point, unfixed
from ...analysis.gradcalls import (
    LOOP_EXITS,
    GradCall,
    common_length,
    ends_after,
    exclusive,
    gradient_calls,
    in_comprehension,
    tape_item_range_node,
)
from ..base import Context, Proof, Rule, invalid, valid

MESSAGE = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
# TensorFlow's batch_jacobian spells it without the space.
BATCH_MESSAGE = "A non-persistent GradientTape can only be used tocompute one set of gradients (or jacobians)"


class NonPersistentTapeReused(Rule):
    """
    ## What it does
    Finds a second `gradient` / `jacobian` / `batch_jacobian` call on a tape that was not
    opened with `persistent=True`: two calls one after the other, or one call inside a
    loop (or comprehension) while the tape was opened once, outside it.

    ## Why is this bad?
    A non-persistent tape releases what it recorded as soon as it has computed one set of
    gradients. The second call raises
    `RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)`.
    In a loop the first iteration works and the second one fails, often far into a
    training run.

    Calls in exclusive branches (`if` / `else`) and calls after which the function
    returns are not counted twice.

    ## Example
    ```python
    with tf.GradientTape() as tape:
        actor_loss = ...
        critic_loss = ...
    actor_grads = tape.gradient(actor_loss, actor.trainable_variables)
    critic_grads = tape.gradient(critic_loss, critic.trainable_variables)  # RuntimeError
    ```

    ## Use instead
    ```python
    with tf.GradientTape(persistent=True) as tape:
        actor_loss = ...
        critic_loss = ...
    actor_grads = tape.gradient(actor_loss, actor.trainable_variables)
    critic_grads = tape.gradient(critic_loss, critic.trainable_variables)
    del tape  # release what the tape holds
    ```
    or one call with a list of targets, or one tape per loss.
    """

    code = "TAPE002"
    name = "non-persistent-tape-reused"
    summary = "A non-persistent GradientTape is asked for gradients twice"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    fixable = True
    examples = (
        unfixed(invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            batches = [tf.ones((2, 1)), tf.zeros((2, 1))]
            with tf.GradientTape() as tape:
                for x in batches:
                    loss = tf.reduce_mean(model(x) ** 2)
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """, 6, "the tape wraps the whole training loop: reported on the tape, which belongs inside the loop "
                "(no fix: moving the block changes what every iteration records)",
            proof=Proof(raises=("RuntimeError", MESSAGE)))),
        unfixed(invalid("""
            import tensorflow as tf

            def penalty(v):
                return tf.reduce_sum(tf.nn.softplus(tf.abs(v) - 2.0) ** 2)

            w = tf.Variable([3.0, -1.0, 0.5])
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w ** 2) * 0.01 + tf.py_function(penalty, [w], tf.float32)
            grad = tape.gradient(loss, w)
            grad_norm = tf.norm(tape.gradient(loss, w))
        """, 10, "the tape records a tf.py_function: no fix, TensorFlow computes its gradient once only "
                 "(with persistent=True the second call raises KeyError 'pyfunc_N'); ask for the gradient once",
            proof=Proof(raises=("RuntimeError", MESSAGE)))),
        invalid("""
            import tensorflow as tf

            actor = tf.Variable(1.0)
            critic = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                actor_loss = actor * actor
                critic_loss = critic * 3.0
            actor_grad = tape.gradient(actor_loss, actor)
            critic_grad = tape.gradient(critic_loss, critic)
        """, 9, "two losses, one non-persistent tape",
            proof=Proof(raises=("RuntimeError", MESSAGE)),
            fixed="""
            import tensorflow as tf

            actor = tf.Variable(1.0)
            critic = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                actor_loss = actor * actor
                critic_loss = critic * 3.0
            actor_grad = tape.gradient(actor_loss, actor)
            critic_grad = tape.gradient(critic_loss, critic)
            del tape
        """, fixed_proof=Proof(check="""
            assert float(actor_grad) == 2.0 and float(critic_grad) == 3.0
            assert "tape" not in globals()
        """)),
        invalid("""
            import tensorflow as tf

            x = tf.Variable([1.0, 2.0])
            with tf.GradientTape() as tape:
                y = x * x
                losses = [tf.reduce_sum(y), tf.reduce_max(y)]
            grads = []
            for loss in losses:
                grads.append(tape.gradient(loss, x))
        """, 9, "one call in a loop over a tape opened outside the loop: `del` after the loop",
            proof=Proof(raises=("RuntimeError", MESSAGE)),
            fixed="""
            import tensorflow as tf

            x = tf.Variable([1.0, 2.0])
            with tf.GradientTape(persistent=True) as tape:
                y = x * x
                losses = [tf.reduce_sum(y), tf.reduce_max(y)]
            grads = []
            for loss in losses:
                grads.append(tape.gradient(loss, x))
            del tape
        """, fixed_proof=Proof(check="assert [g.numpy().tolist() for g in grads] == [[2.0, 4.0], [0.0, 4.0]]")),
        invalid("""
            import tensorflow as tf

            x = tf.ones([4, 3])
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.tanh(x)
            j = tape.jacobian(y, x)
            bj = tape.batch_jacobian(y, x)
        """, 8, "jacobian then batch_jacobian (TensorFlow's message has a typo: 'tocompute')",
            proof=Proof(raises=("RuntimeError", BATCH_MESSAGE)),
            fixed="""
            import tensorflow as tf

            x = tf.ones([4, 3])
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = tf.tanh(x)
            j = tape.jacobian(y, x)
            bj = tape.batch_jacobian(y, x)
            del tape
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert j.shape == (4, 3, 4, 3) and bj.shape == (4, 3, 3)
            d = 1.0 - np.tanh(1.0) ** 2
            assert np.allclose(np.diagonal(bj.numpy(), axis1=1, axis2=2), d)
        """)),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(0.5)
            tape = tf.GradientTape()
            with tape:
                a = w * 2.0
                b = w * 3.0
            ga = tape.gradient(a, w)
            if ga is not None:
                gb = tape.gradient(b, w)
        """, 10, "a tape object entered with `with tape:`; the second call is under a condition that holds",
            proof=Proof(raises=("RuntimeError", MESSAGE)),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(0.5)
            tape = tf.GradientTape(persistent=True)
            with tape:
                a = w * 2.0
                b = w * 3.0
            ga = tape.gradient(a, w)
            if ga is not None:
                gb = tape.gradient(b, w)
            del tape
        """, fixed_proof=Proof(check="assert float(ga) == 2.0 and float(gb) == 3.0")),
        invalid("""
            import tensorflow as tf

            x = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                ys = [x * x, x * x * x]
            grads = [tape.gradient(y, x) for y in ys]
        """, 6, "one call per element of a comprehension",
            proof=Proof(raises=("RuntimeError", MESSAGE)),
            fixed="""
            import tensorflow as tf

            x = tf.Variable(3.0)
            with tf.GradientTape(persistent=True) as tape:
                ys = [x * x, x * x * x]
            grads = [tape.gradient(y, x) for y in ys]
            del tape
        """, fixed_proof=Proof(check="assert [float(g) for g in grads] == [6.0, 27.0]")),
        invalid("""
            import tensorflow as tf

            def gan_step(generator, discriminator, real, z):
                with tf.GradientTape() as tape:
                    fake = generator(z)
                    d_loss = tf.reduce_mean(discriminator(fake)) - tf.reduce_mean(discriminator(real))
                    g_loss = -tf.reduce_mean(discriminator(fake))
                d_grads = tape.gradient(d_loss, discriminator.trainable_variables)
                g_grads = tape.gradient(g_loss, generator.trainable_variables)
                return d_grads, g_grads

            generator = tf.keras.Sequential([tf.keras.layers.Dense(4)])
            discriminator = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            gan_step(generator, discriminator, tf.ones([2, 4]), tf.ones([2, 3]))
        """, 9, "one tape for a GAN's two losses, in a function that returns both: `del` before the return",
            proof=Proof(raises=("RuntimeError", MESSAGE)),
            fixed="""
            import tensorflow as tf

            def gan_step(generator, discriminator, real, z):
                with tf.GradientTape(persistent=True) as tape:
                    fake = generator(z)
                    d_loss = tf.reduce_mean(discriminator(fake)) - tf.reduce_mean(discriminator(real))
                    g_loss = -tf.reduce_mean(discriminator(fake))
                d_grads = tape.gradient(d_loss, discriminator.trainable_variables)
                g_grads = tape.gradient(g_loss, generator.trainable_variables)
                del tape
                return d_grads, g_grads

            generator = tf.keras.Sequential([tf.keras.layers.Dense(4)])
            discriminator = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            gan_step(generator, discriminator, tf.ones([2, 4]), tf.ones([2, 3]))
        """, fixed_proof=Proof(check="""
            d_grads, g_grads = gan_step(generator, discriminator, tf.ones([2, 4]), tf.ones([2, 3]))
            assert len(d_grads) == 2 and len(g_grads) == 2
            assert all(g is not None for g in d_grads + g_grads)
        """)),
        valid("""
            import tensorflow as tf

            actor = tf.Variable(1.0)
            critic = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                actor_loss = actor * actor
                critic_loss = critic * 3.0
            actor_grad = tape.gradient(actor_loss, actor)
            critic_grad = tape.gradient(critic_loss, critic)
            del tape
        """, "a persistent tape used twice, then deleted",
            proof=Proof(check="assert float(actor_grad) == 2.0 and float(critic_grad) == 3.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            for step in range(3):
                with tf.GradientTape() as tape:
                    y = x * x
                g = tape.gradient(y, x)
                x.assign_sub(0.1 * g)
        """, "a new tape in every iteration",
            proof=Proof(check="assert abs(float(x) - 2.0 * 0.8 ** 3) < 1e-6")),
        valid("""
            import tensorflow as tf

            def grad(x, second_order):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = x ** 3
                if second_order:
                    return tape.jacobian(y, x)
                else:
                    return tape.gradient(y, x)

            g = grad(tf.constant(2.0), False)
        """, "calls in exclusive branches",
            proof=Proof(check="assert float(g) == 12.0")),
        valid("""
            import tensorflow as tf

            def grad(x, v):
                with tf.GradientTape() as tape:
                    y = v * x
                    z = y * 2.0
                if x.shape.rank == 0:
                    return tape.gradient(y, v)
                return tape.gradient(z, v)

            g = grad(tf.constant(2.0), tf.Variable(1.0))
        """, "the first call returns", proof=Proof(check="assert float(g) == 2.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                y = x * x
                z = x * x * x
            dy, dz = tape.gradient([y, z], x), None
            with tf.GradientTape() as tape:
                z = x * x * x
            dz = tape.gradient(z, x)
        """, "the same name bound to a new tape before the second call",
            proof=Proof(check="assert float(dy) == 33.0 and float(dz) == 27.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                y = x * x
            for attempt in range(3):
                g = tape.gradient(y, x)
                break
        """, "a loop that leaves right after the call",
            proof=Proof(check="assert float(g) == 6.0")),
        valid("""
            import tensorflow as tf

            x = tf.Variable(3.0)
            tape = tf.GradientTape()
            for step in range(2):
                with tape:
                    y = x * x
                g = tape.gradient(y, x)
        """, "re-entering the tape object starts a new recording",
            proof=Proof(check="assert float(g) == 6.0")),
    )

    def check(self, ctx: Context) -> None:
        calls = [c for c in gradient_calls(ctx.facts) if c.persistent is False and c.entry is not None]
        by_binding: dict[int, list[GradCall]] = {}
        for call in calls:
            by_binding.setdefault(id(call.binding), []).append(call)
        for group in by_binding.values():
            for i, second in enumerate(group):
                first = next((a for a in group[:i] if _both_run(a, second)), None)
                if first is not None:
                    self._report_pair(ctx, first, second)
                    continue
                repeated = _repeats(second)
                if repeated is not None:
                    self._report_loop(ctx, second, repeated)

    def _report_pair(self, ctx: Context, first: GradCall, second: GradCall) -> None:
        opened = second.entry or second.binding
        inside_note = ""
        if first.inside_entry():
            inside_note = " (the first call is inside the tape's block, where it also stops the recording)"
        ctx.report(
            second.node,
            f"`{second.label()}` on {ctx.where(second.node)} is the second call on the non-persistent tape "
            f"opened on {ctx.where(opened.node)}; the first was `{first.label()}` on {ctx.where(first.node)}"
            f"{inside_note}. TensorFlow raises RuntimeError \"{_message(second)}\". Open the tape with "
            "`persistent=True` (and `del` it after the last call), or ask for all targets in one call.",
            related=[ctx.related(first.node, "first call on this tape"),
                     ctx.related(tape_item_range_node(opened), "the tape opened here, not persistent"),
                     *_created(ctx, second)],
            fix=persist_offer(ctx, second),
        )

    def _report_loop(self, ctx: Context, call: GradCall, loop: ast.AST) -> None:
        opened = call.entry or call.binding
        what = "comprehension" if not isinstance(loop, ast.stmt) else "loop"
        if isinstance(loop, ast.stmt) and isinstance(opened.node, (ast.With, ast.AsyncWith)) \
                and inside(loop, opened.node):
            # The tape's block wraps the whole loop (a training loop under one `with`): the
            # placement of the tape is the mistake, not the call.
            ctx.report(
                tape_item_range_node(opened),
                f"The non-persistent tape opened here wraps the loop on {ctx.where(loop)}, which asks it for "
                f"gradients on every iteration (`{call.label()}` on {ctx.where(call.node)}): the second iteration "
                f"raises RuntimeError \"{_message(call)}\", and the tape keeps recording every step before it. "
                f"Open the tape inside the {what}, around one step's forward pass.",
                related=[ctx.related(call.node, "the gradient call that runs every iteration"),
                         ctx.related(loop, f"the {what} inside the tape's block"),
                         *_created(ctx, call)],
            )
            return
        ctx.report(
            call.node,
            f"`{call.label()}` runs on every iteration of the {what} on {ctx.where(loop)}, but the "
            f"non-persistent tape was opened once, outside it, on {ctx.where(opened.node)}: the second "
            f"iteration raises RuntimeError \"{_message(call)}\". Open the tape inside the {what}, ask for all "
            "targets in one call, or make the tape persistent and `del` it after the last call.",
            related=[ctx.related(tape_item_range_node(opened), "the tape opened here, not persistent"),
                     ctx.related(loop, f"the {what} that repeats the call"),
                     *_created(ctx, call)],
            fix=persist_offer(ctx, call),
        )


def _created(ctx: Context, call: GradCall) -> list:
    """Where the tape object was made, when that is not the `with` line (`tape = tf.GradientTape()`)."""
    binding = call.binding
    if call.entry is not None and binding is not call.entry and binding.call is not None:
        return [ctx.related(binding.call, "the tape object is created here, without persistent=True")]
    return []


def persist_offer(ctx: Context, call: GradCall):
    """`persistent=True` on the tape, and `del tape` after its last use (safe: the same
    gradients, and the tape is released where the second call used to fail)."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    binding = call.binding
    tape_call = binding.call
    if tape_call is None or binding.name is None or "." in call.name or binding.option("persistent") is not False:
        return None
    if any(isinstance(a, ast.Starred) for a in tape_call.args) or any(k.arg is None for k in tape_call.keywords):
        return None
    persistent = binding.persistent
    if persistent is not None and not (isinstance(persistent, ast.Constant) and persistent.value is False):
        return None
    if records_py_function(call, ctx.facts):
        # TensorFlow computes a tf.py_function's gradient once: the second call on a persistent
        # tape raises KeyError 'pyfunc_N' (compute the gradients in one call instead).
        return None
    found, after = release_point(binding, call.index, call.name, call.flow)
    if not found:
        return None
    text = ctx.facts.source.text
    name = call.name
    title = "Make the tape persistent" + (f" and `del {name}` after its last use" if after is not None else "")

    def build():
        from ...fixes.persistent import persistent_fix

        return persistent_fix(text, tape_call, persistent, after, name, title, Applicability.SAFE)
    return build


def _message(call: GradCall) -> str:
    return BATCH_MESSAGE if call.method == "batch_jacobian" else MESSAGE


def _both_run(first: GradCall, second: GradCall) -> bool:
    """Can `second` run after `first` on the same recording?"""
    if first.entry is not second.entry or first.node is second.node:
        return False
    if _contains(first.node, second.node):
        return False
    index = first.index
    path_a, path_b = index.path(first.node), index.path(second.node)
    if exclusive(path_a, path_b):
        return False
    return not ends_after(index, path_a, common_length(path_a, path_b), until=position(second.node))


def _contains(outer: ast.AST, node: ast.AST) -> bool:
    return outer is not node and inside(node, outer)


def _repeats(call: GradCall) -> ast.AST | None:
    """The loop or comprehension that runs `call` again on the same recording, if any."""
    entry = call.entry
    assert entry is not None
    index = call.index
    path = index.path(call.node)
    comprehension = in_comprehension(index.statement(call.node), call.node)
    if comprehension is not None and not inside(entry.node, comprehension):
        return comprehension
    loops = call.site.loops
    if not loops:
        return None
    loop = loops[-1]
    if inside(entry.node, loop) or inside(call.binding.node, loop):
        return None
    if any(inside(other.node, loop) for other in call.entries):
        return None
    level = next((i for i, (stmt, _) in enumerate(path) if stmt is loop), None)
    if level is None:
        return None
    if ends_after(index, path, level + 1, LOOP_EXITS):
        return None
    for stmt, _arm in path[level + 1:]:
        if isinstance(stmt, ast.If) and _once_guard(stmt.test):
            return None
    return loop


def _once_guard(test: ast.expr) -> bool:
    """`if i == 0:`, `if state is None:`, `if first:` — conditions that often hold once."""
    if isinstance(test, ast.Compare):
        return any(isinstance(op, (ast.Eq, ast.Is)) for op in test.ops)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _once_guard(test.operand) or isinstance(test.operand, (ast.Name, ast.Attribute))
    if isinstance(test, (ast.Name, ast.Attribute)):
        return True
    if isinstance(test, ast.BoolOp):
        return any(_once_guard(v) for v in test.values)
    return False
