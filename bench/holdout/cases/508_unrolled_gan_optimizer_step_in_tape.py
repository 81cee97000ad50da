"""Unrolled GAN whose discriminator is unrolled with a Keras optimizer inside the generator's tape.

Source: poolio/unrolled_gan#4 "Question about graph replace with keras Adam"
(https://github.com/poolio/unrolled_gan/issues/4). The generator loss of an unrolled GAN must be
differentiated through the K discriminator updates. The maintainer (poolio): TensorFlow's built-in
optimizers update the variables with fused ops that are "not differentiable"; one needs a
differentiable `new_state, new_params = optimizer_step(cur_state, cur_params, gradient)`. This
case is the notebook's TF 1 unrolling (graph_replace of the discriminator variables) rewritten the
way a TF 2 user reaches for it: `d_optimizer.apply_gradients(...)` inside the generator's tape. The
update is an in-place assignment, so the generator gradient sees the unrolled discriminator only as
a constant and the unrolling term is silently dropped. The notebook's 2-D mixture of Gaussians and
MLPs are replaced by random data and tiny networks; the symptom is measured against the same
unrolled step written as a differentiable SGD update on tensors.
"""
import numpy as np
import tensorflow as tf

UNROLL_STEPS = 3
D_LR = 0.5
tf.keras.utils.set_random_seed(0)


class Discriminator:
    def __init__(self):
        init = tf.random_normal_initializer(stddev=0.5, seed=1)
        self.w1 = tf.Variable(init([2, 16]))
        self.b1 = tf.Variable(tf.zeros([16]))
        self.w2 = tf.Variable(init([16, 1]))
        self.b2 = tf.Variable(tf.zeros([1]))
        self.trainable_variables = [self.w1, self.b1, self.w2, self.b2]

    def __call__(self, x, params=None):
        w1, b1, w2, b2 = params if params is not None else self.trainable_variables
        return tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2) + b2


generator = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="tanh"), tf.keras.layers.Dense(2)])
discriminator = Discriminator()
d_optimizer = tf.keras.optimizers.SGD(D_LR)
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def d_loss_fn(real, fake, params=None):
    r, f = discriminator(real, params), discriminator(fake, params)
    return bce(tf.ones_like(r), r) + bce(tf.zeros_like(f), f)


def g_loss_fn(fake, params=None):
    f = discriminator(fake, params)
    return bce(tf.ones_like(f), f)


def unrolled_generator_grads(z, real):
    backup = [v.numpy() for v in discriminator.trainable_variables]
    with tf.GradientTape() as g_tape:
        fake = generator(z)
        for _ in range(UNROLL_STEPS):
            with tf.GradientTape() as d_tape:
                d_loss = d_loss_fn(real, fake)
            d_grads = d_tape.gradient(d_loss, discriminator.trainable_variables)
            d_optimizer.apply_gradients(zip(d_grads, discriminator.trainable_variables))
        g_loss = g_loss_fn(fake)
    g_grads = g_tape.gradient(g_loss, generator.trainable_variables)
    for v, b in zip(discriminator.trainable_variables, backup):
        v.assign(b)
    return g_grads


def differentiable_unrolled_grads(z, real):
    # reference: the same K SGD steps written on tensors, as the maintainer describes
    with tf.GradientTape() as g_tape:
        fake = generator(z)
        params = [tf.identity(v) for v in discriminator.trainable_variables]
        for _ in range(UNROLL_STEPS):
            with tf.GradientTape() as d_tape:
                d_tape.watch(params)
                d_loss = d_loss_fn(real, fake, params)
            d_grads = d_tape.gradient(d_loss, params)
            params = [p - D_LR * g for p, g in zip(params, d_grads)]
        g_loss = g_loss_fn(fake, params)
    return g_tape.gradient(g_loss, generator.trainable_variables)


def main():
    rng = np.random.default_rng(0)
    z = tf.constant(rng.normal(size=(64, 4)).astype("float32"))
    real = tf.constant(rng.normal(loc=2.0, size=(64, 2)).astype("float32"))
    generator(z)

    ref = differentiable_unrolled_grads(z, real)
    got = unrolled_generator_grads(z, real)
    rel = max(float(tf.norm(a - b) / (tf.norm(b) + 1e-12)) for a, b in zip(got, ref))
    print("max relative difference of generator gradients vs differentiable unroll:", rel)
    bug = rel > 1e-3
    print(f"ORACLE: bug={bug} unroll_term_lost={bug} max_rel_grad_diff={rel:.3g}")


if __name__ == "__main__":
    main()
