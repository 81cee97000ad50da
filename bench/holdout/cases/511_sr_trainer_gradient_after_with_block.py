"""Super-resolution Trainer whose `tape.gradient` call sits after the tape's `with` block (correct).

Source: krasserm/super-resolution#41 "indentation"
(https://github.com/krasserm/super-resolution/issues/41). A user asked whether the line
`gradients = tape.gradient(loss_value, self.checkpoint.model.trainable_variables)` in
`Trainer.train_step` (train.py#L83) should be indented into the `with tf.GradientTape() as tape:`
block. The maintainer: only the operations that need to be recorded go inside the tape context;
computing the gradients with the tape can be done outside it. The forward pass and the loss are
inside the block, so every trainable variable gets a gradient. The EDSR model and DIV2K are
replaced by a two-convolution x2 upsampler and random low/high-resolution patches; the checkpoint
directory is a temporary one.
"""
import tempfile
import time

import numpy as np
import tensorflow as tf
from tensorflow.keras.losses import MeanAbsoluteError
from tensorflow.keras.metrics import Mean
from tensorflow.keras.optimizers import Adam


def tiny_sr(scale=2):
    x_in = tf.keras.Input(shape=(None, None, 3))
    x = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu")(x_in)
    x = tf.keras.layers.Conv2D(3 * scale ** 2, 3, padding="same")(x)
    x = tf.keras.layers.Lambda(lambda t: tf.nn.depth_to_space(t, scale))(x)
    return tf.keras.Model(x_in, x)


class Trainer:
    def __init__(self, model, loss, learning_rate, checkpoint_dir):
        self.now = None
        self.loss = loss
        self.checkpoint = tf.train.Checkpoint(step=tf.Variable(0),
                                              psnr=tf.Variable(-1.0),
                                              optimizer=Adam(learning_rate),
                                              model=model)
        self.checkpoint_manager = tf.train.CheckpointManager(checkpoint=self.checkpoint,
                                                             directory=checkpoint_dir,
                                                             max_to_keep=3)
        self.last_gradients_none = None

    @property
    def model(self):
        return self.checkpoint.model

    def train(self, train_dataset, steps):
        loss_mean = Mean()
        ckpt = self.checkpoint
        self.now = time.perf_counter()
        losses = []
        for lr, hr in train_dataset.take(steps - int(ckpt.step.numpy())):
            ckpt.step.assign_add(1)
            loss, n_none = self.train_step(lr, hr)
            loss_mean(loss)
            losses.append(float(loss))
            self.last_gradients_none = int(n_none)
        return losses

    @tf.function
    def train_step(self, lr, hr):
        with tf.GradientTape() as tape:
            lr = tf.cast(lr, tf.float32)
            hr = tf.cast(hr, tf.float32)

            sr = self.checkpoint.model(lr, training=True)
            loss_value = self.loss(hr, sr)

        gradients = tape.gradient(loss_value, self.checkpoint.model.trainable_variables)
        self.checkpoint.optimizer.apply_gradients(zip(gradients, self.checkpoint.model.trainable_variables))

        return loss_value, sum(g is None for g in gradients)


class EdsrTrainer(Trainer):
    def __init__(self, model, checkpoint_dir, learning_rate=1e-3):
        super().__init__(model, loss=MeanAbsoluteError(), learning_rate=learning_rate, checkpoint_dir=checkpoint_dir)


def main():
    rng = np.random.default_rng(0)
    hr = rng.uniform(0, 255, size=(16, 16, 16, 3)).astype("float32")
    lr = hr.reshape(16, 8, 2, 8, 2, 3).mean(axis=(2, 4))
    ds = tf.data.Dataset.from_tensor_slices((lr, hr)).batch(4).repeat()

    with tempfile.TemporaryDirectory() as ckpt_dir:
        trainer = EdsrTrainer(model=tiny_sr(), checkpoint_dir=ckpt_dir)
        losses = trainer.train(ds, steps=20)
    print(f"loss {losses[0]:.2f} -> {losses[-1]:.2f}, None gradients: {trainer.last_gradients_none}")
    bug = trainer.last_gradients_none > 0 or not losses[-1] < losses[0]
    print(f"ORACLE: bug={bug} none_grads={trainer.last_gradients_none} loss_decreased={losses[-1] < losses[0]}")


if __name__ == "__main__":
    main()
