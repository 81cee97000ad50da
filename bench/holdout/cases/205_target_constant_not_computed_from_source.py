"""Gradient of a constant "class channel" with respect to an image tensor it was never computed from.

Source: tensorflow/tensorflow#56968 "tape.gradient is returning none"
(https://github.com/tensorflow/tensorflow/issues/56968). The reporter (reducing a Grad-CAM
style computation) builds `class_channel` as a `tf.constant` inside the tape and asks for its
gradient with respect to a `tf.ones` image; the maintainer's answer: the target is not a
function of the source, make it one. Changes: wrapped in a helper function; otherwise as
posted.
"""
import tensorflow as tf


def channel_gradient(image):
    with tf.GradientTape() as tape:
        class_channel = tf.constant([4.4328732], dtype=tf.float32)
        grads = tape.gradient(class_channel, image)
    return grads


def main():
    ones = tf.ones([1, 128, 128, 1], tf.float32)
    grads = channel_gradient(ones)
    print("grads: ", grads)
    print(f"ORACLE: bug={grads is None} grad_is_none={grads is None}")


if __name__ == "__main__":
    main()
