"""Live kernel probing: the user's own TensorFlow confirms, refutes and adds findings.

Two halves that never share a process:

- kernel side (runs where TensorFlow runs, opt-in): `%load_ext tapelsp.probe` in IPython or
  Jupyter, or `python -m tapelsp.probe.script FILE`, installs the instrumentation
  (`instrument`, `recorder`, `locate`); `kernel_query` reads versions, mode and namespace
  facts without running user code;
- tapelsp side (never imports TensorFlow): `run` starts a kernel in the user's interpreter
  and runs a file or notebook under the instrumentation with a time limit, `attach`
  queries a running kernel, `merge` folds the runtime report into the static findings.

This package module stays tiny: importing it imports neither TensorFlow nor jupyter_client.
"""

from __future__ import annotations


def load_ipython_extension(shell) -> None:
    """`%load_ext tapelsp.probe`."""
    from .extension import load

    load(shell)


def unload_ipython_extension(shell) -> None:
    """`%unload_ext tapelsp.probe`."""
    from .extension import unload

    unload(shell)
