"""POST /tapelsp/probe: attach mode against a real kernel that the Jupyter server's kernel
manager starts and the test drives like JupyterLab does (each execution carries its cell id).

The TensorFlow test is slow (the kernel imports TensorFlow): there is one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from jupyterlab_helpers import code, markdown, post

LOAD = code("%load_ext tapelsp.probe", "load")
IMPORTS = code("import tensorflow as tf", "imports")
NOTE = markdown("The gradient below is None: `x` is a constant the tape never watched.", "note")
UNWATCHED = code("x = tf.constant(3.0)\n"
                 "with tf.GradientTape() as tape:\n"
                 "    y = x * x\n"
                 "g = tape.gradient(y, x)\n"
                 "assert g is None\n", "grad")
MAP = code("ys = tf.map_fn(lambda t: t * 2.0, tf.constant([1.0, 2.0]))", "map")
# A None gradient static analysis does not flag (w is simply not used by the loss).
UNUSED = code("v = tf.Variable(1.0)\n"
              "w = tf.Variable(2.0)\n"
              "def loss_fn():\n"
              "    return v * 2.0\n"
              "with tf.GradientTape() as tape:\n"
              "    loss = loss_fn()\n"
              "grads = tape.gradient(loss, [v, w])\n", "unused")
# FUNC009 expects a retrace per epsilon, but epsilon never changes here: the runtime refutes it.
STEADY = code("@tf.function\n"
              "def train_step(x, n):\n"
              "    return x * n\n"
              "def main():\n"
              "    epsilon = 1.0\n"
              "    for episode in range(10):\n"
              "        loss = train_step(tf.constant(1.0), epsilon)\n"
              "        epsilon = max(1.0, epsilon * 0.99)\n"
              "main()\n", "steady")
NOTEBOOK = [LOAD, IMPORTS, NOTE, UNWATCHED, MAP, UNUSED, STEADY]


async def start_kernel(jp_serverapp) -> str:
    # The server's own kernel manager, the one JupyterLab's kernels come from.
    return await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")


async def run_cells(jp_serverapp, kernel_id: str, cells: list[dict]) -> None:
    """Execute the code cells as JupyterLab does: an execute_request whose metadata has the cellId."""
    client = jp_serverapp.kernel_manager.get_kernel(kernel_id).client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=120)
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            content = {"code": cell["source"], "silent": False, "store_history": True, "user_expressions": {},
                       "allow_stdin": False, "stop_on_error": True}
            message = client.session.msg("execute_request", content, metadata={"cellId": cell["id"]})
            client.shell_channel.send(message)
            while True:
                reply = await client.get_shell_msg(timeout=300)
                if reply["parent_header"].get("msg_id") == message["header"]["msg_id"]:
                    break
            assert reply["content"]["status"] == "ok", (cell["id"], reply["content"])
    finally:
        client.stop_channels()


@pytest.mark.tensorflow
async def test_probe_confirms_findings_with_the_kernels_evidence(jp_fetch, jp_serverapp, kernel_python):
    kernel_id = await start_kernel(jp_serverapp)
    await run_cells(jp_serverapp, kernel_id, NOTEBOOK)

    status, answer = await post(jp_fetch, "probe", {"kernel_id": kernel_id, "path": None, "cells": NOTEBOOK})
    assert status == 200, answer
    assert answer["runtime"]["versions"]["tensorflow"].startswith("2.")
    assert answer["runtime"]["eager"] is True and answer["runtime"]["control_flow_v2"] is True
    assert "TensorFlow 2." in answer["message"] and "1 confirmed" in answer["message"]
    by_code = {f["code"]: f for f in answer["findings"]}
    unwatched = by_code["TAPE010"]
    assert (unwatched["cell_id"], unwatched["cell_index"]) == ("grad", 3)
    assert unwatched["runtime"]["status"] == "confirmed"
    assert "None" in unwatched["runtime"]["evidence"]
    assert "confirmed at runtime" in unwatched["message"]
    # a finding the runtime has nothing to say about keeps no runtime verdict
    assert by_code["MAP002"]["cell_id"] == "map" and by_code["MAP002"]["runtime"] is None
    # what only the runtime saw is a finding of its own, in the cell where it happened
    rt001 = by_code["RT001"]
    assert (rt001["cell_id"], rt001["cell_index"], rt001["range"]["start"]["line"]) == ("unused", 5, 6)
    assert rt001["runtime"]["status"] == "runtime-only"
    assert rt001["runtime"]["evidence"].endswith(": source 2 of 2 (`w`, tf.Variable 'Variable:0') was None in 1 of 1 call")
    assert "1 found only at runtime" in answer["message"]
    # a refuted finding stays in the answer, marked refuted, with the reason
    func009 = by_code["FUNC009"]
    assert (func009["cell_id"], func009["range"]["start"]["line"]) == ("steady", 6)
    assert func009["runtime"]["status"] == "refuted" and "traced once" in func009["runtime"]["evidence"]
    assert "1 refuted" in answer["message"]

    # The same request to the check endpoint knows nothing of the runtime.
    status, static = await post(jp_fetch, "check", {"cells": NOTEBOOK})
    assert {f["code"]: f["runtime"] for f in static["findings"]}["TAPE010"] is None

    # The server's side of this never imports TensorFlow: the same handler code in a fresh
    # interpreter, against the same kernel, leaves it out of sys.modules.
    connection_file = jp_serverapp.kernel_manager.get_kernel(kernel_id).connection_file
    script = (
        "import json, sys\n"
        "import jupyter_server.serverapp, tapelsp_jupyterlab\n"
        "from tapelsp_jupyterlab import handlers\n"
        "from tapelsp.notebook_api import parse_cells\n"
        "cells = parse_cells(json.loads(sys.argv[1]))\n"
        "checked = handlers.check_answer(cells, None)\n"
        "probed = handlers.probe_answer(cells, None, sys.argv[2])\n"
        "print(json.dumps({'tf': 'tensorflow' in sys.modules, 'check': len(checked['findings']),\n"
        "                  'confirmed': [f['code'] for f in probed['findings'] if f['runtime']]}))\n")
    done = subprocess.run([sys.executable, "-c", script, json.dumps(NOTEBOOK), connection_file],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["tf"] is False and result["check"] >= 2 and "TAPE010" in result["confirmed"]


async def test_a_kernel_without_the_instrumentation_is_a_clear_409(jp_fetch, jp_serverapp):
    kernel_id = await start_kernel(jp_serverapp)
    cells = [code("x = 1", "plain")]
    await run_cells(jp_serverapp, kernel_id, cells)
    status, answer = await post(jp_fetch, "probe", {"kernel_id": kernel_id, "cells": cells})
    assert status == 409
    assert "no tapelsp instrumentation" in answer["message"] and "%load_ext tapelsp.probe" in answer["message"]


async def test_a_kernel_that_has_not_imported_tensorflow_is_a_clear_409(jp_fetch, jp_serverapp):
    kernel_id = await start_kernel(jp_serverapp)
    cells = [LOAD, code("x = 1", "plain")]
    await run_cells(jp_serverapp, kernel_id, cells)
    status, answer = await post(jp_fetch, "probe", {"kernel_id": kernel_id, "cells": cells})
    assert status == 409 and "not imported TensorFlow" in answer["message"]


async def test_a_busy_kernel_is_a_409_not_a_hang(jp_fetch, jp_serverapp):
    kernel_id = await start_kernel(jp_serverapp)
    cells = [LOAD, code("import time\ntime.sleep(600)", "sleeps")]
    await run_cells(jp_serverapp, kernel_id, cells[:1])
    client = jp_serverapp.kernel_manager.get_kernel(kernel_id).client()
    client.start_channels()
    try:
        sent = client.execute(cells[1]["source"])  # not waited for: the kernel stays busy
        while True:  # until the kernel has started running it
            message = await client.get_iopub_msg(timeout=60)
            if message["parent_header"].get("msg_id") == sent and message["msg_type"] == "execute_input":
                break
        status, answer = await post(jp_fetch, "probe", {"kernel_id": kernel_id, "cells": cells}, request_timeout=120)
        assert status == 409 and "busy" in answer["message"]
    finally:
        client.stop_channels()
        await jp_serverapp.kernel_manager.shutdown_kernel(kernel_id, now=True)


async def test_an_unknown_kernel_is_a_404(jp_fetch):
    status, answer = await post(jp_fetch, "probe", {"kernel_id": "no-such-kernel", "cells": [code("x = 1", "a")]})
    assert status == 404 and "no-such-kernel" in answer["message"]


@pytest.mark.parametrize("body, words", [
    ({"cells": [code("x = 1", "a")]}, "`kernel_id`"),
    ({"kernel_id": 3, "cells": []}, "`kernel_id`"),
    ({"kernel_id": "k"}, "`cells`"),
])
async def test_bad_probe_requests_are_400(jp_fetch, body, words):
    status, answer = await post(jp_fetch, "probe", body)
    assert status == 400 and words in answer["message"]
