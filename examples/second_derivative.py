"""A physics-informed loss needs d2u/dx2: two nested tapes, one name."""
import tensorflow as tf

x = tf.linspace(0.0, 1.0, 16)

with tf.GradientTape() as tape:
    tape.watch(x)
    with tf.GradientTape() as tape:  # rebinds `tape`: the outer tape is lost
        tape.watch(x)
        u = tf.sin(3.0 * x)
    du_dx = tape.gradient(u, x)
d2u_dx2 = tape.gradient(du_dx, x)  # RuntimeError: the inner tape is asked twice
