"""VPG agent passes the Python bool `test` to its tf.function action body: one graph per value.

Source: keiohta/tf2rl#99 "A lot of warning for tf.function retracing"
(https://github.com/keiohta/tf2rl/issues/99): from TF 2.3 the unit tests print "6 out of the
last 11 calls to <function VPG._get_action_body> triggered tf.function retracing"; the
maintainers attribute it to "(3) passing Python objects instead of tensors", and the fix
(tf2rl#100, https://github.com/keiohta/tf2rl/pull/100, commit "Ensure tf.Tensor for
VPG._get_action_body") changes `self._get_action_body(state, test)` to
`self._get_action_body(tf.constant(state, dtype=tf.float32), tf.constant(test))`.
`test` is a Python bool that flips between exploration (False) and evaluation (True), so the
action body is traced once per value and again whenever a new value combination shows up.
Changes: tf2rl's CategoricalActor/Categorical distribution are condensed into one Keras model;
a random 4-dimensional observation replaces the gym environment; collection and evaluation
alternate three times. The actor is called with `test=test` as a keyword (Keras 3 refuses a
Python bool as a positional call argument; tf2rl ran on Keras 2).
"""
import numpy as np
import tensorflow as tf

# traces of _get_action_body: counted by experimental_get_tracing_count() in main


class CategoricalActor(tf.keras.Model):
    def __init__(self, state_shape, action_dim, units=(32, 32), name="CategoricalActor"):
        super().__init__(name=name)
        self.action_dim = action_dim
        self.l1 = tf.keras.layers.Dense(units[0], activation="relu")
        self.l2 = tf.keras.layers.Dense(units[1], activation="relu")
        self.prob = tf.keras.layers.Dense(action_dim, activation="softmax")
        self(tf.constant(np.zeros(shape=(1,) + state_shape, dtype=np.float32)))

    def call(self, states, test=False):
        probs = self.prob(self.l2(self.l1(states)))
        if test:
            action = tf.math.argmax(probs, axis=1)
        else:
            action = tf.squeeze(tf.random.categorical(tf.math.log(probs), 1), axis=1)
        log_prob = tf.reduce_sum(
            tf.one_hot(action, depth=self.action_dim) * tf.math.log(probs + 1e-8), axis=1)
        return action, log_prob, probs


class VPG:
    def __init__(self, state_shape, action_dim):
        self.actor = CategoricalActor(state_shape, action_dim)
        self._state_ndim = np.array(state_shape).shape[0]

    def get_action(self, state, test=False):
        msg = "Input instance should be np.ndarray, not {}".format(type(state))
        assert isinstance(state, np.ndarray), msg

        is_single_input = state.ndim == self._state_ndim
        if is_single_input:
            state = np.expand_dims(state, axis=0).astype(np.float32)
        action, logp, _ = self._get_action_body(state, test)

        if is_single_input:
            return action.numpy()[0], logp.numpy()
        else:
            return action.numpy(), logp.numpy()

    @tf.function
    def _get_action_body(self, state, test):
        # (the case counts traces with experimental_get_tracing_count, see main)
        return self.actor(state, test=test)


def main():
    policy = VPG(state_shape=(4,), action_dim=2)
    rng = np.random.default_rng(0)
    for _ in range(3):
        for _ in range(5):  # collect with exploration
            policy.get_action(rng.normal(size=4).astype(np.float32), test=False)
        for _ in range(2):  # evaluate greedily
            policy.get_action(rng.normal(size=4).astype(np.float32), test=True)
    traces = policy._get_action_body.experimental_get_tracing_count()
    print("traces of _get_action_body:", traces)
    print(f"ORACLE: bug={traces > 1} action_body_traces={traces}")


if __name__ == "__main__":
    main()
