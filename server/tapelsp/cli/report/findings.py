"""What every output format needs from a finding, in the user's units (1-based)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ...model import Applicability, FileResult, Range, Violation


@dataclass(frozen=True)
class Span:
    """1-based rows and columns; `end_column` is the column just after the last character."""

    row: int
    column: int
    end_row: int
    end_column: int

    @classmethod
    def of(cls, rng: Range) -> "Span":
        return cls(rng.start.line + 1, rng.start.column + 1, rng.end.line + 1, rng.end.column + 1)


@dataclass(frozen=True)
class Finding:
    path: str
    violation: Violation

    @property
    def span(self) -> Span:
        return Span.of(self.violation.range)

    @property
    def has_safe_fix(self) -> bool:
        fix = self.violation.fix
        return fix is not None and fix.applicability == Applicability.SAFE

    @property
    def has_unsafe_fix(self) -> bool:
        fix = self.violation.fix
        return fix is not None and fix.applicability != Applicability.SAFE


def findings(results: list[FileResult]) -> Iterator[Finding]:
    for result in results:
        for violation in result.violations:
            yield Finding(result.path or "-", violation)
