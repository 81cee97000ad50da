"""A few analysis worker processes, driven from the server's event loop.

`run(job, priority=...)` waits for a free worker (lower priority numbers go first),
sends the job and awaits the result. A caller that is cancelled while its job runs
does not break the worker: the job finishes in the background and the worker is
handed on. A job that runs longer than `timeout` seconds, or a worker that dies,
costs that worker (it is replaced) and raises `WorkerError` for that job only.

A job whose caller was cancelled (the document was closed) and that is still running
`abandon_after` seconds later costs its worker too: it is killed and replaced, so that
nobody waits behind work nobody wants. A worker that runs out of memory (its ceiling is
`memory_mb`, `TAPELSP_WORKER_MEMORY_MB`, default 2048) is replaced and the job fails.
Workers never outlive the server, however it ends (see `worker_limits`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import os
import pickle
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

from . import jobs, worker_limits
from .worker import DEFAULT_MEMORY_MB, HEADER, OUT_OF_MEMORY

log = logging.getLogger("tapelsp.lsp")

DIAGNOSTICS = 0  # priorities: what the user is waiting for first
FIXES = 1
BACKGROUND = 2

# Seconds an abandoned job may still run before its worker is killed: about what a worker
# takes to start, so that a nearly finished job is not thrown away for a restart.
ABANDON_AFTER = 5.0


class WorkerError(Exception):
    """The job did not produce a result (the worker died, timed out, or the job raised)."""


def worker_command() -> tuple[list[str], dict[str, str]]:
    """How to start a worker with the same interpreter and the same `tapelsp`."""
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH", "")) if p)
    return [sys.executable, "-m", "tapelsp.lsp.worker"], env


@dataclass(eq=False)
class _Worker:
    process: asyncio.subprocess.Process
    jobs_done: int = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    async def call(self, request_id: int, job: Any) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        data = pickle.dumps((request_id, job), protocol=pickle.HIGHEST_PROTOCOL)
        self.process.stdin.write(HEADER.pack(len(data)) + data)
        await self.process.stdin.drain()
        header = await self.process.stdout.readexactly(HEADER.size)
        (size,) = HEADER.unpack(header)
        answer_id, result = pickle.loads(await self.process.stdout.readexactly(size))
        if answer_id != request_id:
            raise WorkerError(f"worker {self.pid} answered job {answer_id}, expected {request_id}")
        self.jobs_done += 1
        return result

    def kill(self) -> None:
        if self.process.returncode is None:
            try:
                self.process.kill()
            except ProcessLookupError:
                pass


@dataclass(frozen=True)
class _Died:
    message: str


@dataclass(order=True)
class _Waiter:
    priority: int
    sequence: int
    future: asyncio.Future = field(compare=False)
    only: Optional[int] = field(default=None, compare=False)  # waits for this worker (pid) alone


class WorkerPool:
    def __init__(self, size: int = 2, timeout: float = 600.0, *, memory_mb: Optional[int] = None,
                 abandon_after: float = ABANDON_AFTER) -> None:
        self.size = max(1, size)
        self.timeout = timeout
        self.memory_mb = worker_limits.memory_setting(DEFAULT_MEMORY_MB) if memory_mb is None else memory_mb
        self.abandon_after = abandon_after
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._waiting: list[_Waiter] = []
        self._sequence = itertools.count()
        self._ids = itertools.count(1)
        self._starting = 0
        self._closed = False
        self._background: set[asyncio.Task] = set()

    # -- life cycle -------------------------------------------------------------------
    def start(self) -> None:
        """Start the workers in the background (jobs submitted meanwhile wait for them)."""
        for _ in range(self.size - len(self._all) - self._starting):
            self._in_background(self._spawn())

    def _in_background(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _spawn(self) -> None:
        if self._closed:
            return
        self._starting += 1
        try:
            command, env = worker_command()
            # The worker checks it still has this parent (`worker_limits.guard_parent`). Workers
            # are started from the event loop's thread, the main thread, which lives as long as
            # the server: Linux kills a worker when the thread that started it ends.
            env[worker_limits.PARENT_VARIABLE] = str(os.getpid())
            env[worker_limits.MEMORY_VARIABLE] = str(self.memory_mb)
            process = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env)
        except OSError as error:
            self._starting -= 1
            log.error("cannot start an analysis worker: %s", error)
            if not self._all and not self._starting:
                self._fail_waiters(f"no analysis worker could be started ({error})")
            return
        self._starting -= 1
        worker = _Worker(process)
        self._all.add(worker)
        self._release(worker)

    def _replace(self, worker: _Worker, reason: str) -> None:
        if worker not in self._all:  # replaced already (an abandoned job's worker, killed)
            worker.kill()
            return
        if not self._closed:
            log.warning("analysis worker %d replaced: %s", worker.pid, reason)
        worker.kill()
        self._all.discard(worker)
        for waiter in self._waiting:
            if waiter.only == worker.pid:
                waiter.only = None  # waited for this worker: any will do now
        if not self._closed:
            self._in_background(self._spawn())

    async def close(self) -> None:
        self._closed = True
        for waiter in self._waiting:
            if not waiter.future.done():
                waiter.future.cancel()
        for worker in list(self._all):
            if worker.process.stdin is not None:
                worker.process.stdin.close()
        for worker in list(self._all):
            try:
                await asyncio.wait_for(worker.process.wait(), 2.0)
            except (asyncio.TimeoutError, ProcessLookupError):
                worker.kill()
        self._all.clear()

    def _fail_waiters(self, message: str) -> None:
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            if not waiter.future.done():
                waiter.future.set_exception(WorkerError(message))

    def pids(self) -> list[int]:
        return sorted(worker.pid for worker in self._all)

    def idle_pids(self) -> list[int]:
        """The workers waiting for a job."""
        return [worker.pid for worker in self._idle]

    # -- scheduling -------------------------------------------------------------------
    def _release(self, worker: _Worker) -> None:
        passed = []
        try:
            while self._waiting:
                waiter = heapq.heappop(self._waiting)
                if waiter.future.done():
                    continue
                if waiter.only is not None and waiter.only != worker.pid:
                    passed.append(waiter)  # it waits for another worker
                    continue
                waiter.future.set_result(worker)
                return
            self._idle.append(worker)
        finally:
            for waiter in passed:
                heapq.heappush(self._waiting, waiter)

    async def _acquire(self, priority: int, prefer: Optional[int] = None, patience: float = 0.0) -> _Worker:
        if self._closed:
            raise WorkerError("the server is shutting down")
        preferred = next((worker for worker in self._idle if worker.pid == prefer), None)
        if preferred is not None:
            self._idle.remove(preferred)
            return preferred
        if patience > 0 and any(worker.pid == prefer for worker in self._all):
            # The preferred worker is busy: wait for it a while (it holds what the job needs).
            future: asyncio.Future = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, _Waiter(priority, next(self._sequence), future, only=prefer))
            try:
                return await asyncio.wait_for(asyncio.shield(future), patience)
            except asyncio.TimeoutError:
                if future.done() and not future.cancelled():
                    return future.result()
                future.cancel()
            except asyncio.CancelledError:
                if future.done() and not future.cancelled():
                    self._release(future.result())
                else:
                    future.cancel()
                raise
        # Waiters that gave up stay in the heap until popped: they do not count.
        self._waiting = [waiter for waiter in self._waiting if not waiter.future.done()]
        heapq.heapify(self._waiting)
        if self._idle and not any(waiter.only is None for waiter in self._waiting):
            return self._idle.pop()
        if not self._all and not self._starting:
            await self._spawn()
            if self._idle:
                return self._idle.pop()
            raise WorkerError("no analysis worker could be started")
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, _Waiter(priority, next(self._sequence), future))
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release(future.result())  # handed a worker just as we gave up
            raise

    async def run(self, job: Any, *, priority: int = DIAGNOSTICS, prefer: Optional[int] = None,
                  timeout: Optional[float] = None, patience: float = 0.0) -> Any:
        """The job's result; WorkerError when the job could not be done.

        `prefer`: the pid of the worker to use when it is free (it holds state the job can
        use); when it is busy, the job waits up to `patience` seconds for it, then takes any
        worker."""
        for _attempt in range(2):
            worker = await self._acquire(priority, prefer, patience)
            task = asyncio.ensure_future(self._call(worker, job, timeout or self.timeout))
            try:
                result = await asyncio.shield(task)
            except asyncio.CancelledError:
                self._abandon(worker, task, job)
                raise
            if not isinstance(result, _Died):
                break
            # The worker was dead before or while it took the job (killed, out of memory):
            # one more try on a fresh worker; a job that kills every worker fails.
            prefer = None
        if isinstance(result, _Died):
            raise WorkerError(result.message)
        if isinstance(result, jobs.Failed):
            raise WorkerError(result.message + (f"\n{result.detail}" if result.detail else ""))
        return result

    def _abandon(self, worker: _Worker, task: asyncio.Future, job: Any) -> None:
        """Nobody waits for `task` any more: give it `abandon_after` seconds, then kill its worker."""
        if task.done():
            return

        def stop() -> None:
            if not task.done():
                self._replace(worker, f"nobody wanted its {type(job).__name__} job any more and it was "
                                      f"still running {self.abandon_after:g} s later")

        timer = asyncio.get_running_loop().call_later(self.abandon_after, stop)
        task.add_done_callback(lambda _done: timer.cancel())

    async def _call(self, worker: _Worker, job: Any, timeout: float) -> Any:
        try:
            result = await asyncio.wait_for(worker.call(next(self._ids), job), timeout)
        except asyncio.TimeoutError:
            self._replace(worker, f"a {type(job).__name__} job ran longer than {timeout:.0f} s")
            return jobs.Failed(f"the job took longer than {timeout:.0f} s and was stopped")
        except (asyncio.IncompleteReadError, ConnectionError, BrokenPipeError, OSError, EOFError,
                pickle.UnpicklingError, WorkerError) as error:
            code = worker.process.returncode
            self._replace(worker, f"it stopped ({type(error).__name__}, exit code {code})")
            return _Died(f"the analysis worker stopped (exit code {code})")
        except asyncio.CancelledError:
            self._replace(worker, "cancelled while running a job")
            raise
        if isinstance(result, jobs.Failed) and result.message.startswith(OUT_OF_MEMORY):
            self._replace(worker, result.message)  # it ends by itself too: a fresh one is started
            return result
        self._release(worker)
        return result
