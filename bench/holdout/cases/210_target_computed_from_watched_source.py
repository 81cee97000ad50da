"""Correct look-alike: the "class channel" is computed from the watched image tensor.

Source: tensorflow/tensorflow#56968 "tape.gradient is returning none"
(https://github.com/tensorflow/tensorflow/issues/56968), the maintainer's answer: watch the
input and make the target a differentiable function of it (their example: `g.watch(x);
y = x * x`). Same helper shape as case 205; the channel is a weighted sum of the image.
"""
import tensorflow as tf


def channel_gradient(image):
    with tf.GradientTape() as tape:
        tape.watch(image)
        class_channel = tf.reduce_sum(image * 4.4328732, axis=[1, 2])
    grads = tape.gradient(class_channel, image)
    return grads


def main():
    ones = tf.ones([1, 128, 128, 1], tf.float32)
    grads = channel_gradient(ones)
    print("grads shape: ", None if grads is None else grads.shape)
    print(f"ORACLE: bug={grads is None} grad_is_none={grads is None}")


if __name__ == "__main__":
    main()
