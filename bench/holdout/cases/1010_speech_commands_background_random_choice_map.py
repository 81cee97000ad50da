"""Background-noise mixing in Dataset.map picks the noise clip with Python's random.choice.

Source: hyperconnect/TC-ResNet#1 "Replace python random.choice with tf operations"
(https://github.com/hyperconnect/TC-ResNet/pull/1, merged). The Speech Commands input pipeline
mixed a background wav into each audio clip with
`audio_dataset.map(lambda audio: audio + random.choice(background_data))`. `random.choice` is
plain Python, so it runs once when the map function is traced and the same background clip is
added to every example; the PR's reproduction prints `[4, 4, 4, 4, 4, 4, 4, 4, 4, 4]`. The fix
draws the index with `tf.random.uniform` and selects the clip with `tf.case`.
Changes: the PR's reproduction ran on TF 1.13 with `make_one_shot_iterator` and a Session; here
the same dataset is iterated eagerly. As in the reproduction, the "audios" are zeros and the six
background "wavs" are the constants 0..5, so each output element is the chosen background index.
"""
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import random

import tensorflow as tf


num_audios = 10
audio_dataset = tf.data.Dataset.from_tensor_slices([0]).repeat(num_audios)
background_data = [tf.constant(data) for data in range(6)]

python_random_choice_dataset = audio_dataset.map(
    lambda audio: audio + random.choice(background_data))


def main():
    # two passes over the dataset, like two epochs of training
    outputs = [int(x) for x in python_random_choice_dataset]
    outputs += [int(x) for x in python_random_choice_dataset]
    print(outputs)
    distinct = len(set(outputs))
    print(f"ORACLE: bug={distinct == 1} distinct_backgrounds={distinct} draws={len(outputs)}")


if __name__ == "__main__":
    main()
