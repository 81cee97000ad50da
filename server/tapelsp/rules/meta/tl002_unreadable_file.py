from ...model import Severity
from ..base import Rule


class UnreadableFile(Rule):
    """
    ## What it does
    Reports a file that could not be read as Python source: it does not exist any more,
    is not readable, is not UTF-8 (or the encoding its coding line declares), looks
    binary, or is a notebook whose JSON is broken.

    ## Why is this bad?
    Nothing in the file could be checked. The rest of the run goes on.

    ## Example
    A `.ipynb` file truncated while it was being saved.

    ## Use instead
    Fix or restore the file, or exclude it in `[tool.tapelsp] exclude`.
    """

    code = "TL002"
    name = "unreadable-file"
    summary = "The file could not be read as Python source or as a notebook"
    severity = Severity.ERROR

    def check(self, ctx) -> None:
        """Reported by the front end that reads files."""
