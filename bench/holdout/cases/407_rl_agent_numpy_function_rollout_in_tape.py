"""RL agent: the rollout (model outputs included) comes out of `tf.numpy_function` inside the tape.

The agent's `train_step` opens a GradientTape and gets rewards, actions, value logits and actor
logits from `tf.numpy_function(self.np_train_step, [], [tf.float32 for _ in range(8)])`. The
network runs inside the NumPy function, and a numpy_function op has no gradient: the losses
built from `actor_logits` / `value_logits` are cut off from the weights, every gradient is
None, and `apply_gradients` raises "No gradients provided for any variable".

Source: tensorflow/tensorflow#47288 "ValueError: No gradients provided for any variable:
['conv2d/kernel:0', 'conv2d/bias:0', ...]" (https://github.com/tensorflow/tensorflow/issues/47288).
Changed from the posted code: the Atari environments and the conv network are replaced by a
NumPy toy environment (8-d observations, 3 actions) and a small dense actor-critic network;
the ACER-style importance terms are reduced to an advantage actor-critic loss with entropy.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


class ToyEnvs:
    def __init__(self, n_envs, obs_dim, seed=0):
        self.rng = np.random.default_rng(seed)
        self.n_envs = n_envs
        self.obs_dim = obs_dim
        self.states = self.rng.normal(size=(n_envs, obs_dim)).astype(np.float32)

    def step(self, actions):
        rewards = (actions == 1).astype(np.float32)
        dones = (self.rng.uniform(size=self.n_envs) < 0.1).astype(np.float32)
        self.states = self.rng.normal(size=(self.n_envs, self.obs_dim)).astype(np.float32)
        return self.states, rewards, dones


class A2CAgent:
    def __init__(self, model, envs, optimizer, n_steps=5, gamma=0.99):
        self.model = model
        self.envs = envs
        self.optimizer = optimizer
        self.n_steps = n_steps
        self.gamma = gamma
        self.n_envs = envs.n_envs
        self.batch_indices = tf.range(n_steps * self.n_envs, dtype=tf.int64)[:, tf.newaxis]
        self.rng = np.random.default_rng(1)

    def np_train_step(self):
        states, rewards, actions, values, dones, log_probs, entropies, logits = (
            [], [], [], [], [], [], [], [])
        state = self.envs.states
        for _ in range(self.n_steps):
            actor_logits, value_logits = self.model(state)
            probs = tf.nn.softmax(actor_logits).numpy()
            action = np.array([self.rng.choice(3, p=p / p.sum()) for p in probs])
            new_state, reward, done = self.envs.step(action)
            states.append(state)
            rewards.append(reward)
            actions.append(action.astype(np.float32))
            values.append(value_logits.numpy())
            dones.append(done)
            log_probs.append(np.log(probs[np.arange(self.n_envs), action]))
            entropies.append(-(probs * np.log(probs)).sum(-1))
            logits.append(actor_logits.numpy())
            state = new_state
        return [np.concatenate(x).astype(np.float32) for x in
                (states, rewards, actions, values, dones, log_probs, entropies, logits)]

    def get_action_indices(self, batch_indices, actions):
        return tf.concat([batch_indices, tf.cast(actions, tf.int64)[:, tf.newaxis]], -1)

    def train_step(self):
        with tf.GradientTape() as tape:
            (
                _,
                rewards,
                actions,
                value_logits,
                dones,
                _,
                entropies,
                actor_logits,
            ) = tf.numpy_function(
                self.np_train_step, [], [tf.float32 for _ in range(8)]
            )
            action_probs = tf.nn.softmax(actor_logits)
            values = tf.reduce_sum(action_probs * value_logits, axis=-1)
            action_indices = self.get_action_indices(self.batch_indices, actions)
            selected_probs = tf.gather_nd(action_probs, action_indices)
            selected_values = tf.gather_nd(value_logits, action_indices)
            returns = rewards + self.gamma * values * (1.0 - dones)
            advantages = tf.stop_gradient(returns) - selected_values
            actor_loss = -tf.reduce_mean(
                tf.math.log(selected_probs + 1e-8) * tf.stop_gradient(advantages))
            critic_loss = tf.reduce_mean(tf.square(advantages))
            loss = actor_loss + 0.5 * critic_loss - 0.01 * tf.reduce_mean(entropies)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss


def build_model(obs_dim, n_actions):
    inputs = keras.Input((obs_dim,))
    x = layers.Dense(32, activation="relu")(inputs)
    actor = layers.Dense(n_actions)(x)
    critic = layers.Dense(n_actions)(x)
    return keras.Model(inputs, [actor, critic])


def main():
    envs = ToyEnvs(n_envs=4, obs_dim=8)
    agent = A2CAgent(build_model(8, 3), envs, keras.optimizers.Adam(7e-4))
    for _ in range(2):
        agent.train_step()


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except (ValueError, LookupError) as exc:
        print(type(exc).__name__ + ":", exc)
        print(f"ORACLE: bug=True error={type(exc).__name__} no_gradients=True")
