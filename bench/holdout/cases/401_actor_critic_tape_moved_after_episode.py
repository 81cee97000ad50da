"""Actor-critic (CartPole) whose GradientTape was moved to just before the loss, after the episode.

The keras-io actor-critic example opens `with tf.GradientTape() as tape:` around the whole
episode, so every `model(state)` call of the rollout is recorded. The reporter moved the
`with` down to where the tape is "used" (the loss), so the forward passes that produced
`action_probs_history` / `critic_value_history` ran outside any tape; every gradient is None
and `optimizer.apply_gradients` raises "No gradients provided for any variable".

Source: keras-team/keras-io#406 "Getting error when trying to move tape defination near used
place" (https://github.com/keras-team/keras-io/issues/406).
Changed from the posted code: gym's CartPole is replaced by a tiny NumPy cart-pole-like
environment, episodes are capped at 30 steps and 2 episodes; the network has 32 hidden units.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

gamma = 0.99
max_steps_per_episode = 30
eps = np.finfo(np.float32).eps.item()
num_inputs = 4
num_actions = 2
num_hidden = 32


class ToyCartPole:
    """Stand-in for gym's CartPole-v0: 4-d state, 2 actions, reward 1 per step."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.state = None

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        return self.state

    def step(self, action):
        force = 1.0 if action == 1 else -1.0
        x, x_dot, theta, theta_dot = self.state
        theta_dot = theta_dot + 0.05 * (theta * 9.8 - force)
        theta = theta + 0.02 * theta_dot
        x_dot = x_dot + 0.02 * force
        x = x + 0.02 * x_dot
        self.state = np.array([x, x_dot, theta, theta_dot])
        done = abs(theta) > 0.2 or abs(x) > 2.4
        return self.state, 1.0, done, {}


inputs = layers.Input(shape=(num_inputs,))
common = layers.Dense(num_hidden, activation="relu")(inputs)
action = layers.Dense(num_actions, activation="softmax")(common)
critic = layers.Dense(1)(common)
model = keras.Model(inputs=inputs, outputs=[action, critic])

optimizer = keras.optimizers.Adam(learning_rate=0.01)
huber_loss = keras.losses.Huber()


def main():
    env = ToyCartPole()
    rng = np.random.default_rng(1)
    action_probs_history = []
    critic_value_history = []
    rewards_history = []
    for episode in range(2):
        state = env.reset()
        for timestep in range(1, max_steps_per_episode):
            state = tf.convert_to_tensor(state, dtype=tf.float32)
            state = tf.expand_dims(state, 0)
            action_probs, critic_value = model(state)
            critic_value_history.append(critic_value[0, 0])
            p = np.squeeze(action_probs.numpy()).astype(np.float64)
            action = rng.choice(num_actions, p=p / p.sum())
            action_probs_history.append(tf.math.log(action_probs[0, action]))
            state, reward, done, _ = env.step(action)
            rewards_history.append(reward)
            if done:
                break

        returns = []
        discounted_sum = 0
        for r in rewards_history[::-1]:
            discounted_sum = r + gamma * discounted_sum
            returns.insert(0, discounted_sum)
        returns = np.array(returns)
        returns = (returns - np.mean(returns)) / (np.std(returns) + eps)
        returns = returns.tolist()

        with tf.GradientTape() as tape:
            history = zip(action_probs_history, critic_value_history, returns)
            actor_losses = []
            critic_losses = []
            for log_prob, value, ret in history:
                diff = ret - value
                actor_losses.append(-log_prob * diff)
                critic_losses.append(
                    huber_loss(tf.expand_dims(value, 0), tf.expand_dims(ret, 0))
                )
            loss_value = sum(actor_losses) + sum(critic_losses)
        grads = tape.gradient(loss_value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

        action_probs_history.clear()
        critic_value_history.clear()
        rewards_history.clear()


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", exc)
        print("ORACLE: bug=True error=ValueError no_gradients=True")
