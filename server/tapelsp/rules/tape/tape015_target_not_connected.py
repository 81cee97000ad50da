from __future__ import annotations

import ast

from ...facts.dataflow import inside
from ...facts.names import dotted

from ...model import Severity
from ...versions import VersionRange
from ...analysis import remote
from ...analysis.paths import (DEAD, Evaluator, PathResult, Root, analyse, detached_on_purpose,
                                 forward_handed_in, function_resolver, gradient_uses, misapplied)
from ...analysis.values import values_for
from ..base import Context, Proof, Rule, invalid, shares_findings, valid


# A GAN's discriminator step on fakes made before the tape, its gradients applied to the
# discriminator's variables.
_GAN_STEP = """
    import tensorflow as tf

    generator = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3)])
    discriminator = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    d_opt = tf.keras.optimizers.Adam(1e-3)
    real = tf.ones((4, 3))
    fake = generator(tf.random.normal((4, 2)))
    with tf.GradientTape() as tape:
        d_loss = tf.reduce_mean(discriminator(fake)) - tf.reduce_mean(discriminator(real))
    grads = tape.gradient(d_loss, {sources}.trainable_weights)
    try:
        d_opt.apply_gradients(zip(grads, discriminator.trainable_weights))
        error = None
    except ValueError as exc:
        error = str(exc)
"""

# An actor-critic step whose actor loss reads the critic only under tf.stop_gradient.
_ACTOR_CRITIC = """
    import tensorflow as tf

    def make_net(units):
        return tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(units)])

    actor = make_net(2)
    critic = make_net(1)
    states = tf.ones((4, 3))
    rewards = tf.ones((4,))
    with tf.GradientTape(persistent=True) as tape:
        value = tf.squeeze(critic(states), 1)
        advantage = tf.stop_gradient(rewards - value)
        log_probs = tf.nn.log_softmax(actor(states))[:, 0]
        actor_loss = -tf.reduce_mean(log_probs * advantage)
        critic_loss = tf.reduce_mean((rewards - value) ** 2)
    actor_grads = tape.gradient(actor_loss, {actor_sources}.trainable_variables)
    critic_grads = tape.gradient(critic_loss, critic.trainable_variables)
"""


class TargetNotConnected(Rule):
    """
    ## What it does
    Finds `tape.gradient(target, sources)` where nothing the target is computed from uses
    the sources at all: the model whose variables are listed is never called for the
    target, or the variable list belongs to another model (the critic's loss with the
    actor's variables, the discriminator's loss with the generator's variables). Two
    more shapes of the same slip: the gradients are applied to another model's variables
    (`opt.apply_gradients(zip(grads, disc.trainable_weights))`), the model the tape computes
    the target with, while the requested one only ran before the tape; and the requested
    network reaches the target only through `tf.stop_gradient`, which the program wrote to
    keep it out of this target (an actor's loss asked for the critic's variables).

    ## Why is this bad?
    A gradient with respect to variables the target does not depend on is `None`.
    TensorFlow says nothing at the `gradient` call; `optimizer.apply_gradients` later
    fails with "No gradients provided for any variable" (or warns "Gradients do not exist
    for variables" when only some are missing), far from the cause.

    The rule reports only when it can see how every value of the target is computed:
    models and loss functions defined in this file, or in another module of the
    project when the caller hands the engine a project index, models built by
    constructors that cannot share variables (their own classes, factories of fresh
    layers, `keras.Sequential` of fresh layers), and
    TensorFlow / Keras library calls. Anything it cannot resolve keeps it silent. A
    forward pass that ran before the tape opened, or a target computed after the block,
    are other rules' findings.

    ## Example
    ```python
    with tf.GradientTape() as tape:
        q = critic(states, actions)
        critic_loss = tf.reduce_mean((q - targets) ** 2)
    grads = tape.gradient(critic_loss, actor.trainable_variables)  # all None
    ```

    ## Use instead
    ```python
    grads = tape.gradient(critic_loss, critic.trainable_variables)
    ```
    """

    code = "TAPE015"
    name = "target-not-connected-to-sources"
    summary = "The gradient target gets no gradient from the variables asked for"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape", "compile")
    examples = (
        valid("""
            import tensorflow as tf

            used = tf.Variable(2.0)
            idle = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                loss = used * used
            g_used, g_idle = tape.gradient(loss, [used, idle], unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """, "unconnected sources asked for on purpose: zeros, not None",
            proof=Proof(check="assert float(g_used) == 4.0 and float(g_idle) == 0.0")),
        valid("""
            import tensorflow as tf

            class Main(tf.Module):
                def __init__(self):
                    self.w = tf.zeros((2, 1))

                def __call__(self, x):
                    return x @ self.w

            hyper = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(2)])
            main = Main()
            with tf.GradientTape() as tape:
                main.w = tf.reshape(hyper(tf.ones((1, 1))), (2, 1))
                loss = tf.reduce_sum(main(tf.ones((3, 2))))
            grads = tape.gradient(loss, hyper.trainable_variables)
        """, "a hypernetwork whose output becomes another object's weights inside the tape",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import tensorflow as tf

            def build_q():
                return tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])

            q_net = build_q()
            q_target = build_q()
            q_target.set_weights(q_net.get_weights())
            states = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                q = tf.reduce_sum(q_target(states), axis=1)
                loss = tf.reduce_mean(q ** 2)
            grads = tape.gradient(loss, q_net.trainable_variables)
        """, 11, "the target network, a copy that follows the online one, used inside the tape: reported on that call",
            proof=Proof(check="assert all(g is None for g in grads)")),
        invalid(_GAN_STEP.format(sources="generator"), 10,
                "a GAN's discriminator step asks for the generator's variables and applies them to the discriminator's",
                proof=Proof(check="assert all(g is None for g in grads) and 'No gradients provided' in error")),
        valid(_GAN_STEP.format(sources="discriminator"),
              "the discriminator step on fakes made before the tape, with the discriminator's own variables",
              proof=Proof(check="assert all(g is not None for g in grads) and error is None")),
        invalid(_ACTOR_CRITIC.format(actor_sources="critic"), 16,
                "the actor's loss, which reads the critic only under `tf.stop_gradient`, with the critic's variables",
                proof=Proof(check="assert all(g is None for g in actor_grads) "
                                  "and all(g is not None for g in critic_grads)")),
        valid(_ACTOR_CRITIC.format(actor_sources="actor"),
              "the critic detached from the actor's loss on purpose, each loss with its own network's variables",
              proof=Proof(check="assert all(g is not None for g in actor_grads + critic_grads)")),
        invalid("""
            import tensorflow as tf

            def make_net(units):
                return tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(units)])

            actor = make_net(1)
            critic = make_net(1)
            states = tf.ones((4, 3))
            targets = tf.zeros((4, 1))
            with tf.GradientTape() as tape:
                q = critic(states)
                critic_loss = tf.reduce_mean((q - targets) ** 2)
            grads = tape.gradient(critic_loss, actor.trainable_variables)
        """, 13, "the critic's loss with the actor's variables",
            proof=Proof(check="assert all(g is None for g in grads)")),
        invalid("""
            import tensorflow as tf

            class Generator(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(3)

                def call(self, z):
                    return self.dense(z)

            class Discriminator(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.dense = tf.keras.layers.Dense(1)

                def call(self, x):
                    return self.dense(x)

            generator = Generator()
            discriminator = Discriminator()
            generator(tf.zeros((1, 2)))
            optimizer = tf.keras.optimizers.Adam()
            images = tf.ones((4, 3))
            with tf.GradientTape() as disc_tape:
                real = discriminator(images)
                disc_loss = tf.reduce_mean(tf.nn.softplus(-real))
            grads = disc_tape.gradient(disc_loss, generator.trainable_variables)
            optimizer.apply_gradients(zip(grads, generator.trainable_variables))
        """, 27, "GAN: the discriminator's loss with the generator's variables",
            proof=Proof(raises=("ValueError", "No gradients provided for any variable"))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            b = tf.Variable(1.0)
            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                loss = (w * x - 1.0) ** 2
            gw, gb = tape.gradient(loss, [w, b])
        """, 8, "one listed variable is never used",
            proof=Proof(check="assert gw is not None and gb is None")),
        invalid("""
            import tensorflow as tf

            class Agent:
                def __init__(self):
                    self.actor = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
                    self.critic = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
                    self.gamma = 0.99

                def update(self, states, rewards):
                    with tf.GradientTape() as tape:
                        values = self.critic(states)
                        loss = tf.reduce_mean((rewards + self.gamma * values) ** 2)
                    return tape.gradient(loss, self.actor.trainable_variables)

            grads = Agent().update(tf.ones((4, 3)), tf.ones((4, 1)))
        """, 13, "models held in attributes",
            proof=Proof(check="assert all(g is None for g in grads)")),
        valid("""
            import tensorflow as tf

            def make_net(inputs, units):
                return tf.keras.Sequential([tf.keras.Input((inputs,)), tf.keras.layers.Dense(units)])

            actor = make_net(3, 2)
            critic = make_net(2, 1)
            states = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                actions = actor(states)
                actor_loss = -tf.reduce_mean(critic(actions))
            grads = tape.gradient(actor_loss, actor.trainable_variables)
        """, "the actor's loss goes through the critic and the actor",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            encoder = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            decoder = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3)])
            autoencoder = tf.keras.Sequential([encoder, decoder])
            x = tf.ones((4, 3))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((autoencoder(x) - x) ** 2)
            grads = tape.gradient(loss, encoder.trainable_variables)
        """, "a model built from the other one shares its variables",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf
            import tf_keras

            main_network = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(1, use_bias=False)])
            hypernetwork = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(3)])
            x = tf.ones((1, 3))
            with tf.GradientTape() as tape:
                main_network.layers[0].kernel = tf.reshape(hypernetwork(x), (3, 1))
                loss = tf.reduce_sum(main_network(x))
            grads = tape.gradient(loss, hypernetwork.trainable_weights)
        """, "a hypernetwork: the other model's kernel is set from its output inside the tape (tf_keras; "
             "Keras 3's Dense has no kernel setter)",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf
            from losses import critic_loss_fn

            def train_step(model, batch):
                with tf.GradientTape() as tape:
                    loss = critic_loss_fn(batch)
                return tape.gradient(loss, model.trainable_variables)
        """, "an imported loss function that cannot be resolved: silent"),
        invalid("""
            import numpy as np
            import tensorflow as tf

            reference = np.linspace(0.0, 1.0, 8).astype("float32")


            def signal_loss(y_true, y_pred):
                produced = np.flip(reference)
                return tf.reduce_mean(tf.square(produced - reference))


            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8)])
            model.compile(optimizer="adam", loss=signal_loss)
            model.fit(np.ones((16, 4), "float32"), np.ones((16, 8), "float32"), verbose=0)
        """, 9, "a loss given to compile that never reads `y_pred`: fit has nothing to differentiate",
            proof=Proof(raises=("ValueError", "No gradients provided for any variable"))),
        valid("""
            import numpy as np
            import tensorflow as tf

            reference = np.linspace(0.0, 1.0, 8).astype("float32")


            def signal_loss(y_true, y_pred):
                return tf.reduce_mean(tf.square(y_pred - reference))


            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8)])
            model.compile(optimizer="adam", loss=signal_loss)
            history = model.fit(np.ones((16, 4), "float32"), np.ones((16, 8), "float32"), verbose=0)
        """, "the loss computed from the model's output",
            proof=Proof(check="assert len(history.history['loss']) == 1")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        self._losses(ctx)
        facts = ctx.facts
        resolver = function_resolver(facts, ctx.project, ctx.path)
        values = values_for(ctx)
        recorded = {(id(r.use), r.root): r for r in analyse(facts, ctx.project, ctx.path, ctx.targets)}
        for use in gradient_uses(facts):
            if not use.roots or any(k.arg == "unconnected_gradients" for k in use.call.keywords) \
                    or len(use.call.args) > 3:
                continue  # unconnected sources asked for on purpose (zeros, or None)
            for root in use.roots:
                previous = recorded.get((id(use), root))
                if previous is not None and detached_on_purpose(previous):
                    self._report_detached(ctx, previous)
                    continue
                applied = misapplied(ctx, use, root)
                if applied is not None:
                    self._report_misapplied(ctx, use, root, applied)
                    continue
                if previous is None or previous.cuts:
                    continue  # a cut on the way is another rule's finding
                if forward_handed_in(ctx, use, root) is not None:
                    continue  # the caller ran the forward pass before any tape: TAPE006

                def distinct(name: str, source: Root, at: ast.AST, use=use) -> bool:
                    return remote.distinct(facts, use.flow, name, source.name, at, use.call,
                                                  ctx.project, ctx.path)

                evaluator = Evaluator(facts, use.flow, use.tape, root, "touch", distinct=distinct,
                                      resolve_function=resolver, values=values)
                status = evaluator.target(use.target, use.call, True)
                # A cut the tape records is another rule's finding (checked above); one outside
                # the tape (`tf.argmax(model(x))` before it) does not connect the root either.
                if status != DEAD or evaluator.maybe_cuts:
                    continue
                self._report(ctx, PathResult(use, root, status), evaluator)

    def _losses(self, ctx: Context) -> None:
        """A loss given to `compile` that never reads the model's output (`y_pred`)."""
        from ...analysis.keras_graph import losses_ignoring_prediction

        for function, predicted, fit in losses_ignoring_prediction(ctx):
            returns = [n for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None]
            where = returns[-1].value if returns else function
            ctx.report(
                where,
                f"The loss `{function.name}` given to compile never reads `{predicted}`, the model's output: what "
                f"it returns does not depend on any variable of the model, so `{ast.unparse(fit.func)}` on "
                f"{ctx.where(fit)} raises ValueError \"No gradients provided for any variable\". Compute the "
                f"loss from `{predicted}`.",
                related=[ctx.related(function, "the loss function"), ctx.related(fit, "trains the model here")],
            )

    def _report_misapplied(self, ctx: Context, use, root: Root, applied: ast.Attribute) -> None:
        """The gradients are applied to another object's variables, and that object is what
        the tape computes the target with: the variable list of the gradient call is the slip."""
        target = ast.unparse(use.target)
        other = ast.unparse(applied.value)
        ctx.report(
            root.node,
            f"`{target}` is computed in the tape with `{other}`, whose variables these gradients are applied to "
            f"({ctx.where(applied)}), not with `{root.name}`: {use.describe()} returns None for every variable of "
            f"`{root.name}`, and `apply_gradients` then fails with \"No gradients provided for any variable\". "
            f"Differentiate with respect to `{ast.unparse(applied)}`.",
            related=[ctx.related(applied, "the gradients are applied to these variables"),
                     ctx.related(use.call, f"this {use.method} call gets None for every variable of `{root.name}`")])

    def _report_detached(self, ctx: Context, result: PathResult) -> None:
        """Every route from a whole network's variables to the target is cut by
        `tf.stop_gradient`, which the program wrote to keep this network out of the target."""
        use, root = result.use, result.root
        target = ast.unparse(use.target)
        cuts = sorted(result.cuts, key=lambda cut: (cut.node.lineno, cut.node.col_offset))
        where = ", ".join(ctx.where(cut.node) for cut in cuts[:3]) + (" ..." if len(cuts) > 3 else "")
        ctx.report(
            root.node,
            f"`{target}` uses `{root.name}` only through `tf.stop_gradient` ({where}), which keeps it out of "
            f"this target on purpose: {use.describe()} returns {result.none_for()}, and `apply_gradients` then "
            f"fails with \"No gradients provided for any variable\". Differentiate with respect to the variables "
            f"`{target}` is meant to train.",
            related=[ctx.related(cut.node, f"`{root.name}` is cut off here") for cut in cuts[:3]]
            + [ctx.related(use.call, f"this {use.method} call gets {result.none_for()}")])

    def _report(self, ctx: Context, result: PathResult, evaluator: Evaluator) -> None:
        use, root = result.use, result.root
        target = ast.unparse(use.target)
        others = [call for call in evaluator.calls_seen if isinstance(call.func, (ast.Name, ast.Attribute))]
        # The models the tape itself runs first: those compute what it records.
        others.sort(key=lambda call: not inside(call, use.tape.node))
        related = [ctx.related(use.call, f"this {use.method} call gets {result.none_for()}")]
        where: ast.AST = root.node
        if root.owner and others:
            other = ast.unparse(others[0].func)
            twin = _copy_of(ctx, others[0].func, root)
            if twin is not None:
                # Two models made alike (`build_q(...)` twice): the call of the copy inside the
                # tape is the slip, not the variable list.
                where = others[0]
                message = (f"`{other}` is a copy that follows `{root.name}` ({twin}), and the tape computes `{target}` with "
                           f"`{other}`, not with `{root.name}`: {use.describe()} on {ctx.where(use.call)} returns "
                           f"{result.none_for()}, and `apply_gradients` then fails with \"No gradients provided for "
                           f"any variable\". Call `{root.name}` here, or differentiate with respect to "
                           f"`{other}.trainable_variables`.")
            else:
                message = (f"`{target}` is computed with `{other}` ({ctx.where(others[0])}), not with `{root.name}`: "
                           f"{use.describe()} returns {result.none_for()}, and `apply_gradients` then fails with "
                           f"\"No gradients provided for any variable\". Pass `{other}.trainable_variables`, or "
                           f"compute the target with `{root.name}` inside the tape.")
                related.append(ctx.related(others[0], f"`{target}` comes from `{other}` here"))
        elif root.owner:
            message = (f"Nothing `{target}` is computed from uses `{root.name}`: {use.describe()} returns "
                       f"{result.none_for()}, and `apply_gradients` then fails with \"No gradients provided for "
                       f"any variable\". Call `{root.name}` inside the tape to compute the target.")
        else:
            message = (f"`{target}` does not depend on `{root.label}`: {use.describe()} returns "
                       f"{result.none_for()}. Use it in the computation inside the tape, or leave it out of the "
                       "sources.")
        ctx.report(where, message, related=related)


def _copy_of(ctx: Context, func: ast.expr, root: Root) -> str | None:
    """Is the model called in the tape a copy that tracks the root's model (a target network:
    `target.set_weights(online.get_weights())`, or its weights assigned from the online ones in
    a `zip`)? Then calling the copy inside the tape is the slip, not the variable list."""
    copy = dotted(func)
    online = root.name
    if copy is None or copy == online:
        return None
    for site in ctx.facts.calls:
        node = site.node
        if site.method == "set_weights" and site.receiver == copy and node.args:
            if any(dotted(n) == f"{online}.get_weights" for n in ast.walk(node.args[0])):
                return f"`{copy}.set_weights({online}.get_weights())` on {ctx.where(node)}"
        if isinstance(node.func, ast.Name) and node.func.id == "zip" and len(node.args) >= 2:
            owners = [dotted(a.value) for a in node.args if isinstance(a, ast.Attribute)
                      and a.attr in ("weights", "variables", "trainable_variables", "trainable_weights")]
            if copy in owners and online in owners:
                return f"their weights are paired in `zip(...)` on {ctx.where(node)}"
    return None
