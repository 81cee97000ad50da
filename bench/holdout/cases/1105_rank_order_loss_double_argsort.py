"""Ranking loss that compares the orders of y_true and y_pred obtained with argsort(argsort).

Source: keras-team/keras#16663 "No gradients provided for any variable"
(https://github.com/keras-team/keras/issues/16663). The reporter's loss pads y_true,
turns both tensors into rank orders with `tf.argsort(tf.argsort(...))` and sums the
absolute rank differences; with `loss='mse'` training works, with this loss fit() raises
"No gradients provided for any variable". argsort returns integer indices with no
gradient, so nothing connects the loss to the weights. Changed: the DistilBERT encoder
(transformers / tensorflow_models) is replaced by an Embedding + pooling model on random
token ids; the loss function is kept in the reporter's shape.
"""
import numpy as np
import tensorflow as tf
from tensorflow.keras import Model
from tensorflow.keras.layers import Dense, Dropout, Embedding, GlobalAveragePooling1D, Input

MAX_LEN = 16
N_CELLS = 8
PAD_VAL = -1.0
MAX_VAL = 100.0


def calculate_loss(pad_val, max_val):
    def loss(y_true, y_pred):
        # padded cells are sent to the end of the true order
        pad_idx = tf.where(y_true == pad_val)
        fill = tf.fill([tf.shape(pad_idx)[0]], tf.cast(max_val, y_true.dtype))
        y_true = tf.tensor_scatter_nd_update(y_true, pad_idx, fill)
        true_rank = tf.argsort(tf.argsort(y_true))
        predicted_orders = tf.argsort(tf.argsort(y_pred))
        return tf.reduce_sum(tf.abs(true_rank - predicted_orders))

    return loss  # compiling with loss='mse' instead trains fine


def create_model():
    ids = Input(shape=(MAX_LEN,), dtype="int32")
    x = Embedding(100, 16)(ids)
    x = GlobalAveragePooling1D()(x)
    x = Dropout(0.1)(x)
    out = Dense(N_CELLS)(x)
    return Model(ids, out)


def main():
    rng = np.random.default_rng(0)
    ids = rng.integers(1, 100, size=(64, MAX_LEN)).astype("int32")
    ranks = np.stack([rng.permutation(N_CELLS) for _ in range(64)]).astype("float32")
    ranks[:, -2:] = PAD_VAL  # padded cells

    model = create_model()
    model.compile(optimizer="adam", loss=calculate_loss(PAD_VAL, MAX_VAL))
    try:
        model.fit(ids, ranks, batch_size=16, epochs=1, verbose=0)
        err = None
    except ValueError as e:
        err = e
    print("error:", type(err).__name__ if err else None, str(err).splitlines()[0] if err else "")
    no_grads = err is not None and "No gradients provided" in str(err)
    print(f"ORACLE: bug={no_grads} exception={type(err).__name__ if err else None}")


if __name__ == "__main__":
    main()
