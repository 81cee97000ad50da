"""dh_t/dh_0 of a SimpleRNN whose initial state was wired into the model before the tape.

Source: tensorflow/tensorflow#54417 "```tf.GradientTape``` returns None gradient in fitting RNN"
(https://github.com/tensorflow/tensorflow/issues/54417). The reporter builds the functional
model around a `stateful=True` SimpleRNN with `rnn(emb_out, initial_state=h0)`, `h0` an eager
tensor, then for each step t opens a tape, `tape.watch(h0)`, runs the model on the batch and
asks for `tape.gradient(h_t, h0)`: None. Under TF 2.21 the first call still starts from h0,
but a stateful layer keeps its last state in a variable, so every later call starts from
that variable (assigned at the end of the previous call) and h_t is no longer connected to
h0. Changes: GloVe embedding matrix and padded reviews replaced by random data, batch 4,
sequence length 6, 8 units; TF 2.6 Keras 2 API kept via legacy Keras.
"""
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Embedding, Input, SimpleRNN
from tensorflow.keras.models import Model

batch_size = 4; input_length = 6; input_dim = 50; output_dim = 5


def main():
    rng = np.random.default_rng(0)
    Emat = rng.normal(size=(input_dim, output_dim)).astype(np.float32)
    xtr_pad = rng.integers(0, input_dim, size=(batch_size, input_length))
    ytr = rng.integers(0, 2, size=(batch_size, 1))

    inp = Input(batch_shape=(batch_size, input_length), name='input')
    emb_out = Embedding(input_dim, output_dim, input_length=input_length,
                        weights=[Emat], trainable=False, name='embedding')(inp)
    rnn = SimpleRNN(8, return_sequences=True, return_state=False, stateful=True, name='simpleRNN')

    h0 = tf.convert_to_tensor(np.random.uniform(size=(batch_size, 8)).astype(np.float32))
    rnn_allstates = rnn(emb_out, initial_state=h0)
    model_rnn = Model(inputs=inp, outputs=rnn_allstates, name='model_rnn')

    ds = tf.data.Dataset.from_tensor_slices((xtr_pad, ytr)).batch(batch_size)
    grads_allsteps = []
    for b, (x_batch_train, y_batch_train) in enumerate(ds):
        for t in range(input_length):
            with tf.GradientTape() as tape:
                tape.watch(h0)
                allstates = model_rnn(x_batch_train)
                h_t = allstates[:, t, :]
            grads = tape.gradient(h_t, h0)
            grads_allsteps.append(grads)
    n_none = sum(g is None for g in grads_allsteps)
    print("None gradients:", n_none, "of", len(grads_allsteps))
    print(f"ORACLE: bug={n_none > 0} none_grads={n_none}/{len(grads_allsteps)}")


if __name__ == "__main__":
    main()
