"""A tf.function that calls `.numpy()` on its tensor argument to hand the positions to a
NumPy-only neighbour-list routine. Inside the trace the argument is a symbolic tensor whose
`.numpy()` is unavailable, so the first call fails (TF 2.21: NotImplementedError "numpy() is
only available when eager execution is enabled"; TF 2.0 raised AttributeError).

Source: tensorflow/tensorflow#27491 "Using .numpy() with the tf.function decorator."
(https://github.com/tensorflow/tensorflow/issues/27491). The reporter's `neighborlist(r)` builds
an ase.Atoms from `r.numpy()` and calls ase.neighborlist.neighbor_list("ij", ...), then wraps
the index arrays in tf.constant; it works eagerly and breaks once decorated with @tf.function
(and inside Model.call).
Changed from the posted code: ASE is not installed here, so `neighbor_list` below is a small
NumPy stand-in with the same call shape (periodic cubic cell, cutoff, returns i, j); the
variable passed is the `positions` Variable of the post (the post's last line passes `v`).
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
@tf.function
def neighborlist(r):
    i, j = neighbor_list(r.numpy(), cell=10.0, cutoff=5.0)

    i = tf.constant(i)
    j = tf.constant(j)

    return i, j


def main():
    tf.random.set_seed(0)
    # Positions of 4 particles.
    positions = tf.Variable(tf.random.uniform(shape=[4, 3]))
    try:
        i, j = neighborlist(positions)
        print("i:", i.numpy(), "j:", j.numpy())
        print("ORACLE: bug=False error=None")
    except (AttributeError, NotImplementedError) as exc:
        print(f"{type(exc).__name__}: {str(exc)[:200]}")
        print(f"ORACLE: bug=True error={type(exc).__name__}")


if __name__ == "__main__":
    main()
