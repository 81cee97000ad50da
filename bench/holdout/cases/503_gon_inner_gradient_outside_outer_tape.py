"""Gradient Origin Network step with the inner (latent) gradient taken outside the outer tape.

Source: titu1994/tf_GON#1 "Is it necessary to nest the two GradientTapes?"
(https://github.com/titu1994/tf_GON/issues/1). The user proposed computing the latent
`z = -inner_tape.gradient(L_inner, z)` first and only then opening the tape for the outer loss,
arguing that the weight update only depends on the reconstruction error. The maintainer: it is
necessary, L_outer depends on the inner gradient computation; without the nesting the loss "jumps
around its initial scale and fails to drop properly". Without the outer tape recording the inner gradient,
`z` is a constant for it and the second-order term of the weight gradient is silently lost.
MNIST and tf_siren are replaced by a random 8x8 batch and a small sine-activated MLP; the symptom
is measured by comparing the weight gradients with those of the nested version.
"""
import numpy as np
import tensorflow as tf

BATCH_SIZE = 4
LATENT_DIM = 8
ROWS = COLS = 8
CHANNELS = 1


class Sine(tf.keras.layers.Layer):
    def call(self, x):
        return tf.sin(30.0 * x)


def build_model():
    return tf.keras.Sequential([
        tf.keras.layers.Dense(32), Sine(),
        tf.keras.layers.Dense(32), Sine(),
        tf.keras.layers.Dense(CHANNELS, activation="sigmoid"),
    ])


def get_mgrid(side):
    t = np.linspace(-1.0, 1.0, side, dtype=np.float32)
    return np.stack(np.meshgrid(t, t, indexing="ij"), -1).reshape(-1, 2)


c = tf.constant(np.stack([get_mgrid(ROWS) for _ in range(BATCH_SIZE)]))  # coordinates


@tf.function
def train_step(x, model):
    x = tf.reshape(x, [x.shape[0], -1, CHANNELS])

    with tf.GradientTape() as inner_tape:
        # compute the gradients of the inner loss with respect to zeros (gradient origin)
        z = tf.zeros([BATCH_SIZE, 1, LATENT_DIM])
        inner_tape.watch(z)
        z_rep = tf.tile(z, (1, c.shape[1], 1))
        g = model(tf.concat((c, z_rep), axis=-1))
        L_inner = tf.reduce_mean(tf.reduce_sum((g - x) ** 2, axis=1))
    z = -inner_tape.gradient(L_inner, z)

    with tf.GradientTape() as outer_tape:
        # now with z as our new latent points, optimise the data fitting loss
        z_rep = tf.tile(z, (1, c.shape[1], 1))
        g = model(tf.concat((c, z_rep), axis=-1))
        L_outer = tf.reduce_mean(tf.reduce_sum((g - x) ** 2, axis=1))

    grads = outer_tape.gradient(L_outer, model.trainable_variables)
    return grads, L_outer


@tf.function
def reference_grads(x, model):
    # the repository's nested version, used only to measure the symptom
    x = tf.reshape(x, [x.shape[0], -1, CHANNELS])
    with tf.GradientTape() as outer_tape:
        with tf.GradientTape() as inner_tape:
            z = tf.zeros([BATCH_SIZE, 1, LATENT_DIM])
            inner_tape.watch(z)
            g = model(tf.concat((c, tf.tile(z, (1, c.shape[1], 1))), axis=-1))
            L_inner = tf.reduce_mean(tf.reduce_sum((g - x) ** 2, axis=1))
        z = -inner_tape.gradient(L_inner, z)
        g = model(tf.concat((c, tf.tile(z, (1, c.shape[1], 1))), axis=-1))
        L_outer = tf.reduce_mean(tf.reduce_sum((g - x) ** 2, axis=1))
    return outer_tape.gradient(L_outer, model.trainable_variables)


def main():
    tf.random.set_seed(0)
    model = build_model()
    x = tf.random.uniform([BATCH_SIZE, ROWS, COLS, CHANNELS], seed=1)
    _ = model(tf.zeros([BATCH_SIZE, ROWS * COLS, 2 + LATENT_DIM]))

    grads, loss = train_step(x, model)
    ref = reference_grads(x, model)
    rel = max(float(tf.norm(a - b) / (tf.norm(b) + 1e-12)) for a, b in zip(grads, ref))
    print("loss:", float(loss), "max relative gradient difference vs nested:", rel)
    bug = rel > 1e-3
    print(f"ORACLE: bug={bug} second_order_term_lost={bug} max_rel_grad_diff={rel:.3g}")


if __name__ == "__main__":
    main()
