from ...model import Severity
from ..base import Rule, invalid, valid


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports code that Python cannot parse, once, at the place Python points to.

    ## Why is this bad?
    The file will not run. tapelsp keeps analysing the parts that do parse, so a
    half-typed line does not hide the findings in the rest of the file.

    ## Example
    ```python
    def train_step(x):
        y = model(x
    ```

    ## Use instead
    ```python
    def train_step(x):
        y = model(x)
    ```
    """

    code = "TL001"
    name = "syntax-error"
    summary = "The code does not parse; the rest of the file is still checked"
    severity = Severity.ERROR
    examples = (
        invalid("""
            import tensorflow as tf

            def broken(x):
                y = tf.square(x
        """, 4),
        valid("""
            import tensorflow as tf
            y = tf.square(2.0)
        """),
    )

    def check(self, ctx) -> None:
        """Reported by the engine while parsing."""
