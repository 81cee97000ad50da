"""What the language server asks an analysis worker to do, and what comes back.

Plain picklable values: they cross the pipe between the server and its worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Fix, Violation
from ..settings import Settings

TEXT = "text"
NOTEBOOK = "notebook"


@dataclass(frozen=True)
class Source:
    """The program to analyse: Python text, or a notebook's cells."""

    kind: str  # TEXT or NOTEBOOK
    path: str | None
    text: str = ""
    # Notebook cells in order: (cell_type, source); cell_type "code" for the Python cells,
    # anything else for cells that are not part of the program.
    cells: tuple[tuple[str, str], ...] = ()
    # Text from a notebook front end that sends cells joined as one Python text
    # (jupyterlab-lsp's virtual documents): IPython magics are neutralised first.
    magics: bool = False


@dataclass(frozen=True)
class Check:
    source: Source
    settings: Settings
    # Which document and which of its versions: the worker keeps the fix offers under it.
    key: str = ""
    ident: tuple = ()
    project_root: str | None = None
    project_generation: int = 0


@dataclass(frozen=True)
class BuildFixes:
    """Build the fixes of some findings of an analysis (ideally in the worker that ran it,
    which kept the offers; any other worker analyses again first)."""

    check: Check
    wanted: tuple[tuple, ...]  # identities (convert.identity) of the findings
    # False: a worker that does not hold the analysis answers with nothing (it does not
    # analyse the document again): for fixes built ahead of time, in the background.
    reanalyse: bool = True


@dataclass(frozen=True)
class FixAll:
    """Apply the safe fixes until nothing is left to fix."""

    source: Source
    settings: Settings
    # For a notebook: only keep the changes of this 1-based cell (None: every cell).
    only_cell: int | None = None
    project_root: str | None = None
    project_generation: int = 0


@dataclass(frozen=True)
class Describe:
    """What the value model says the name at a position holds (hover). `line` is 0-based in
    the analysed program (a notebook's joined cells), `column` 0-based in code points."""

    check: Check
    line: int
    column: int


@dataclass(frozen=True)
class Described:
    text: str | None  # "`x`: tf.Tensor float32, eager, made on line 4", or None
    # 0-based (line, start column, end column) of the name in the analysed program.
    span: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class Status:
    """Ask a worker about itself (which process, whether TensorFlow got imported)."""


@dataclass(frozen=True)
class Checked:
    violations: tuple[Violation, ...]
    seconds: float
    # Messages of findings dropped because a rule raised (the engine's TL004 findings).
    rule_errors: tuple[str, ...] = ()
    # Identities of the findings that come with a fix offer (their fix is built on request).
    offered: frozenset = frozenset()
    # The worker process that holds those offers.
    worker: int = 0
    # 0-based line spans [start, end) of the text's top-level statements, when known.
    statements: tuple[tuple[int, int], ...] = ()
    # Fixes the worker built for findings of earlier versions and kept: (identity, fix, why none).
    built: tuple[tuple[tuple, Fix | None, str | None], ...] = ()


@dataclass(frozen=True)
class BuiltFixes:
    # identity -> (fix or None, why there is none or None)
    fixes: tuple[tuple[tuple, Fix | None, str | None], ...]
    seconds: float
    reanalysed: bool  # the offers were not here: the worker analysed the document again


@dataclass(frozen=True)
class Fixed:
    # TEXT: the new text, or None when nothing changed.
    text: str | None
    # NOTEBOOK: 1-based cell number -> new source, for the cells that changed.
    cells: tuple[tuple[int, str], ...]
    fixed: int
    problems: tuple[str, ...]
    seconds: float


@dataclass(frozen=True)
class WorkerStatus:
    pid: int
    tensorflow_imported: bool
    modules: int


@dataclass(frozen=True)
class Failed:
    """The job raised in the worker (a bug): the message and the traceback's last frames."""

    message: str
    detail: str = ""
