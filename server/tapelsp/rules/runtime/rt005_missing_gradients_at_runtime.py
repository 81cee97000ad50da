from ...model import Severity
from ..base import Context, Proof, Rule, invalid, valid


class MissingGradientsAtRuntime(Rule):
    """
    ## What it does
    Reported by the probe, never by static analysis: TensorFlow or Keras said "Gradients
    do not exist for variables ..." or raised "No gradients provided for any variable"
    while the program ran, on a line no static rule flagged. The finding carries
    TensorFlow's own message, with the names of the variables.

    ## Why is this bad?
    The optimizer skips every variable without a gradient: those weights never train,
    and nothing else in the output says so.

    ## Example
    ```python
    params = {"w": tf.Variable(1.0, name="w"), "unused": tf.Variable(1.0, name="unused")}
    with tf.GradientTape() as tape:
        loss = params["w"] * 2.0
    grads = tape.gradient(loss, list(params.values()))
    opt.apply_gradients(zip(grads, list(params.values())))  # warns about 'unused'
    ```

    ## Use instead
    Pass the optimizer only the variables the loss depends on, or fix the computation
    that disconnects them (see the None gradient findings on the gradient call).
    """

    code = "RT005"
    name = "missing-gradients-at-runtime"
    summary = "The optimizer got variables without gradients at runtime"
    severity = Severity.WARNING
    runtime_only = True
    examples = (
        invalid("""
            import keras
            import tensorflow as tf

            params = {"w": tf.Variable(1.0, name="w"), "unused": tf.Variable(1.0, name="unused")}
            opt = keras.optimizers.SGD(0.1)
            with tf.GradientTape() as tape:
                loss = params["w"] * 2.0
            grads = tape.gradient(loss, list(params.values()))
            opt.apply_gradients(zip(grads, list(params.values())))
        """, 9, "a variable the loss does not use goes to the optimizer",
            proof=Proof(check="assert grads[1] is None and float(params['unused']) == 1.0")),
        valid("""
            import keras
            import tensorflow as tf

            params = {"w": tf.Variable(1.0, name="w")}
            opt = keras.optimizers.SGD(0.1)
            with tf.GradientTape() as tape:
                loss = params["w"] * 2.0
            grads = tape.gradient(loss, list(params.values()))
            opt.apply_gradients(zip(grads, list(params.values())))
        """, "only the variables the loss uses",
            proof=Proof(check="assert abs(float(params['w']) - 0.8) < 1e-6")),
    )

    def check(self, ctx: Context) -> None:
        """Runtime findings come from the probe; the static pass reports nothing."""
