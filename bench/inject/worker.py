"""The TensorFlow side of the injector: runs programs one after another in one process.

Started by `tfrun.Runner` with the project's TensorFlow interpreter. It imports TensorFlow once,
instruments it and then executes jobs read as JSON lines on stdin, each a program (its files,
an entry point) and a mode:

* `graph`  - as written;
* `eager`  - with `tf.config.run_functions_eagerly(True)` (and, with `data_debug`,
  `tf.data.experimental.enable_debug_mode()`, which cannot be undone: such jobs run in a
  process of their own, `--once`).

For every job it writes one JSON line on the protocol descriptor (its original stdout; fd 1 and 2
go to /dev/null so TensorFlow's C++ logging cannot break the protocol). What it records, keyed by
`relative/path:line` of the program's own files (AutoGraph's generated code is mapped back
through its source map):

* `grads`: per `tape.gradient`/`jacobian`/`batch_jacobian` call line, [calls, calls with a None
  leaf, calls with only None leaves];
* `active`: per line, how many function activations executed it (a line in a loop counts once
  per activation, so eager calls and traces are comparable);
* `graph_calls`: per function (its first mapped line), calls made while building a graph
  (traces) and `calls` (all);
* `exceptions`: every exception that passed through a frame of the program, even when the
  program caught it, as [where, type, message];
* `final`: the exception that ended the program, if any; `stdout` (tail) of Python-level prints;
* `mapfn`: for `mapfn_lines`, whether `fn(elems)` equals `tf.map_fn(fn, elems)` and how much
  faster it is (best of several timings, side by side in this process).

This file never runs inside the engine or the CLI; only the benchmark starts it.
"""
from __future__ import annotations

import builtins
import gc
import io
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter

PROTO = None


def _setup_fds():
    global PROTO
    PROTO = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.stdout = io.StringIO()
    sys.stderr = io.StringIO()


os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
MODE_MARKERS = ("TF_USE_LEGACY_KERAS",)


class Recorder:
    def __init__(self, root: str):
        self.root = root.rstrip(os.sep) + os.sep
        self.ag: dict[str, dict[int, tuple[str, int]]] = {}
        self.active: Counter = Counter()
        self.graph_calls: Counter = Counter()
        self.calls: Counter = Counter()
        self.grads: dict[str, list[int]] = {}
        self.exceptions: list[list] = []
        self._seen_exc: set = set()
        self.mapfn: dict[str, tuple] = {}

    def where(self, filename: str, lineno: int):
        if filename.startswith(self.root):
            return filename[len(self.root):], lineno
        m = self.ag.get(filename)
        if m is not None:
            return m.get(lineno)
        return None

    def frame_key(self, frame, depth: int = 25):
        while frame is not None and depth:
            k = self.where(frame.f_code.co_filename, frame.f_lineno)
            if k is not None:
                return f"{k[0]}:{k[1]}"
            frame = frame.f_back
            depth -= 1
        return None


REC: Recorder | None = None
CALLBACK_TRACER = None


def _install():
    """Wrap TensorFlow once; the wrappers report to the current `REC`."""
    import numpy as np  # noqa: F401
    import tensorflow as tf
    from tensorflow.python.autograph.impl import api as ag_api
    from tensorflow.python.framework import ops

    tf.debugging.disable_traceback_filtering()
    dnc = tf.autograph.experimental.do_not_convert

    original_convert = ag_api._convert_actual

    def convert(entity, program_ctx):
        transformed = original_convert(entity, program_ctx)
        rec = REC
        if rec is not None:
            try:
                for loc, origin in transformed.ag_source_map.items():
                    of = origin.loc.filename
                    if of.startswith(rec.root):
                        rec.ag.setdefault(loc.filename, {})[loc.lineno] = (of[len(rec.root):], origin.loc.lineno)
            except Exception:  # noqa: BLE001 - a missing map only loses attribution
                pass
        return transformed

    ag_api._convert_actual = convert

    def wrap_grad(name):
        original = getattr(tf.GradientTape, name)

        @dnc
        def method(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            rec = REC
            if rec is not None:
                key = rec.frame_key(sys._getframe(1))
                if key is not None:
                    leaves = [result] if result is None else tf.nest.flatten(result, expand_composites=False)
                    nones = sum(1 for leaf in leaves if leaf is None)
                    entry = rec.grads.setdefault(key, [0, 0, 0])
                    entry[0] += 1
                    if nones:
                        entry[1] += 1
                    if leaves and nones == len(leaves):
                        entry[2] += 1
            return result

        method.__name__ = name
        setattr(tf.GradientTape, name, method)

    for name in ("gradient", "jacobian", "batch_jacobian"):
        wrap_grad(name)

    original_map_fn = tf.map_fn

    @dnc
    def map_fn(fn, elems, *args, **kwargs):
        rec = REC
        if rec is not None and not args and tf.executing_eagerly():
            key = rec.frame_key(sys._getframe(1))
            if key is not None and key not in rec.mapfn:
                rec.mapfn[key] = (fn, elems, dict(kwargs))
        return original_map_fn(fn, elems, *args, **kwargs)

    tf.map_fn = map_fn

    # tf.data's debug mode (and tf.py_function) run Python callbacks on TensorFlow's own threads,
    # which sys.settrace does not reach: with `trace_callbacks`, each callback traces its thread.
    from tensorflow.python.ops import script_ops
    original_call = script_ops.FuncRegistry.__call__

    def call(self, *args, **kwargs):
        tracer = CALLBACK_TRACER
        if tracer is None:
            return original_call(self, *args, **kwargs)
        previous = sys.gettrace()
        sys.settrace(tracer)
        try:
            return original_call(self, *args, **kwargs)
        finally:
            sys.settrace(previous)

    script_ops.FuncRegistry.__call__ = call
    return tf, ops, original_map_fn


def _tracer(rec: Recorder, ops):
    root = rec.root
    inside = ops.inside_function

    def make_local(mapper):
        seen: set = set()

        def local(frame, event, arg):
            if event == "line":
                k = mapper(frame.f_lineno)
                if k is not None and k not in seen:
                    seen.add(k)
                    rec.active[k] += 1
            elif event == "exception":
                exc_type, value = arg[0], arg[1]
                if exc_type in (StopIteration, GeneratorExit, StopAsyncIteration):
                    return local
                try:
                    msg = str(value)[:600]
                except Exception:  # noqa: BLE001
                    msg = "?"
                ident = (exc_type.__name__, msg)
                if ident not in rec._seen_exc and len(rec.exceptions) < 60:
                    rec._seen_exc.add(ident)
                    k = mapper(frame.f_lineno)
                    rec.exceptions.append([k, exc_type.__name__, msg])
            return local

        return local

    def global_trace(frame, event, arg):
        if event != "call":
            return None
        fn = frame.f_code.co_filename
        if fn.startswith(root):
            rel = fn[len(root):]
            first = f"{rel}:{frame.f_code.co_firstlineno}"
            rec.calls[first] += 1
            if inside():
                rec.graph_calls[first] += 1
            return make_local(lambda line, rel=rel: f"{rel}:{line}")
        m = rec.ag.get(fn)
        if m is not None:
            start = frame.f_code.co_firstlineno
            origin = None
            for line in range(start, start + 6):
                origin = m.get(line)
                if origin is not None:
                    break
            if origin is not None:
                first = f"{origin[0]}:{origin[1]}"
                rec.calls[first] += 1
                rec.graph_calls[first] += 1

            def mapper(line, m=m):
                o = m.get(line)
                return None if o is None else f"{o[0]}:{o[1]}"
            return make_local(mapper)
        return None

    return global_trace


def _measure_mapfn(tf, original_map_fn, fn, elems, kwargs):
    import numpy as np
    try:
        mapped = original_map_fn(fn, elems, **kwargs)
        vec = fn(elems)
        a, b = np.asarray(mapped), np.asarray(vec)
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-5):
            return {"equal": False}
        n = int(tf.shape(tf.nest.flatten(elems)[0])[0])

        def best(f, reps=3):
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                r = f()
                np.asarray(r)
                times.append(time.perf_counter() - t0)
            return min(times)
        t_map = best(lambda: original_map_fn(fn, elems, **kwargs))
        t_vec = best(lambda: fn(elems))
        return {"equal": True, "n": n, "map_s": t_map, "vec_s": t_vec, "ratio": t_map / max(t_vec, 1e-7)}
    except Exception as exc:  # noqa: BLE001
        return {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}


def _reset(tf):
    try:
        tf.config.run_functions_eagerly(False)
    except Exception:  # noqa: BLE001
        pass
    for mod in ("keras", "tf_keras"):
        m = sys.modules.get(mod)
        if m is not None:
            try:
                m.backend.clear_session()
            except Exception:  # noqa: BLE001
                pass
            try:
                m.mixed_precision.set_global_policy("float32")
            except Exception:  # noqa: BLE001
                pass
    try:
        tf.keras.backend.clear_session()
    except Exception:  # noqa: BLE001
        pass


def run_job(job: dict, tf, ops, original_map_fn) -> dict:
    global REC, CALLBACK_TRACER
    import random

    import numpy as np

    root = tempfile.mkdtemp(prefix="inject-")
    rec = Recorder(root)
    for rel, text in job["files"].items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    entry = os.path.join(root, job["entry"])
    entry_dir = os.path.dirname(entry)
    saved = (list(sys.path), list(sys.argv), os.getcwd(), dict(os.environ), set(sys.modules))
    out = io.StringIO()
    final = None
    exit_code = 0
    namespace: dict = {}
    t0 = time.perf_counter()
    try:
        if job.get("mode") == "eager":
            tf.config.run_functions_eagerly(True)
            if job.get("data_debug"):
                tf.data.experimental.enable_debug_mode()
        random.seed(1234)
        np.random.seed(1234)
        tf.random.set_seed(1234)
        os.chdir(entry_dir)
        sys.path.insert(0, entry_dir)
        sys.argv = [entry]
        with open(entry, encoding="utf-8") as fh:
            code = compile(fh.read(), entry, "exec")
        namespace = {"__name__": "__main__", "__file__": entry, "__builtins__": builtins}
        REC = rec
        sys.stdout = out
        tracer = _tracer(rec, ops)
        if job.get("trace_callbacks"):
            CALLBACK_TRACER = tracer
        sys.settrace(tracer)
        try:
            exec(code, namespace)
        finally:
            sys.settrace(None)
            CALLBACK_TRACER = None
            sys.stdout = io.StringIO()
    except SystemExit as exc:
        exit_code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException as exc:  # noqa: BLE001 - the program's own failure is the datum
        where = None
        for fs in reversed(traceback.extract_tb(exc.__traceback__)):
            k = rec.where(fs.filename, fs.lineno or 0)
            if k is not None:
                where = f"{k[0]}:{k[1]}"
                break
        final = [where, type(exc).__name__, str(exc)[:800]]
        exit_code = 1
    elapsed = time.perf_counter() - t0
    mapfn = {}
    for key in job.get("mapfn_lines", []):
        if key in rec.mapfn:
            fn, elems, kwargs = rec.mapfn[key]
            mapfn[key] = _measure_mapfn(tf, original_map_fn, fn, elems, kwargs)
    REC = None
    graph_mode_left = not tf.executing_eagerly()
    sys.path[:] = saved[0]
    sys.argv[:] = saved[1]
    try:
        os.chdir(saved[2])
    except OSError:
        os.chdir("/")
    os.environ.clear()
    os.environ.update(saved[3])
    for name in list(sys.modules):
        if name in saved[4]:
            continue
        f = getattr(sys.modules[name], "__file__", None) or ""
        if f.startswith(rec.root):
            del sys.modules[name]
    _reset(tf)
    text = out.getvalue()
    result = {
        "grads": rec.grads,
        "active": dict(rec.active),
        "graph_calls": dict(rec.graph_calls),
        "calls": dict(rec.calls),
        "exceptions": rec.exceptions,
        "final": final,
        "exit": exit_code,
        "stdout_lines": text.count("\n"),
        "stdout": text[-3000:],
        "markers": {m: text.count(m) for m in job.get("markers", [])},
        "mapfn": mapfn,
        "elapsed": elapsed,
        "graph_mode_left": graph_mode_left,
    }
    shutil.rmtree(root, ignore_errors=True)
    del namespace
    gc.collect()
    return result


def main() -> None:
    once = "--once" in sys.argv
    _setup_fds()
    tf, ops, original_map_fn = _install()
    if once:
        job = json.loads(sys.stdin.read())
        PROTO.write(json.dumps(run_job(job, tf, ops, original_map_fn), default=str) + "\n")
        PROTO.flush()
        return
    PROTO.write(json.dumps({"ready": True}) + "\n")
    PROTO.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        try:
            result = run_job(job, tf, ops, original_map_fn)
        except BaseException as exc:  # noqa: BLE001
            result = {"worker_error": f"{type(exc).__name__}: {exc}"}
        PROTO.write(json.dumps(result, default=str) + "\n")
        PROTO.flush()
        if result.get("graph_mode_left") or result.get("worker_error"):
            return


if __name__ == "__main__":
    main()
