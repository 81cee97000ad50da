"""What the language server asks a probe process to do, and what comes back.

Plain picklable values, like `jobs`: they cross the pipe between the server and the probe
process (`probe_child`), which is started for one probe and ends with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Violation
from ..settings import Settings

RUN = "run"  # start a kernel, run the saved file or notebook in it
ATTACH = "attach"  # ask a running kernel what it recorded; run nothing


@dataclass(frozen=True)
class ProbeJob:
    mode: str  # RUN or ATTACH
    path: str  # the file on disk (RUN runs it; ATTACH names it)
    settings: Settings
    python: str | None = None  # the interpreter of the kernel RUN starts (None: the server's)
    timeout: float = 60.0  # RUN: the program's time limit; ATTACH: how long the kernel may take to answer
    # ATTACH: the kernel's connection file, and the program as the editor has it now:
    # the text of a .py file, or a notebook's cells as (cell_type, source).
    connection_file: str | None = None
    text: str = ""
    cells: tuple[tuple[str, str], ...] = ()
    notebook: bool = False


@dataclass(frozen=True)
class Dropped:
    """A static finding the runtime contradicted (the merge drops it)."""

    code: str
    cell: int | None
    line: int  # 0-based
    reason: str


@dataclass(frozen=True)
class ProbeOutcome:
    violations: tuple[Violation, ...]  # the merged findings (static, confirmed, runtime-only)
    summary: str  # what happened, in one sentence, for the user
    confirmed: int = 0
    refuted: tuple[Dropped, ...] = ()
    runtime_only: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class ProbeFailed:
    """The probe could not do its work (no kernel, no jupyter_client...): why, in words."""

    message: str
