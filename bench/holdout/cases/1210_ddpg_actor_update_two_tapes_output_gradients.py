"""Correct look-alike: DDPG actor update with two separate tapes and output_gradients.

Source: Dekki-Aero/DDPG#2 "Question regarding a part of the ddpg training process"
(https://github.com/Dekki-Aero/DDPG/issues/2). The reporter asks about lines 124-134 of the
DDPG script: a first `with tf.GradientTape() as tape:` computes `a = self.actor(states_batch)`,
`tape.watch(a)`, `q = self.critic([states_batch, a])` and `dq_da = tape.gradient(q, a)`; a
second, new `with tf.GradientTape() as tape:` recomputes `a` and takes
`tape.gradient(a, theta, output_gradients=-dq_da)` for the actor variables. The author confirms
the code. The name `tape` is reused, but each `with` creates a fresh non-persistent tape that is
used for exactly one gradient call, and `dq_da` is only a constant output-gradient weight for
the second one, so every actor variable gets a gradient.
Changes: the Pendulum environment and replay buffer are replaced by a random batch of 32
3-dimensional states; small Keras actor and critic; 5 actor updates.
"""
import numpy as np
import tensorflow as tf


def make_actor(state_dim, action_dim):
    inp = tf.keras.layers.Input(shape=(state_dim,))
    x = tf.keras.layers.Dense(32, activation="relu")(inp)
    out = tf.keras.layers.Dense(action_dim, activation="tanh")(x)
    return tf.keras.Model(inp, out)


def make_critic(state_dim, action_dim):
    s = tf.keras.layers.Input(shape=(state_dim,))
    a = tf.keras.layers.Input(shape=(action_dim,))
    x = tf.keras.layers.Concatenate()([s, a])
    x = tf.keras.layers.Dense(32, activation="relu")(x)
    q = tf.keras.layers.Dense(1)(x)
    return tf.keras.Model([s, a], q)


class DDPG:
    def __init__(self, state_dim=3, action_dim=1):
        self.actor = make_actor(state_dim, action_dim)
        self.critic = make_critic(state_dim, action_dim)
        self.actor_opt = tf.keras.optimizers.Adam(1e-3)
        self.none_grads = 0

    def update_actor(self, states_batch):
        with tf.GradientTape() as tape:
            a = self.actor(states_batch)
            tape.watch(a)
            q = self.critic([states_batch, a])
        dq_da = tape.gradient(q, a)

        with tf.GradientTape() as tape:
            a = self.actor(states_batch)
            theta = self.actor.trainable_variables
        da_dtheta = tape.gradient(a, theta, output_gradients=-dq_da)
        self.none_grads += sum(g is None for g in da_dtheta)
        self.actor_opt.apply_gradients(zip(da_dtheta, self.actor.trainable_variables))


def main():
    agent = DDPG()
    rng = np.random.default_rng(0)
    for _ in range(5):
        states_batch = tf.constant(rng.normal(size=(32, 3)).astype(np.float32))
        agent.update_actor(states_batch)
    print("None actor gradients:", agent.none_grads)
    print(f"ORACLE: bug={agent.none_grads > 0} none_gradients={agent.none_grads}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as exc:
        print("RuntimeError:", str(exc).splitlines()[0])
        print("ORACLE: bug=True error=RuntimeError")
