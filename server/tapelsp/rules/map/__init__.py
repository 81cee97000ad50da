"""The tf.map_fn rules (MAP001-MAP003)."""
