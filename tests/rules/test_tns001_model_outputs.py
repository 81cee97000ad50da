"""TNS001 beyond its examples: the outputs of a functional Keras model unpacked (a list or tuple
of tensors written out: each is a tensor), and a Keras step the file only calls directly."""

from __future__ import annotations

import textwrap

import tapelsp
from tapelsp import Settings


def _lines(source: str, code: str = "TNS001") -> list[int]:
    found = tapelsp.check_source(textwrap.dedent(source).lstrip("\n"), None, Settings(tensorflow_version="2.21"))
    return [v.range.start.line + 1 for v in found if v.code == code]


def test_outputs_of_a_model_a_factory_builds():
    assert _lines("""
        import numpy as np
        import keras

        def build():
            inp = keras.Input((6,))
            h = keras.layers.Dense(16, activation="relu")(inp)
            return keras.Model(inp, [keras.layers.Dense(1)(h), keras.layers.Dense(3)(h)])

        model = build()
        x = np.ones((4, 6), np.float32)
        main_out, _ = model(x, training=True)
        loss = ((main_out - 1.0) ** 2).mean()
    """) == [12]


def test_outputs_given_as_a_tuple_by_keyword():
    assert _lines("""
        import numpy as np
        import tensorflow as tf

        inp = tf.keras.Input((3,))
        outs = (tf.keras.layers.Dense(1)(inp), tf.keras.layers.Dense(2)(inp))
        model = tf.keras.Model(inputs=inp, outputs=outs)
        a, b = model(np.ones((2, 3), np.float32))
        m = b.max()
    """) == [8]


def test_outputs_of_unknown_structure_stay_silent():
    assert _lines("""
        import numpy as np
        import tensorflow as tf

        def heads(h):
            return {"a": tf.keras.layers.Dense(1)(h)} if h.shape[-1] > 2 else [h, h]

        inp = tf.keras.Input((3,))
        model = tf.keras.Model(inp, heads(inp))
        a, b = model(np.ones((2, 3), np.float32))
        m = a.max()
    """) == []


def test_train_step_that_fit_runs_is_left_to_func005():
    assert _lines("""
        import numpy as np
        import tensorflow as tf

        class Logged(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            def call(self, x):
                return self.dense(x)

            def train_step(self, data):
                x, y = data
                return {"loss": ((self(x) - y) ** 2).mean()}

        model = Logged()
        model.compile(optimizer="sgd")
        model.train_step((tf.ones((4, 3)), tf.zeros((4, 2))))
        model.fit(np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32), verbose=0)
    """) == []
