"""Repeated experiments, each with its own model, optimizer and freshly made tf.function step.

Source: tensorflow/tensorflow#42000 "Report error 'non-first' call when repeate experiment"
(https://github.com/tensorflow/tensorflow/issues/42000), the workaround posted by bhack:
`get_apply_grad_fn()` returns a new tf.function for every experiment, which is then traced
once and reused for all of that experiment's steps.
"""
import numpy as np
import tensorflow as tf


def build_model():
    model = tf.keras.Sequential()
    model.add(tf.keras.Input(shape=[2]))
    model.add(tf.keras.layers.Dense(10))
    model.add(tf.keras.layers.Dense(1))
    return model


def compute_loss(batch_true, batch_pred):
    losses = tf.losses.mse(batch_true, batch_pred)
    loss = tf.reduce_mean(losses)
    return loss


def get_apply_grad_fn():
    @tf.function
    def train_step(model, batch_input, batch_label, optimizer):
        with tf.GradientTape() as tape:
            preds = model(batch_input)
            loss = compute_loss(batch_label, preds)
        trainable_variables = model.trainable_variables
        grads = tape.gradient(loss, trainable_variables)
        optimizer.apply_gradients(grads_and_vars=zip(grads, trainable_variables))
        return loss
    return train_step


def train_epoch(model, optimizer, train_step, x, y):
    for start in range(0, len(x), 8):
        train_step(model, x[start:start + 8], y[start:start + 8], optimizer)


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 2)).astype(np.float32)
    y = rng.normal(size=(32, 1)).astype(np.float32)
    traces = []
    for experiment in range(2):
        model = build_model()
        optimizer = tf.keras.optimizers.Adam(1e-2)
        train_step = get_apply_grad_fn()
        for epoch in range(2):
            train_epoch(model, optimizer, train_step, x, y)
        traces.append(train_step.experimental_get_tracing_count())
    return traces


if __name__ == "__main__":
    try:
        traces = main()
        # the first call creates the optimizer's variables, which tf.function traces twice
        print(f"ORACLE: bug={max(traces) > 2} traces_per_experiment={traces} steps_per_experiment=8")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
