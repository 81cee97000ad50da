"""Checking many files: in this process, or in worker processes when that pays.

Results always come back in the order of the jobs, whatever the number of
workers, so `-j1` and `-jN` print the same thing.
"""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, TypeVar

from ..files import UnreadableFile, _unreadable, check_bytes, read_bytes
from ..model import FileResult
from ..settings import Settings, Targets
from . import cache as cache_mod

# Starting a worker costs about as much as checking a few dozen small files, so a
# worker is only worth it for at least this many files.
MIN_FILES_PER_WORKER = 16
# Jobs handed to a worker at a time: small enough to balance two workers at the end
# of a run and to move the progress bar, large enough that the pipe is not the cost.
CHUNK_FILES = 8
# In a worker the cyclic collector runs once per this many files instead of on every
# few hundred allocations (the engine's trees are big and mostly acyclic).
COLLECT_EVERY = 64


@dataclass(frozen=True)
class Job:
    path: str  # absolute: what is opened and what the engine is told
    display: str  # what the report shows
    settings: Settings
    targets: Targets
    # Build the rules' fixes (for `[*]` marks and JSON `fix`).
    fixes: bool = False
    # With the results cache on: the code fingerprint and everything but the bytes that
    # decides the findings (cli/cache.py); the worker keys its result with it.
    cache_salt: str | None = None
    # The root of the user's project the file belongs to: rules may read its other modules
    # (tapelsp.project.Project); None checks the file on its own.
    project_root: str | None = None


@dataclass(frozen=True)
class Checked:
    result: FileResult
    # The cache key of the bytes that were checked; None when the result must not be cached.
    key: str | None = None
    # The other files of the project the check read: (path, size, mtime_ns) each. A cached
    # result holds only while they are unchanged.
    depends: tuple[tuple[str, int, int], ...] = ()


_projects: dict[str, Any] = {}


def project_for(root: str | None) -> Any:
    """One Project per root and process, so its summaries serve every file checked here."""
    if root is None:
        return None
    found = _projects.get(root)
    if found is None:
        from ..project import Project

        found = _projects[root] = Project(root, index_ttl=float("inf"))  # files do not change during a run
    found.begin_check()
    return found


def check_job(job: Job) -> FileResult:
    return check_keyed(job).result


def check_keyed(job: Job) -> Checked:
    try:
        data = read_bytes(job.path)
    except UnreadableFile as error:  # depends on the file system, not on content: never cached
        return Checked(replace(_unreadable(job.path, str(error), job.settings), path=job.display))
    from ..project import tracking_reads

    with tracking_reads() as reads:
        result = replace(check_bytes(data, job.path, job.settings, job.targets, fixes=job.fixes,
                                     project=project_for(job.project_root)), path=job.display)
    entry_key = None
    if job.cache_salt is not None and not _internal_error(result):  # bytes that do not decode: cached
        code, _, job_salt = job.cache_salt.partition("\n")
        entry_key = cache_mod.key(code, job_salt, data)
    own = os.path.abspath(job.path)
    depends = tuple(sorted((path, size, mtime) for path, (size, mtime) in reads.items() if path != own))
    return Checked(result, entry_key, depends)


def _internal_error(result: FileResult) -> bool:
    from ..engine import INTERNAL_ERROR

    return any(violation.code == INTERNAL_ERROR for violation in result.violations)


J = TypeVar("J")
R = TypeVar("R")


def plan_workers(files: int, jobs: int) -> int:
    """How many worker processes to use for `files` files when up to `jobs` are allowed (1 = none)."""
    return max(1, min(jobs, files // MIN_FILES_PER_WORKER))


@contextmanager
def _rare_collection() -> Iterator[None]:
    """The cyclic collector once per COLLECT_EVERY files instead of every few hundred
    allocations, for the duration of a loop in this process."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load_engine() -> None:
    """Import the engine and every rule here, before workers fork, so that they share them
    instead of each importing them again (the cache path never gets here)."""
    from .. import engine
    from ..rules import all_rules

    engine.enabled_rules  # noqa: B018 (the import is the point)
    all_rules()


def _start_worker(load: bool = False) -> None:
    # What the parent imported is shared copy-on-write after fork: keep the collector off it,
    # and collect rarely (see _counted).
    gc.freeze()
    gc.disable()
    if load:  # started early (start_workers_early): the parent has not imported the engine
        _load_engine()
        gc.freeze()


def _ready() -> None:
    """A task that does nothing: submitting it makes the pool start its processes."""


# Workers started before the files were found (start_workers_early), and how many.
_early: list[Any] = []


def start_workers_early(workers: int) -> None:
    """Start `workers` worker processes now, each importing the engine itself, while this
    process is still finding the files to check: the imports then cost no time of their own.
    The next `iter_jobs` that plans as many workers takes them; one that plans another number
    stops them. For a run that will have many files to check (a directory, no results cache)."""
    if workers <= 1 or _early:
        return
    try:
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(True,))
        pool.submit(_ready)  # with fork, the first task starts every process of the pool
    except (OSError, RuntimeError, ValueError):
        return
    _early.extend((pool, workers))


def _take_early(workers: int) -> ProcessPoolExecutor | None:
    if not _early:
        return None
    pool, count = _early
    _early.clear()
    if count == workers:
        return pool
    pool.shutdown(wait=False, cancel_futures=True)
    return None


_done_in_worker = 0


def _counted(work: Callable[[J], R], job: J) -> R:
    global _done_in_worker
    _done_in_worker += 1
    if _done_in_worker % COLLECT_EVERY == 0:
        gc.collect(1)
    return work(job)


def _run_chunk(work: Callable[[J], R], chunk: list[J]) -> list[R]:
    return [_counted(work, job) for job in chunk]


def run_jobs(jobs: list[J], max_workers: int, work: Callable[[J], R] = check_job,  # type: ignore[assignment]
             progress: Callable[[int], None] | None = None) -> list[R]:
    """`work(job)` for every job, in worker processes when there are enough jobs (`work` must
    be a module-level function). Results come back in the order of `jobs`; `progress(n)` is
    called as each n more jobs finish."""
    return list(iter_jobs(jobs, max_workers, work, progress))


def iter_jobs(jobs: list[J], max_workers: int, work: Callable[[J], R] = check_job,  # type: ignore[assignment]
              progress: Callable[[int], None] | None = None) -> Iterator[R]:
    workers = plan_workers(len(jobs), max_workers)
    early = _take_early(workers)
    if workers > 1:
        if early is None:
            _load_engine()
        try:
            results = _in_workers(jobs, workers, work, progress, early)
        except (BrokenProcessPool, OSError, RuntimeError):
            results = None  # no processes to be had here: do the work ourselves
        if results is not None:
            yield from results
            return
    with _rare_collection():
        for job in jobs:
            result = _counted(work, job)
            if progress is not None:
                progress(1)
            yield result


def _in_workers(jobs: list[J], workers: int, work: Callable[[J], R],
                progress: Callable[[int], None] | None, pool: ProcessPoolExecutor | None = None) -> list[R]:
    from functools import partial

    size = max(1, min(CHUNK_FILES, len(jobs) // (workers * 4)))
    chunks = [jobs[start:start + size] for start in range(0, len(jobs), size)]
    results: list[R] = []
    if pool is None:
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker)
    with pool:
        for done in pool.map(partial(_run_chunk, work), chunks):
            results.extend(done)
            if progress is not None:
                progress(len(done))
    return results
