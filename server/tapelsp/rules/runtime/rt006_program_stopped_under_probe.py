from ...model import Severity
from ..base import Context, Proof, Rule, invalid, valid


class ProgramStoppedUnderProbe(Rule):
    """
    ## What it does
    Reported by the probe, never by static analysis: the program did not run to its end
    under the probe. It raised an exception no other finding explains, was stopped at the
    probe's time limit (`--probe-timeout`), went over the probe's memory limit, or its
    process died (a crash, `os._exit`, killed by the system). The finding is on the line
    where it stopped, when that is known, else on the first line.

    ## Why is this bad?
    Whatever comes after that point did not run, so the probe could neither confirm nor
    refute the findings there: they keep their static verdict.

    ## Example
    ```python
    x = tf.constant([1.0, 2.0])
    y = tf.reshape(x, [3])  # InvalidArgumentError: the run stops here
    ```

    ## Use instead
    Fix the error (or raise the time limit) and probe again.
    """

    code = "RT006"
    name = "program-stopped-under-probe"
    summary = "The program did not run to its end under the probe"
    severity = Severity.WARNING
    runtime_only = True
    examples = (
        invalid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            y = tf.reshape(x, [3])
            z = y * 2.0
        """, 4, "an error stops the run",
            proof=Proof(raises=("InvalidArgumentError", "Input to reshape is a tensor with 2 values"))),
        valid("""
            import tensorflow as tf

            x = tf.constant([1.0, 2.0])
            y = tf.reshape(x, [2])
            z = y * 2.0
        """, "the program runs to its end", proof=Proof(check="assert z.shape == (2,)")),
    )

    def check(self, ctx: Context) -> None:
        """Runtime findings come from the probe; the static pass reports nothing."""
