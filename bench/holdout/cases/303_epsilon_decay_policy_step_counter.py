"""An epsilon-greedy policy that decays epsilon with a Python step counter bumped in `_action`.

Source: tensorflow/agents#300 "Epsilon Decay in DQN" (https://github.com/tensorflow/agents/issues/300):
"While this works in eval, this doesn't work during training ... So I imagine that during training
this part of code is never processed." The collect driver runs the policy's action inside a
tf.function, so `self._current_step += 1` and the epsilon update run only while it traces: the
counter stops after the trace and epsilon never decays, while the eager eval loop decays it.

Changed from the posted code: tf_agents is not installed here, so the policy is a small class with
the user's `_update_epsilon` / `_action` methods around a Q-network, and the collect driver is
reduced to what it does with the policy (`tf.function(policy.action)` called once per step);
random observations stand in for the environment.
"""
import tensorflow as tf


class DecayingEpsilonGreedyPolicy:
    def __init__(self, q_network, num_actions, epsilon=1.0, decay_steps=5, decay_percentage=10):
        self._q_network = q_network
        self._num_actions = num_actions
        self._epsilon = epsilon
        self._decay_steps = decay_steps
        self._decay_percentage = decay_percentage
        self._current_step = 0

    def _update_epsilon(self):
        step_no = self._current_step
        if step_no % self._decay_steps == 0:
            decay_perc = self._decay_percentage / 100
            self._epsilon = self._epsilon - (self._epsilon * decay_perc)
            if self._epsilon < 0.005:
                self._epsilon = 0.005

        print("Updated epsilon to {0}".format(self._epsilon))

    def _action(self, time_step, policy_state, seed):
        self._current_step += 1
        self._update_epsilon()
        q_values = self._q_network(time_step)
        greedy = tf.argmax(q_values, axis=-1, output_type=tf.int32)
        random_action = tf.random.uniform(tf.shape(greedy), 0, self._num_actions, dtype=tf.int32, seed=seed)
        explore = tf.random.uniform(tf.shape(greedy)) < self._epsilon
        return tf.where(explore, random_action, greedy), policy_state

    def action(self, time_step, policy_state=(), seed=None):
        return self._action(time_step, policy_state, seed)


def main():
    q_net = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(2)])
    num_steps = 20

    # eval: eager loop
    eval_policy = DecayingEpsilonGreedyPolicy(q_net, 2)
    for _ in range(num_steps):
        eval_policy.action(tf.random.normal((1, 4)))

    # training: the driver runs the collect policy's action as a tf.function
    collect_policy = DecayingEpsilonGreedyPolicy(q_net, 2)
    collect_action = tf.function(collect_policy.action)
    for _ in range(num_steps):
        collect_action(tf.random.normal((1, 4)))

    print("eval steps", eval_policy._current_step, "eps", eval_policy._epsilon)
    print("collect steps", collect_policy._current_step, "eps", collect_policy._epsilon)
    bug = collect_policy._current_step != num_steps
    print(f"ORACLE: bug={bug} collect_steps={collect_policy._current_step} calls={num_steps} "
          f"collect_epsilon={collect_policy._epsilon:.3f} eval_epsilon={eval_policy._epsilon:.3f}")


if __name__ == "__main__":
    main()
