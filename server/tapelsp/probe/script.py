"""Run a Python file under the probe's instrumentation (kernel side).

    python -m tapelsp.probe.script FILE [ARGS...] [--tapelsp-report OUT.json]

runs FILE as `__main__` (as `python FILE` would) with the instrumentation installed, then
writes the probe's report (versions, mode, namespace facts, recorded events) as JSON to
OUT.json, or to standard error when no report file is given. The report is written even
when the program raises or calls `sys.exit`. Inside a kernel, `run_file` runs a file in
the kernel's own namespace.
"""

from __future__ import annotations

import json
import os
import sys
import tokenize
import types

from . import instrument, kernel_query
from .recorder import RECORDER

REPORT_OPTION = "--tapelsp-report"


def read_source(path: str) -> str:
    with tokenize.open(path) as handle:  # honours PEP 263 coding lines
        return handle.read()


def run_file(path: str, namespace: dict | None = None, argv: list[str] | None = None) -> None:
    """Execute `path` as `__main__` in `namespace` (a fresh dict by default) under the
    instrumentation; an exception is recorded and raised again."""
    instrument.install(RECORDER)
    path = os.path.abspath(path)
    namespace = {} if namespace is None else namespace
    namespace.update({"__name__": "__main__", "__file__": path, "__builtins__": __builtins__})
    namespace.pop("__cached__", None)
    code = compile(read_source(path), path, "exec")
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    saved_argv = sys.argv
    sys.argv = list(argv) if argv else [path]
    try:
        exec(code, namespace)
    except BaseException as error:
        if not isinstance(error, SystemExit) or error.code not in (None, 0):
            instrument.record_exception(error)
        raise
    finally:
        sys.argv = saved_argv


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    report_path = None
    if REPORT_OPTION in argv:
        at = argv.index(REPORT_OPTION)
        report_path = argv[at + 1] if at + 1 < len(argv) else None
        del argv[at:at + 2]
    if not argv:
        sys.stderr.write(f"usage: python -m tapelsp.probe.script FILE [ARGS...] [{REPORT_OPTION} OUT.json]\n")
        return 2
    path = os.path.abspath(argv[0])
    module = types.ModuleType("__main__")
    sys.modules["__main__"] = module
    sys.argv = [path] + argv[1:]
    status = 0
    try:
        run_file(path, module.__dict__, argv=sys.argv)
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        status = 1
    namespace = module.__dict__
    report = kernel_query.collect(namespace)
    text = json.dumps(report, default=str, indent=1)
    if report_path:
        with open(report_path, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stderr.write(text + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
