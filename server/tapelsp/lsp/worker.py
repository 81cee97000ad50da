"""An analysis worker: a child process of the language server that runs the engine.

Started as `python -m tapelsp.lsp.worker`. It reads jobs from its standard input and
writes results to the pipe that was its standard output, each as a length-prefixed
pickle. File descriptor 1 is pointed at standard error before any job runs, so a
`print` in a rule (or C code writing to fd 1) cannot corrupt the stream.

Analysis runs here, never in the server process: the server's event loop stays free,
a job that never ends can be killed, and a crash costs this process only. A worker never
outlives the server and caps its own memory (`worker_limits`); a job that runs out of it
is answered with a `Failed` starting with `OUT_OF_MEMORY`, and the worker then ends (the
pool starts a fresh one).
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import sys
import time
import traceback
from collections import OrderedDict
from typing import Any, BinaryIO, Optional

from . import fix_offers, jobs, worker_limits

HEADER = struct.Struct("!Q")
# Findings the engine reports when a rule raised (it keeps the other rules' findings).
RULE_ERROR = "TL004"
OUT_OF_MEMORY = "the analysis ran out of memory"
OUT_OF_MEMORY_EXIT_CODE = 3
# The worker's address-space ceiling when `TAPELSP_WORKER_MEMORY_MB` is not set.
DEFAULT_MEMORY_MB = 2048

# For the tests only (tests/lsp/test_worker_lifetime.py), never set otherwise: a directory.
# A Check job whose text holds HOLD_MARKER writes the worker's pid to `busy-<pid>` there, then
# keeps the worker busy, in C code that holds the GIL, while the file `hold` exists (60 s at
# most); one whose text holds ALLOCATE_MARKER allocates memory until the ceiling stops it.
TEST_HOOKS_VARIABLE = "TAPELSP_TEST_ONLY_HOOKS"
HOLD_MARKER = "# tapelsp-test-only: hold the worker"
ALLOCATE_MARKER = "# tapelsp-test-only: allocate"


def write_frame(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: BinaryIO) -> Any:
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        raise EOFError
    (size,) = HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


class Engine:
    """Runs jobs; keeps a project index per root and the fix offers of recent analyses."""

    # A project index is rebuilt after this many jobs (its parsing budget is per index).
    PROJECT_JOBS = 100
    # Documents whose incremental analysis a worker keeps.
    CHECKERS = 8

    def __init__(self, test_hooks: Optional[str] = None, memory_mb: int = 0) -> None:
        self._test_hooks = test_hooks
        self._memory_mb = memory_mb
        self._projects: dict[str, tuple[int, int, Any]] = {}
        self._targets: dict[tuple, Any] = {}
        self.offers = fix_offers.OfferStore()
        # The incremental analysis of the last documents this worker analysed (Python text).
        self._checkers: OrderedDict[str, Any] = OrderedDict()

    def run(self, job: Any) -> Any:
        if isinstance(job, jobs.Check):
            return self.check(job)
        if isinstance(job, jobs.BuildFixes):
            return self.build_fixes(job)
        if isinstance(job, jobs.FixAll):
            return self.fix_all(job)
        if isinstance(job, jobs.Describe):
            return self.describe(job)
        if isinstance(job, jobs.Status):
            return jobs.WorkerStatus(os.getpid(), "tensorflow" in sys.modules, len(sys.modules))
        return jobs.Failed(f"unknown job {type(job).__name__}")

    def project(self, root: str | None, generation: int) -> Any:
        if root is None:
            return None
        known = self._projects.get(root)
        if known is None or known[0] != generation or known[1] >= self.PROJECT_JOBS:
            from ..project import Project

            known = (generation, 0, Project(root))
        self._projects[root] = (known[0], known[1] + 1, known[2])
        return known[2]

    def targets(self, settings: Any) -> Any:
        key = (settings.tensorflow_version, settings.keras_version, settings.tensorflow_probability_version)
        if key not in self._targets:
            self._targets[key] = settings.targets()
        return self._targets[key]

    def check(self, job: jobs.Check) -> jobs.Checked:
        """Analyse; keep the findings' fix offers for `build_fixes` instead of building them."""
        from ..engine import check_source, deferred_fixes
        from ..notebook import check_notebook, code_cells, join_cells, map_violation, neutralise_magics

        source = job.source
        if self._test_hooks is not None:
            _run_test_hooks(self._test_hooks, source.text or "", self._memory_mb)
        project = self.project(job.project_root, job.project_generation)
        targets = self.targets(job.settings)
        offers = fix_offers.OfferSet(job.ident)
        statements: tuple[tuple[int, int], ...] = ()
        prebuilt: tuple = ()
        started = time.perf_counter()
        with deferred_fixes() as collected:
            if source.kind == jobs.NOTEBOOK and job.key:
                # The joined program of the code cells, analysed incrementally like a Python file.
                notebook = {"cells": [{"cell_type": kind, "source": text} for kind, text in source.cells]}
                checker = self.checker(job, targets, project)
                joined: list[Any] = []

                def analyse(text: str, label: Any) -> list[Any]:
                    result = checker.check(text, label)
                    joined.append(result)
                    return result.violations

                found = check_notebook(notebook, source.path, job.settings, targets, project=project,
                                       analyse=analyse)
                if joined:
                    cells = join_cells(code_cells(notebook))[1]
                    offers.to_cell = lambda violation: map_violation(violation, cells)
                    for violation, offered in zip(joined[0].violations, joined[0].offered):
                        if offered:
                            offers.offers[fix_offers.identity(offers.to_cell(violation))] = violation
                    offers.build_all = checker.fixes
                    prebuilt = tuple(fix_offers.cell_fix(offers, violation, fix, problem)
                                     for violation, (fix, problem) in checker.built())
            elif source.kind == jobs.NOTEBOOK:
                notebook = {"cells": [{"cell_type": kind, "source": text} for kind, text in source.cells]}
                found = check_notebook(notebook, source.path, job.settings, targets, project=project, fixes=True)
                if collected:
                    cells = join_cells(code_cells(notebook))[1]
                    offers.to_cell = lambda violation: map_violation(violation, cells)
            elif job.key:
                text = neutralise_magics(source.text) if source.magics else source.text
                checker = self.checker(job, targets, project)
                result = checker.check(text)
                found = result.violations
                for violation, offered in zip(result.violations, result.offered):
                    if offered:
                        offers.offers[fix_offers.identity(violation)] = violation
                offers.build_all = checker.fixes
                statements = checker.statements()
                if source.magics:
                    offers.guard = lambda violation: _without_fix_on_changed_lines(violation, source.text, text)
                prebuilt = tuple(fix_offers.cell_fix(offers, violation, fix, problem)
                                 for violation, (fix, problem) in checker.built())
            else:
                text = neutralise_magics(source.text) if source.magics else source.text
                found = check_source(text, source.path, job.settings, targets, project=project, fixes=True)
                if source.magics:
                    offers.guard = lambda violation: _without_fix_on_changed_lines(violation, source.text, text)
        seconds = time.perf_counter() - started
        for entry in collected:
            seen = offers.to_cell(entry.violation) if offers.to_cell is not None else entry.violation
            offers.offers[fix_offers.identity(seen)] = entry
        if job.key:
            self.offers.put(job.key, offers)
        kept = tuple(v for v in found if v.code != RULE_ERROR)
        errors = tuple(v.message for v in found if v.code == RULE_ERROR)
        return jobs.Checked(kept, seconds, errors, frozenset(offers.offers), os.getpid(), statements, prebuilt)

    def checker(self, job: jobs.Check, targets: Any, project: Any) -> Any:
        """The document's incremental analysis (a new one when its settings or project changed)."""
        from ..incremental import IncrementalChecker

        setup = (job.project_root, job.project_generation)
        known = self._checkers.get(job.key)
        if known is None or known[0] != setup or not known[1].same_setup(job.source.path, job.settings, targets):
            known = (setup, IncrementalChecker(job.source.path, job.settings, targets))
        known[1].project = project  # the same modules (same generation), maybe a fresh index of them
        self._checkers[job.key] = known
        self._checkers.move_to_end(job.key)
        while len(self._checkers) > self.CHECKERS:
            self._checkers.popitem(last=False)
        return known[1]

    def describe(self, job: jobs.Describe) -> jobs.Described:
        """Hover: the value model's view of the name under the cursor."""
        from ..inspect_values import describe_at

        source = job.check.source
        settings = job.check.settings
        project = self.project(job.check.project_root, job.check.project_generation)
        label = None
        if source.kind == jobs.NOTEBOOK:
            from ..notebook import _locate, join_cells

            text, cells = join_cells([(index + 1, cell) for index, (kind, cell) in enumerate(source.cells)
                                      if kind == "code"])

            def label(line: int) -> str:
                cell = _locate(cells, line - 1)
                return f"line {line - cell.first_line} of cell {cell.number}"
        else:
            text = neutralise_for_hover(source)
        found = describe_at(text, job.line, job.column, path=source.path, project=project,
                            targets=self.targets(settings), line_label=label)
        if found is None:
            return jobs.Described(None)
        return jobs.Described(found.text, (found.line - 1, found.column, found.end_column))

    def build_fixes(self, job: jobs.BuildFixes) -> jobs.BuiltFixes:
        started = time.perf_counter()
        offers = self.offers.get(job.check.key, job.check.ident)
        reanalysed = offers is None
        if offers is None:
            if not job.reanalyse:
                return jobs.BuiltFixes((), time.perf_counter() - started, False)
            self.check(job.check)
            offers = self.offers.get(job.check.key, job.check.ident)
        if offers is not None and offers.build_all is not None:
            made = fix_offers.build_incremental(offers, job.wanted)
            return jobs.BuiltFixes(tuple(made), time.perf_counter() - started, reanalysed)
        built = []
        for wanted in job.wanted:
            entry = offers.offers.get(wanted) if offers is not None else None
            if entry is None:
                built.append((wanted, None, None))
                continue
            fix, error = fix_offers.build(entry, offers)  # type: ignore[arg-type]
            built.append((wanted, fix, error))
        return jobs.BuiltFixes(tuple(built), time.perf_counter() - started, reanalysed)

    def fix_all(self, job: jobs.FixAll) -> jobs.Fixed:
        from ..fixes import apply_fixes, apply_notebook_fixes

        source = job.source
        project = self.project(job.project_root, job.project_generation)
        targets = self.targets(job.settings)
        started = time.perf_counter()
        if source.kind == jobs.NOTEBOOK:
            notebook = {"cells": [{"cell_type": kind, "source": text} for kind, text in source.cells]}
            result = apply_notebook_fixes(notebook, source.path, job.settings, targets, project=project)
            cells = tuple((number, after) for number, (_before, after) in sorted(result.cells.items())
                          if job.only_cell is None or number == job.only_cell)
            fixed = sum(1 for v in result.fixed if job.only_cell is None or v.cell == job.only_cell)
            return jobs.Fixed(None, cells, fixed, result.problems, time.perf_counter() - started)
        if source.magics:
            return jobs.Fixed(None, (), 0, ("fix-all is not offered for text with IPython magics",),
                              time.perf_counter() - started)
        result = apply_fixes(source.text, source.path, job.settings, targets, project=project)
        text = result.text if result.text != source.text else None
        return jobs.Fixed(text, (), len(result.fixed), result.problems, time.perf_counter() - started)


def neutralise_for_hover(source: jobs.Source) -> str:
    if source.magics:
        from ..notebook import neutralise_magics

        return neutralise_magics(source.text)
    return source.text


def _without_fix_on_changed_lines(violation: Any, original: str, neutralised: str) -> Any:
    """A fix that would edit a line the magics neutralisation rewrote is dropped."""
    from dataclasses import replace

    if violation.fix is None:
        return violation
    before, after = original.split("\n"), neutralised.split("\n")
    for edit in violation.fix.edits:
        for line in range(edit.range.start.line, edit.range.end.line + 1):
            if line < len(before) and line < len(after) and before[line] != after[line]:
                return replace(violation, fix=None,
                               fix_error="the fix would edit a line of IPython syntax (a magic or shell command)")
    return violation


def _run_test_hooks(directory: str, text: str, memory_mb: int) -> None:
    """See TEST_HOOKS_VARIABLE."""
    if HOLD_MARKER in text:
        with open(os.path.join(directory, f"busy-{os.getpid()}"), "w") as note:
            note.write(str(os.getpid()))
        hold = os.path.join(directory, "hold")
        deadline = time.monotonic() + 60.0
        while os.path.exists(hold) and time.monotonic() < deadline:
            sum(range(3_000_000))  # one call in C, the GIL held throughout, like a huge ast.parse
    if ALLOCATE_MARKER in text:
        if memory_mb <= 0:
            raise RuntimeError("the allocate test hook needs a memory ceiling")
        chunks = []
        for _ in range(2 * memory_mb // 64 + 1):  # twice the ceiling: it must fail before
            chunks.append(bytearray(64 * 1024 * 1024))
        raise RuntimeError(f"{len(chunks) * 64} MB were allocated under a ceiling of {memory_mb} MB")


def _log_fix_reasons() -> None:
    """Why a fix this worker builds is not offered (the engine's `tapelsp.fixes` warnings) goes
    to standard error, which is the server's log."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("tapelsp worker: %(message)s"))
    handler.setLevel(logging.WARNING)
    logging.getLogger("tapelsp.fixes").addHandler(handler)


def main() -> int:
    worker_limits.guard_parent(worker_limits.expected_parent())
    memory_mb = worker_limits.memory_setting(DEFAULT_MEMORY_MB)
    if not worker_limits.limit_memory(memory_mb):
        memory_mb = 0
    # Keep the result stream private: fd 1 becomes standard error for everything else.
    output = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _log_fix_reasons()
    source = sys.stdin.buffer
    engine = Engine(os.environ.get(TEST_HOOKS_VARIABLE), memory_mb)
    out_of_memory = jobs.Failed(f"{OUT_OF_MEMORY} (over the worker's ceiling of {memory_mb} MB)"
                                if memory_mb else OUT_OF_MEMORY)
    preloaded = False
    while True:
        try:
            request_id, job = read_frame(source)
        except (EOFError, OSError):
            return 0
        except MemoryError:
            print("tapelsp worker: out of memory reading a job", file=sys.stderr)
            return OUT_OF_MEMORY_EXIT_CODE
        exhausted = False
        began = time.perf_counter()
        try:
            result = engine.run(job)
            _note_if_slow(job, time.perf_counter() - began)
        except MemoryError:
            exhausted = True
        except RecursionError as error:
            result = jobs.Failed(f"RecursionError: {error}")
        except Exception as error:  # a bug: report it, stay alive for the next job
            frames = traceback.format_exception(type(error), error, error.__traceback__)
            result = jobs.Failed(f"{type(error).__name__}: {error}", "".join(frames[-3:]))
        if exhausted:  # answered outside the except block: what the job held is freed by now
            job = result = None
            _answer(output, request_id, out_of_memory)
            return OUT_OF_MEMORY_EXIT_CODE
        try:
            write_frame(output, (request_id, result))
        except MemoryError:
            result = None
            _answer(output, request_id, out_of_memory)
            return OUT_OF_MEMORY_EXIT_CODE
        except (BrokenPipeError, OSError):
            return 0
        if not preloaded and isinstance(result, jobs.Checked) and result.offered and not _job_waiting(source):
            preloaded = True
            _preload_fix_builders()


# A job that takes longer than this is noted on standard error (the server's log).
SLOW_JOB_SECONDS = 3.0


def _note_if_slow(job: Any, seconds: float) -> None:
    if seconds < SLOW_JOB_SECONDS:
        return
    what = type(job).__name__
    if isinstance(job, jobs.BuildFixes):
        what += " " + ", ".join(f"{key[0]} at line {key[2].start.line + 1}" for key in job.wanted[:5])
    source = getattr(job, "source", None) or getattr(getattr(job, "check", None), "source", None)
    where = getattr(source, "path", None) or "<unsaved>"
    print(f"tapelsp worker {os.getpid()}: {what} on {where} took {seconds:.1f} s", file=sys.stderr, flush=True)


def _job_waiting(source: BinaryIO) -> bool:
    """Whether the server has sent the next job. The pool gives a worker one job at a time and
    waits for its answer, so nothing is left in the reader's buffer here: the pipe tells."""
    try:
        return bool(select.select([source.fileno()], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _preload_fix_builders() -> None:
    """Load libcst and the fix builders once, after the first analysis that offers fixes, while
    the worker is idle: the first code action then does not pay for loading them (about 0.3 s)."""
    try:
        import importlib
        import pkgutil

        import libcst

        from .. import fixes

        for module in pkgutil.iter_modules(fixes.__path__):
            importlib.import_module(f"{fixes.__name__}.{module.name}")
        libcst.parse_module("x = 1\n")
    except Exception as error:  # loading is retried where a fix is built, and reported there
        print(f"tapelsp worker: preloading the fix builders failed: {error}", file=sys.stderr)


def _answer(output: BinaryIO, request_id: int, result: Any) -> None:
    try:
        write_frame(output, (request_id, result))
    except (BrokenPipeError, OSError, MemoryError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
