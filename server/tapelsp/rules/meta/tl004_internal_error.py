from ...model import Severity
from ..base import Rule


class InternalError(Rule):
    """
    ## What it does
    Reports that one of tapelsp's rules failed on this file. The other rules still ran
    and their findings are reported.

    ## Why is this bad?
    It is a bug in tapelsp, not in your code: that rule's findings for this file are
    missing. Please report it with the file (or a reduced version of it).

    ## Example
    Any file that makes a rule raise.

    ## Use instead
    Nothing to change in your code; ignore `TL004` for the file until it is fixed.
    """

    code = "TL004"
    name = "internal-error"
    summary = "A rule failed on this file; the other rules still ran"
    severity = Severity.ERROR

    def check(self, ctx) -> None:
        """Reported by the engine when a rule raises."""
