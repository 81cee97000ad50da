"""Adam(...).minimize called inside a tf.function, on a loss that is itself a tf.function.

Source: tensorflow/tensorflow#42183 "Adam optimizer - ValueError: tf.function-decorated function
tried to create variables on non-first call" (https://github.com/tensorflow/tensorflow/issues/42183).
The optimizer is constructed in the traced function. tf.keras is Keras 2 (tf_keras), whose
optimizers have minimize.
"""
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf

y_N = tf.Variable([1., 2., 3.], name="dd")


@tf.function
def loss():
    return -tf.reduce_mean(input_tensor=tf.reduce_sum(input_tensor=tf.math.log(y_N), axis=0))


@tf.function
def run():
    tf.keras.optimizers.Adam(0.5).minimize(loss, var_list=[y_N])


if __name__ == "__main__":
    try:
        run()
        print("ORACLE: bug=False error=none")
    except ValueError as exc:
        print("ValueError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=ValueError")
