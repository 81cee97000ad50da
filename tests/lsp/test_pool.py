"""The worker pool's preference for the worker that holds a document's state: a job waits a
while for that worker when it is busy, takes another when the wait is over or the worker dies.

Real worker processes; a busy worker is made with the worker's test-only hold hook (see
`tapelsp.lsp.worker`): a Check job whose text holds HOLD_MARKER keeps it busy while the
file `hold` exists."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_asyncio

from tapelsp.lsp import jobs
from tapelsp.lsp.pool import WorkerPool
from tapelsp.lsp.worker import HOLD_MARKER, TEST_HOOKS_VARIABLE
from tapelsp.settings import Settings

from .conftest import HANG_GUARD

pytestmark = pytest.mark.asyncio


def holding_job() -> jobs.Check:
    return jobs.Check(jobs.Source(jobs.TEXT, "h.py", f"{HOLD_MARKER}\nimport tensorflow as tf\n"), Settings())


async def busy_worker(pool: WorkerPool, hooks: Path) -> tuple[int, asyncio.Task]:
    (hooks / "hold").write_text("")
    task = asyncio.ensure_future(pool.run(holding_job()))
    for _ in range(int(HANG_GUARD * 20)):
        busy = list(hooks.glob("busy-*"))
        if busy:
            return int(busy[0].name.split("-", 1)[1]), task
        await asyncio.sleep(0.05)
    raise AssertionError("no worker became busy")


@pytest_asyncio.fixture
async def pool(tmp_path, monkeypatch):
    monkeypatch.setenv(TEST_HOOKS_VARIABLE, str(tmp_path))
    started = WorkerPool(size=2)
    started.start()
    # both workers up
    await asyncio.wait_for(asyncio.gather(started.run(jobs.Status()), started.run(jobs.Status())), HANG_GUARD)
    for _ in range(int(HANG_GUARD * 20)):
        if len(started.pids()) == 2:
            break
        await asyncio.sleep(0.05)
    yield started
    (tmp_path / "hold").unlink(missing_ok=True)
    await started.close()


async def test_a_job_waits_for_its_busy_preferred_worker(pool, tmp_path):
    held, holding = await busy_worker(pool, tmp_path)
    waiting = asyncio.ensure_future(pool.run(jobs.Status(), prefer=held, patience=HANG_GUARD))
    await asyncio.sleep(0.5)
    assert not waiting.done()  # the other worker is free, but the job waits for the preferred one
    (tmp_path / "hold").unlink()
    status = await asyncio.wait_for(waiting, HANG_GUARD)
    assert status.pid == held
    await asyncio.wait_for(holding, HANG_GUARD)


async def test_without_patience_or_once_it_runs_out_another_worker_takes_the_job(pool, tmp_path):
    held, holding = await busy_worker(pool, tmp_path)
    at_once = await asyncio.wait_for(pool.run(jobs.Status(), prefer=held), HANG_GUARD)
    assert at_once.pid != held
    later = await asyncio.wait_for(pool.run(jobs.Status(), prefer=held, patience=0.3), HANG_GUARD)
    assert later.pid != held
    (tmp_path / "hold").unlink()
    await asyncio.wait_for(holding, HANG_GUARD)


async def test_a_job_waiting_for_a_worker_that_is_replaced_runs_on_another(pool, tmp_path):
    held, holding = await busy_worker(pool, tmp_path)
    waiting = asyncio.ensure_future(pool.run(jobs.Status(), prefer=held, patience=HANG_GUARD))
    await asyncio.sleep(0.3)
    assert not waiting.done()
    holding.cancel()
    worker = next(w for w in pool._all if w.pid == held)
    pool._replace(worker, "test: replaced")  # what a crash or an abandoned job's timeout does
    status = await asyncio.wait_for(waiting, HANG_GUARD)
    assert status.pid != held and status.pid in pool.pids()
