"""Speech-commands pipeline mixing a background noise picked with Python random.choice in map.

Source: hyperconnect/TC-ResNet#1 "Replace python random.choice with tf operations"
(https://github.com/hyperconnect/TC-ResNet/pull/1): the audio wrapper's map function picks one of
the `_background_noise_` clips with `random.choice(background_data)`; the map function is traced
once, so the same clip is mixed into every example of every epoch.
Changed from the repository: the WAV decoding and MFCC front end are replaced by random 1-D
"audio" tensors of 160 samples and six constant background clips (clip k is filled with the
value k, so the chosen clip can be read back); the wrapper is reduced to the mixing step.
"""
import random

import numpy as np
import tensorflow as tf


class AudioDataWrapper:
    def __init__(self, num_audios=10, desired_samples=160, background_volume=0.1):
        self.num_audios = num_audios
        self.desired_samples = desired_samples
        self.background_volume = background_volume
        rng = np.random.default_rng(0)
        self.audios = rng.uniform(-0.5, 0.5, size=(num_audios, desired_samples)).astype("float32")
        # six background noise clips, as in the _background_noise_ folder
        self.background_data = [tf.fill([desired_samples], float(k)) for k in range(6)]

    def mix_background(self, audio):
        background_wav = random.choice(self.background_data)
        return audio + self.background_volume * background_wav, background_wav[0]

    def get_dataset(self):
        dataset = tf.data.Dataset.from_tensor_slices(self.audios)
        return dataset.map(self.mix_background)


if __name__ == "__main__":
    wrapper = AudioDataWrapper()
    dataset = wrapper.get_dataset()
    picked = []
    for epoch in range(3):
        for _, which in dataset:
            picked.append(int(which))
    print("background clip per example:", picked)
    print(f"ORACLE: bug={len(set(picked)) == 1} distinct_backgrounds={len(set(picked))} of={len(picked)}")
