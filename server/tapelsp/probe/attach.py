"""Attach mode: runtime facts from a kernel that is already running (a notebook's).

Given the kernel's connection file, ask it for the probe's report: versions, eager or
graph mode, which names are tf.Variables, tf.functions (with their trace counts), Keras
models, and what the instrumentation recorded when `%load_ext tapelsp.probe` was loaded
there. The kernel runs only the probe's own query code, as a silent execute: no user code,
no history entry, no output in the notebook.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .kernel import ProbeError, ask_kernel, connect
from .report import ProbeReport

DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class Attached:
    report: ProbeReport
    seconds: float
    connection_file: str


def attach(connection_file: str, timeout: float = DEFAULT_TIMEOUT,
           cell_numbers: dict[str, int] | None = None) -> Attached:
    """The report of the kernel behind `connection_file`; ProbeError when it does not answer
    in time (it may be busy running a cell) or cannot be reached. `cell_numbers` maps the
    frontend's cell ids (sent with each execution) to 1-based cell numbers of the notebook."""
    started = time.monotonic()
    client = connect(connection_file)
    try:
        try:
            data = ask_kernel(client, timeout)
        except ProbeError as error:
            if "time limit" in str(error):
                raise ProbeError(f"the kernel did not answer within {timeout:g} s (is it busy running a cell?)") from None
            raise
    finally:
        client.stop_channels()
    return Attached(ProbeReport.from_json(data, cell_numbers), time.monotonic() - started, connection_file)


__all__ = ["attach", "Attached", "ProbeError"]
