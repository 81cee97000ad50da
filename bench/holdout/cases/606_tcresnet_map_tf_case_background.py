"""Speech-commands pipeline picking the background clip with a tf.random index and tf.case (the fix).

Source: hyperconnect/TC-ResNet#1 "Replace python random.choice with tf operations"
(https://github.com/hyperconnect/TC-ResNet/pull/1): the merged change draws the index with
`tf.random.uniform` and selects the clip with `tf.case`, so each example gets its own draw.
Changed from the repository: random 1-D "audio" tensors and six constant background clips
(clip k filled with k) instead of WAV files and the MFCC front end; the dict of
(predicate: branch) given to `tf.case` in TF 1.13 becomes a list of pairs, since TF 2 tensors
are not hashable.
"""
import numpy as np
import tensorflow as tf


class AudioDataWrapper:
    def __init__(self, num_audios=10, desired_samples=160, background_volume=0.1):
        self.num_audios = num_audios
        self.desired_samples = desired_samples
        self.background_volume = background_volume
        rng = np.random.default_rng(0)
        self.audios = rng.uniform(-0.5, 0.5, size=(num_audios, desired_samples)).astype("float32")
        self.background_data = [tf.fill([desired_samples], float(k)) for k in range(6)]

    def mix_background(self, audio):
        random_index = tf.random.uniform([], maxval=len(self.background_data), dtype=tf.int32)
        background_wav = tf.case([
            (tf.equal(index, random_index), lambda tensor=data: tensor)
            for index, data in enumerate(self.background_data)
        ], exclusive=True)
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
