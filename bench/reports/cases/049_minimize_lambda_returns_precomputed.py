"""Minimising a log-barrier with a loss callable that returns a tensor computed earlier.

Source: tensorflow/tensorflow#42167 "ValueError: No gradients provided for any variable"
(https://github.com/tensorflow/tensorflow/issues/42167): `loss=lambda:cost` with `cost`
computed before the call. tf.keras is Keras 2 (tf_keras), whose optimizers have minimize.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf

y_N = tf.Variable([1., 2., 3.], name="dd")
cost = -tf.reduce_mean(input_tensor=tf.reduce_sum(input_tensor=tf.math.log(y_N), axis=0))

loss = lambda: cost


if __name__ == "__main__":
    try:
        train_step = tf.keras.optimizers.Adam(0.5).minimize(loss, var_list=[y_N])
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc)[:200])
        print("ORACLE: bug=True error=ValueError")
