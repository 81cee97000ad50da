"""The probe contains the user's program (issue 11, point 5).

Already in tests/probe, not repeated here: an infinite loop stopped at the time limit (and one
that ignores SIGINT killed), `os._exit` and a segfault reported as a dead kernel, a memory
blow-up stopped at the limit, each with the kernel gone afterwards (tests/probe/test_safety.py);
plain `--check` starting no kernel and running nothing (tests/probe/test_only_when_asked.py);
attach mode running no user code (tests/probe/test_attach.py).

Added here: a program that forks (the child dies with the kernel), one that daemonizes (fork,
setsid, fork: it leaves the kernel's process group, and still dies with the probe), one that
prints hundreds of megabytes through `print` and straight to file descriptor 1 (the probe stays
small, finishes, and keeps only the last of the output), the library entry points never running
code (check_source, check_path, the CLI without --probe), and the probe's own process ended
(SIGKILL, SIGTERM, SIGINT) while the program loops with a forked child: the CLI ends, and
neither the kernel nor the child outlives it (`tapelsp.probe.containment`: every process of a
run carries a mark in its environment, and a guardian forked by the kernel's launcher kills
them all when the probe process ends, however it ends).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tapelsp import Settings, check_source
from tapelsp.files import check_path

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "server"), os.environ.get("PYTHONPATH")]))}
ENV.pop("PYTHONWARNINGS", None)


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            return not any(line.startswith("State:") and "Z" in line for line in handle)
    except OSError:
        return False


def wait_gone(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not running(pid):
            return True
        time.sleep(0.1)
    return not running(pid)


def wait_file(path: Path, seconds: float) -> int:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


def kill_if_running(*pids: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def probe(path: Path, kernel_python: str, **kwargs):
    from tapelsp.probe.run import probe_file

    return probe_file(str(path), python=kernel_python, **kwargs)


FORK_AND_STAY = """
import os, time
pid = os.fork()
if pid == 0:
    time.sleep(600)
    os._exit(0)
open("child.pid", "w").write(str(pid))
"""


def test_a_forked_child_dies_with_the_kernel(kernel_python, tmp_path):
    path = tmp_path / "fork.py"
    path.write_text(FORK_AND_STAY, encoding="utf-8")
    run = probe(path, kernel_python, timeout=60)
    child = int((tmp_path / "child.pid").read_text())
    try:
        assert run.outcome.status == "finished", run.outcome
        assert wait_gone(child, 5), "the program's forked child outlived the probe"
        assert wait_gone(run.kernel_pid, 5)
    finally:
        kill_if_running(child)


def test_a_daemonized_grandchild_does_not_outlive_the_probe(kernel_python, tmp_path):
    path = tmp_path / "daemon.py"
    path.write_text(
        "import os, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        open('daemon.pid', 'w').write(str(os.getpid()))\n"
        "        time.sleep(600)\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n", encoding="utf-8")
    run = probe(path, kernel_python, timeout=60)
    daemon = wait_file(tmp_path / "daemon.pid", 10)
    try:
        assert run.outcome.status == "finished"
        assert wait_gone(daemon, 5), "the daemonized process outlived the probe"
    finally:
        kill_if_running(daemon)


# The peak is read from VmHWM, which belongs to this process's own address space: ru_maxrss
# is carried over from the parent through fork and exec, so under a pytest process that has
# loaded TensorFlow (~480 MB) it reported the parent's size, not the probe's.
PEAK_RSS = """
import json, sys
from tapelsp.probe.run import probe_file
run = probe_file(sys.argv[1], python=sys.argv[2], timeout=float(sys.argv[3]))
with open("/proc/self/status") as status:
    hwm_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"status": run.outcome.status, "kernel": run.kernel_pid, "note": run.output_note,
                  "peak_mb": hwm_kb / 1024}))
"""


@pytest.mark.parametrize("how", ["print", "fd"])
def test_megabytes_of_output_keep_the_probe_small(kernel_python, tmp_path, how):
    write = {"print": "print(chunk)", "fd": "os.write(1, chunk.encode())"}[how]
    path = tmp_path / "chatty.py"
    path.write_text(f"import os\nchunk = 'x' * 1_000_000\nfor _ in range(150):\n    {write}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PEAK_RSS, str(path), kernel_python, "60"], env=ENV,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["status"] == "finished", result
    # 150 MB went through the kernel; the probe reads its output through a small queue and
    # keeps a few kilobytes. (Before that, it peaked at 300 to 443 MB here; now about 40.)
    assert result["peak_mb"] < 120, result
    assert "more than the probe reads" in result["note"], result  # and the run says so
    assert wait_gone(result["kernel"], 5)
    assert not list(tmp_path.glob("*.log"))


MARKER_PROGRAM = """
import tensorflow as tf
open({marker!r}, "w").write("ran")

@tf.function
def f(x):
    v = tf.Variable(1.0)
    return v * x
"""


def test_nothing_but_the_probe_runs_user_code(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "m.py"
    path.write_text(MARKER_PROGRAM.format(marker=str(marker)), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    assert any(v.code == "FUNC001" for v in check_source(text, str(path), fixes=True))
    assert any(v.code == "FUNC001" for v in check_path(path, Settings(), fixes=True).violations)
    for args in (["--check", "m.py"], ["--check", "--fix", "--unsafe-fixes", "m.py"], ["--check", "--diff", "m.py"]):
        subprocess.run([sys.executable, "-m", "tapelsp", *args], cwd=tmp_path, env=ENV, capture_output=True,
                       timeout=120)
    assert not marker.exists()


LOOP_WITH_CHILD = """
import os, time
if os.fork() == 0:
    open("child.pid", "w").write(str(os.getpid()))
    time.sleep(600)
    os._exit(0)
open("kernel.pid", "w").write(str(os.getpid()))
while True:
    pass
"""


def _default_sigint() -> None:
    # As an interactive shell starts a command. A process started with SIGINT ignored keeps
    # ignoring it (Python's rule, and tapelsp's: the invoker asked for it), and CI runners may
    # start the test run that way: that is how "SIGINT did not end the probe within 30 s" came
    # about in a clean CI run (reproduced by running this test under a parent that ignores SIGINT).
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _probe_then_signal(kernel_python: str, tmp_path: Path, sig: int) -> tuple[int, int, subprocess.Popen]:
    (tmp_path / "loop.py").write_text(LOOP_WITH_CHILD, encoding="utf-8")
    cli = subprocess.Popen([sys.executable, "-m", "tapelsp", "--check", "--probe", "--python", kernel_python,
                            "--probe-timeout", "120", "loop.py"], cwd=tmp_path, env=ENV,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_default_sigint)
    try:
        kernel = wait_file(tmp_path / "kernel.pid", 90)
        child = wait_file(tmp_path / "child.pid", 10)
    except BaseException:
        cli.kill()
        raise
    cli.send_signal(sig)
    cli.wait(timeout=30)
    return kernel, child, cli


# SIGINT: "interrupted", exit status 2; SIGTERM: exit status 128 + 15; SIGKILL: no say.
EXIT_STATUS = {signal.SIGKILL: -signal.SIGKILL, signal.SIGTERM: 128 + signal.SIGTERM, signal.SIGINT: 2}


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["KILL", "TERM", "INT"])
def test_nothing_outlives_a_killed_probe(kernel_python, tmp_path, sig):
    kernel, child, cli = _probe_then_signal(kernel_python, tmp_path, sig)  # the CLI ends within 30 s
    try:
        assert cli.returncode == EXIT_STATUS[sig]
        # SIGTERM/SIGINT: the probe's handler kills the kernel and everything marked as the run's
        # at once. SIGKILL: the guardian sees the probe end and does the same.
        assert wait_gone(kernel, 10), "the kernel outlived the probe"
        assert wait_gone(child, 5), "the program's child outlived the probe"
    finally:
        kill_if_running(kernel, child)


def test_the_last_of_the_output_is_kept(kernel_python, tmp_path):
    path = tmp_path / "hello.py"
    path.write_text("import sys\nprint('hello')\nprint('to stderr', file=sys.stderr)\n", encoding="utf-8")
    run = probe(path, kernel_python, timeout=60)
    assert run.outcome.status == "finished", run.outcome
    assert run.output_tail.endswith("hello\nto stderr\n"), run.output_tail
    assert run.output_characters >= len("hello\nto stderr\n")
    assert run.output_note == ""
