"""An analysis worker loads the fix builders (libcst) once, after its first analysis that offers
fixes, while it is idle, so that the editor's first code action does not pay for that."""

import os
import subprocess
import sys
import time
from pathlib import Path

from tapelsp.lsp import jobs
from tapelsp.lsp.worker import read_frame, write_frame
from tapelsp.settings import Settings

SERVER = str(Path(__file__).resolve().parents[2] / "server")
FIXABLE = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    v = tf.Variable(1.0)\n    return v * x\n"
CLEAN = "import tensorflow as tf\n\nx = tf.constant(1.0)\n"


def _modules_after(text: str) -> tuple[bool, jobs.WorkerStatus]:
    """(fixes offered?, the worker's status) in a fresh worker after one analysis of `text`."""
    env = dict(os.environ, PYTHONPATH=SERVER + os.pathsep + os.environ.get("PYTHONPATH", ""))
    worker = subprocess.Popen([sys.executable, "-m", "tapelsp.lsp.worker"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, env=env)
    try:
        check = jobs.Check(jobs.Source(jobs.TEXT, "m.py", text), Settings(), key="file:///m.py", ident=(1,))
        write_frame(worker.stdin, (1, check))
        _, checked = read_frame(worker.stdout)
        assert isinstance(checked, jobs.Checked)
        time.sleep(3)  # the worker is idle now: the time it has to load them (it takes ~0.3 s)
        write_frame(worker.stdin, (2, jobs.Status()))
        _, status = read_frame(worker.stdout)
        return bool(checked.offered), status
    finally:
        worker.stdin.close()
        worker.wait(10)


def test_the_fix_builders_are_loaded_after_an_analysis_with_fixes_only():
    offered, with_fixes = _modules_after(FIXABLE)
    assert offered
    clean_offered, clean = _modules_after(CLEAN)
    assert not clean_offered
    # libcst and the fix builders are about 90 modules.
    assert with_fixes.modules - clean.modules > 50, (with_fixes, clean)
    assert not with_fixes.tensorflow_imported
