"""DQN agent whose epsilon-greedy schedule reads a Python counter inside the traced collect policy.

Source: tensorflow/agents#827 "dqn_agent.DqnAgent: epsilon_greedy not modifiable during training"
(https://github.com/tensorflow/agents/issues/827). The user links `epsilon_greedy` to a custom
`decay()` function; the collect policy is run through a tf.function (the driver wraps
`policy.action` with `common.function`), so `decay()` runs once, while tracing, and the value it
returned (1.0) is baked into the graph. Epsilon "remains at the starting value" and the policy keeps
acting randomly although the Python step counter advances.
Changes: tf_agents is not installed, so `DqnAgent` / `EpsilonGreedyPolicy` are small stand-ins with
the same structure (the policy calls `epsilon()` when it is callable, the driver traces
`collect_policy.action`); CartPole is replaced by random observations and the replay/training part
by a one-step TD update. The body of the user's `decay()` is not shown in the issue: it is written
here as a linear decay of a module-level step counter.
"""
import numpy as np
import tensorflow as tf

NUM_ACTIONS = 2
DECAY_STEPS = 50
step = 0


def decay():
    return max(0.01, 1.0 - step / DECAY_STEPS)


class QNetwork(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(16, activation='relu')
        self.out = tf.keras.layers.Dense(NUM_ACTIONS)

    def call(self, observation):
        return self.out(self.hidden(observation))


class EpsilonGreedyPolicy:
    def __init__(self, q_network, epsilon):
        self._q_network = q_network
        self._epsilon = epsilon

    def action(self, observation):
        epsilon = self._epsilon() if callable(self._epsilon) else self._epsilon
        greedy = tf.argmax(self._q_network(observation), axis=-1, output_type=tf.int32)
        random_actions = tf.random.uniform(tf.shape(greedy), maxval=NUM_ACTIONS, dtype=tf.int32)
        explore = tf.random.uniform(tf.shape(greedy)) < epsilon
        return tf.where(explore, random_actions, greedy), explore


class DqnAgent:
    def __init__(self, q_network, optimizer, epsilon_greedy, gamma=0.99):
        self._q_network = q_network
        self._optimizer = optimizer
        self._epsilon_greedy = epsilon_greedy
        self._gamma = gamma
        self.train_step_counter = tf.Variable(0, dtype=tf.int64)
        self.collect_policy = EpsilonGreedyPolicy(q_network, epsilon=self._epsilon_greedy)

    def train(self, obs, actions, rewards, next_obs):
        with tf.GradientTape() as tape:
            q = tf.gather(self._q_network(obs), actions, batch_dims=1)
            target = rewards + self._gamma * tf.reduce_max(self._q_network(next_obs), axis=-1)
            loss = tf.reduce_mean(tf.square(tf.stop_gradient(target) - q))
        grads = tape.gradient(loss, self._q_network.trainable_variables)
        self._optimizer.apply_gradients(zip(grads, self._q_network.trainable_variables))
        self.train_step_counter.assign_add(1)
        return loss


def main():
    global step
    rng = np.random.default_rng(0)
    q_net = QNetwork()
    agent = DqnAgent(q_net, tf.keras.optimizers.Adam(1e-3), epsilon_greedy=decay)
    collect_action = tf.function(agent.collect_policy.action)

    for step in range(2 * DECAY_STEPS):
        obs = tf.constant(rng.normal(size=(8, 4)), tf.float32)
        actions, _ = collect_action(obs)
        rewards = tf.constant(rng.normal(size=8), tf.float32)
        next_obs = tf.constant(rng.normal(size=(8, 4)), tf.float32)
        agent.train(obs, actions, rewards, next_obs)

    explored = []
    for _ in range(100):
        obs = tf.constant(rng.normal(size=(8, 4)), tf.float32)
        _, explore = collect_action(obs)
        explored.append(explore)
    explore_rate = float(tf.reduce_mean(tf.cast(tf.stack(explored), tf.float32)))
    print(f"decay() now returns {decay():.2f}; measured exploration rate {explore_rate:.2f}")
    print(f"ORACLE: bug={explore_rate > 0.5} expected_epsilon={decay():.2f} "
          f"explore_rate={explore_rate:.2f}")


if __name__ == "__main__":
    main()
