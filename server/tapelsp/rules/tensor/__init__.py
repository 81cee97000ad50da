"""Rules about tf.Tensor values used as something they are not (NumPy arrays)."""
