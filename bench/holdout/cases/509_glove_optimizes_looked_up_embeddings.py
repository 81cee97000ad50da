"""TF 2 port of GloVe that hands the looked-up embedding rows, not the embedding variables, to the optimizer.

Source: monarch-initiative/embiggen#124 "GloVe crash"
(https://github.com/monarch-initiative/embiggen/issues/124), about the prototype TF 2 GloVe code
of embiggen PR #70. `run_optimization` takes the gradient of the loss with respect to
`embed_in, embed_out, embed_bias_in, embed_bias_out`, the results of `tf.nn.embedding_lookup` on
the four `tf.Variable`s, and passes these tensors to `optimizer.apply_gradients`. Training crashes
(`'EagerTensor' object has no attribute '_in_graph_mode'` on TF 2.1); the reporter traced it to
the lookups returning immutable EagerTensors where the optimizer needs the variables. The
Dickens text and its co-occurrence matrix are replaced by random word ids and counts; the number of
steps is cut to a handful.
"""
import numpy as np
import tensorflow as tf

vocabulary_size = 50
embedding_size = 8
batch_size = 16
epsilon = 1.0

rng = np.random.default_rng(0)
cooc_mat = rng.integers(0, 150, size=(vocabulary_size, vocabulary_size)).astype(np.float32)

# Variables.
in_embeddings = tf.Variable(
    tf.random.uniform([vocabulary_size, embedding_size], -1.0, 1.0), name='in.embeddings')
in_bias_embeddings = tf.Variable(tf.random.uniform([vocabulary_size], 0.0, 0.01, dtype=tf.float32), name='in.embeddings_bias')
out_embeddings = tf.Variable(
    tf.random.uniform([vocabulary_size, embedding_size], -1.0, 1.0), name='out.embeddings')
out_bias_embeddings = tf.Variable(tf.random.uniform([vocabulary_size], 0.0, 0.01, dtype=tf.float32), name='out.embeddings_bias')


def generate_batch(batch_size):
    batch = rng.integers(0, vocabulary_size, size=batch_size).astype(np.int32)
    labels = rng.integers(0, vocabulary_size, size=(batch_size, 1)).astype(np.int32)
    return batch, labels


def get_embeds(train_dataset, train_labels):
    # Look up embeddings for inputs and outputs
    embed_in = tf.nn.embedding_lookup(in_embeddings, train_dataset)
    embed_out = tf.nn.embedding_lookup(out_embeddings, train_labels)
    embed_bias_in = tf.nn.embedding_lookup(in_bias_embeddings, train_dataset)
    embed_bias_out = tf.nn.embedding_lookup(out_bias_embeddings, train_labels)
    return embed_in, embed_out, embed_bias_in, embed_bias_out


def get_loss(weights_x, x_ij, embed_in, embed_out, embed_bias_in, embed_bias_out):
    return tf.reduce_mean(
        weights_x * (tf.reduce_sum(embed_in * embed_out, axis=1) + embed_bias_in + embed_bias_out
                     - tf.math.log(epsilon + x_ij)) ** 2)


# Optimizer.
optimizer = tf.optimizers.Adagrad(1.0)


def run_optimization(train_dataset, train_labels, weights_x, x_ij):
    with tf.GradientTape() as g:
        embed_in, embed_out, embed_bias_in, embed_bias_out = get_embeds(train_dataset, train_labels)
        loss = get_loss(weights_x, x_ij, embed_in, embed_out, embed_bias_in, embed_bias_out)

    gradients = g.gradient(loss, [embed_in, embed_out, embed_bias_in, embed_bias_out])
    optimizer.apply_gradients(zip(gradients, [embed_in, embed_out, embed_bias_in, embed_bias_out]))
    return loss


def main():
    try:
        for step in range(3):
            batch_data, batch_labels = generate_batch(batch_size)
            batch_weights, batch_xij = [], []
            for inp, lbl in zip(batch_data, batch_labels.reshape(-1)):
                point_weight = (cooc_mat[inp, lbl] / 100.0) ** 0.75 if cooc_mat[inp, lbl] < 100.0 else 1.0
                batch_weights.append(point_weight)
                batch_xij.append(cooc_mat[inp, lbl])
            batch_weights = np.clip(batch_weights, -100, 1).astype(np.float32)
            batch_xij = np.asarray(batch_xij, dtype=np.float32)
            ls = run_optimization(batch_data.reshape(-1), batch_labels.reshape(-1), batch_weights, batch_xij)
            print(step, float(ls))
        print("ORACLE: bug=False error=none")
    except (AttributeError, TypeError, ValueError) as exc:
        print(f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
