"""Segmentation data loader that picks a random subset of augmentations with random.sample.

Source: HasnainRaz/SemSegPipeline#10 "creating parent map function + flexible augmentations"
(https://github.com/HasnainRaz/SemSegPipeline/pull/10). The maintainer wondered "how the
random.sample python function will interact with the TF functions": the parent map function
is traced once, so one subset is drawn for the whole dataset. Written for this corpus in the
loader's shape; images are random arrays instead of files.
"""
import random

import numpy as np
import tensorflow as tf


class DataLoader(object):
    def __init__(self, images, masks, image_size=(32, 32), compose=False, one_hot_encoding=False):
        self.images = images
        self.masks = masks
        self.image_size = image_size
        self.compose = compose
        self.one_hot_encoding = one_hot_encoding

    def _corrupt_brightness(self, image, mask):
        return tf.image.adjust_brightness(image, 0.1), mask

    def _corrupt_contrast(self, image, mask):
        return tf.image.adjust_contrast(image, 1.5), mask

    def _flip_left_right(self, image, mask):
        return tf.image.flip_left_right(image), tf.image.flip_left_right(mask)

    def _map_function(self, image, mask):
        if self.compose:
            image, mask = self._corrupt_brightness(image, mask)
            image, mask = self._corrupt_contrast(image, mask)
            image, mask = self._flip_left_right(image, mask)
        else:
            options = [self._corrupt_brightness, self._corrupt_contrast, self._flip_left_right]
            augment_func = random.sample(options, 1)[0]
            image, mask = augment_func(image, mask)
        return image, mask

    def data_batch(self, batch_size, shuffle=False):
        data = tf.data.Dataset.from_tensor_slices((self.images, self.masks))
        data = data.map(self._map_function)
        if shuffle:
            data = data.shuffle(16)
        return data.batch(batch_size)


def which_augmentation(loader, original, mask, augmented):
    for fn in (loader._corrupt_brightness, loader._corrupt_contrast, loader._flip_left_right):
        if np.allclose(fn(original, mask)[0].numpy(), augmented, atol=1e-5):
            return fn.__name__
    return "?"


def main():
    rng = np.random.default_rng(0)
    images = rng.random((12, 32, 32, 3)).astype(np.float32)
    masks = (rng.random((12, 32, 32, 1)) > 0.5).astype(np.float32)
    loader = DataLoader(images, masks)
    applied = []
    for image, mask in loader.data_batch(4).unbatch():
        i = len(applied)
        applied.append(which_augmentation(loader, images[i], masks[i], image.numpy()))
    print("augmentation per element:", applied)
    return applied


if __name__ == "__main__":
    applied = main()
    print(f"ORACLE: bug={len(set(applied)) == 1} distinct={len(set(applied))} elements={len(applied)}")
