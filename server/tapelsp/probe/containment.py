"""Nothing the probed program starts outlives the probe (Linux; elsewhere a best effort).

The kernel's process group is not enough: a program can leave it (`setsid`, the classic
daemon double fork), and when the probe itself is SIGKILLed nobody is left to kill the
group. So every process of a probe run is marked and watched:

- the mark: the kernel starts with `TAPELSP_PROBE_RUN=<token>` in its environment, which
  every process it forks or execs inherits (a program would have to exec with a new
  environment on purpose to lose it); `kill_marked` finds them all in /proc, whatever
  their session, group or parent, and SIGKILLs them;
- the guardian: the kernel's launcher (`launch`) forks a small process before ipykernel
  starts. It waits for the probe process to end (a pidfd, or polling where there is none)
  and then kills every marked process. When the probe ends normally it has already killed
  the kernel's group, the guardian with it.

Imports nothing beyond the standard library (the launcher runs it before ipykernel).
"""

from __future__ import annotations

import os
import select
import signal
import time
import uuid

RUN_VARIABLE = "TAPELSP_PROBE_RUN"
PARENT_VARIABLE = "TAPELSP_PROBE_PARENT"
POLL_SECONDS = 0.5


def new_token() -> str:
    return uuid.uuid4().hex


def marked(token: str) -> list[int]:
    """Processes (other than this one) whose environment carries this run's mark."""
    needle = f"{RUN_VARIABLE}={token}".encode()
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environment = handle.read()
        except OSError:  # gone, or not ours to read
            continue
        if needle in environment.split(b"\0"):
            found.append(int(name))
    return found


def kill_marked(token: str, rounds: int = 3) -> int:
    """SIGKILL every marked process; a few rounds, for children forked meanwhile. How many."""
    killed = 0
    for _ in range(rounds):
        pids = marked(token)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
        time.sleep(0.05)
    return killed


def _wait_for_exit(pid: int) -> None:
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is not None:
        select.select([pidfd], [], [])  # readable once the process has ended
        return
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        except OSError:
            pass
        time.sleep(POLL_SECONDS)


def start_guardian() -> None:
    """In the kernel's launcher: fork the guardian (when the probe asked for one)."""
    token = os.environ.get(RUN_VARIABLE)
    parent = os.environ.get(PARENT_VARIABLE, "")
    if not token or not parent.isdigit():
        return
    probe = int(parent)
    if os.fork() != 0:
        return  # the launcher goes on to start ipykernel
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel's interrupts go to its whole group
        devnull = os.open(os.devnull, os.O_RDWR)
        for descriptor in (0, 1, 2):
            os.dup2(devnull, descriptor)
        _wait_for_exit(probe)
        kill_marked(token)
    finally:
        os._exit(0)
