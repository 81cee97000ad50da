from ...model import Severity
from ..base import Context, Proof, Rule, invalid, valid


class RetracingAtRuntime(Rule):
    """
    ## What it does
    Reported by the probe, never by static analysis: a tf.function that TensorFlow traced
    again and again while the program ran (its `experimental_get_tracing_count()` grew by
    two or more beyond one trace per tf.function object), or TensorFlow's own warning
    "triggered tf.function retracing". The finding is on the call that caused the traces
    and names the Python argument values that changed between them.

    ## Why is this bad?
    Every trace runs the Python body again and builds a new graph: a training step that
    retraces on every call is slower than plain eager code. Python numbers, strings and
    objects are part of the trace key: each new value traces again.

    ## Example
    ```python
    @tf.function
    def step(x, scale):
        return x * scale

    def run(fn, value):
        return fn(tf.constant(1.0), value)  # a new Python float each time

    for value in [0.1, 0.2, 0.3, 0.4]:
        run(step, value)
    ```

    ## Use instead
    Pass changing values as tensors (`tf.constant(value)`), give the tf.function an
    `input_signature`, or use `reduce_retracing=True`.
    """

    code = "RT002"
    name = "retracing-at-runtime"
    summary = "A tf.function was traced again and again at runtime"
    severity = Severity.WARNING
    runtime_only = True
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function
            def step(x, scale):
                return x * scale

            def run(fn, value):
                return fn(tf.constant(1.0), value)

            for value in [0.1, 0.2, 0.3, 0.4]:
                run(step, value)
        """, 8, "a Python float reaches the tf.function through a helper",
            proof=Proof(check="assert step.experimental_get_tracing_count() == 4")),
        valid("""
            import tensorflow as tf

            @tf.function
            def step(x, scale):
                return x * scale

            def run(fn, value):
                return fn(tf.constant(1.0), tf.constant(value))

            for value in [0.1, 0.2, 0.3, 0.4]:
                run(step, value)
        """, "the value passed as a tensor: one trace",
            proof=Proof(check="assert step.experimental_get_tracing_count() == 1")),
    )

    def check(self, ctx: Context) -> None:
        """Runtime findings come from the probe; the static pass reports nothing."""
