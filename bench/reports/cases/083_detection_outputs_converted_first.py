"""The tutorial's form of the same loop: the outputs are converted with .numpy() before .astype.

Source: nicknochnack/RealTimeObjectDetection#16 (https://github.com/nicknochnack/RealTimeObjectDetection/issues/16);
the Object Detection API tutorial the repository follows converts every output first:
`detections = {key: value[0, :num_detections].numpy() ...}`.
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

    num_detections = int(detections.pop('num_detections'))
    detections = {key: value[0, :num_detections].numpy()
                  for key, value in detections.items()}
    detections['num_detections'] = num_detections

    # detection_classes should be ints.
    detections['detection_classes'] = detections['detection_classes'].astype(np.int64)

    label_id_offset = 1
    return detections['detection_classes'] + label_id_offset


if __name__ == "__main__":
    classes = main()
    print(f"ORACLE: bug={classes.dtype != np.int64} dtype={classes.dtype}")
