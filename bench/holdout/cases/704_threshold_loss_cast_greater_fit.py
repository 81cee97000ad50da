"""A custom Keras loss thresholds the predictions with `tf.cast(y_pred > 0.5, tf.float32)` before
the squared error: the comparison has no gradient, so `model.fit` raises
"No gradients provided for any variable".

Source: "Custom Gradients in TensorFlow 2.13: How to Implement Non-Differentiable Losses"
(https://markaicode.com/custom-gradients-non-differentiable-losses), whose `problematic_loss`
example is this loss and whose stated symptom is that error. Changed: the post shows only the
loss; here it is compiled into a small binary classifier trained with `fit` on random data.
"""
import numpy as np
import tensorflow as tf


def problematic_loss(y_true, y_pred):
    # This operation isn't differentiable
    y_pred_binary = tf.cast(y_pred > 0.5, tf.float32)
    return tf.reduce_mean(tf.square(y_true - y_pred_binary))


def build_classifier():
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(10,)),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(1, activation="sigmoid"),
    ])
    model.compile(optimizer="adam", loss=problematic_loss)
    return model


def main():
    x = np.random.rand(64, 10).astype("float32")
    y = (np.random.rand(64, 1) > 0.5).astype("float32")
    model = build_classifier()
    err = None
    try:
        model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    except ValueError as e:
        err = e
    print("error:", str(err)[:120] if err else None)
    bug = err is not None and "No gradients provided" in str(err)
    print(f"ORACLE: bug={bug} exception={type(err).__name__ if err else None} no_gradients={bug}")


if __name__ == "__main__":
    main()
