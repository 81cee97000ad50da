"""Correct look-alike: the NumPy-only neighbour-list routine is called through tf.py_function
from the tf.function, so it receives eager values at run time and the traced graph works.

Source: tensorflow/tensorflow#27491 "Using .numpy() with the tf.function decorator."
(https://github.com/tensorflow/tensorflow/issues/27491), the reporter's follow-up comment:
`neighborlist(r)` takes the positions as an array (r "automatically casted to np.array") and
the decorated `tf_neighborlist` calls it with tf.py_function(neighborlist, inp=[r],
Tout=[tf.int64, tf.int64]); this "works properly". The neighbour indices need no gradient.
Changed from the posted code: ASE is replaced by a NumPy stand-in with the same call shape
(periodic cubic cell, cutoff, returns i, j).
"""
import numpy as np
import tensorflow as tf


def neighbor_list(positions, cell, cutoff):
    """NumPy stand-in for ase.neighborlist.neighbor_list("ij", atoms, cutoff)."""
    d = positions[:, None, :] - positions[None, :, :]
    d -= cell * np.round(d / cell)
    dist = np.sqrt((d ** 2).sum(-1))
    i, j = np.nonzero((dist < cutoff) & ~np.eye(len(positions), dtype=bool))
    return i, j


# Calculate neighbor list using a third party (NumPy-only) routine.
def neighborlist(r):
    # r automatically casted to np.array.
    i, j = neighbor_list(np.asarray(r), cell=10.0, cutoff=5.0)

    return i.astype(np.int64), j.astype(np.int64)


@tf.function
def tf_neighborlist(r):
    i, j = tf.py_function(neighborlist, inp=[r], Tout=[tf.int64, tf.int64])
    return i, j


def main():
    tf.random.set_seed(0)
    # Positions of 4 particles.
    positions = tf.Variable(tf.random.uniform(shape=[4, 3]))
    try:
        i, j = tf_neighborlist(positions)
        print("i:", i.numpy(), "j:", j.numpy())
        print(f"ORACLE: bug=False error=None pairs={int(tf.size(i))}")
    except (AttributeError, NotImplementedError) as exc:
        print(f"{type(exc).__name__}: {str(exc)[:200]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
