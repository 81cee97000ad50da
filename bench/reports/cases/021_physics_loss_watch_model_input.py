"""Physics-informed custom loss that differentiates the model w.r.t. `model.input` inside fit().

Source: tensorflow/tensorflow#52383 "Inputs to eager execution function cannot be Keras
symbolic tensors, Custom loss function, Tensorflow 2.3.0, Gradient Tape"
(https://github.com/tensorflow/tensorflow/issues/52383). The loss watches the symbolic
`model.input` and calls the model on it; the batch that fit() feeds is never differentiated.
The Pima diabetes CSV is replaced by random data.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras.layers import Dense
from tensorflow.keras.models import Sequential

rng = np.random.default_rng(0)
X = rng.random((64, 8)).astype(np.float32)
y = (rng.random(64) > 0.5).astype(np.float32)

model = Sequential([keras.Input((8,)), Dense(12, activation='relu'), Dense(8, activation='relu'),
                    Dense(1, activation='sigmoid')])


def customLoss(yTrue, yPred):
    x_tensor = tf.convert_to_tensor(model.input, dtype=tf.float32)
    x_tensor = tf.cast(x_tensor, tf.float32)
    with tf.GradientTape() as t:
        t.watch(x_tensor)
        output = model(model.input)
    DyDX = t.gradient(output, x_tensor)
    dy_t = DyDX[:, 0:1]
    R_pred = dy_t
    return tf.reduce_mean(tf.square(R_pred))


def main():
    model.compile(loss=customLoss, optimizer='adam')
    model.fit(X, y, epochs=1, batch_size=16, verbose=0)


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except (ValueError, TypeError, AttributeError) as exc:
        print(f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
