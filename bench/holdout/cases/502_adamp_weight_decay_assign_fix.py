"""AdamP optimizer after the maintainer's fix: weight decay is written back with `state_ops.assign`.

Source: taki0112/AdamP-Tensorflow#2 "AttributeError: 'Tensor' object has no attribute 'assign_sub'"
(https://github.com/taki0112/AdamP-Tensorflow/issues/2), commit 9517604 "assign_sub fix": the
decayed value goes through `var = state_ops.assign(var, var * (1 - lr * wd * ratio))`, so `var`
stays a variable handle for the following `assign_sub`. (In the thread one user still saw the error
on TF 2.2; on TF 2.21 with tf_keras the fixed optimizer trains.) Same small Dense classifier on random
data as the positive case; projection reduced to `wd_ratio = 1`. Keras 2 OptimizerV2 code, so it
runs on tf_keras (TF_USE_LEGACY_KERAS=1).
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import math_ops, state_ops, control_flow_ops


class AdamP(tf.keras.optimizers.legacy.Optimizer):
    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
                 weight_decay=0.0, nesterov=False, name="AdamP", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon
        self.weight_decay = weight_decay
        self.nesterov = nesterov

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        local_step = math_ops.cast(self.iterations + 1, var_dtype)
        beta_1_t = tf.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = tf.identity(self._get_hyper("beta_2", var_dtype))
        apply_state[(var_device, var_dtype)].update(dict(
            lr=apply_state[(var_device, var_dtype)]["lr_t"],
            beta_1_t=beta_1_t, one_minus_beta_1_t=1 - beta_1_t,
            beta_2_t=beta_2_t, one_minus_beta_2_t=1 - beta_2_t,
            bias_correction1=1 - math_ops.pow(beta_1_t, local_step),
            bias_correction2=1 - math_ops.pow(beta_2_t, local_step),
            weight_decay=tf.convert_to_tensor(self.weight_decay, var_dtype),
            epsilon=tf.convert_to_tensor(self.epsilon, var_dtype)))

    def _resource_apply_dense(self, grad, var, apply_state=None):
        var_device, var_dtype = var.device, var.dtype.base_dtype
        coefficients = ((apply_state or {}).get((var_device, var_dtype))
                        or self._fallback_apply_state(var_device, var_dtype))

        m = self.get_slot(var, "m")
        m_t = state_ops.assign(m, m * coefficients["beta_1_t"] + grad * coefficients["one_minus_beta_1_t"],
                               use_locking=self._use_locking)
        v = self.get_slot(var, "v")
        v_t = state_ops.assign(v, v * coefficients["beta_2_t"] + (grad * grad) * coefficients["one_minus_beta_2_t"],
                               use_locking=self._use_locking)

        denorm = (math_ops.sqrt(v_t) / math_ops.sqrt(coefficients["bias_correction2"])) + coefficients["epsilon"]
        step_size = coefficients["lr"] / coefficients["bias_correction1"]
        perturb = m_t / denorm

        wd_ratio = 1

        # Weight decay
        if self.weight_decay > 0:
            var = state_ops.assign(var, var * (1 - coefficients["lr"] * coefficients["weight_decay"] * wd_ratio), use_locking=self._use_locking)

        var_update = state_ops.assign_sub(var, step_size * perturb, use_locking=self._use_locking)

        return control_flow_ops.group(*[var_update, m_t, v_t])

    def get_config(self):
        config = super().get_config()
        config.update(weight_decay=self.weight_decay)
        return config


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 8)).astype("float32")
    y = rng.integers(0, 3, size=64)

    model = tf.keras.Sequential([
        tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
        tf.keras.layers.Dense(3),
    ])
    model.compile(optimizer=AdamP(learning_rate=0.01, weight_decay=1e-2),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    try:
        w0 = model.layers[0].kernel.numpy().copy()
        model.fit(x, y, batch_size=16, epochs=1, verbose=0)
        moved = bool(np.abs(model.layers[0].kernel.numpy() - w0).max() > 0)
        print(f"ORACLE: bug=False error=none weights_updated={moved}")
    except (AttributeError, TypeError, ValueError) as exc:
        print(f"{type(exc).__name__}: {str(exc).splitlines()[-1][:160]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
