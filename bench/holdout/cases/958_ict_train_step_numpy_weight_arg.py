"""Interpolation-consistency training step that receives the ramp-up weight `w` as a NumPy scalar.

Source: ryancheunggit/tensorflow2_model_zoo#13 "Performance issue in cifar10_cnn_ict.py"
(https://github.com/ryancheunggit/tensorflow2_model_zoo/issues/13): a static checker reports that
the Python value `w`, recomputed every epoch, is passed to the tf.function `train_step`, so each
epoch would trace a new graph. But `w = min(W_MAX, 50 / (1 + np.exp(...)))` is a `numpy.float64`,
and TF 2.21 converts NumPy scalars to tensors (cache key: dtype and shape, not value): the step is
traced once for all epochs. The report does not hold on TF 2.21.
Changes: CIFAR-10 becomes 32 random 8x8 images (half labelled), the CNN has one conv block, 4
epochs. Because `w` now arrives as a float64 tensor, the consistency term casts it to float32
(older TF baked the NumPy value into the graph as a constant). `np.random.beta` inside `mixup` (a
different problem, not part of this report) is replaced by a TF Beta draw built from two Gamma
samples, so this case holds only the reported pattern.
"""
from itertools import cycle

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

BATCH_SIZE = 4
NUM_CLASS = 10
NUM_EPOCHS = 4
LEARNING_RATE = 1e-3
MIXUP_ALPHA = .5
EMA_DECAY = .999
W_MAX = 50


class ConvBlock(keras.Model):
    """Convolution block: (Conv - BN - ReLu) -> Avg Pooling."""
    def __init__(self, out_channels):
        super(ConvBlock, self).__init__()
        self.conv1 = layers.Conv2D(filters=out_channels, kernel_size=(3, 3), use_bias=False)
        self.bn1 = layers.BatchNormalization()
        self.pooling = layers.AveragePooling2D(pool_size=(2, 2))

    def call(self, x, training=True):
        x = tf.nn.relu(self.bn1(self.conv1(x), training=training))
        return self.pooling(x)


class Classifier(keras.Model):
    def __init__(self, num_class):
        super(Classifier, self).__init__()
        self.hidden = layers.Dense(units=16)
        self.classifier = layers.Dense(units=num_class)

    def call(self, x, training=True):
        if training:
            x = tf.nn.relu(tf.nn.dropout(self.hidden(x), .2))
        else:
            x = tf.nn.relu(self.hidden(x))
        return tf.nn.softmax(self.classifier(x))


class CNN(keras.Model):
    def __init__(self, num_class=NUM_CLASS):
        super(CNN, self).__init__()
        self.feature_extraction = ConvBlock(out_channels=8)
        self.feature = layers.GlobalAveragePooling2D()
        self.classifier = Classifier(num_class=num_class)

    def call(self, x, training=True):
        x = self.feature_extraction(x, training=training)
        x = self.feature(x)
        return self.classifier(x, training=training)


def _copy_model_weights(from_model, to_model):
    for from_val, to_val in zip(from_model.variables, to_model.variables):
        to_val.assign(from_val)


def _ema_model_weights(from_model, to_model, decay=EMA_DECAY):
    for from_val, to_val in zip(from_model.variables, to_model.variables):
        to_val.assign(decay * to_val + (1 - decay) * from_val)


def _beta(alpha):
    g1 = tf.random.gamma([], alpha)
    g2 = tf.random.gamma([], alpha)
    return g1 / (g1 + g2)


def train():
    rng = np.random.default_rng(0)
    x_train = rng.uniform(0, 1, (16, 8, 8, 3)).astype('float32')
    y_train = rng.integers(0, NUM_CLASS, (16, 1))
    x_valid = rng.uniform(0, 1, (16, 8, 8, 3)).astype('float32')
    y_valid = rng.integers(0, NUM_CLASS, (16, 1))
    train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(BATCH_SIZE)
    train_u_dataset = tf.data.Dataset.from_tensor_slices((x_valid, y_valid)).batch(2 * BATCH_SIZE)

    model = CNN()
    ema_model = CNN()
    init_batch, _ = next(iter(train_dataset.take(1)))
    _, _ = model(init_batch, training=False), ema_model(init_batch, training=False)
    _copy_model_weights(ema_model, model)

    data_criterion = keras.losses.SparseCategoricalCrossentropy()
    consistency_criterion = keras.losses.MeanSquaredError()
    optimizer = keras.optimizers.Adam(learning_rate=LEARNING_RATE)
    train_data_loss = keras.metrics.Mean()
    train_consistency_loss = keras.metrics.Mean()

    @tf.function
    def mixup(u1, u2, alpha=MIXUP_ALPHA):
        """Mixup unlabeled data, also use teacher model to guess label."""
        lambd = _beta(alpha)
        q1 = ema_model(u1, training=False)
        q2 = ema_model(u2, training=False)
        u_mixed = lambd * u1 + (1 - lambd) * u2
        q_guessed = lambd * q1 + (1 - lambd) * q2
        return u_mixed, q_guessed

    @tf.function
    def train_step(x_batch, y_batch, u_batch_1, u_batch_2, w):
        u_mixed, q_guessed = mixup(u_batch_1, u_batch_2)
        with tf.GradientTape() as tape:
            u_out = model(u_mixed, training=False)
            x_out = model(x_batch, training=True)
            data_loss = data_criterion(y_batch, x_out)
            consistency_loss = tf.cast(w, tf.float32) * consistency_criterion(q_guessed, u_out)
            loss = data_loss + consistency_loss
        grad = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grad, model.trainable_variables))
        _ema_model_weights(model, ema_model)
        train_data_loss(data_loss)
        train_consistency_loss(consistency_loss)

    ws = []
    for epoch in range(NUM_EPOCHS):
        # ict loss weight, peaks at W_MAX in sigmoid fashion
        w = min(W_MAX, 50 / (1 + np.exp(NUM_EPOCHS / 8 - epoch)))
        ws.append(w)
        for idx, ((x_batch, y_batch), (u_batch, _)) in enumerate(zip(train_dataset, cycle(train_u_dataset))):
            if u_batch.shape[0] != x_batch.shape[0] * 2:
                continue
            u_batch_1 = u_batch[:BATCH_SIZE]
            u_batch_2 = u_batch[BATCH_SIZE:]
            train_step(x_batch, y_batch, u_batch_1, u_batch_2, w)
    return train_step.experimental_get_tracing_count(), ws


def main():
    traces, ws = train()
    print("w per epoch:", [round(float(v), 3) for v in ws], type(ws[0]).__name__)
    retraced_per_epoch = traces >= NUM_EPOCHS
    print(f"ORACLE: bug={retraced_per_epoch} traces={traces} epochs={NUM_EPOCHS}")


if __name__ == "__main__":
    main()
