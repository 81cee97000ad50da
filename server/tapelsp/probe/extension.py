"""`%load_ext tapelsp.probe`: instrument an IPython kernel (kernel side).

Loading installs the instrumentation (`instrument.install`) and an IPython
`post_run_cell` callback: after each cell, the cell's generated file name is registered
with the recorder with its execution count and cell id (so events say which cell), and an
exception that ended the cell is recorded. Silent executions (attach mode's query) do not
trigger it.
"""

from __future__ import annotations

from . import instrument
from .recorder import RECORDER

_callbacks: dict = {}


def load(shell) -> None:
    instrument.install(RECORDER)
    if _callbacks:
        return

    def post_run_cell(result) -> None:
        # The cell's number is the one its result carries (IPython 9 counts up before
        # pre_run_cell, IPython 8 after), and that is also the number its code was cached under.
        try:
            info = result.info
            raw = info.raw_cell or ""
            count = result.execution_count
            name = shell.compile.get_code_name(raw, shell.transform_cell(raw), count)
            RECORDER.register_cell(name, getattr(info, "cell_id", None), count)
        except Exception as error:  # never break the user's cell
            RECORDER.record_internal_error(f"post_run_cell: {type(error).__name__}: {error}")
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        if error is not None:
            instrument.record_exception(error)

    shell.events.register("post_run_cell", post_run_cell)
    _callbacks.update(post_run_cell=post_run_cell)


def unload(shell) -> None:
    for event, callback in _callbacks.items():
        try:
            shell.events.unregister(event, callback)
        except ValueError:
            pass
    _callbacks.clear()
    instrument.uninstall()
