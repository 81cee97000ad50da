"""Attach mode against a kernel the test starts and drives like a notebook."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tapelsp.probe.attach import attach

SERVER = Path(__file__).resolve().parents[2] / "server"

CELLS = [
    "%load_ext tapelsp.probe",
    "import tensorflow as tf\nimport keras",
    "w = tf.Variable([1.0, 2.0], name='w')\nb = tf.Variable(0.5, name='b')",
    "@tf.function\ndef f(x, n):\n    return x * n\nfor n in (1.0, 2.0, 3.0):\n    f(tf.constant(1.0), n)",
    "with tf.GradientTape() as tape:\n    loss = tf.reduce_sum(w * 2.0)\ngrads = tape.gradient(loss, [w, b])",
    "model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])",
    # A user object whose attribute access would leave a trace if the probe ever ran it.
    "touched = []\nclass Sneaky(tf.Module):\n    @property\n    def name(self):\n        touched.append('name')\n"
    "        return 'sneaky'\n    def __getattr__(self, attr):\n        touched.append(attr)\n        raise AttributeError(attr)\n"
    "sneaky = Sneaky()\ntouched.clear()",
]


@pytest.fixture(scope="module")
def notebook_kernel(kernel_python, tmp_path_factory):
    from jupyter_client import KernelManager

    runtime = tmp_path_factory.mktemp("runtime")
    manager = KernelManager(connection_file=str(runtime / "kernel-test.json"))
    env = dict(os.environ, PYTHONPATH=str(SERVER), IPYTHONDIR=str(runtime / "ipython"))
    manager.start_kernel(env=env, stdout=open(os.devnull, "wb"), stderr=open(os.devnull, "wb"))
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        for number, cell in enumerate(CELLS, start=1):
            reply = client.execute_interactive(cell, timeout=300, output_hook=lambda msg: None)
            assert reply["content"]["status"] == "ok", (number, reply["content"])
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _execution_count(client) -> int:
    reply = client.execute_interactive("", timeout=60, output_hook=lambda msg: None, store_history=False)
    return reply["content"]["execution_count"]


def test_attach_returns_versions_namespace_and_recorded_none_gradients(notebook_kernel):
    manager, client = notebook_kernel
    attached = attach(manager.connection_file, timeout=30)
    report = attached.report
    assert report.version("tensorflow") and "tensorflow" in report.imported
    assert report.mode.executing_eagerly is True and report.mode.control_flow_v2 is True
    names = {entry.name: entry for entry in report.namespace}
    assert names["w"].kind == "variable" and names["w"].get("name") == "w:0" and names["w"].get("shape") == "(2,)"
    assert names["f"].kind == "tf_function" and names["f"].get("traces") == 3
    assert names["model"].kind == "keras_model"
    assert names["sneaky"].kind == "tf_module" and "name" not in names["sneaky"].facts
    [site] = report.gradient_sites
    assert (site.calls, site.none_calls) == (1, 1)
    assert [s.description for s in site.none_sources] == ["tf.Variable 'b:0'"]
    assert site.place.line == 3 and site.place.execution_count == 5
    [function] = [fn for fn in report.functions if fn.name == "f"]
    assert function.traces == 3 and [t.changed for t in function.trace_log][1:] == [("n: 1.0 -> 2.0",), ("n: 2.0 -> 3.0",)]


def test_attach_runs_no_user_code(notebook_kernel):
    manager, client = notebook_kernel
    before = _execution_count(client)
    attach(manager.connection_file, timeout=30)
    attach(manager.connection_file, timeout=30)
    after = _execution_count(client)
    assert after == before, "the probe's silent query must not count as an execution"
    reply = client.execute_interactive("assert touched == [], touched", timeout=60, output_hook=lambda msg: None)
    assert reply["content"]["status"] == "ok", reply["content"]


def test_attach_to_a_missing_kernel_is_a_clear_error(tmp_path):
    from tapelsp.probe.kernel import ProbeError

    with pytest.raises(ProbeError, match="no kernel connection file"):
        attach(str(tmp_path / "kernel-nope.json"), timeout=5)
