"""Issue 17, the report corpus's misses at their cause: FUNC008 follows a bound method given to
tf.data (`ds.map(self._parse)`), FUNC010 reports a tf.function made on every call of a function
a loop calls even when that function calls it in a loop of its own, TNS001 sees the entries of
the structure a tf.function returns. Each with a near variant that must stay silent."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings


def lines(code: str, source: str) -> list[int]:
    text = inspect.cleandoc(source) + "\n"
    found = tapelsp.check_source(text, "t.py", Settings(tensorflow_version="2.21", select=(code,)))
    return sorted(v.range.start.line + 1 for v in found if v.code == code)


# --- FUNC008: a bound method given to Dataset.map ---------------------------------------------

_LOADER = """
    import random
    import tensorflow as tf

    class Loader:
        def __init__(self, images):
            self.images = images

        def _flip(self, image):
            return tf.image.flip_left_right(image)

        def _augment(self, image):
            options = [self._flip, tf.identity]
            return random.sample(options, 1)[0](image)

        def dataset(self):
            data = tf.data.Dataset.from_tensor_slices(self.images)
            return data.map(MAPPED)
"""


def test_func008_a_bound_method_given_to_dataset_map() -> None:
    assert lines("FUNC008", _LOADER.replace("MAPPED", "self._augment")) == [13]


def test_func008_a_bound_method_given_by_keyword_and_from_a_closure() -> None:
    source = _LOADER.replace("            return data.map(MAPPED)",
                             "            def build():\n"
                             "                return data.map(map_func=self._augment)\n"
                             "            return build()")
    assert lines("FUNC008", source) == [13]


def test_func008_the_method_of_another_class_or_object_is_not_followed() -> None:
    other = _LOADER.replace("MAPPED", "other._augment").replace(
        "        def dataset(self):", "        def dataset(self, other):")
    assert lines("FUNC008", other) == []
    # a closure's own parameter named `self` is not the method's receiver
    shadowed = _LOADER.replace("            return data.map(MAPPED)",
                               "            return (lambda self: data.map(self._augment))(None)")
    assert lines("FUNC008", shadowed) == []


def test_func008_a_method_of_a_base_class_given_through_self() -> None:
    source = """
        import numpy as np
        import tensorflow as tf

        class Base:
            def _augment(self, image):
                return image + np.random.normal()

        class Loader(Base):
            def dataset(self, images):
                return tf.data.Dataset.from_tensor_slices(images).map(self._augment)
    """
    assert lines("FUNC008", source) == [6]


# --- FUNC010: called in a loop of its own, in a function a loop calls -------------------------

_ANIMATE = """
    import tensorflow as tf

    def animate(video):
        @tf.function
        def next_batch(frames):
            return frames * 2.0

        out = []
        for start in range(0, 8, 4):
            out.append(next_batch(video[start:start + 4]))
        return tf.concat(out, 0)

    CALLS
"""


def test_func010_a_decorated_def_called_in_its_function_s_loop_when_a_loop_calls_the_function() -> None:
    assert lines("FUNC010", _ANIMATE.replace("CALLS", "for video in videos:\n        animate(video)")) == [4]
    assert lines("FUNC010", _ANIMATE.replace("CALLS", "frames = animate(video)")) == []


def test_func010_a_wrapped_function_called_in_its_function_s_loop() -> None:
    source = """
        import tensorflow as tf

        def scale(x):
            return x * 2.0

        def run(batches):
            step = tf.function(scale)
            return [step(b) for b in batches] + [step(b) for b in batches]

        def epoch(batches):
            step = tf.function(scale)
            for b in batches:
                step(b)

        CALLS
    """
    assert lines("FUNC010", source.replace("CALLS", "for _ in range(3):\n            epoch(data)")) == [11]
    assert lines("FUNC010", source.replace("CALLS", "epoch(data)")) == []


def test_func010_a_loop_over_python_values_passed_to_the_function_stays_silent() -> None:
    source = """
        import tensorflow as tf

        def head(x, n):
            @tf.function
            def first(x):
                return tf.reduce_sum(x[:n])

            return [first(x) for _ in range(2)]

        for n in (1, 3):
            head(tf.range(5.0), n)
    """
    assert lines("FUNC010", source) == []


# --- TNS001: the structure a tf.function returns ----------------------------------------------

_DETECT = """
    import numpy as np
    import tensorflow as tf

    @tf.function
    def detect(image):
        scores = tf.sigmoid(tf.reduce_sum(image, axis=-1))
        return {"scores": scores, "classes": tf.cast(scores > 0.5, tf.float32), "count": 4}

    def main():
        detections = detect(tf.ones((1, 4, 3)))
        BODY

    main()
"""


def _detect(body: str) -> str:
    return _DETECT.replace("BODY", body.replace("\n", "\n        "))


def test_tns001_an_entry_of_a_tf_function_s_dict() -> None:
    assert lines("TNS001", _detect("return detections['classes'].astype(np.int64)")) == [11]
    # a Python number the trace returned is a tensor too
    assert lines("TNS001", _detect("return detections['count'].item()")) == [11]


def test_tns001_an_element_of_a_tf_function_s_tuple() -> None:
    source = """
        import tensorflow as tf

        @tf.function
        def split(x):
            return x * 2.0, [x + 1.0]

        doubled, rest = split(tf.ones((2, 2)))
        flat = doubled.reshape(-1)
        first = rest[0].tolist()
    """
    assert lines("TNS001", source) == [8, 9]


def test_tns001_a_dict_something_else_may_fill_is_left_alone() -> None:
    stored = "detections['classes'] = np.zeros(4)\nreturn detections['classes'].astype(np.int64)"
    assert lines("TNS001", _detect(stored)) == []
    updated = "detections.update(classes=np.zeros(4))\nreturn detections['classes'].astype(np.int64)"
    assert lines("TNS001", _detect(updated)) == []
    handed = "postprocess(detections)\nreturn detections['classes'].astype(np.int64)"
    assert lines("TNS001", _detect(handed)) == []
    looped = ("for _ in range(2):\n"
              "    detections['classes'] = detections['classes'].astype(np.int64)")
    assert lines("TNS001", _detect(looped)) == []
    converted = ("detections = {k: v.numpy() for k, v in detections.items()}\n"
                 "return detections['classes'].astype(np.int64)")
    assert lines("TNS001", _detect(converted)) == []


def test_tns001_a_plain_function_s_dict_of_python_values_is_not_a_tensor() -> None:
    source = """
        import numpy as np

        def detect(image):
            return {"count": 4, "classes": np.zeros(4)}

        found = detect(None)["classes"].astype(np.int64)
    """
    assert lines("TNS001", source) == []


# --- the value model: what a function given to tf.data receives --------------------------------

def test_func005_a_structure_of_the_element_given_to_a_bound_method_is_no_tensor() -> None:
    source = """
        import tensorflow as tf

        class Mixer:
            def _mix(self, one, two):
                kept = one.copy()
                kept["image"] = (one["image"] + two["image"]) / 2.0
                return kept

            def _first(self, *samples):
                return samples[0].copy()

            def apply(self, dataset):
                pairs = tf.data.Dataset.zip((dataset, dataset))
                return pairs.map(self._mix), pairs.map(self._first)
    """
    assert lines("FUNC005", source) == []
    # a component the body does not use as a dict is a tensor: NumPy's methods fail on it
    plain = source.replace('kept["image"] = (one["image"] + two["image"]) / 2.0', "kept = kept.astype('float32')")
    assert lines("FUNC005", plain) == [5]
