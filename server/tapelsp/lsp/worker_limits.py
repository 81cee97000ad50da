"""What keeps an analysis worker from outliving the language server or eating the machine.

A worker is a child of the server. When the server dies by any means (SIGKILL, a crash, the
editor killing it), a worker that is idle sees the end of its standard input and returns, but
a worker in the middle of a job would run on to its end: minutes, and gigabytes, for a huge
document. So each worker, at start:

- asks Linux to SIGKILL it when its parent dies (`PR_SET_PDEATHSIG`). Linux means the parent
  *thread* that started it: the pool starts workers from the server's event loop, which runs in
  the server's main thread for the server's whole life. This works even while the worker's
  Python code is stuck in C code that holds the GIL (`ast.parse` of a huge text).
- checks that the server is still there (it may have died before the request above was made);
- starts a thread that ends the process with `os._exit` as soon as its parent changes (polled
  every `PARENT_POLL_SECONDS`): the same guarantee elsewhere, for code that lets the thread run.

And it caps its own address space (`limit_memory`), so that a pathological document makes the
analysis fail with MemoryError in that worker instead of running the machine out of memory.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Optional

# Set by the pool: the server's pid, and the worker's address-space ceiling in MB (0: none).
PARENT_VARIABLE = "TAPELSP_WORKER_PARENT"
MEMORY_VARIABLE = "TAPELSP_WORKER_MEMORY_MB"
PARENT_POLL_SECONDS = 0.5
ORPHANED_EXIT_CODE = 70
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent() -> bool:
    """Linux: have the kernel SIGKILL this process when its parent thread ends. False elsewhere,
    or when the request could not be made."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.prctl(ctypes.c_int(_PR_SET_PDEATHSIG), ctypes.c_ulong(int(signal.SIGKILL)),
                          ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    except (OSError, AttributeError, ImportError):
        return False
    return done == 0


def watch_parent(parent: int, interval: float = PARENT_POLL_SECONDS) -> threading.Thread:
    """A daemon thread that ends this process as soon as `parent` is no longer its parent."""
    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(ORPHANED_EXIT_CODE)
            time.sleep(interval)

    thread = threading.Thread(target=watch, name="tapelsp-parent-watch", daemon=True)
    thread.start()
    return thread


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def guard_parent(expected: Optional[int]) -> int:
    """Never outlive the parent (see the module's docstring); returns the pid watched.

    `expected`: the server's pid as the pool said it. A worker whose parent is not that pid
    was either orphaned before it got here (the server is gone: it ends at once) or started
    through an intermediate process (the server is alive: it watches the parent it has)."""
    die_with_parent()
    parent = os.getppid()  # read after the request: a parent that dies from here on is noticed
    if expected is not None and parent != expected and not alive(expected):
        os._exit(ORPHANED_EXIT_CODE)
    watch_parent(parent)
    return parent


def expected_parent() -> Optional[int]:
    try:
        return int(os.environ[PARENT_VARIABLE])
    except (KeyError, ValueError):
        return None


def memory_setting(default: int) -> int:
    """The ceiling in MB from `TAPELSP_WORKER_MEMORY_MB` (0 or less: none); `default` when unset or unreadable."""
    try:
        return max(0, int(os.environ[MEMORY_VARIABLE]))
    except (KeyError, ValueError):
        return default


def limit_memory(megabytes: int) -> bool:
    """Cap this process's address space at `megabytes` (never raising a lower existing cap).
    False when there is no such limit here (not Unix) or it could not be set."""
    if megabytes <= 0:
        return False
    try:
        import resource

        wanted = megabytes * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            wanted = min(wanted, hard)
        if soft != resource.RLIM_INFINITY:
            wanted = min(wanted, soft)
        resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    except (ImportError, AttributeError, ValueError, OSError):
        return False
    return True
