"""Image-animation inference whose animate() defines its tf.function helpers on every call.

Source: lshug/first-order-model-tf#22 "Performance issues about tf.function"
(https://github.com/lshug/first-order-model-tf/issues/22): run.py calls `animate` in a loop and
`animate` defines and calls the tf.functions `slice_driving` and `next_batch`, so each call
traces new graphs. Tiny dense models replace the keypoint detector and generator.
"""
import sys

import numpy as np
import tensorflow as tf

kp_detector = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(4)])
generator = tf.keras.Sequential([tf.keras.Input((12,)), tf.keras.layers.Dense(8)])


def animate(source_image, driving_video, generator, kp_detector, batch_size=4):
    l = len(driving_video)
    source_image = tf.convert_to_tensor(source_image, 'float32')
    driving_video = tf.convert_to_tensor(driving_video, 'float32')
    kp_source = kp_detector(source_image)

    @tf.function
    def slice_driving(start, end):
        return driving_video[start:end]

    @tf.function
    def next_batch(driving):
        kp_driving = kp_detector(driving)
        tiled = tf.repeat(kp_source, tf.shape(driving)[0], axis=0)
        return generator(tf.concat([driving, tiled], axis=-1))

    predictions = []
    for i in range(0, l, batch_size):
        predictions.append(next_batch(slice_driving(i, min(i + batch_size, l))))
    return tf.concat(predictions, 0)


def count_traces(fn, names):
    """Count executions of the named Python functions (their bodies run only while tracing)."""
    counts = dict.fromkeys(names, 0)

    def hook(frame, event, arg):
        name = frame.f_code.co_name.removeprefix("tf__")  # AutoGraph runs a converted copy
        if event == "call" and name in counts:
            counts[name] += 1
    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return counts


def main():
    rng = np.random.default_rng(0)
    videos = [rng.random((8, 8)).astype(np.float32) for _ in range(4)]
    source = rng.random((1, 8)).astype(np.float32)
    for video in videos:
        animate(source, video, generator, kp_detector)


if __name__ == "__main__":
    counts = count_traces(main, ["slice_driving", "next_batch"])
    print("python executions (traces):", counts)
    print(f"ORACLE: bug={counts['next_batch'] >= 4} next_batch_traces={counts['next_batch']} videos=4")
