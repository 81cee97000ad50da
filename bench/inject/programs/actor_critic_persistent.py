"""Actor-critic update: one persistent tape records both losses, then it is released."""
import numpy as np
import tensorflow as tf


class Agent:
    def __init__(self, obs_dim=4, n_actions=2):
        self.actor = tf.keras.Sequential([tf.keras.Input(shape=(obs_dim,)), tf.keras.layers.Dense(16, activation="tanh"),
                                          tf.keras.layers.Dense(n_actions)])
        self.critic = tf.keras.Sequential([tf.keras.Input(shape=(obs_dim,)), tf.keras.layers.Dense(16, activation="tanh"),
                                           tf.keras.layers.Dense(1)])
        self.actor_opt = tf.keras.optimizers.Adam(1e-3)
        self.critic_opt = tf.keras.optimizers.Adam(1e-3)

    def update(self, obs, actions, returns):
        with tf.GradientTape(persistent=True) as tape:
            logits = self.actor(obs)
            values = tf.squeeze(self.critic(obs), axis=1)
            advantage = returns - values
            logp = -tf.nn.sparse_softmax_cross_entropy_with_logits(labels=actions, logits=logits)
            actor_loss = -tf.reduce_mean(logp * tf.stop_gradient(advantage))
            critic_loss = tf.reduce_mean(tf.square(advantage))
        actor_grads = tape.gradient(actor_loss, self.actor.trainable_variables)
        critic_grads = tape.gradient(critic_loss, self.critic.trainable_variables)
        del tape
        self.actor_opt.apply_gradients(zip(actor_grads, self.actor.trainable_variables))
        self.critic_opt.apply_gradients(zip(critic_grads, self.critic.trainable_variables))
        return float(actor_loss), float(critic_loss)


rng = np.random.default_rng(6)
agent = Agent()
for episode in range(4):
    obs = tf.constant(rng.normal(size=(32, 4)).astype("float32"))
    actions = tf.constant(rng.integers(0, 2, size=32).astype("int32"))
    returns = tf.constant(rng.normal(size=32).astype("float32"))
    print(agent.update(obs, actions, returns))
