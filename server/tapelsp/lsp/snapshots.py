"""Frozen views of a document at one version: what is analysed, and what came out."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Violation
from ..settings import Settings
from . import jobs

# (document version, settings generation): a result is reused only for the same pair.
Ident = tuple[int, int]


@dataclass(frozen=True)
class CellSnapshot:
    uri: str
    version: int
    number: int  # 1-based among all cells of the notebook
    python: bool
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Snapshot:
    key: str  # the text document's or the notebook's URI
    version: int
    generation: int
    source: jobs.Source
    settings: Settings
    lines: tuple[str, ...] = ()  # the text document's lines (with their endings)
    client_version: int | None = None  # the text document's version as the client numbers it
    cells: tuple[CellSnapshot, ...] = ()
    excluded: bool = False
    project_root: str | None = None
    project_generation: int = 0

    @property
    def ident(self) -> Ident:
        return (self.version, self.generation)

    @property
    def is_notebook(self) -> bool:
        return self.source.kind == jobs.NOTEBOOK

    def cell_by_number(self, number: int | None) -> CellSnapshot | None:
        return next((cell for cell in self.cells if cell.number == number), None)

    def cell_by_uri(self, uri: str) -> CellSnapshot | None:
        return next((cell for cell in self.cells if cell.uri == uri), None)


@dataclass(frozen=True)
class Analysis:
    snapshot: Snapshot
    violations: tuple[Violation, ...] = ()
    seconds: float = 0.0  # time spent in the engine
    error: str | None = None
    rule_errors: tuple[str, ...] = field(default_factory=tuple)
    # Identities of the findings that have a fix offer, and the worker holding the offers.
    offered: frozenset = frozenset()
    worker: int | None = None
    # 0-based line spans of the top-level statements of the text, when the worker knows them.
    statements: tuple[tuple[int, int], ...] = ()
    # Fixes the worker had built already: (identity, fix, why none).
    built: tuple = ()

    @property
    def ident(self) -> Ident:
        return self.snapshot.ident

    def for_cell(self, number: int) -> tuple[Violation, ...]:
        return tuple(v for v in self.violations if v.cell == number)
