"""Encoder-decoder whose encoder output is turned into token ids by Lambda(K.argmax).

Source: keras-team/keras#11157 "backend argmax has none for gradients. Can you even define
one?" (https://github.com/keras-team/keras/issues/11157). Everything before the argmax gets
no gradient. Vocabulary and sizes are shrunk, data is random.
"""
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import backend as K
from tensorflow.keras.layers import LSTM, Dense, Embedding, Input, Lambda
from tensorflow.keras.models import Model

vocabulary = 30
latent_dim = 16
seq_len = 6

encoder_inputs = Input(shape=(seq_len,))
encoder_dense = Dense(vocabulary, activation='softmax')
encoder_outputs = Embedding(vocabulary, latent_dim)(encoder_inputs)
encoder_outputs = LSTM(latent_dim, return_sequences=True)(encoder_outputs)
encoder_outputs = encoder_dense(encoder_outputs)
encoder_outputs = Lambda(K.argmax, arguments={'axis': -1})(encoder_outputs)
encoder_outputs = Lambda(K.cast, arguments={'dtype': 'float32'})(encoder_outputs)

decoder_dense = Dense(vocabulary, activation='softmax')
decoder_outputs = Dense(seq_len)(encoder_outputs)
decoder_outputs = decoder_dense(decoder_outputs)
model = Model(encoder_inputs, decoder_outputs)


def main():
    rng = np.random.default_rng(0)
    x = rng.integers(0, vocabulary, size=(8, seq_len)).astype(np.float32)
    y = rng.integers(0, vocabulary, size=(8,))
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    names = [v.path for v, g in zip(model.trainable_variables, grads) if g is None]
    print("no gradient:", names)
    encoder_vars = len(model.trainable_variables) - 4
    print(f"ORACLE: bug={len(names) >= encoder_vars} none_grads={len(names)}/{len(grads)}")


if __name__ == "__main__":
    main()
