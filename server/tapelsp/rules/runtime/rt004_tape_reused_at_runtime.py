from ...model import Severity
from ..base import Context, Proof, Rule, invalid, valid


class TapeReusedAtRuntime(Rule):
    """
    ## What it does
    Reported by the probe, never by static analysis: a non-persistent GradientTape was
    asked for a second set of gradients while the program ran ("A non-persistent
    GradientTape can only be used to compute one set of gradients"), where no static rule
    saw it (the tape travels through a helper or a data structure).

    ## Why is this bad?
    A non-persistent tape releases what it recorded after its first `gradient` call; the
    second call raises and the training step stops.

    ## Example
    ```python
    def gradient_of(tape, loss, var):
        return tape.gradient(loss, var)

    with tf.GradientTape() as tape:
        loss = a * b
    ga = gradient_of(tape, loss, a)
    gb = gradient_of(tape, loss, b)  # RuntimeError inside the helper
    ```

    ## Use instead
    Ask for all gradients in one call (`tape.gradient(loss, [a, b])`), or open the tape
    with `persistent=True` and `del tape` after the last use.
    """

    code = "RT004"
    name = "tape-reused-at-runtime"
    summary = "A non-persistent GradientTape was used twice at runtime"
    severity = Severity.ERROR
    runtime_only = True
    examples = (
        invalid("""
            import tensorflow as tf

            def gradient_of(tape, loss, var):
                return tape.gradient(loss, var)

            a = tf.Variable(1.0)
            b = tf.Variable(2.0)
            with tf.GradientTape() as tape:
                loss = a * b
            ga = gradient_of(tape, loss, a)
            gb = gradient_of(tape, loss, b)
        """, 4, "the tape is used through a helper",
            proof=Proof(raises=("RuntimeError", "A non-persistent GradientTape can only be used to compute one set"))),
        valid("""
            import tensorflow as tf

            def gradient_of(tape, loss, var):
                return tape.gradient(loss, var)

            a = tf.Variable(1.0)
            b = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                loss = a * b
            ga = gradient_of(tape, loss, a)
            gb = gradient_of(tape, loss, b)
            del tape
        """, "a persistent tape, released after its last use",
            proof=Proof(check="assert float(ga) == 2.0 and float(gb) == 1.0")),
    )

    def check(self, ctx: Context) -> None:
        """Runtime findings come from the probe; the static pass reports nothing."""
