"""Attention NMT training step that prints its predicted token ids with .numpy().

Source: tensorflow/tensorflow#31439 "TensorFlow 1.14 eager execution not working with
tf.function" (https://github.com/tensorflow/tensorflow/issues/31439): inside the tf.function
`train_step` of the NMT-with-attention tutorial, `tf.math.argmax(predictions).numpy()` raises
"'Tensor' object has no attribute 'numpy'". A one-GRU decoder and random ids stand in.
"""
import numpy as np
import tensorflow as tf

vocab, units, BATCH_SIZE = 20, 16, 4
embedding = tf.keras.layers.Embedding(vocab, 8)
gru = tf.keras.layers.GRU(units, return_state=True)
fc = tf.keras.layers.Dense(vocab)
optimizer = tf.keras.optimizers.Adam()
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(inp, targ):
    loss = 0
    with tf.GradientTape() as tape:
        hidden = tf.zeros((BATCH_SIZE, units))
        dec_input = tf.expand_dims([1] * BATCH_SIZE, 1)
        for t in range(1, targ.shape[1]):
            output, hidden = gru(embedding(dec_input), initial_state=hidden)
            predictions = fc(output)
            loss += loss_object(targ[:, t], predictions)
            print(tf.math.argmax(predictions, axis=1).numpy())
            dec_input = tf.expand_dims(targ[:, t], 1)
    variables = embedding.trainable_variables + gru.trainable_variables + fc.trainable_variables
    gradients = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(gradients, variables))
    return loss


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    targ = tf.constant(rng.integers(0, vocab, size=(BATCH_SIZE, 5)))
    try:
        train_step(targ, targ)
        print("ORACLE: bug=False error=none")
    except AttributeError as exc:
        print("AttributeError:", str(exc).strip().splitlines()[-1][:300])
        print("ORACLE: bug=True error=AttributeError")
