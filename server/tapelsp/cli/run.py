"""Checking many files: in this process, or in worker processes when that pays.

Results always come back in the order of the jobs, whatever the number of
workers, so `-j1` and `-jN` print the same thing.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import Callable, TypeVar

from ..files import check_path
from ..model import FileResult
from ..settings import Settings, Targets

# Starting a worker costs about as much as checking a few dozen small files, so a
# worker is only worth it for at least this many files.
MIN_FILES_PER_WORKER = 16


@dataclass(frozen=True)
class Job:
    path: str  # absolute: what is opened and what the engine is told
    display: str  # what the report shows
    settings: Settings
    targets: Targets
    # Build the rules' fixes (for `[*]` marks and JSON `fix`).
    fixes: bool = False


def check_job(job: Job) -> FileResult:
    return replace(check_path(job.path, job.settings, job.targets, fixes=job.fixes), path=job.display)


J = TypeVar("J")
R = TypeVar("R")


def plan_workers(files: int, jobs: int) -> int:
    """How many worker processes to use for `files` files when up to `jobs` are allowed (1 = none)."""
    return max(1, min(jobs, files // MIN_FILES_PER_WORKER))


def run_jobs(jobs: list[J], max_workers: int, work: Callable[[J], R] = check_job) -> list[R]:  # type: ignore[assignment]
    """`work(job)` for every job, in worker processes when there are enough jobs (`work` must
    be a module-level function). Results come back in the order of `jobs`."""
    workers = plan_workers(len(jobs), max_workers)
    if workers > 1:
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                chunk = max(1, len(jobs) // (workers * 4))
                return list(pool.map(work, jobs, chunksize=chunk))
        except (BrokenProcessPool, OSError, RuntimeError):
            pass  # no processes to be had here: do the work ourselves
    return [work(job) for job in jobs]
