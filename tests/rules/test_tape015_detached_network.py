"""A whole network that reaches the gradient target only through `tf.stop_gradient` is detached
on purpose: asking the target's gradient for its variables is the wrong variable list (TAPE015,
on the gradient call), not the cut (TAPE009). The injector's wrong-model-vars mutant of dev/057
(an actor-critic: actor loss, critic variables) is this shape; TensorFlow 2.21 gives None for
every critic variable and `apply_gradients` raises "No gradients provided for any variable"."""

from __future__ import annotations

import textwrap

from tapelsp import check_source
from tapelsp.rules.tape.tape015_target_not_connected import _ACTOR_CRITIC

# The actor-critic example's program up to its tape (9 lines: two networks, states, rewards).
HEAD = textwrap.dedent(_ACTOR_CRITIC).lstrip().split("with tf.GradientTape")[0]


def found(body: str) -> list[tuple[str, int]]:
    source = HEAD + textwrap.dedent(body)
    return sorted((v.code, v.range.start.line + 1) for v in check_source(source, "m.py") if v.code != "OPT001")


def test_a_network_detached_by_stop_gradient_everywhere_is_the_wrong_variable_list():
    assert found("""\
        with tf.GradientTape() as tape:
            value = tf.squeeze(critic(states), 1)
            actor_loss = -tf.reduce_mean(tf.nn.log_softmax(actor(states))[:, 0] * tf.stop_gradient(rewards - value))
        grads = tape.gradient(actor_loss, critic.trainable_variables)
    """) == [("TAPE015", 13)]


def test_a_cut_that_is_not_stop_gradient_stays_the_non_differentiable_path():
    # argmax on one route, stop_gradient on the other: not detached on purpose everywhere.
    assert found("""\
        with tf.GradientTape() as tape:
            value = tf.squeeze(critic(states), 1)
            picked = tf.cast(tf.argmax(critic(states), axis=1), tf.float32)
            loss = tf.reduce_mean(picked * tf.stop_gradient(rewards - value))
        grads = tape.gradient(loss, critic.trainable_variables)
    """) == [("TAPE009", 12), ("TAPE009", 13)]


def test_a_single_variable_cut_by_stop_gradient_stays_tape009():
    assert found("""\
        w = tf.Variable(2.0)
        b = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            loss = tf.stop_gradient(w * 3.0) * b
        gw, gb = tape.gradient(loss, [w, b])
    """) == [("TAPE009", 13)]



def _gan_example() -> str:
    """TAPE015's example of a GAN discriminator step that asks for the generator's variables and
    applies the gradients to the discriminator's."""
    from tapelsp.rules.tape.tape015_target_not_connected import TargetNotConnected

    return next(e.source for e in TargetNotConnected.examples if e.title.startswith("a GAN's discriminator step"))


def test_gradients_applied_to_the_network_the_tape_ran_make_the_variable_list_the_slip():
    # dev/068's shape: TAPE015 on the gradient call, not TAPE006 on the generator's forward pass.
    found = [(v.code, v.range.start.line + 1) for v in check_source(_gan_example(), "m.py")]
    assert found == [("TAPE015", 10), ("OPT001", 12)]


def test_gradients_applied_to_the_network_that_ran_before_the_tape_stay_tape006():
    source = _gan_example().replace("zip(grads, discriminator.trainable_weights)", "zip(grads, generator.trainable_weights)")
    found = [(v.code, v.range.start.line + 1) for v in check_source(source, "m.py")]
    assert ("TAPE006", 7) in found and "TAPE015" not in {code for code, _ in found}
