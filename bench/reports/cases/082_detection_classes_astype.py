"""Object-detection loop that calls .astype on the detector's output tensor.

Source: nicknochnack/RealTimeObjectDetection#16 "detect in real time error"
(https://github.com/nicknochnack/RealTimeObjectDetection/issues/16):
`detections['detection_classes'].astype(np.int64)` raises "'EagerTensor' object has no
attribute 'astype'". A tiny stand-in model replaces the Object Detection API detector.
"""
import numpy as np
import tensorflow as tf

backbone = tf.keras.Sequential([tf.keras.Input((32, 32, 3)), tf.keras.layers.GlobalAveragePooling2D(),
                                tf.keras.layers.Dense(10 * 5)])


@tf.function
def detect_fn(image):
    raw = tf.reshape(backbone(image), (-1, 10, 5))
    return {'detection_boxes': tf.sigmoid(raw[..., :4]),
            'detection_scores': tf.sigmoid(raw[..., 4]),
            'detection_classes': tf.cast(tf.range(10) % 3, tf.float32)[None, :],
            'num_detections': tf.constant(10.0)}


def main():
    frame = np.random.default_rng(0).integers(0, 255, size=(32, 32, 3)).astype(np.uint8)
    input_tensor = tf.convert_to_tensor(np.expand_dims(frame, 0), dtype=tf.float32)
    detections = detect_fn(input_tensor)

    # detection_classes should be ints.
    detections['detection_classes'] = detections['detection_classes'].astype(np.int64)

    label_id_offset = 1
    return detections['detection_classes'] + label_id_offset


if __name__ == "__main__":
    try:
        main()
        print("ORACLE: bug=False error=none")
    except AttributeError as exc:
        print("AttributeError:", str(exc).strip().splitlines()[0][:300])
        print("ORACLE: bug=True error=AttributeError")
