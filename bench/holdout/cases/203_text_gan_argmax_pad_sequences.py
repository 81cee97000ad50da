"""Text GAN: the generator's next-word softmax is turned into a token id with np.argmax and padded.

Source: keras-team/keras#17444 "Gradients are [None,...] in text GAN model"
(https://github.com/keras-team/keras/issues/17444; also filed as keras-team/tf-keras#293).
Inside `gen_tape`, the generator's prediction goes through `np.argmax` and `pad_sequences`
before the discriminator sees it, so `gen_tape.gradient(gen_loss,
generator.trainable_variables)` is a list of None. Changes: the tokenised corpus is replaced
by random token ids, vocabulary 200 instead of 63,303, sequence length 12, smaller layers.
"""
import keras
import numpy as np
import tensorflow as tf
from keras import layers
from keras.layers import LSTM, Dense
from keras.utils import pad_sequences

total_words = 200
max_sequence_length = 13

generator = keras.Sequential(
    [
        layers.Embedding(total_words, 16),
        LSTM(32, return_sequences=True),
        LSTM(16),
        layers.Dropout(0.1),
        Dense(total_words // 20),
        Dense(total_words, activation="softmax"),
    ],
    name="generator",
)

discriminator = keras.Sequential(
    [
        layers.Embedding(total_words, 16),
        layers.Bidirectional(LSTM(8)),
        layers.Dropout(0.2),
        Dense(8, activation="relu"),
        Dense(1, activation="sigmoid"),
    ],
    name="discriminator",
)

cross_entropy = keras.losses.BinaryCrossentropy()
generator_optimizer = keras.optimizers.Adam(1e-4)


def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)


def train_step(text):
    with tf.GradientTape() as gen_tape:
        predicted_next_word = generator(text, training=True)
        pred_to_word = pad_sequences([[np.argmax(predicted_next_word, axis=1)[0]]], maxlen=max_sequence_length - 1)
        fake_output = discriminator(pred_to_word, training=True)
        gen_loss = generator_loss(fake_output)
    gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
    return gen_loss, gradients_of_generator


def main():
    rng = np.random.default_rng(0)
    text = tf.constant(rng.integers(1, total_words, size=(1, max_sequence_length - 1)))
    gen_loss, grads = train_step(text)
    n_none = sum(g is None for g in grads)
    print("gen_loss", float(gen_loss), "none grads", n_none, "of", len(grads))
    print(f"ORACLE: bug={n_none == len(grads)} none_grads={n_none}/{len(grads)}")


if __name__ == "__main__":
    main()
