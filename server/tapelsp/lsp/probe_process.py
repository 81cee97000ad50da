"""One probe process, run from the server's event loop (never in the server process).

`ProbeProcess.run(job)` starts `python -m tapelsp.lsp.probe_child` in a session of its
own, sends the job and awaits the outcome. `stop()` ends it and everything it started:
SIGTERM first (the probe kills its kernel's process group and removes its temporary
files), SIGKILL after a grace period, and then any process it left behind (the kernel
runs in a process group of its own, so it is found by walking /proc before the kill).
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import signal
from typing import Optional

from .pool import worker_command
from .probe_jobs import ProbeFailed, ProbeJob, ProbeOutcome
from .worker import HEADER

log = logging.getLogger("tapelsp.lsp")

GRACE = 10.0  # seconds between SIGTERM and SIGKILL


def children_of(pid: int) -> list[int]:
    """Every live descendant of `pid` (Linux /proc; empty elsewhere)."""
    parents: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1:
            parents[int(entry)] = int(fields[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found.append(child)
                frontier.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().decode("utf-8", "replace")
        return state[state.rfind(")") + 2:][:1] not in ("Z", "X")
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


class ProbeProcess:
    def __init__(self) -> None:
        self.process: Optional[asyncio.subprocess.Process] = None
        self.descendants: list[int] = []  # seen while it ran: what `stop` must not leave behind
        self._stopping: Optional[asyncio.Task] = None

    @property
    def pid(self) -> Optional[int]:
        return self.process.pid if self.process is not None else None

    async def run(self, job: ProbeJob, limit: float) -> ProbeOutcome | ProbeFailed:
        """The outcome; ProbeFailed when the process died or took longer than `limit` seconds."""
        command, env = worker_command()
        command = command[:-1] + ["tapelsp.lsp.probe_child"]
        try:
            self.process = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env,
                start_new_session=True)
        except OSError as error:
            return ProbeFailed(f"the probe process could not be started: {error}")
        try:
            return await asyncio.wait_for(self._exchange(job), limit)
        except asyncio.TimeoutError:
            await self.stop()
            return ProbeFailed(f"the probe did not finish within {limit:.0f} s and was stopped")
        except (asyncio.IncompleteReadError, ConnectionError, OSError, EOFError, pickle.UnpicklingError) as error:
            await self.stop()
            code = self.process.returncode
            return ProbeFailed(f"the probe process stopped ({type(error).__name__}, exit code {code})")

    async def _exchange(self, job: ProbeJob) -> ProbeOutcome | ProbeFailed:
        process = self.process
        assert process is not None and process.stdin is not None and process.stdout is not None
        data = pickle.dumps((0, job), protocol=pickle.HIGHEST_PROTOCOL)
        process.stdin.write(HEADER.pack(len(data)) + data)
        await process.stdin.drain()
        process.stdin.close()
        read = asyncio.ensure_future(process.stdout.readexactly(HEADER.size))
        while not read.done():  # note what it starts, so that a kill leaves nothing behind
            await asyncio.wait([read], timeout=0.5)
            if process.returncode is None:
                for pid in children_of(process.pid):
                    if pid not in self.descendants:
                        self.descendants.append(pid)
        (size,) = HEADER.unpack(read.result())
        _id, result = pickle.loads(await process.stdout.readexactly(size))
        try:
            await asyncio.wait_for(process.wait(), GRACE)
        except asyncio.TimeoutError:
            await self.stop()
        return result

    def stop_soon(self) -> asyncio.Task:
        """`stop()` in the background (for a cancelled request that must not wait)."""
        if self._stopping is None or self._stopping.done():
            self._stopping = asyncio.ensure_future(self.stop())
        return self._stopping

    async def stop(self) -> None:
        process = self.process
        if process is None:
            return
        if process.returncode is None:
            self.descendants.extend(pid for pid in children_of(process.pid) if pid not in self.descendants)
            try:
                process.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                await asyncio.wait_for(process.wait(), GRACE)
            except asyncio.TimeoutError:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                await process.wait()
        for pid in self.descendants:  # the kernel's group, should the probe have died first
            if alive(pid):
                log.warning("probe: process %d outlived the probe; killed", pid)
                _kill(pid)


def _kill(pid: int) -> None:
    """SIGKILL `pid`'s process group when it leads one of its own (a kernel), else `pid` alone."""
    try:
        group = os.getpgid(pid)
        if group == pid and group != os.getpgid(0):
            os.killpg(group, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass
