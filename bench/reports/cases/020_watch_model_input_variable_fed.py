"""Input gradient requested w.r.t. `model.input` while a Variable is fed to the model.

Source: tensorflow/tensorflow#36596 "tf.keras GradientTape: get gradient with respect to
input" (https://github.com/tensorflow/tensorflow/issues/36596), comment by kphawkins:
`tape.watch(model.input)` then `model(v)`; `tape.gradient(model_vals, model.input)` is None
because `model.input` is a symbolic tensor, not what was computed on.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras

inputs = keras.Input(shape=(3,))
hidden = keras.layers.Dense(8, activation="tanh")(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(hidden))


def main():
    v = tf.Variable(np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(model.input)
        model_vals = model(v)
    by_vars = tape.gradient(model_vals, model.variables)
    by_input = tape.gradient(model_vals, model.input)
    print("w.r.t. variables:", [None if g is None else tuple(g.shape) for g in by_vars])
    print("w.r.t. model.input:", by_input)
    return by_input


if __name__ == "__main__":
    try:
        g = main()
        print(f"ORACLE: bug={g is None} grad_is_none={g is None}")
    except (ValueError, TypeError, AttributeError) as exc:
        print(f"{type(exc).__name__}: {str(exc)[:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
