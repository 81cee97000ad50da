"""Jobs that prove the harness can fail: wrong proofs, crashes, hangs, leaks between examples.

They run in the same session as the rules' examples (one TensorFlow import for all shared
jobs); `test_harness.py` asserts what the harness reported for each.
"""

from __future__ import annotations

from .harness import Job

# The seed report's bug: the inner tape shadows the outer one, the gradient is None.
SHADOWED = """\
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x * x * x
    with tf.GradientTape() as tape:
        dy = tape.gradient(y, x)
"""

# A tf.Variable created on every trace: ValueError on the first call.
VARIABLE_IN_FUNCTION = """\
import tensorflow as tf

@tf.function
def scale(x):
    v = tf.Variable(2.0)
    return v * x

scale(tf.constant(3.0))
"""

SINGLETON = "tf.function only supports singleton tf.Variables"

# Blocks the worker's alarm signal, so only the parent's hard timeout can stop it.
UNINTERRUPTIBLE = """\
import signal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
while True:
    pass
"""


def _job(id: str, kind: str, source: str, **kw) -> Job:
    return Job(id=f"selftest-{id}", kind=kind, source=source, **kw)


JOBS: list[Job] = [
    # proofs that hold
    _job("right-check", "invalid", SHADOWED, check="assert dy is None\n"),
    _job("right-raises", "invalid", VARIABLE_IN_FUNCTION, raises=("ValueError", SINGLETON)),
    _job("right-raises-base-class", "invalid", VARIABLE_IN_FUNCTION, raises=("Exception", SINGLETON)),
    _job("clean-valid", "valid", "import tensorflow as tf\ny = tf.square(tf.constant(3.0))\n",
         check="assert float(y) == 9.0\n"),
    # proofs that are wrong: each must be reported as a failure
    _job("wrong-check", "invalid", SHADOWED, check="assert dy is not None, 'expected a gradient'\n"),
    _job("wrong-exception-type", "invalid", VARIABLE_IN_FUNCTION, raises=("RuntimeError", SINGLETON)),
    _job("wrong-exception-message", "invalid", VARIABLE_IN_FUNCTION,
         raises=("ValueError", "a message TensorFlow never prints")),
    _job("expected-raise-missing", "invalid", SHADOWED,
         raises=("RuntimeError", "A non-persistent GradientTape can only be used")),
    _job("valid-that-raises", "valid",
         "import tensorflow as tf\nz = tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])\n"),
    _job("valid-expecting-exception", "valid", VARIABLE_IN_FUNCTION, raises=("ValueError", SINGLETON)),
    _job("invalid-asserting-nothing", "invalid", SHADOWED),
    _job("check-that-errors", "valid", "import tensorflow as tf\n", check="tf.no_such_function()\n"),
    _job("check-after-expected-raise", "invalid", VARIABLE_IN_FUNCTION,
         raises=("ValueError", SINGLETON), check="assert False, 'the check still runs after the raise'\n"),
    # one TensorFlow import, a fresh namespace per example
    _job("leak-a", "valid", "leaked = 42\n"),
    _job("leak-b", "valid", "import sys\n",
         check="assert 'leaked' not in globals()\nassert 'tensorflow' in sys.modules\n"),
    _job("eager", "valid", "import tensorflow as tf\n", check="assert tf.executing_eagerly()\n"),
    _job("main-guard-runs", "valid", "ran = False\nif __name__ == '__main__':\n    ran = True\n",
         check="assert ran\n"),
    # what the check can read
    _job("captured-output", "valid", (
        "import tensorflow as tf\n"
        "@tf.function\n"
        "def f(x):\n"
        "    return x\n"
        "for i in range(8):\n"
        "    f(i)\n"
        "print('traced')\n"),
        check=("assert __tapelsp_stdout__ == 'traced\\n', __tapelsp_stdout__\n"
               "assert any('triggered tf.function retracing' in line for line in __tapelsp_logs__), __tapelsp_logs__\n")),
    # a hang the worker's alarm interrupts; the worker goes on with the next job
    _job("soft-timeout", "valid", "while True:\n    pass\n", timeout=1.0),
    _job("after-soft-timeout", "valid", "import tensorflow as tf\n", check="assert tf.executing_eagerly()\n"),
    # an example that flips a process-wide switch fails (it needs isolated=True); the switch is
    # put back, or the worker is replaced, before the next example runs
    _job("leaks-run-functions-eagerly", "valid", "import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n"),
    _job("after-run-functions-eagerly", "valid", "import tensorflow as tf\n",
         check="assert not tf.config.functions_run_eagerly()\n"),
    _job("leaks-graph-mode", "valid", "import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n",
         group="selftest-restart"),
    _job("after-graph-mode", "valid", "import tensorflow as tf\n", check="assert tf.executing_eagerly()\n",
         group="selftest-restart"),
    # graph mode in a process of its own
    _job("isolated-graph-mode", "valid",
         "import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n",
         check="assert not tf.executing_eagerly()\n", isolated=True),
    # a worker that dies: reported, and the jobs after it run in a new worker
    _job("crash", "valid", "import os\nos._exit(7)\n", group="selftest-crash"),
    _job("after-crash", "valid", "import tensorflow as tf\n", check="assert tf.executing_eagerly()\n",
         group="selftest-crash"),
    # a hang nothing inside the worker can stop: the parent kills it
    _job("hard-timeout", "valid", UNINTERRUPTIBLE, timeout=1.0, grace=1.0, isolated=True),
]

BY_ID = {job.id: job for job in JOBS}


def mutated_catalogue_jobs(proven: list[tuple[str, object, Job]]) -> list[Job]:
    """A real rule example whose expected message is changed must fail: the harness compares."""
    from dataclasses import replace

    for case_id, _example, job in proven:
        if job.kind == "invalid" and job.raises and not job.isolated:
            name, fragment = job.raises
            return [replace(job, id=f"selftest-mutated-{case_id}",
                            raises=(name, fragment + " [mutated: not in TensorFlow's message]"))]
    return []
