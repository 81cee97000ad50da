"""Run mode: a file or notebook run under the instrumentation in a kernel of its own.

`probe_file` starts a kernel in the user's interpreter (`KernelProcess`), loads the
instrumentation (`%load_ext tapelsp.probe`), runs the .py file as `__main__` (or the
notebook's code cells in order, stopping at the first error as "Run All" does) within
the time limit, asks the kernel for the probe's report and always ends the kernel.

What happened is an `Outcome`: the program finished, raised, was stopped at the time
limit (interrupted first, so the report still comes back and says where it was), died
(crash, `os._exit`, killed by the system: no report), or went over its memory limit.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from ..files import UnreadableFile, is_notebook, read_source
from ..notebook import NotebookError, code_cells
from .kernel import Deadline, KernelDied, KernelProcess, MemoryLimit, ProbeError, reply_error
from .report import CELL_ID_PREFIX, Place, ProbeReport

DEFAULT_TIMEOUT = 60.0
START_SECONDS = 60.0
LOAD_EXTENSION = "get_ipython().run_line_magic('load_ext', 'tapelsp.probe')"

FINISHED = "finished"
RAISED = "raised"
TIMEOUT = "timeout"
DIED = "died"
MEMORY = "memory"


@dataclass(frozen=True)
class Outcome:
    status: str  # FINISHED, RAISED, TIMEOUT, DIED, MEMORY
    message: str  # in words, for the user
    place: Place | None = None  # where the program stopped, when known
    cell: int | None = None  # the notebook cell that was running

    @property
    def complete(self) -> bool:
        """Did the whole program run (so a line that never produced an event really ran clean)?"""
        return self.status == FINISHED


@dataclass(frozen=True)
class ProbeRun:
    path: str
    outcome: Outcome
    report: ProbeReport | None
    seconds: float
    kernel_pid: int | None = None
    python: str | None = None
    # The program's output (stdout and stderr): its last characters, and how many the probe
    # read in all. Output is never held whole: what did not fit the probe's small queue was
    # dropped by the kernel, uncounted (`output_note` says so).
    output_tail: str = ""
    output_characters: int = 0
    output_dropped: bool = False  # output came faster or in bigger pieces than the probe reads

    @property
    def output_note(self) -> str:
        if self.output_dropped and not self.output_tail:
            return "the program printed more than the probe reads; its output was dropped"
        if self.output_dropped:
            return (f"the program printed more than the probe reads (it read {self.output_characters:,} "
                    f"characters, dropped the rest and kept the last {len(self.output_tail):,})")
        if self.output_characters > len(self.output_tail):
            return (f"the program printed {self.output_characters:,} characters; the probe kept the last "
                    f"{len(self.output_tail):,}")
        return ""


def run_code(path: str) -> str:
    return (f"__import__('tapelsp.probe.script', fromlist=['run_file']).run_file({path!r}, "
            "get_ipython().user_ns)")


def probe_file(path: str, python: str | None = None, timeout: float = DEFAULT_TIMEOUT,
               memory_limit_mb: float | None = None) -> ProbeRun:
    """Run `path` (.py or .ipynb) under the probe; raises ProbeError when the probe itself
    cannot work (no jupyter_client, no ipykernel in `python`, unreadable file)."""
    path = os.path.abspath(path)
    notebook = is_notebook(path)
    try:
        text = read_source(path).text
        cells = code_cells(text) if notebook else None
    except (UnreadableFile, NotebookError) as error:
        raise ProbeError(f"cannot run {path}: {error}") from None
    started = time.monotonic()
    kernel = KernelProcess(python, cwd=os.path.dirname(path), memory_limit_mb=memory_limit_mb)
    with kernel:
        reply = kernel.run_silent(LOAD_EXTENSION, time.monotonic() + START_SECONDS)
        if reply.status != "ok":
            raise ProbeError(f"the probe's instrumentation could not be loaded in {kernel.python}: "
                             f"{reply_error(reply)}")
        began = time.monotonic()
        deadline = began + timeout
        outcome, running = _run(kernel, path, cells, deadline, timeout)
        report = None
        if outcome.status in (FINISHED, RAISED, TIMEOUT):
            try:
                report = ProbeReport.from_json(kernel.ask())
            except ProbeError:
                report = None
        if report is not None and outcome.status in (RAISED, TIMEOUT):
            outcome = _with_place(outcome, report, running)
        pid = kernel.pid
        python_used = kernel.python
        output = (kernel.output_tail, kernel.output_characters, kernel.output_dropped)
    return ProbeRun(path, outcome, report, time.monotonic() - started, pid, python_used, *output)


def _run(kernel: KernelProcess, path: str, cells, deadline: float, timeout: float) -> tuple[Outcome, int | None]:
    running: int | None = None
    try:
        if cells is None:
            reply = kernel.run(run_code(path), deadline)
            if reply.status != "ok":
                return Outcome(RAISED, f"the program raised {reply_error(reply)}"), None
            return Outcome(FINISHED, "the program ran to the end"), None
        for number, source in cells:
            running = number
            reply = kernel.run(source, deadline, cell_id=f"{CELL_ID_PREFIX}{number}")
            if reply.status != "ok":
                return Outcome(RAISED, f"cell {number} raised {reply_error(reply)}; the cells after it did not run",
                               cell=number), running
        return Outcome(FINISHED, "every code cell ran"), None
    except Deadline:
        kernel.interrupt()
        where = f" in cell {running}" if running is not None else ""
        return Outcome(TIMEOUT, f"the program was stopped at the probe's time limit of {timeout:g} s{where}",
                       cell=running), running
    except MemoryLimit as error:
        kernel.close()
        return Outcome(MEMORY, f"{error}; the kernel was stopped", cell=running), running
    except KernelDied as error:
        where = f" while running cell {running}" if running is not None else ""
        return Outcome(DIED, f"{error}{where} (a crash, os._exit or sys.exit of the kernel); "
                             "runtime facts recorded before are lost", cell=running), running


def _with_place(outcome: Outcome, report: ProbeReport, running: int | None) -> Outcome:
    """Name the line where the program stopped (the exception the instrumentation recorded)."""
    stops = [e for e in report.events if e.place is not None
             and (e.kind == "exception" or e.kind in ("variable-creation", "tape-reused", "no-gradients"))]
    if outcome.status == TIMEOUT:
        stops = [e for e in stops if "KeyboardInterrupt" in e.message] or stops
    if not stops:
        return outcome
    place = stops[-1].place
    return Outcome(outcome.status, f"{outcome.message}, at {place.label()}", place, outcome.cell)


__all__ = ["probe_file", "ProbeRun", "Outcome", "ProbeError", "DEFAULT_TIMEOUT"]
