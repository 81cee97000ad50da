"""tf.data map function calls .numpy() on the segmentation mask, even with run_functions_eagerly.

Source: tensorflow/tensorflow#49724 "Wrong warning message for
tf.data.experimental.enable.debug_mode()" (https://github.com/tensorflow/tensorflow/issues/49724),
comment by aliencaocao (2021-05-27). The user loads oxford_iiit_pet with tfds, sets
`tf.config.run_functions_eagerly(True)` and maps `preprocess(datapoint)`, which takes
`datapoint['segmentation_mask']` and calls `mask.numpy()`. `Dataset.map` always traces its
function into a graph (run_functions_eagerly does not apply to tf.data, as the warning says), so
the mask is a symbolic tensor and `.numpy()` raises AttributeError: 'Tensor' object has no
attribute 'numpy' ('SymbolicTensor' in TF 2.21's wording).
Changes: tensorflow_datasets and the pet dataset are replaced by a small in-memory dataset of
dicts with random 16 x 16 images and integer masks.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import warnings

import numpy as np
import tensorflow as tf


def load_pets(n=6):
    rng = np.random.default_rng(0)
    return tf.data.Dataset.from_tensor_slices({
        'image': rng.integers(0, 256, size=(n, 16, 16, 3)).astype(np.uint8),
        'segmentation_mask': rng.integers(1, 4, size=(n, 16, 16, 1)).astype(np.uint8),
    })


ds = load_pets()
tf.config.run_functions_eagerly(True)


def preprocess(datapoint):
    mask = datapoint['segmentation_mask']
    mask.numpy()
    return mask


def main():
    error = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ds.map(preprocess)
        except AttributeError as e:  # the reported failure
            error = type(e).__name__
            print(f"{error}: {e}")
    tf.config.run_functions_eagerly(False)
    print(f"ORACLE: bug={error == 'AttributeError'} error={error}")


if __name__ == "__main__":
    main()
