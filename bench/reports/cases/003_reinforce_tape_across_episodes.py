"""REINFORCE agent whose persistent tape spans an episode; leftover data outlives its tape.

Sources: shared/seeds/000_*.txt (the Chinese post on tapes in double loops, CartPole
REINFORCE) and dragen1860/Deep-Learning-with-TensorFlow-book#218
("14章reinforce算法有疑问", https://github.com/dragen1860/Deep-Learning-with-TensorFlow-book/issues/218).
When an episode ends with `break`, the last transition stays in `self.data`; the next
episode trains on it with the new tape, which never recorded it.
The CartPole environment is replaced by a small synthetic one; the sampled action is
indexed `[0, 0]` (NumPy 2 no longer converts a one-element vector with int()).
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers, optimizers

learning_rate = 0.001
gamma = 0.98


class ToyCartPole:
    """Four-number observations, two actions, an episode ends after a few steps."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.t = 0
        return self.rng.normal(size=4).astype(np.float32)

    def step(self, action):
        self.t += 1
        done = self.t >= 4 + int(self.rng.integers(0, 3))
        return self.rng.normal(size=4).astype(np.float32), 1.0, done, {}


class Policy(keras.Model):
    def __init__(self):
        super(Policy, self).__init__()
        self.layer = layers.Dense(128, kernel_initializer='he_normal')
        self.out = layers.Dense(2, kernel_initializer='he_normal')
        self.data = []
        self.optimizer = optimizers.Adam(learning_rate=learning_rate)
        self.none_updates = 0

    def call(self, input_shape):
        out1 = self.layer(input_shape)
        out2 = self.out(out1)
        return out2

    def put_data(self, item):
        self.data.append(item)

    def train_net(self, tape, score, step):
        R = 0
        for r, prob, a, t in self.data[::-1]:
            label = tf.one_hot(a, depth=2)
            R = r + gamma ** (t - 1) * R
            prob = tf.constant(prob)
            label = tf.expand_dims(label, axis=0)
            loss = tf.compat.v1.losses.sigmoid_cross_entropy(label, prob, weights=r)
            loss = (score / step) * loss
            with tape.stop_recording():
                grads = tape.gradient(loss, self.trainable_variables)
            if all(g is None for g in grads):
                self.none_updates += 1
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.data = []


def main():
    pi = Policy()
    env = ToyCartPole(0)
    for _ in range(3):
        score = 0
        step = 0
        s = env.reset()
        with tf.GradientTape(persistent=True) as tape:
            for t in range(1, 501):
                s = tf.constant(s, dtype=tf.float32)
                s = tf.expand_dims(s, axis=0)
                prob = pi(s)
                a = tf.random.categorical(prob, 1)[0, 0]
                a = int(a)
                s_prime, r, done, info = env.step(a)
                pi.put_data((r, prob, a, t))
                s = s_prime
                score += r
                step += 1
                if done:
                    break
                pi.train_net(tape, score, step)
            del tape
    return pi.none_updates


if __name__ == "__main__":
    try:
        n = main()
        print(f"ORACLE: bug={n > 0} none_gradient_updates={n}")
    except ValueError as exc:
        print("ValueError:", str(exc).splitlines()[0])
        print("ORACLE: bug=True error=ValueError")
