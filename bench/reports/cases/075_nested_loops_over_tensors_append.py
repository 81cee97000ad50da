"""Pairwise cosine losses collected in Python lists while looping over two tensors.

Source: tensorflow/tensorflow#47139 "InaccessibleTensorError for tensor defined in same scope"
(https://github.com/tensorflow/tensorflow/issues/47139): iterating over a tensor inside a
tf.function becomes a graph loop, and the appended tensors cannot leave it.
"""
import tensorflow as tf

cosine_loss = tf.keras.losses.CosineSimilarity(axis=0, reduction="none")


@tf.function
def func():
    A = tf.convert_to_tensor([[1, 1., 1], [1, 3, 1]])
    B = tf.convert_to_tensor([[1, 1., 1]])

    S = []
    for b in B:
        S_n = []
        for a in A:
            S.append(-cosine_loss(a, b))
        S.append(S_n)

    return S


if __name__ == "__main__":
    try:
        print(func())
        print("ORACLE: bug=False error=none")
    except Exception as exc:  # InaccessibleTensorError / OperatorNotAllowedInGraphError
        print(f"{type(exc).__name__}: {str(exc)[:300]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")
