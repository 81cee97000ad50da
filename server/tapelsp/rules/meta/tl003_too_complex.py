from ...model import Severity
from ..base import Rule


class TooComplex(Rule):
    """
    ## What it does
    Reports a file whose expressions nest too deeply for Python's parser or for
    tapelsp's analysis (thousands of nested brackets or chained operators, usually
    generated code).

    ## Why is this bad?
    The file could not be analysed, so no other finding is reported for it. Python
    itself often refuses such code ("too many nested parentheses").

    ## Example
    ```python
    x = ((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))
    ```
    (repeated a few hundred times)

    ## Use instead
    Build the expression in steps, or exclude the generated file.
    """

    code = "TL003"
    name = "too-complex"
    summary = "The code nests too deeply to be analysed"
    severity = Severity.WARNING

    def check(self, ctx) -> None:
        """Reported by the engine when parsing or analysis runs out of stack."""
