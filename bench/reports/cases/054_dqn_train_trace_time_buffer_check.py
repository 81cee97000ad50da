"""DQN agent whose tf.function train() checks the Python replay-buffer length.

Source: shared/seeds/001_*.txt, the Stack Overflow question behind "tf.function-decorated
function tried to create variables on non-first call": the second `train(self, TargetNet)`,
which the asker reports as working. Its `if len(self.experience['s']) < self.min_experiences:
return 0` is decided while tracing, when the buffer is still short, so the traced function
returns 0 on every later call and the network never trains. The CartPole loop is replaced
by random transitions.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras


class DQN:
    def __init__(self, num_states, num_actions, gamma=0.99, batch_size=8, min_experiences=16):
        self.num_actions = num_actions
        self.batch_size = batch_size
        self.gamma = gamma
        self.min_experiences = min_experiences
        self.model = keras.Sequential([keras.Input((num_states,)), keras.layers.Dense(16, activation="tanh"),
                                       keras.layers.Dense(num_actions)])
        self.optimizer = keras.optimizers.Adam(1e-3)
        self.experience = {'s': [], 'a': [], 'r': [], 's2': [], 'done': []}

    def predict(self, inputs):
        return self.model(np.atleast_2d(inputs.astype('float32')))

    def add_experience(self, exp):
        for key, value in exp.items():
            self.experience[key].append(value)

    @tf.function
    def train(self, TargetNet):
        if len(self.experience['s']) < self.min_experiences:
            return 0
        ids = np.random.randint(low=0, high=len(self.experience['s']), size=self.batch_size)
        states = np.asarray([self.experience['s'][i] for i in ids])
        actions = np.asarray([self.experience['a'][i] for i in ids])
        rewards = np.asarray([self.experience['r'][i] for i in ids])
        states_next = np.asarray([self.experience['s2'][i] for i in ids])
        dones = np.asarray([self.experience['done'][i] for i in ids])
        value_next = np.max(TargetNet.predict(states_next), axis=1)
        actual_values = np.where(dones, rewards, rewards + self.gamma * value_next)

        with tf.GradientTape() as tape:
            selected_action_values = tf.math.reduce_sum(
                self.predict(states) * tf.one_hot(actions, self.num_actions), axis=1)
            loss = tf.math.reduce_sum(tf.square(actual_values - selected_action_values))
        variables = self.model.trainable_variables
        gradients = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(gradients, variables))


def main():
    rng = np.random.default_rng(0)
    net, target = DQN(4, 2), DQN(4, 2)
    start = [w.copy() for w in net.model.get_weights()]
    for step in range(40):
        net.add_experience({'s': rng.normal(size=4), 'a': int(rng.integers(0, 2)), 'r': 1.0,
                            's2': rng.normal(size=4), 'done': bool(rng.random() < 0.1)})
        net.train(target)
    trained = any(not np.array_equal(a, b) for a, b in zip(start, net.model.get_weights()))
    print("buffer size:", len(net.experience['s']), "trained:", trained)
    print(f"ORACLE: bug={not trained} weights_changed={trained} traces={net.train.experimental_get_tracing_count()}")


if __name__ == "__main__":
    main()
