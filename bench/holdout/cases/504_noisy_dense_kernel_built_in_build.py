"""NoisyNet layer whose noisy kernel and bias are computed once in `build`, outside any tape.

Source: tensorflow/tensorflow#32729 "ValueError: Variable <tf.Variable
'basic_nstepTD_1/noisy_dense/bias:0' shape=(3,) dtype=float32> has `None` for gradient."
(https://github.com/tensorflow/tensorflow/issues/32729). The reporter's NoisyDense layer (for an
n-step TD agent) computes `self.kernel = self.weight_mu + self.weight_sigma * self.weights_eps`
and the bias the same way inside `build`; training then reports `None` gradients for the layer's
variables. Moving the two lines into `call` makes the error disappear: the sums must be recorded
by the tape of each training step. The environment is replaced by random states and n-step
returns; the agent's training step is a small GradientTape loop. The layer keeps the reporter's
raw `tf.Variable` attributes, which only Keras 2 tracks, so the case runs on tf_keras
(TF_USE_LEGACY_KERAS=1).
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf

kl = tf.keras.layers


class NoisyDense(kl.Layer):
    def __init__(self, units, std_init=0.5):
        super().__init__()
        self.units = units
        self.std_init = std_init

    def build(self, input_shape):
        self.reset_noise(input_shape[-1])
        mu_range = 1 / np.sqrt(input_shape[-1])
        mu_initializer = tf.random_uniform_initializer(-mu_range, mu_range)
        sigma_initializer = tf.constant_initializer(self.std_init / np.sqrt(self.units))

        self.weight_mu = tf.Variable(initial_value=mu_initializer(shape=(input_shape[-1], self.units), dtype="float32"), trainable=True)
        self.weight_sigma = tf.Variable(initial_value=sigma_initializer(shape=(input_shape[-1], self.units), dtype="float32"), trainable=True)
        self.bias_mu = tf.Variable(initial_value=mu_initializer(shape=(self.units,), dtype="float32"), trainable=True)
        self.bias_sigma = tf.Variable(initial_value=sigma_initializer(shape=(self.units,), dtype="float32"), trainable=True)

        self.kernel = self.weight_mu + self.weight_sigma * self.weights_eps
        self.bias = self.bias_mu + self.bias_sigma * self.bias_eps

    def call(self, inputs):
        return tf.matmul(inputs, self.kernel) + self.bias

    def _scale_noise(self, dim):
        noise = tf.random.normal([dim])
        return tf.sign(noise) * tf.sqrt(tf.abs(noise))

    def reset_noise(self, input_shape):
        eps_in = self._scale_noise(input_shape)
        eps_out = self._scale_noise(self.units)
        self.weights_eps = tf.multiply(tf.expand_dims(eps_in, 1), eps_out)
        self.bias_eps = eps_out


class BasicNstepTD(tf.keras.Model):
    def __init__(self, num_actions):
        super().__init__(name="basic_nstepTD")
        self.hidden = kl.Dense(32, activation="relu")
        self.noisy = NoisyDense(num_actions)

    def call(self, states):
        return self.noisy(self.hidden(states))


class Agent:
    def __init__(self, num_actions=3, gamma=0.99, n_step=3):
        self.model = BasicNstepTD(num_actions)
        self.optimizer = tf.keras.optimizers.Adam(1e-3)
        self.gamma, self.n_step = gamma, n_step

    def train_step(self, states, actions, nstep_returns):
        with tf.GradientTape() as tape:
            q = self.model(states)
            q_taken = tf.reduce_sum(q * tf.one_hot(actions, q.shape[-1]), axis=-1)
            loss = tf.reduce_mean(tf.square(nstep_returns - q_taken))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss, grads


def main():
    rng = np.random.default_rng(0)
    agent = Agent()
    states = tf.constant(rng.normal(size=(32, 4)).astype("float32"))
    actions = tf.constant(rng.integers(0, 3, size=32))
    returns = tf.constant(rng.normal(size=32).astype("float32"))
    agent.model(states)

    loss, grads = agent.train_step(states, actions, returns)
    noisy_vars = {id(v) for v in agent.model.noisy.trainable_variables}
    none_names = [v.name for g, v in zip(grads, agent.model.trainable_variables)
                  if g is None and id(v) in noisy_vars]
    print("loss:", float(loss), "None gradients:", none_names)
    bug = len(none_names) > 0
    print(f"ORACLE: bug={bug} noisy_none_grads={len(none_names)}")


if __name__ == "__main__":
    main()
