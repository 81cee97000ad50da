"""The probe process: started by the language server for one probe, never part of it.

`python -m tapelsp.lsp.probe_child` reads one `ProbeJob` (a length-prefixed pickle) from
standard input, does it with `tapelsp.probe` (run mode starts a Jupyter kernel in the
chosen interpreter; attach mode queries a running kernel), and writes one `ProbeOutcome`
or `ProbeFailed` to the pipe that was its standard output. File descriptor 1 is pointed
at standard error first, so nothing else can write into the result.

The server stops it with SIGTERM (the probe then kills its kernel's process group and
removes its temporary files) and SIGKILL if it does not end. TensorFlow is imported only
by the kernel, in the user's interpreter; jupyter_client is imported here, never in the server.
"""

from __future__ import annotations

import os
import sys
import time
import traceback

from .probe_jobs import ATTACH, Dropped, ProbeFailed, ProbeJob, ProbeOutcome
from .worker import read_frame, write_frame


def do(job: ProbeJob) -> ProbeOutcome | ProbeFailed:
    from ..probe.kernel import ProbeError

    try:
        return attach(job) if job.mode == ATTACH else run(job)
    except ProbeError as error:
        return ProbeFailed(str(error))


def run(job: ProbeJob) -> ProbeOutcome:
    from ..probe.check import check_with_probe

    checked = check_with_probe(job.path, job.settings, python=job.python, timeout=job.timeout)
    run_, merged = checked.run, checked.merged
    facts = ""
    if run_.report is not None:
        version = run_.report.version("tensorflow")
        facts = f" (TensorFlow {version or 'not installed'}, {run_.report.describe_mode()})"
    return _outcome(checked.result.violations, merged, f"{run_.outcome.message}{facts}", run_.seconds)


def attach(job: ProbeJob) -> ProbeOutcome:
    import json

    from ..engine import check_source
    from ..notebook import check_notebook
    from ..probe.attach import attach as ask
    from ..probe.merge import merge
    from ..probe.source_map import SourceMap
    from ..probe.targets import probe_targets

    assert job.connection_file is not None
    attached = ask(job.connection_file, timeout=job.timeout)
    report = attached.report
    targets = probe_targets(job.settings, report)
    if job.notebook:
        notebook = {"cells": [{"cell_type": kind, "source": text, "metadata": {}} for kind, text in job.cells]}
        static = check_notebook(notebook, job.path, job.settings, targets)
        unit = SourceMap(job.path, json.dumps(notebook), True)
    else:
        static = check_source(job.text, job.path, job.settings, targets)
        unit = SourceMap(job.path, job.text, False)
    merged = merge(static, report, unit, job.settings)
    version = report.version("tensorflow")
    summary = (f"the kernel answered (TensorFlow {version or 'not installed'}, {report.describe_mode()}"
               f"{'' if report.instrumented else '; %load_ext tapelsp.probe was not loaded there, so nothing was recorded'})")
    return _outcome(merged.violations, merged, summary, attached.seconds)


def _outcome(violations, merged, summary: str, seconds: float) -> ProbeOutcome:
    refuted = tuple(Dropped(r.violation.code, r.violation.cell, r.violation.range.start.line, r.reason)
                    for r in merged.refuted)
    return ProbeOutcome(tuple(violations), summary, len(merged.confirmed), refuted, len(merged.runtime_only),
                        seconds)


def main() -> int:
    output = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        _request_id, job = read_frame(sys.stdin.buffer)
    except (EOFError, OSError):
        return 0
    started = time.monotonic()
    try:
        result = do(job)
    except Exception as error:  # a bug: say so rather than die silently
        frames = traceback.format_exception(type(error), error, error.__traceback__)
        result = ProbeFailed(f"the probe failed ({type(error).__name__}: {error}) {''.join(frames[-2:])}".strip())
    if isinstance(result, ProbeOutcome) and not result.seconds:
        result = ProbeOutcome(result.violations, result.summary, result.confirmed, result.refuted,
                              result.runtime_only, time.monotonic() - started)
    try:
        write_frame(output, (0, result))
    except (BrokenPipeError, OSError):
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
