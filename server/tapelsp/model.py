"""Plain values shared by the engine and every front end.

Positions are 0-based lines and 0-based columns counted in Unicode code points.
Front ends convert at their edge (the CLI prints 1-based rows and columns, the
language server converts to the client's position encoding).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(enum.IntEnum):
    """Ordered like LSP's DiagnosticSeverity (1 is the most severe)."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> "Severity":
        key = text.strip().upper()
        aliases = {"INFO": "INFORMATION", "WARN": "WARNING"}
        key = aliases.get(key, key)
        try:
            return cls[key]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning, information or hint)") from None


class Applicability(str, enum.Enum):
    """`safe` fixes are applied by `--fix` and fix-all; `unsafe` ones only on request."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Position:
    line: int
    column: int


@dataclass(frozen=True, order=True)
class Range:
    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, column: int, end_line: int, end_column: int) -> "Range":
        return cls(Position(line, column), Position(end_line, end_column))

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end


@dataclass(frozen=True)
class Edit:
    """Replace the text in `range` with `new_text`."""

    range: Range
    new_text: str


@dataclass(frozen=True)
class Fix:
    title: str
    applicability: Applicability
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Related:
    """Another place that explains a finding (LSP relatedInformation)."""

    range: Range
    message: str


@dataclass(frozen=True)
class Evidence:
    """What the user's own TensorFlow showed about a finding (the probe, `tapelsp --probe`).

    `verdict` is "confirmed" (a static finding the runtime showed) or "runtime" (a finding
    only the runtime could see). `summary` is one sentence; `details` are further facts
    (the sources that were None, the argument values that caused retraces).
    """

    verdict: str
    summary: str
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class Violation:
    code: str
    name: str
    message: str
    range: Range
    severity: Severity
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    url: str | None = None
    # 1-based cell number for notebooks; `range` is then relative to that cell.
    cell: int | None = None
    # Why the rule's fix was dropped (its builder failed, or its result would not parse).
    fix_error: str | None = None
    # Set only by the probe: what the user's TensorFlow showed at runtime about this finding.
    evidence: Evidence | None = None

    @property
    def confirmed(self) -> bool:
        """A static finding the user's TensorFlow showed at runtime (see `evidence`)."""
        return self.evidence is not None and self.evidence.verdict == "confirmed"

    def sort_key(self) -> tuple:
        return (self.cell or 0, self.range.start, self.code, self.message)


@dataclass(frozen=True)
class FileResult:
    """Everything the engine has to say about one file."""

    path: str | None
    violations: tuple[Violation, ...] = field(default_factory=tuple)
    # Set when the file could not be analysed at all (unreadable, not UTF-8...);
    # the same text is also carried by a TL002 violation so reports show it.
    error: str | None = None
