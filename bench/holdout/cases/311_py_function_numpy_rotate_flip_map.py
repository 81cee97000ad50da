"""NumPy random rotation/flip in a tf.data map, wrapped in tf.py_function (correct: fresh draw per element).

Source: zaccharieramzi/understanding-unets#41 "Data augmentation"
(https://github.com/zaccharieramzi/understanding-unets/pull/41), learning_wavelets/data/datasets.py.
The PR draws `np.random.randint` for a 90-degree rotation and a flip in a NumPy function; the map
function runs it through `tf.py_function`, so the Python code, and the NumPy draw, run for every
element at iteration time, not once while the map function is traced.

Changed from the code in the pull request: a few random 8x8 grey patches from memory instead of
BSD500 / DIV2K files, no noise stage; the augmentation functions are the PR's.
"""
import numpy as np
import tensorflow as tf


def random_rotate_flip_image(image):
    # in numpy
    rot_coef = np.random.randint(4, size=1)[0]  # 0-3
    flip_coef = np.random.randint(2, size=1)[0]  # 0-1

    image = np.rot90(image, rot_coef).copy()

    if flip_coef == 1:
        image = np.fliplr(image).copy()

    return image


def tf_random_rotate_flip_image(image):
    # in tf
    im_shape = image.shape
    [image,] = tf.py_function(random_rotate_flip_image, [image], [tf.float32])
    image.set_shape(im_shape)
    return image


def main():
    patch = np.arange(64, dtype=np.float32).reshape(8, 8, 1) / 64.0
    image_patch_ds = tf.data.Dataset.from_tensors(patch).repeat(24)
    image_augm_ds = image_patch_ds.map(
        tf_random_rotate_flip_image,
        num_parallel_calls=tf.data.experimental.AUTOTUNE,
    )
    outs = {np.asarray(x).tobytes() for x in image_augm_ds}
    distinct = len(outs)
    print("distinct augmented versions of one patch over 24 draws:", distinct)
    print(f"ORACLE: bug={distinct == 1} distinct={distinct} draws=24")


if __name__ == "__main__":
    main()
