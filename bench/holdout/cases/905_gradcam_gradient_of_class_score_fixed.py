"""Correct look-alike: Grad-CAM differentiates the predicted class's score, not its argmax index.

Source: the answer to Stack Overflow "Gradients are None while implementing GradCam" (mirrored at
https://whosebug.com/question/6458817/Gradients-are-None-while-implementing-GradCam and
http://xiaobeizi.cn/x/6VuucqQqcq): argmax's result is not differentiable, so the predicted index
is computed with `tf.argmax` and used only to pick the corresponding column of `predictions`; the
gradient of that score w.r.t. the conv activation is a real tensor (as in the keras.io Grad-CAM
example the user followed). Same small model as case 904.
Changes: Xception replaced by a small conv net with the same layer name; random image; the
selection is written with `tf.gather(..., batch_dims=1)`.
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
        class_pred = tf.argmax(predictions, axis=-1)
        class_out = tf.gather(predictions, class_pred, axis=1, batch_dims=1)

    grads = tape.gradient(class_out, conv_out)

    print("class_pred", class_pred.numpy(), "grads shape", None if grads is None else grads.shape)
    print(f"ORACLE: bug={grads is None} grad_is_none={grads is None}")


if __name__ == "__main__":
    main()
