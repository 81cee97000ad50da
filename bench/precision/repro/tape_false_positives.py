"""False-positive classes of the tape rules (owned by the lead): what TensorFlow does.

Each case is a few lines written for this benchmark after a pattern met in the scanned trees.
TensorFlow 2.21 decides: the gradients tapelsp says are None exist. Run:

    .venv/bin/python bench/precision/repro/tape_false_positives.py          # TensorFlow's verdicts
    .venv/bin/python bench/precision/repro/tape_false_positives.py --tapelsp  # what tapelsp reports

Exit status 0 when TensorFlow gives every gradient (the finding would be false).
"""

import sys
import textwrap

CASES = {
    # TAPE006 / TAPE015: a TFP distribution built from a variable before the tape is lazy: it
    # reads the variable when log_prob runs inside the tape.
    "TAPE006-tfp-distribution-built-before-tape": """
        import tensorflow as tf
        import tensorflow_probability as tfp
        loc = tf.Variable([1.0, 1.0])
        dist = tfp.distributions.MultivariateNormalDiag(loc=loc, scale_diag=tf.ones(2))
        with tf.GradientTape() as tape:
            loss = -dist.log_prob([0.0, 0.0])
        grads = [tape.gradient(loss, loc)]
    """,
    # TAPE010: an intermediate tensor computed inside the tape from a watched source.
    "TAPE010-intermediate-inside-tape": """
        import tensorflow as tf
        x = tf.constant(1.0)
        w1, b1, w2, b2 = tf.constant(2.0), tf.constant(1.0), tf.constant(2.0), tf.constant(1.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([w1, b1, w2, b2])
            y1 = x * w1 + b1
            y2 = y1 * w2 + b2
        grads = [tape.gradient(y2, [y1])[0], tape.gradient(y1, [w1])[0]]
        del tape
    """,
    # TAPE015: unconnected_gradients=ZERO gives zeros, not None.
    "TAPE015-unconnected-zero": """
        import tensorflow as tf
        x = tf.Variable(2.0)
        y = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            z = y ** 2
        grads = [tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)]
    """,
    # TAPE015 / OPT001: a hypernetwork whose output becomes the main network's weights inside the
    # tape (keras-io's guide, written for Keras 2: tf_keras here; Keras 3 has no setter for
    # `kernel` and raises AttributeError before any gradient).
    "TAPE015-hypernetwork-weights-set-in-tape": """
        import tensorflow as tf
        import tf_keras
        hyper = tf_keras.Sequential([tf_keras.layers.Dense(3)])
        main = tf_keras.layers.Dense(1)
        main.build((None, 2))
        x = tf.ones((4, 2))
        with tf.GradientTape() as tape:
            weights = hyper(tf.ones((1, 1)))
            main.kernel = tf.reshape(weights[0, :2], (2, 1))
            main.bias = weights[0, 2:]
            loss = tf.reduce_sum(main(x))
        grads = tape.gradient(loss, hyper.trainable_weights)
    """,
    # TAPE008: `.predict` of a class that is not a Keras model.
    "TAPE008-predict-of-own-class": """
        import tensorflow as tf
        class Model:
            def __init__(self):
                self.w = tf.Variable([[1.0], [2.0]])
            def predict(self, x):
                return tf.matmul(x, self.w)
        model = Model()
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model.predict(tf.ones((3, 2))))
        grads = [tape.gradient(loss, model.w)]
    """,
}


def tensorflow_verdicts() -> int:
    failed = 0
    for name, code in CASES.items():
        scope: dict = {}
        exec(compile(textwrap.dedent(code), name, "exec"), scope)
        grads = scope["grads"]
        ok = all(g is not None for g in grads)
        failed += not ok
        print(f"{name:45s} gradients: {'all present' if ok else 'SOME NONE'} "
              f"{[None if g is None else round(float(tf_sum(g)), 4) for g in grads]}")
    return 1 if failed else 0


def tf_sum(g):
    import tensorflow as tf
    return tf.reduce_sum(g)


def tapelsp_findings() -> int:
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server"))
    import tapelsp
    for name, code in CASES.items():
        found = [(v.code, v.range.start.line + 1) for v in tapelsp.check_source(textwrap.dedent(code).strip() + "\n",
                                                                                 "case.py")]
        print(f"{name:45s} tapelsp: {found or 'silent'}")
    return 0


if __name__ == "__main__":
    sys.exit(tapelsp_findings() if "--tapelsp" in sys.argv else tensorflow_verdicts())
