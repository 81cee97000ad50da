"""`%load_ext tapelsp.probe`: instrument an IPython kernel (kernel side).

Loading installs the instrumentation (`instrument.install`) and two IPython event
callbacks: before each cell the cell's generated file name is registered with the
recorder (so events say which cell), after each cell an exception that ended it is
recorded. Silent executions (attach mode's query) trigger neither.
"""

from __future__ import annotations

from . import instrument
from .recorder import RECORDER

_callbacks: dict = {}


def load(shell) -> None:
    instrument.install(RECORDER)
    if _callbacks:
        return

    def pre_run_cell(info) -> None:
        try:
            raw = info.raw_cell or ""
            transformed = shell.transform_cell(raw)
            name = shell.compile.get_code_name(raw, transformed, shell.execution_count)
            RECORDER.register_cell(name, getattr(info, "cell_id", None), shell.execution_count)
        except Exception as error:  # never break the user's cell
            RECORDER.record_internal_error(f"pre_run_cell: {type(error).__name__}: {error}")

    def post_run_cell(result) -> None:
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        if error is not None:
            instrument.record_exception(error)

    shell.events.register("pre_run_cell", pre_run_cell)
    shell.events.register("post_run_cell", post_run_cell)
    _callbacks.update(pre_run_cell=pre_run_cell, post_run_cell=post_run_cell)


def unload(shell) -> None:
    for event, callback in _callbacks.items():
        try:
            shell.events.unregister(event, callback)
        except ValueError:
            pass
    _callbacks.clear()
    instrument.uninstall()
