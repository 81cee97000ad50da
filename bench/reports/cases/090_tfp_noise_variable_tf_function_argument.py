"""GP noise (a TFP TransformedVariable) passed as an argument to a tf.function loss.

Source: shared/seeds/003_*.txt, a Stack Overflow question "why can't I take the gradient of a
variable passed as an argument to tf.function?": `loss_function_4(..., noise)` gave [None] and
"No gradients provided". With TensorFlow 2.21 / TFP 0.25 the variable passed without an
input_signature keeps its gradient: the symptom is gone.
"""
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp
from tensorflow_probability import bijectors as tfb
from tensorflow_probability import distributions as tfd

constrain_positive = tfb.Shift(np.finfo(np.float64).tiny)(tfb.Exp())
noise = tfp.util.TransformedVariable(initial_value=.1, bijector=constrain_positive, dtype=np.float64, name="noise")
trainable_variables = [noise.variables[0]]
kernel = tfp.math.psd_kernels.ExponentiatedQuadratic()
optimizer = tf.keras.optimizers.Adam()
index_points = tf.constant([[0]], dtype=np.float64)
observations = tf.constant([0], dtype=np.float64)


@tf.function(autograph=False, jit_compile=False)
def loss_function_4(index_points, observations, kernel, observation_noise_variance):
    gp = tfd.GaussianProcess(kernel, index_points, observation_noise_variance=observation_noise_variance)
    return -gp.log_prob(observations)


if __name__ == "__main__":
    with tf.GradientTape() as tape:
        nll_4 = loss_function_4(index_points, observations, kernel, noise)
    grad_4 = tape.gradient(nll_4, trainable_variables)
    print(grad_4)
    optimizer.apply_gradients(zip(grad_4, trainable_variables))
    print(f"ORACLE: bug={grad_4[0] is None} grad_is_none={grad_4[0] is None}")
