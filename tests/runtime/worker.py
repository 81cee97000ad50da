"""Runs rule examples under real TensorFlow and writes what happened as JSON lines.

    python worker.py JOBS.json RESULTS.jsonl

TensorFlow is imported once; then every job (an example's source, its proof) runs in a
fresh namespace of its own. The parent (`harness.py`) reads RESULTS while the worker runs:

    {"event": "ready", "tensorflow": "2.21.0", "pid": ..., "import_seconds": ...}
    {"event": "start", "id": "TAPE001-invalid-1"}
    {"event": "result", "id": "TAPE001-invalid-1", "status": "passed", ...}

A job is a dict with `id`, `kind` ("valid" or "invalid"), `source`, `check` (Python run
after the example in its namespace), `raises` (null or [exception name, message fragment])
and `timeout` in seconds. The verdict is decided here, where the exception object is:

- with `raises`, the example must raise an exception whose class (or a base class) has
  that name and whose message contains the fragment; otherwise it must run without raising;
- then `check`, if any, runs in the example's namespace and must not raise;
- a valid example may not expect an exception; an invalid one must assert something;
- a shared (not isolated) example must leave TensorFlow's process-wide switches (eager
  mode, run_functions_eagerly, control flow v2) as it found them; they are put back, and
  when that is impossible the worker emits {"event": "restart"} and exits so the parent
  goes on in a fresh process.

The check can also read `__tapelsp_stdout__` (what the example printed),
`__tapelsp_logs__` ("LEVEL: message" lines logged through Python logging, which is how
TensorFlow reports retracing) and `__tapelsp_warnings__` (warning messages).

This file must not import tapelsp: it is the TensorFlow side of the harness.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import linecache
import logging
import os
import signal
import sys
import time
import traceback
import types
import warnings

MAX_TEXT = 20_000
# Examples run as scripts do: `__name__ == "__main__"` (a main guard must not skip the body).
EXAMPLE_MODULE = "__main__"


class JobTimeout(BaseException):
    """Raised in the worker when a job runs past its timeout (BaseException: examples
    that catch Exception do not swallow it)."""


def _on_alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise JobTimeout("the job ran past its timeout")


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.last: logging.LogRecord | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record is self.last:  # seen by the "tensorflow" logger, then again by the root
            return
        self.last = record
        try:
            self.lines.append(f"{record.levelname}: {record.getMessage()}")
        except Exception:  # a broken log call in an example must not break the worker
            self.lines.append(f"{record.levelname}: {record.msg!r}")


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"\n... ({len(text) - MAX_TEXT} more characters)"


def _describe(error: BaseException) -> dict:
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next  # start at the example's own frames, not the worker's exec
    return {
        "type": type(error).__name__,
        "bases": [cls.__name__ for cls in type(error).__mro__],
        "message": _clip(str(error)),
        "traceback": _clip("".join(traceback.format_exception(type(error), error, tb))),
    }


def _run(source: str, filename: str, namespace: dict) -> BaseException | None:
    """exec `source` in `namespace`; the exception it raised, if any."""
    # Registered so tracebacks show the example's own lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    try:
        code = compile(source, filename, "exec")
        exec(code, namespace)  # noqa: S102 - running the rule examples is the point
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SystemExit and JobTimeout included
        return error
    return None


def _matches(error: BaseException, expected: str) -> bool:
    wanted = expected.rsplit(".", 1)[-1]
    return any(cls.__name__ == wanted for cls in type(error).__mro__)


def run_job(job: dict) -> dict:
    job_id = job["id"]
    kind = job.get("kind", "invalid")
    check = job.get("check") or ""
    raises = job.get("raises")
    # A real module, registered like `__main__` is for a script: AutoGraph and inspect look
    # functions up through sys.modules[f.__module__].
    module = types.ModuleType(EXAMPLE_MODULE)
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    worker_main = sys.modules.get(EXAMPLE_MODULE)
    sys.modules[EXAMPLE_MODULE] = module
    namespace = module.__dict__
    printed = io.StringIO()
    records = _Records()
    loggers = [logging.getLogger(), logging.getLogger("tensorflow")]
    for logger in loggers:
        logger.addHandler(records)
    started = time.monotonic()
    example_error = check_error = None
    timed_out = check_ran = False
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, float(job.get("timeout", 120)))
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(printed):
            warnings.simplefilter("always")
            example_error = _run(job["source"], f"<example {job_id}>", namespace)
            timed_out = isinstance(example_error, JobTimeout)
            example_ok = example_error is None or (raises is not None and not timed_out)
            if check and example_ok:
                namespace["__tapelsp_stdout__"] = printed.getvalue()
                namespace["__tapelsp_logs__"] = list(records.lines)
                namespace["__tapelsp_warnings__"] = [str(w.message) for w in caught]
                check_ran = True
                check_error = _run(check, f"<proof check {job_id}>", namespace)
                timed_out = isinstance(check_error, JobTimeout)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        for logger in loggers:
            logger.removeHandler(records)
        if worker_main is not None:
            sys.modules[EXAMPLE_MODULE] = worker_main

    problems: list[str] = []
    if kind == "valid" and raises is not None:
        problems.append("a valid example must run clean, but its Proof expects an exception")
    if kind == "invalid" and raises is None and not check.strip():
        problems.append("the Proof of an invalid example asserts nothing (no check, no raises)")
    if timed_out:
        problems.append(f"timed out after {job.get('timeout', 120)} s")
    elif raises is not None:
        name, fragment = raises
        if example_error is None:
            problems.append(f"expected the example to raise {name} with {fragment!r}, but it ran without raising")
        elif not _matches(example_error, name) or fragment not in str(example_error):
            problems.append(f"expected the example to raise {name} with {fragment!r}, but it raised "
                            f"{type(example_error).__name__}: {_clip(str(example_error))}")
    elif example_error is not None:
        problems.append(f"the example raised {type(example_error).__name__}: {_clip(str(example_error))}")
    if check_error is not None and not timed_out:
        what = "the proof check failed" if isinstance(check_error, AssertionError) else "the proof check raised"
        problems.append(f"{what}: {type(check_error).__name__}: {_clip(str(check_error))}")

    return {
        "id": job_id,
        "status": "timeout" if timed_out else ("failed" if problems else "passed"),
        "problems": problems,
        "example_error": _describe(example_error) if example_error is not None else None,
        "check_error": _describe(check_error) if check_error is not None else None,
        "check_ran": check_ran,
        "stdout": _clip(printed.getvalue()),
        "logs": records.lines[-200:],
        "warnings": [_clip(str(w.message)) for w in caught][-200:],
        "seconds": round(time.monotonic() - started, 3),
        "pid": os.getpid(),
    }


def main(argv: list[str]) -> int:
    jobs_path, results_path = argv[1], argv[2]
    with open(jobs_path, encoding="utf-8") as handle:
        jobs = json.load(handle)
    with open(results_path, "a", encoding="utf-8") as out:
        def emit(**event) -> None:
            out.write(json.dumps(event) + "\n")
            out.flush()

        started = time.monotonic()
        import tensorflow as tf

        emit(event="ready", tensorflow=tf.__version__, pid=os.getpid(), python=sys.version.split()[0],
             import_seconds=round(time.monotonic() - started, 3), eager=tf.executing_eagerly())
        baseline = global_state(tf)
        for job in jobs:
            emit(event="start", id=job["id"])
            result = run_job(job)
            changed = {} if job.get("isolated") else \
                {key: value for key, value in global_state(tf).items() if value != baseline[key]}
            restored = changed and restore(tf, baseline, changed)
            if changed:
                # The next example would run in another TensorFlow than it was written for.
                result["problems"].append(
                    f"the example changed global TensorFlow state ({', '.join(f'{k}={v}' for k, v in changed.items())})"
                    "; examples that do that need Proof(isolated=True)")
                result["status"] = "failed"
            emit(event="result", **result)
            if changed and not restored:
                emit(event="restart", reason="global TensorFlow state could not be restored")
                return 0
    return 0


def global_state(tf) -> dict:
    """Process-wide TensorFlow switches an example could flip for every later example."""
    return {
        "executing_eagerly": tf.executing_eagerly(),
        "functions_run_eagerly": tf.config.functions_run_eagerly(),
        "control_flow_v2": tf.compat.v1.control_flow_v2_enabled(),
    }


def restore(tf, baseline: dict, changed: dict) -> bool:
    """Put the switches back where possible; False when a fresh process is needed."""
    try:
        if "functions_run_eagerly" in changed:
            tf.config.run_functions_eagerly(baseline["functions_run_eagerly"])
        if "control_flow_v2" in changed and baseline["control_flow_v2"]:
            tf.compat.v1.enable_control_flow_v2()
    except Exception:
        return False
    return "executing_eagerly" not in changed and global_state(tf) == baseline


if __name__ == "__main__":
    sys.exit(main(sys.argv))
