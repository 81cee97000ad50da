"""The engine (and the CLI) never import TensorFlow or Keras, not even to try.

A fresh interpreter installs an import tripwire that records every attempt to import a
watched package (whether or not it is installed), checks a file full of TensorFlow code,
a notebook and, when the CLI exists, runs the CLI on a file. Then nothing may have been
attempted and nothing may be in sys.modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"
CLI_MAIN = SERVER / "tapelsp" / "cli" / "main.py"
WATCHED = ("tensorflow", "keras", "tf_keras", "tensorflow_probability", "tensorflow_cpu")

TENSORFLOW_CODE = '''\
import numpy as np
import tensorflow as tf
import tensorflow.compat.v1 as tf1
from tensorflow import keras, GradientTape as GT
from tensorflow.python.eager import backprop
import keras as k3
import tf_keras
import tensorflow_probability as tfp


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(3)
        self.opt = keras.optimizers.Adam()
        self.v = None
        self.step = tf.function(self._step)

    def _step(self, x):
        w = tf.Variable(1.0)
        return self.dense(x) * w

    @tf.function(input_signature=[tf.TensorSpec([None, 3])], reduce_retracing=True)
    def call(self, x):
        if self.v is None:
            self.v = tf.Variable(2.0)
        return tf.map_fn(lambda r: tf.nn.relu(r * 2.0), x)


x = tf.constant(3.0)
with tf.GradientTape(persistent=False) as tape:
    tape.watch(x)
    y = x * x * x * x
    with GT() as tape:
        dy = tape.gradient(y, x)
with backprop.GradientTape() as outer:
    with tf.GradientTape() as inner:
        z = np.square(x.numpy())
print(tf.map_fn(lambda a: a ** 2, tf.constant([1.0, 2.0])))
tf1.disable_v2_behavior()
'''

SCRIPT = textwrap.dedent('''
    import importlib.abc, json, sys

    WATCHED = set(sys.argv[1].split(","))
    attempted = []

    class Tripwire(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] in WATCHED:
                attempted.append(fullname)
            return None  # let the normal machinery go on (and fail, if it is not installed)

    sys.meta_path.insert(0, Tripwire())

    source_path, notebook_path, cli = sys.argv[2], sys.argv[3], sys.argv[4] == "1"
    control = sys.argv[5] == "1"
    import tapelsp
    from tapelsp import Settings

    text = open(source_path, encoding="utf-8").read()
    found = [v.code for v in tapelsp.check_source(text, source_path, Settings(tensorflow_version="2.21"))]
    found += [v.code for v in tapelsp.check_source(text, source_path)]  # installed-metadata path
    notebook = open(notebook_path, encoding="utf-8").read()
    found += [v.code for v in tapelsp.check_notebook(notebook, notebook_path)]
    cli_status = None
    if cli:
        import contextlib, io
        from tapelsp.cli.main import main
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli_status = main(["--check", "--isolated", source_path])
    if control:
        try:
            import tensorflow  # noqa: F401  the control: the tripwire must notice this
        except ImportError:
            pass
    print(json.dumps({
        "attempted": attempted,
        "loaded": sorted(m for m in sys.modules if m.split(".")[0] in WATCHED),
        "found": found,
        "cli_status": cli_status,
    }))
''')


def _notebook() -> str:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# training"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["%matplotlib inline\n", "import tensorflow as tf\n", "!pip list | grep tensorflow\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["@tf.function\n", "def f(x):\n", "    v = tf.Variable(1.0)\n", "    return v * x\n"]},
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _run(tmp_path: Path, control: bool = False) -> dict:
    source = tmp_path / "train.py"
    source.write_text(TENSORFLOW_CODE, encoding="utf-8")
    notebook = tmp_path / "train.ipynb"
    notebook.write_text(_notebook(), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SERVER), *filter(None, [env.get("PYTHONPATH")])])
    completed = subprocess.run(
        [sys.executable, "-c", SCRIPT, ",".join(WATCHED), str(source), str(notebook),
         "1" if CLI_MAIN.exists() else "0", "1" if control else "0"],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_checking_tensorflow_code_imports_no_tensorflow(tmp_path: Path) -> None:
    outcome = _run(tmp_path)
    # the checks really ran and found things
    assert {"TAPE001", "FUNC001", "MAP002"} <= set(outcome["found"]), outcome["found"]
    if CLI_MAIN.exists():
        assert outcome["cli_status"] == 1, "the CLI should report the findings (exit 1)"
    assert outcome["attempted"] == [], f"tried to import {outcome['attempted']}"
    assert outcome["loaded"] == [], f"loaded {outcome['loaded']}"


def test_the_tripwire_notices_an_import_attempt(tmp_path: Path) -> None:
    """Control: the same run with one `import tensorflow` added is caught, installed or not."""
    outcome = _run(tmp_path, control=True)
    assert "tensorflow" in outcome["attempted"]


# The probe's instrumentation runs only inside the user's own process (a kernel started for
# `--probe`, or `%load_ext tapelsp.probe`), where it wraps TensorFlow; tests/probe proves the
# tapelsp side of the probe never imports these modules or TensorFlow.
USER_PROCESS_ONLY = {"tapelsp/probe/instrument.py", "tapelsp/probe/locate.py"}


def test_no_module_of_the_package_imports_tensorflow() -> None:
    """A static guard next to the runtime one: no import statement anywhere in tapelsp
    (including the code paths the run above did not take) names a watched package."""
    import ast

    offenders = []
    for path in sorted((SERVER / "tapelsp").rglob("*.py")):
        if path.relative_to(SERVER).as_posix() in USER_PROCESS_ONLY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            offenders += [f"{path.relative_to(SERVER)}:{node.lineno}: {name}"
                          for name in names if name.split(".")[0] in WATCHED]
    assert not offenders, offenders
