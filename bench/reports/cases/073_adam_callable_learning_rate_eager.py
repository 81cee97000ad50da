"""Adam given a zero-argument callable learning rate that the training loop changes.

Source: tensorflow/tensorflow#31323 "Passing a callable learning_rate to Adam optimizer does not
work as documented" (https://github.com/tensorflow/tensorflow/issues/31323): in TF 2.0 beta the
callable seemed to be read once and cached. With TensorFlow 2.21 and Keras 3 the callable is
called at every eager step: the symptom is gone.
"""
import tensorflow as tf

current_lr = 0.1


def learning_rate():
    return current_lr


def main():
    global current_lr
    x = tf.Variable(3.0)
    optimizer = tf.keras.optimizers.Adam(learning_rate=learning_rate)
    history = []
    for step in range(6):
        if step == 3:
            current_lr = 0.0
        with tf.GradientTape() as tape:
            loss = (x - 1.0) ** 2
        optimizer.apply_gradients([(tape.gradient(loss, x), x)])
        history.append(float(x))
    return history


if __name__ == "__main__":
    h = main()
    frozen_after_zero = all(abs(a - b) < 1e-9 for a, b in zip(h[2:], h[3:]))
    print("x after each step:", h)
    print(f"ORACLE: bug={not frozen_after_zero} lr_change_seen={frozen_after_zero}")
