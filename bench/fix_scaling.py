"""How building fixes grows with the number of findings in one file (or one notebook).

    python bench/fix_scaling.py                          # N = 50, 100, 200, 400 blocks, a .py file
    python bench/fix_scaling.py --notebook               # the same blocks as notebook cells
    python bench/fix_scaling.py --sizes 100 400 --repeat 3
    python bench/fix_scaling.py --server .cache/bench/ab/base/server   # an older copy of server/

The text is N copies of one block of seed bugs: a nested GradientTape that rebinds `tape`
(TAPE001, fixed by renaming the inner tape; TAPE002 comes along, without a fix), a
`tf.Variable` created inside a `tf.function` (FUNC001, fixed by hoisting it) and an
elementwise `tf.map_fn` (MAP002, fixed by vectorising it): 4 findings and 3 fixes a block.
With `--notebook` each block is a cell and the cells go through `notebook_api.check_cells`
(what the JupyterLab extension's check request runs, fixes built) and `findings_json`.

For each N it prints the best of --repeat CPU times without fixes (`check_source`, or
`check_notebook`) and with them, their ratio, and the cost per fix of the difference: a
flat per-fix cost means fix building grows linearly with the findings.

A script, not a test: it asserts nothing about time. See shared/design/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
_server_arg = sys.argv[sys.argv.index("--server") + 1] if "--server" in sys.argv[:-1] else None
sys.path.insert(0, str(Path(_server_arg).resolve() if _server_arg else BENCH.parent / "server"))

from tapelsp.engine import check_source  # noqa: E402
from tapelsp.notebook import check_notebook  # noqa: E402
from tapelsp.notebook_api import RequestCell, check_cells, findings_json, notebook_of  # noqa: E402

HEADER = "import tensorflow as tf\n"
BLOCK = '''
def hessian_{i}(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        dy = tape.gradient(y, x)
    d2y = tape.gradient(dy, x)
    return d2y


@tf.function
def step_{i}(x):
    v = tf.Variable(1.0)
    return v * x


def square_{i}(xs):
    return tf.map_fn(lambda t: t * 2.0, xs)
'''


def source(n: int) -> str:
    return HEADER + "".join(BLOCK.format(i=i) for i in range(n))


def cells(n: int) -> list[RequestCell]:
    return [RequestCell("c0", "code", HEADER)] + [
        RequestCell(f"c{i + 1}", "code", BLOCK.format(i=i).strip("\n") + "\n") for i in range(n)]


def best(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.process_time()
        result = fn()
        times.append(time.process_time() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 400],
                        help="numbers of seed-bug blocks (default: 50 100 200 400)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement; the best counts (default 2)")
    parser.add_argument("--notebook", action="store_true", help="one block a notebook cell, through notebook_api")
    parser.add_argument("--server", help="the server/ directory to import tapelsp from (default: this checkout's)")
    args = parser.parse_args()

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{'notebook cells via notebook_api.check_cells' if args.notebook else 'one .py via check_source'}; "
          f"CPU seconds, best of {args.repeat}")
    print(f"{'N':>5} {'lines':>7} {'findings':>8} {'fixes':>6} {'no fixes s':>11} {'fixes s':>9} {'ratio':>7} "
          f"{'ms/fix':>8}")
    for n in args.sizes:
        if args.notebook:
            request = cells(n)
            lines = sum(cell.source.count("\n") for cell in request)
            without, found = best(lambda: check_notebook(notebook_of(request)), args.repeat)
            with_fixes, fixed = best(lambda: findings_json(check_cells(request), request), args.repeat)
            fixes = sum(1 for f in fixed if f["fix"] is not None)  # type: ignore[union-attr]
        else:
            text = source(n)
            lines = text.count("\n")
            without, found = best(lambda: check_source(text), args.repeat)
            with_fixes, fixed = best(lambda: check_source(text, fixes=True), args.repeat)
            fixes = sum(1 for v in fixed if v.fix is not None)  # type: ignore[union-attr]
        per_fix = (with_fixes - without) / fixes * 1000 if fixes else float("nan")
        print(f"{n:>5} {lines:>7} {len(found):>8} {fixes:>6} {without:>11.3f} {with_fixes:>9.3f} "  # type: ignore[arg-type]
              f"{with_fixes / without:>7.1f} {per_fix:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
