"""Run programs under TensorFlow through one long-lived worker (`worker.py`), with a result cache.

One TensorFlow process at a time: jobs go to the worker one after another; a job that hangs past
its time limit kills the worker (the next job starts a new one), and a job that needs a process of
its own (TF1 graph mode, legacy Keras, tf.data debug mode) runs in a one-shot process while the
worker is stopped. Results are cached under `.cache/bench/inject/runs/` by the hash of the job and
of `WORKER_VERSION`, so a re-run only executes what changed.
"""
from __future__ import annotations

import hashlib
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = REPO / ".cache" / "bench" / "inject"
PYTHON = Path(os.environ.get("TAPELSP_INJECT_PYTHON", REPO / ".venv" / "bin" / "python"))
WORKER = HERE / "worker.py"

# Text that switches a process's TensorFlow into a mode the next job cannot undo.
ISOLATE = ("disable_v2_behavior", "disable_eager_execution", "enable_debug_mode", "TF_USE_LEGACY_KERAS",
           "disable_control_flow_v2", "disable_v2_tensorshape", "disable_resource_variables")
RESTART_EVERY = 120
# Part of every cached run's key: bump it when worker.py records something different.
WORKER_VERSION = "1"


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def needs_isolation(job: dict) -> bool:
    return bool(job.get("data_debug")) or any(m in text for text in job["files"].values() for m in ISOLATE)


class Runner:
    def __init__(self, cache: Path | None = CACHE / "runs", timeout: float = 60.0, verbose: bool = False):
        self.cache = cache
        self.timeout = timeout
        self.verbose = verbose
        self.proc: subprocess.Popen | None = None
        self.jobs_in_worker = 0
        self.worker_hash = WORKER_VERSION
        self.executed = 0
        self.cached = 0
        self.seconds = 0.0

    # -- worker lifecycle -------------------------------------------------------------------
    def _start(self) -> None:
        self.proc = subprocess.Popen([str(PYTHON), str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd="/")
        self.jobs_in_worker = 0
        self._buf = b""
        ready = self._read_line(180.0)
        if ready is None or not json.loads(ready).get("ready"):
            self.stop()
            raise RuntimeError("the TensorFlow worker did not start")

    def stop(self) -> None:
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def _kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _read_line(self, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode()

    # -- jobs --------------------------------------------------------------------------------
    def key(self, job: dict) -> str:
        return _digest({"job": job, "worker": self.worker_hash})

    def cached_result(self, job: dict) -> dict | None:
        if self.cache is None:
            return None
        path = self.cache / f"{self.key(job)}.json"
        if path.exists():
            try:
                return json.loads(path.read_text())
            except ValueError:
                return None
        return None

    def run(self, job: dict) -> dict:
        hit = self.cached_result(job)
        if hit is not None:
            self.cached += 1
            return hit
        t0 = time.monotonic()
        result = self._isolated(job) if needs_isolation(job) else self._in_worker(job)
        self.seconds += time.monotonic() - t0
        self.executed += 1
        if self.cache is not None and not result.get("worker_error"):
            self.cache.mkdir(parents=True, exist_ok=True)
            path = self.cache / f"{self.key(job)}.json"
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(result))
            tmp.replace(path)
        return result

    def _in_worker(self, job: dict) -> dict:
        if self.proc is not None and (self.proc.poll() is not None or self.jobs_in_worker >= RESTART_EVERY):
            self.stop()
        if self.proc is None:
            self._start()
        self.proc.stdin.write((json.dumps(job) + "\n").encode())
        self.proc.stdin.flush()
        self.jobs_in_worker += 1
        line = self._read_line(self.timeout)
        if line is None:
            self._kill()
            return {"timeout": True, "final": [None, "Timeout", f"no result in {self.timeout:.0f} s"]}
        result = json.loads(line)
        if result.get("graph_mode_left") or result.get("worker_error"):
            self.stop()
        return result

    def _isolated(self, job: dict) -> dict:
        self.stop()  # one TensorFlow process at a time
        try:
            done = subprocess.run([str(PYTHON), str(WORKER), "--once"], input=json.dumps(job).encode(),
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=self.timeout + 30, cwd="/")
        except subprocess.TimeoutExpired:
            return {"timeout": True, "final": [None, "Timeout", f"no result in {self.timeout:.0f} s"]}
        lines = done.stdout.decode().strip().splitlines()
        if not lines:
            return {"worker_error": f"isolated run exited {done.returncode} without a result"}
        result = json.loads(lines[-1])
        result["isolated"] = True
        return result


def _main() -> None:
    """`python tfrun.py FILE.py`: run one script through the worker and print the record."""
    path = Path(sys.argv[1])
    job = {"files": {path.name: path.read_text()}, "entry": path.name, "mode": "graph"}
    runner = Runner(cache=None)
    try:
        print(json.dumps(runner.run(job), indent=1))
    finally:
        runner.stop()


if __name__ == "__main__":
    _main()
