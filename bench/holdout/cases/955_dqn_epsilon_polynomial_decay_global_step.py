"""DQN agent whose epsilon schedule is a polynomial decay of the global-step variable.

Source: tensorflow/agents#339 "How does epsilon_greedy work for the DQN agent"
(https://github.com/tensorflow/agents/issues/339): the answer builds
`epsilon = tf.compat.v1.train.polynomial_decay(start_epsilon, global_step, n_of_steps,
end_learning_rate=end_epsilon)` from `global_step = tf.compat.v1.train.get_or_create_global_step()`
and passes it as `epsilon_greedy` (a callable epsilon, which EpsilonGreedyPolicy calls on every
action). In eager mode the decay is a callable that reads the step *variable*, so
the traced collect policy reads the current step on every call and epsilon really decays.
Same stand-in agent, policy and driver as the tensorflow/agents#827 case; the agent's
`train_step_counter` is the global step, as in the tf_agents examples. The schedule runs from 1.0
to 0.01 over 50 steps instead of 0.1 to 0.0001 over 10000 so the decay shows within the test.
"""
import numpy as np
import tensorflow as tf

NUM_ACTIONS = 2
DECAY_STEPS = 50


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
    def __init__(self, q_network, optimizer, epsilon_greedy, train_step_counter, gamma=0.99):
        self._q_network = q_network
        self._optimizer = optimizer
        self._epsilon_greedy = epsilon_greedy
        self._gamma = gamma
        self.train_step_counter = train_step_counter
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
    rng = np.random.default_rng(0)
    global_step = tf.compat.v1.train.get_or_create_global_step()
    start_epsilon = 1.0
    n_of_steps = DECAY_STEPS
    end_epsilon = 0.01
    epsilon = tf.compat.v1.train.polynomial_decay(
        start_epsilon,
        global_step,
        n_of_steps,
        end_learning_rate=end_epsilon)
    q_net = QNetwork()
    agent = DqnAgent(q_net, tf.keras.optimizers.Adam(1e-3), epsilon_greedy=epsilon,
                     train_step_counter=global_step)
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
    print(f"epsilon() now returns {float(epsilon()):.2f}; measured exploration rate {explore_rate:.2f}")
    print(f"ORACLE: bug={explore_rate > 0.5} expected_epsilon={float(epsilon()):.2f} "
          f"explore_rate={explore_rate:.2f}")


if __name__ == "__main__":
    main()
