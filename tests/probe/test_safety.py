"""The user's code cannot keep the probe (or a kernel) alive: time limit, crashes, memory.

None of these programs imports TensorFlow: the limits are the kernel's, not TensorFlow's.
"""

from __future__ import annotations

import os

import pytest

from tapelsp import Settings
from tapelsp.probe.check import check_with_probe
from tapelsp.probe.kernel import ProbeError
from tapelsp.probe.run import DIED, MEMORY, TIMEOUT, probe_file


def gone(pid: int | None) -> bool:
    assert pid is not None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie still answers kill(0); its /proc status says so.
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            return any(line.startswith("State:") and "Z" in line for line in handle)
    except OSError:
        return True


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_an_infinite_loop_is_stopped_at_the_time_limit_and_the_kernel_is_gone(kernel_python, tmp_path):
    path = write(tmp_path, "loop.py", "x = 0\nwhile True:\n    x += 1\n")
    checked = check_with_probe(path, Settings(), python=kernel_python, timeout=3)
    run = checked.run
    assert run.outcome.status == TIMEOUT
    assert "time limit of 3 s" in run.outcome.message
    assert run.outcome.place is not None and run.outcome.place.line in (2, 3)
    [stopped] = [v for v in checked.result.violations if v.code == "RT006"]
    assert stopped.range.start.line + 1 in (2, 3)
    assert gone(run.kernel_pid)


def test_a_loop_that_ignores_interrupts_is_killed(kernel_python, tmp_path):
    path = write(tmp_path, "stubborn.py",
                 "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n")
    run = probe_file(path, python=kernel_python, timeout=2)
    assert run.outcome.status == TIMEOUT and run.report is None
    assert gone(run.kernel_pid)


def test_os_exit_is_reported_as_a_dead_kernel(kernel_python, tmp_path):
    path = write(tmp_path, "exit.py", "import os\nprint('bye')\nos._exit(3)\n")
    checked = check_with_probe(path, Settings(), python=kernel_python, timeout=60)
    assert checked.run.outcome.status == DIED
    assert "exited with status 3" in checked.run.outcome.message
    [stopped] = [v for v in checked.result.violations if v.code == "RT006"]
    assert "exited with status 3" in stopped.message
    assert gone(checked.run.kernel_pid)


def test_a_segfault_is_reported_as_a_dead_kernel(kernel_python, tmp_path):
    path = write(tmp_path, "crash.py", "import ctypes\nctypes.string_at(0)\n")
    run = probe_file(path, python=kernel_python, timeout=60)
    assert run.outcome.status == DIED and "SIGSEGV" in run.outcome.message
    assert gone(run.kernel_pid)


def test_a_memory_blow_up_is_stopped(kernel_python, tmp_path):
    path = write(tmp_path, "hog.py", "blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))\n")
    run = probe_file(path, python=kernel_python, timeout=120, memory_limit_mb=600)
    assert run.outcome.status == MEMORY and "over the probe's limit of 600 MB" in run.outcome.message
    assert gone(run.kernel_pid)


def test_an_interpreter_without_ipykernel_is_a_clear_error(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'No module named ipykernel_launcher' >&2\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    path = write(tmp_path, "ok.py", "x = 1\n")
    with pytest.raises(ProbeError, match="did not start"):
        probe_file(path, python=str(fake), timeout=10)


def test_a_missing_interpreter_is_a_clear_error(tmp_path):
    path = write(tmp_path, "ok.py", "x = 1\n")
    with pytest.raises(ProbeError, match="not an executable Python interpreter"):
        probe_file(path, python=str(tmp_path / "nope"), timeout=10)
