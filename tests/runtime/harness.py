"""Runs rule examples under real TensorFlow in worker processes and collects the verdicts.

The test process never imports TensorFlow. `run_jobs` starts `worker.py` (which imports
TensorFlow once) for all shared jobs, and one more worker per isolated job (examples that
switch TensorFlow into graph mode). It watches each worker's progress: a job that runs past
its timeout (plus a grace period, for hangs the worker's own alarm cannot interrupt) gets
its worker killed and is reported as `timeout`; a job during which the worker dies is
reported as `crashed`; the jobs after it go on in a new worker.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

WORKER = Path(__file__).resolve().with_name("worker.py")
DEFAULT_TIMEOUT = 120.0  # seconds per example
IMPORT_TIMEOUT = 300.0  # seconds for `import tensorflow` in a fresh worker
GRACE = 5.0  # after a job's own timeout, before its worker is killed
POLL = 0.05
SHARED = "shared"


@dataclass(frozen=True)
class Job:
    id: str
    kind: str  # "valid" or "invalid"
    source: str
    check: str = ""
    raises: tuple[str, str] | None = None
    isolated: bool = False
    timeout: float = DEFAULT_TIMEOUT
    # After `timeout`, how long the parent waits before it kills the worker.
    grace: float = GRACE
    title: str = ""
    # Jobs of one group share a worker; isolated jobs always get their own.
    group: str = SHARED

    def payload(self) -> dict:
        return {"id": self.id, "kind": self.kind, "source": self.source, "check": self.check,
                "raises": list(self.raises) if self.raises else None, "timeout": self.timeout,
                "isolated": self.isolated}


@dataclass
class Result:
    id: str
    status: str  # passed, failed, timeout, crashed, error
    problems: list[str] = field(default_factory=list)
    example_error: dict | None = None
    check_error: dict | None = None
    check_ran: bool = False
    stdout: str = ""
    logs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    pid: int | None = None
    worker_output: str = ""  # tail of the worker's stdout/stderr, for crashes and timeouts

    @property
    def ok(self) -> bool:
        return self.status == "passed"

    def report(self, job: Job | None = None) -> str:
        """A failure message a person can act on: what was expected, what happened, where."""
        out = [f"{self.id}: {self.status.upper()}"]
        if job is not None and job.title:
            out[0] += f" ({job.title})"
        out += [f"  - {problem}" for problem in self.problems]
        if job is not None:
            out.append("\nexample:")
            out += [f"{n:>4} | {line}" for n, line in enumerate(job.source.splitlines(), start=1)]
            if job.raises:
                out.append(f"expected to raise: {job.raises[0]} with {job.raises[1]!r}")
            if job.check:
                out.append("proof check:")
                out += [f"     | {line}" for line in job.check.splitlines()]
        for label, error in (("example traceback", self.example_error), ("check traceback", self.check_error)):
            if error is not None:
                out.append(f"\n{label}:\n{error['traceback'].rstrip()}")
        if self.stdout.strip():
            out.append(f"\nprinted by the example:\n{self.stdout.rstrip()}")
        if self.logs:
            out.append("\nlogged:\n" + "\n".join(self.logs[-20:]))
        if self.warnings:
            out.append("\nwarnings:\n" + "\n".join(self.warnings[-20:]))
        if self.worker_output.strip():
            out.append(f"\nworker output (tail):\n{self.worker_output.rstrip()}")
        return "\n".join(out)

    @classmethod
    def from_event(cls, event: dict) -> "Result":
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in event.items() if k in names})


# --- jobs from the rules -----------------------------------------------------------------

def example_ids(rule) -> list[tuple[str, object]]:
    """`CODE-invalid-N` / `CODE-valid-N` as tests/engine/test_rule_examples.py numbers them."""
    counts = {"valid": 0, "invalid": 0}
    out = []
    for example in rule.examples:
        kind = "valid" if example.valid else "invalid"
        counts[kind] += 1
        out.append((f"{rule.code}-{kind}-{counts[kind]}", example))
    return out


def job_for(case_id: str, example) -> Job:
    proof = example.proof
    return Job(
        id=case_id,
        kind="valid" if example.valid else "invalid",
        source=example.source,
        check=inspect.cleandoc(proof.check) + "\n" if proof.check.strip() else "",
        raises=tuple(proof.raises) if proof.raises else None,
        isolated=proof.isolated,
        title=example.title,
    )


def proven_examples() -> list[tuple[str, object, Job]]:
    """(id, example, job) for every example of every rule that has a Proof."""
    from tapelsp.rules import all_rules

    return [(case_id, example, job_for(case_id, example))
            for rule in all_rules() for case_id, example in example_ids(rule)
            if example.proof is not None]


def version_parts(text: str) -> tuple[int, ...]:
    """(2, 21, 0) for "2.21.0", (2, 6) for "2.6", () for something that is not a version."""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", text)
    return tuple(int(part) for part in match.group(1).split(".")) if match else ()


def version_matches(wanted: str, installed: str) -> bool:
    """"2.6" matches 2.6.x, "2" matches any 2.x; "2.0" does not match 2.21."""
    want, have = version_parts(wanted), version_parts(installed)
    return bool(want) and have[:len(want)] == want


def installed_tensorflow() -> str | None:
    """TensorFlow's version from package metadata: this process never imports TensorFlow."""
    from importlib import metadata

    for dist in ("tensorflow", "tensorflow-cpu", "tensorflow-intel", "tensorflow-macos", "tf-nightly"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


# --- running ----------------------------------------------------------------------------

def run_jobs(jobs: list[Job], python: str = sys.executable, *, import_timeout: float = IMPORT_TIMEOUT,
             grace: float = GRACE, parallel: int | None = None) -> dict[str, Result]:
    """Run every job; one Result per job id, whatever happens to the workers."""
    ids = [job.id for job in jobs]
    if len(ids) != len(set(ids)):
        raise ValueError(f"duplicate job ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    groups: dict[str, list[Job]] = {}
    batches: list[list[Job]] = []
    for job in jobs:
        if job.isolated:
            batches.append([job])
        else:
            groups.setdefault(job.group, []).append(job)
    batches = list(groups.values()) + batches
    batches.sort(key=len, reverse=True)  # the big shared batch starts first
    parallel = parallel or max(2, os.cpu_count() or 2)
    results: dict[str, Result] = {}
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="tapelsp-proofs-") as tmp:
        def one(index: int, batch: list[Job]) -> None:
            found = _run_batch(batch, python, Path(tmp) / f"batch{index}", import_timeout, grace)
            with lock:
                results.update(found)

        with ThreadPoolExecutor(max_workers=min(parallel, len(batches) or 1)) as pool:
            for future in [pool.submit(one, i, batch) for i, batch in enumerate(batches)]:
                future.result()
    return results


def _run_batch(jobs: list[Job], python: str, base: Path, import_timeout: float, grace: float
               ) -> dict[str, Result]:
    results: dict[str, Result] = {}
    remaining = list(jobs)
    attempt = 0
    while remaining:
        attempt += 1
        outcome = _run_worker(remaining, python, base.with_name(f"{base.name}-{attempt}"), import_timeout, grace)
        results.update(outcome.results)
        remaining = [job for job in remaining if job.id not in results]
        if not remaining:
            break
        if not outcome.ready:
            for job in remaining:  # TensorFlow never imported: nothing can run
                results[job.id] = Result(job.id, "error", [f"the worker did not start: {outcome.ending}"],
                                         worker_output=outcome.output)
            break
        if outcome.current is None and outcome.restart:
            continue  # the worker asked for a fresh process; the jobs after it go on there
        if outcome.current is None:
            for job in remaining:
                results[job.id] = Result(job.id, "error", [f"the worker stopped before this job: {outcome.ending}"],
                                         worker_output=outcome.output)
            break
        status = "timeout" if outcome.killed else "crashed"
        results[outcome.current] = Result(outcome.current, status,
                                          [f"the worker {outcome.ending} while running this example"],
                                          worker_output=outcome.output)
        remaining = [job for job in remaining if job.id != outcome.current]
    return results


@dataclass
class _Outcome:
    results: dict[str, Result]
    ready: bool
    current: str | None  # the job that started but has no result
    killed: bool
    ending: str
    output: str
    restart: bool = False  # the worker stopped on purpose after a job that changed global state


def _run_worker(jobs: list[Job], python: str, base: Path, import_timeout: float, grace: float) -> _Outcome:
    jobs_path, results_path, log_path = (base.with_suffix(s) for s in (".jobs.json", ".results.jsonl", ".log"))
    jobs_path.write_text(json.dumps([job.payload() for job in jobs]), encoding="utf-8")
    results_path.write_text("", encoding="utf-8")
    by_id = {job.id: job for job in jobs}
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    env.setdefault("CUDA_VISIBLE_DEVICES", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    results: dict[str, Result] = {}
    ready = killed = restart = False
    current: str | None = None
    with open(log_path, "wb") as log:
        process = subprocess.Popen([python, str(WORKER), str(jobs_path), str(results_path)],
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        deadline = time.monotonic() + import_timeout
        offset = 0
        pending = ""
        try:
            while True:
                exited = process.poll() is not None
                with open(results_path, encoding="utf-8") as handle:
                    handle.seek(offset)
                    chunk = handle.read()
                    offset = handle.tell()
                pending += chunk
                *lines, pending = pending.split("\n")
                for line in lines:
                    if not line.strip():
                        continue
                    event = json.loads(line)
                    kind = event.pop("event")
                    now = time.monotonic()
                    if kind == "ready":
                        ready = True
                        deadline = now + grace
                    elif kind == "start":
                        current = event["id"]
                        deadline = now + by_id[current].timeout + by_id[current].grace
                    elif kind == "result":
                        results[event["id"]] = Result.from_event(event)
                        current = None
                        deadline = now + grace
                    elif kind == "restart":
                        restart = True
                if exited:
                    break
                if time.monotonic() > deadline:
                    killed = True
                    _kill(process)
                    break
                time.sleep(POLL)
        finally:
            if process.poll() is None:
                _kill(process)
            process.wait()
    code = process.returncode
    if killed:
        waited = "importing TensorFlow" if not ready else (f"on {current}" if current else "between jobs")
        ending = f"was killed after its time ran out {waited}"
    else:
        ending = f"exited with code {code}" + (f" (signal {-code})" if code and code < 0 else "")
    output = log_path.read_bytes()[-8000:].decode("utf-8", errors="replace")
    return _Outcome(results, ready, current, killed, ending, output, restart)


def _kill(process: subprocess.Popen) -> None:
    """Kill the worker we started, and anything it started (its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
