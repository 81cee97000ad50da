"""Consistency model tracking its training step in a non-trainable Variable (the fix).

Source: bayesflow-org/bayesflow#223 "Consistency Models: current training step not correctly
tracked with JIT compilation enabled" (https://github.com/bayesflow-org/bayesflow/issues/223):
as the issue proposes, the step counter becomes a Variable updated with `.assign`, so the
discretization schedule N advances inside the traced step function.
Changed from the package: the inference network and the simulator are replaced by a small Dense
network on random 2-D data, the schedule is the improved-CT curriculum written directly in
keras.ops, and the summary network/adapters are dropped.
"""
import math
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras
import numpy as np
import tensorflow as tf
from keras import ops


class ConsistencyModel(keras.Model):
    def __init__(self, total_steps, s0=2, s1=20, sigma_min=0.002, sigma_max=10.0, rho=7.0, **kwargs):
        super().__init__(**kwargs)
        self.total_steps = float(total_steps)
        self.s0, self.s1 = float(s0), float(s1)
        self.sigma_min, self.sigma_max, self.rho = sigma_min, sigma_max, rho
        self.net = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(2)])
        self.current_step = keras.Variable(0.0, trainable=False, name="current_step")

    def discretization_steps(self, step):
        k_prime = math.floor(self.total_steps / (math.log2(self.s1 / self.s0) + 1))
        return ops.minimum(self.s0 * 2.0 ** ops.floor(step / k_prime), self.s1) + 1.0

    def sigmas(self, n, i):
        a = self.sigma_min ** (1 / self.rho)
        b = self.sigma_max ** (1 / self.rho)
        return (a + i / (n - 1.0) * (b - a)) ** self.rho

    def call(self, inputs):
        x, sigma = inputs
        return x + self.net(ops.concatenate([x, ops.log(sigma)], axis=-1))

    def train_step(self, data):
        x = data
        current_N = self.discretization_steps(ops.convert_to_tensor(self.current_step))
        batch = ops.shape(x)[0]
        i = ops.floor(keras.random.uniform((batch, 1)) * (current_N - 1.0))
        t1 = self.sigmas(current_N, i + 1.0)
        t2 = self.sigmas(current_N, i)
        noise = keras.random.normal(ops.shape(x))
        teacher = ops.stop_gradient(self((x + t2 * noise, t2)))
        with tf.GradientTape() as tape:
            student = self((x + t1 * noise, t1))
            loss = ops.mean((student - teacher) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.current_step.assign(self.current_step + 1.0)
        return {"loss": loss, "N": current_N}


if __name__ == "__main__":
    steps_per_epoch, epochs = 5, 8
    data = np.random.default_rng(0).normal(size=(steps_per_epoch * 16, 2)).astype("float32")
    model = ConsistencyModel(total_steps=steps_per_epoch * epochs)
    model.compile(optimizer=keras.optimizers.Adam(1e-3))
    hist = model.fit(data, batch_size=16, epochs=epochs, verbose=0)
    n_per_epoch = [round(float(v), 1) for v in hist.history["N"]]
    current_step = int(model.current_step.numpy())
    print("N per epoch:", n_per_epoch, "current_step after fit:", current_step)
    frozen = len(set(n_per_epoch)) == 1 and current_step < steps_per_epoch * epochs
    print(f"ORACLE: bug={frozen} current_step={current_step} steps_run={steps_per_epoch * epochs} "
          f"distinct_N={len(set(n_per_epoch))}")
