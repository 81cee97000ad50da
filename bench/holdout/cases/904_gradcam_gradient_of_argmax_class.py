"""Grad-CAM whose target is `tf.argmax` of the predictions: the gradient is None.

Source: Stack Overflow "Gradients are None while implementing GradCam" (mirrored at
https://whosebug.com/question/6458817/Gradients-are-None-while-implementing-GradCam and
http://xiaobeizi.cn/x/6VuucqQqcq). Following the keras.io Grad-CAM example, the user builds a
`cam_model` returning the last conv activation and the predictions, then inside the tape takes
`class_out = tf.argmax(predictions, axis=-1)` and asks `tape.gradient(class_out, conv_out)`, which
is always None; the answer: argmax is not differentiable, select the predicted class's score.
Changes: Xception is replaced by a small conv net whose last conv activation keeps the name
`block14_sepconv2_act`; the image is random; the user's `raise` on None becomes the oracle.
"""
import numpy as np
import tensorflow as tf

conv_layer_name = 'block14_sepconv2_act'


def build_model(num_classes=5):
    inp = tf.keras.Input((32, 32, 3))
    x = tf.keras.layers.SeparableConv2D(16, 3, padding="same")(inp)
    x = tf.keras.layers.Activation("relu", name=conv_layer_name)(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    out = tf.keras.layers.Dense(num_classes, activation="softmax")(x)
    return tf.keras.Model(inp, out)


def main():
    model = build_model()
    image = tf.constant(np.random.default_rng(0).random((1, 32, 32, 3)), tf.float32)

    cam_model = tf.keras.models.Model(
        [model.inputs],
        [model.get_layer(conv_layer_name).output, model.output]
    )

    with tf.GradientTape() as tape:
        conv_out, predictions = cam_model(image)
        class_out = tf.argmax(predictions, axis=-1)

    grads = tape.gradient(class_out, conv_out)

    print("class_out", class_out.numpy(), "dtype", class_out.dtype.name, "grads", grads)
    print(f"ORACLE: bug={grads is None} grad_is_none={grads is None}")


if __name__ == "__main__":
    main()
