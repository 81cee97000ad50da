"""Checking many files: in this process, or in worker processes when that pays.

Results always come back in the order of the jobs, whatever the number of
workers, so `-j1` and `-jN` print the same thing.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace

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


def check_job(job: Job) -> FileResult:
    return replace(check_path(job.path, job.settings, job.targets), path=job.display)


def plan_workers(files: int, jobs: int) -> int:
    """How many worker processes to use for `files` files when up to `jobs` are allowed (1 = none)."""
    return max(1, min(jobs, files // MIN_FILES_PER_WORKER))


def run_jobs(jobs: list[Job], max_workers: int) -> list[FileResult]:
    workers = plan_workers(len(jobs), max_workers)
    if workers > 1:
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                chunk = max(1, len(jobs) // (workers * 4))
                return list(pool.map(check_job, jobs, chunksize=chunk))
        except (BrokenProcessPool, OSError, RuntimeError):
            pass  # no processes to be had here: do the work ourselves
    return [check_job(job) for job in jobs]
