"""CNN training loop with a tape opened with watch_accessed_variables=False and nothing watched.

Source: "Out of memory OOM using tensorflow gradient tape but only happens when I append a list",
a Stack Overflow question mirrored at https://e-learn.cn/topic/4021299. The question is about
memory; its training step, as posted, asks for the gradients of the model's variables and of
`x_var` from a tape that was told not to watch accessed variables and never watches any.
The (1000, 3253) data set is replaced by random rows.
"""
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((64, 1)), tf.keras.layers.Conv1D(4, 5, activation="relu"),
                             tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(3)])
los_func = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opti_func = tf.keras.optimizers.Adam(1e-3)
epoch_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()


def main():
    rng = np.random.default_rng(0)
    train_dataset = tf.data.Dataset.from_tensor_slices(
        (rng.normal(size=(32, 64, 1)).astype(np.float32), rng.integers(0, 3, size=32))).batch(8)
    sa_input = []
    #create a batch loop
    for x, y_true in train_dataset:
        #create a tape to record actions

        with tf.GradientTape(watch_accessed_variables=False) as tape:
            x_var = tf.Variable(x)

            y_pred = model(x_var, training=True)
            loss = los_func(y_true, y_pred)
        epoch_accuracy.update_state(y_true, y_pred)

        gradients, something = tape.gradient(loss, (model.trainable_variables, x_var))
        #sa_input.append(tape.gradient(loss, x_var))
        del tape

        #apply gradients
        opti_func.apply_gradients(zip(gradients, model.trainable_variables))


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
