"""Probe latency: time to attach to a running kernel and get its runtime facts back.

    python bench/probe_latency.py [--python PATH] [--repeat N]

Starts an ipykernel of PATH (default: this interpreter; it needs TensorFlow and ipykernel),
drives it like a notebook (loads the probe's extension, imports TensorFlow, makes variables,
a tf.function traced a few times, a gradient that is None), then measures `attach()` — a
fresh connection, the probe's silent query, the report parsed — N times. The goal
(shared design, BENCHMARKS.md): under 1 s once TensorFlow is imported in the kernel. Also
prints how long `import tensorflow` took in that kernel, for scale. The kernel is always
shut down.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "server"
sys.path.insert(0, str(SERVER))

CELLS = [
    "%load_ext tapelsp.probe",
    "import time as _t\n_t0 = _t.perf_counter()\nimport tensorflow as tf\n_tf_import = _t.perf_counter() - _t0",
    "w = tf.Variable([1.0, 2.0], name='w')\nb = tf.Variable(0.5, name='b')",
    "@tf.function\ndef f(x, n):\n    return x * n\nfor n in range(8):\n    f(tf.constant(1.0), float(n))",
    "with tf.GradientTape() as tape:\n    loss = tf.reduce_sum(w * 2.0)\ngrads = tape.gradient(loss, [w, b])",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()

    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    from tapelsp.probe.attach import attach

    with tempfile.TemporaryDirectory(prefix="tapelsp-bench-") as tmp:
        spec_dir = Path(tmp) / "kernels" / "bench"
        spec_dir.mkdir(parents=True)
        (spec_dir / "kernel.json").write_text(
            '{"argv": ["%s", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "bench", '
            '"language": "python"}' % args.python, encoding="utf-8")
        manager = KernelManager(kernel_name="bench", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec_dir.parent)]),
                                connection_file=str(Path(tmp) / "kernel-bench.json"))
        env = dict(os.environ, PYTHONPATH=str(SERVER), IPYTHONDIR=str(Path(tmp) / "ipython"))
        log = open(Path(tmp) / "kernel.log", "wb")
        manager.start_kernel(env=env, stdout=log, stderr=log)
        client = manager.client()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=120)
            for cell in CELLS:
                reply = client.execute_interactive(cell, timeout=300, output_hook=lambda msg: None)
                if reply["content"]["status"] != "ok":
                    print(f"cell failed: {reply['content'].get('ename')}: {reply['content'].get('evalue')}")
                    return 2
            reply = client.execute_interactive("", timeout=60, output_hook=lambda msg: None, store_history=False,
                                               user_expressions={"t": "_tf_import"})
            tf_import = float(reply["content"]["user_expressions"]["t"]["data"]["text/plain"])
            times = []
            report = None
            for _ in range(args.repeat):
                started = time.perf_counter()
                report = attach(manager.connection_file, timeout=30).report
                times.append(time.perf_counter() - started)
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
            log.close()
    assert report is not None
    names = sorted(entry.name for entry in report.namespace)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average (1 min): {load:.2f} on {os.cpu_count()} cores")
    print(f"kernel: {args.python}; TensorFlow {report.version('tensorflow')} imported in the kernel in {tf_import:.2f} s")
    print(f"report: {len(report.namespace)} namespace facts ({', '.join(names)}), "
          f"{len(report.gradient_sites)} gradient sites, {len(report.functions)} tf.functions "
          f"({', '.join(f'{fn.name}: {fn.traces} traces' for fn in report.functions)})")
    print(f"attach + query + parse, {args.repeat} runs: first {times[0] * 1000:.1f} ms, "
          f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms "
          f"(goal < 1000 ms; {'met' if max(times) < 1.0 else 'NOT met'}); "
          f"ratio to the kernel's TensorFlow import: {statistics.median(times) / tf_import:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
