from ...model import Severity
from ..base import Context, Proof, Rule, invalid, valid


class VariableCreatedAgainAtRuntime(Rule):
    """
    ## What it does
    Reported by the probe, never by static analysis: TensorFlow raised "tf.function only
    supports singleton tf.Variables created on the first call" (or its older wordings)
    while the program ran, on a line no static rule flagged. The finding is on the line
    that created the variable, as TensorFlow names it.

    ## Why is this bad?
    A tf.function may create variables only on its first trace. A variable made on every
    call stops the program; when the creation hides behind a factory, a helper or a
    library call, the error points far from where the variable should live.

    ## Example
    ```python
    make = getattr(tf, "Variable")

    @tf.function
    def scale(x):
        v = make(2.0)  # a new variable on every trace
        return v * x
    ```

    ## Use instead
    Create the variable once, outside the tf.function (in `__init__`, at module level, or
    behind `if self.v is None:`).
    """

    code = "RT003"
    name = "variable-created-again-at-runtime"
    summary = "TensorFlow refused a variable created on a later call of a tf.function"
    severity = Severity.ERROR
    runtime_only = True
    examples = (
        invalid("""
            import tensorflow as tf

            make = getattr(tf, "Variable")

            @tf.function
            def scale(x):
                v = make(2.0)
                return v * x

            y = scale(tf.constant(3.0))
        """, 7, "the variable is created through a name static analysis cannot resolve",
            proof=Proof(raises=("ValueError", "tf.function only supports singleton tf.Variables"))),
        valid("""
            import tensorflow as tf

            make = getattr(tf, "Variable")
            v = make(2.0)

            @tf.function
            def scale(x):
                return v * x

            y = scale(tf.constant(3.0))
        """, "created once, outside", proof=Proof(check="assert float(y) == 6.0")),
    )

    def check(self, ctx: Context) -> None:
        """Runtime findings come from the probe; the static pass reports nothing."""
