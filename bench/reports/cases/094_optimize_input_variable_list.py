"""The answer's version: the input is a tf.Variable and the pairs are built from lists.

Source: tensorflow/tensorflow#31273 (https://github.com/tensorflow/tensorflow/issues/31273),
WindQAQ's answer.
"""
import tensorflow as tf


@tf.function
def train(opt, input):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(input)
    gradients = tape.gradient(loss, [input])
    opt.apply_gradients(zip(gradients, [input]))


opt = tf.keras.optimizers.Adam(learning_rate=1.0)  # the report had 1 (Keras 3 wants a float)
input = tf.Variable(tf.random.normal((1, 1)))

if __name__ == "__main__":
    before = float(input[0, 0])
    train(opt, input)
    after = float(input[0, 0])
    print(f"ORACLE: bug={after >= before} before={before:.4f} after={after:.4f}")
