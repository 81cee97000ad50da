"""`model.predict_on_batch(batch).ravel()` in a character-sampling loop.

Source: tensorflow/tensorflow#35933 "'tensorflow.python.framework.ops.EagerTensor' object has no
attribute 'ravel'" (https://github.com/tensorflow/tensorflow/issues/35933). Under TF 2.1,
`predict_on_batch` returned an EagerTensor, which has no NumPy `.ravel()`. Keras 3 (TF 2.21) returns
a NumPy array from `predict_on_batch`, so the user's line runs: a negative (the report's symptom is
gone).

Changed from the posted code: no JSON vocabulary or saved weights; a small Embedding/LSTM/Dense
model over 12 "characters" with random weights, a 10-step sequence; the float32 probabilities
are renormalised before `np.random.choice`, which checks that they sum to 1.
"""
import numpy as np
import tensorflow as tf


def make_model(unique_chars):
    return tf.keras.Sequential([
        tf.keras.Input(batch_shape=(1, 1)),
        tf.keras.layers.Embedding(unique_chars, 8),
        tf.keras.layers.LSTM(16),
        tf.keras.layers.Dense(unique_chars, activation="softmax"),
    ])


def generate_sequence(initial_index, seq_length, unique_chars=12):
    model = make_model(unique_chars)
    sequence_index = [initial_index]

    for _ in range(seq_length):
        batch = np.zeros((1, 1))
        batch[0, 0] = sequence_index[-1]

        predicted_probs = model.predict_on_batch(batch).ravel()
        predicted_probs = predicted_probs / predicted_probs.sum()
        sample = np.random.choice(range(unique_chars), size=1, p=predicted_probs)

        sequence_index.append(sample[0])
    return sequence_index


def main():
    err = None
    try:
        seq = generate_sequence(3, 10)
        print(seq)
    except AttributeError as e:
        err = e
        print(type(e).__name__, e)
    name = type(err).__name__ if err is not None else "None"
    print(f"ORACLE: bug={err is not None} exception={name}")


if __name__ == "__main__":
    main()
