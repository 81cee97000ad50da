"""TL001 false-positive class: notebook lines IPython accepts.

IPython (the kernel that runs the notebook) decides: each cell goes through the transformation
IPython's InteractiveShell applies before it compiles a cell (magics, shell escapes, and
automagic, which IPython applies to cells of one line only) and is compiled. The cells IPython
compiles must get no TL001 from tapelsp; the others (a bracket left open; `pip install` lines in
a cell of several lines, which IPython leaves as they are) keep theirs.

    .venv/bin/python bench/precision/repro/tl001_ipython_lines.py
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server"))
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

import tapelsp  # noqa: E402

CELLS = [
    # automagics in a cell of one line: a line magic's name without `%`
    "pip install datasets",
    "\nls ./data/train/",
    "import tensorflow as tf\nx = tf.constant(1.0)",
    # continuation lines that start with `%` or `!` inside brackets
    'print(\n    "Using %d samples for training and %d for validation"\n    % (len([1]), len([2]))\n)',
    "for step in range(2):\n    print('Epoch: %d, loss: %f.'\n          %(step, 0.5))",
    "kept = list(filter(\n    lambda v: v\n    != (\n        3\n    ),\n    [1, 3]\n))",
    # names of magics used as Python stay Python
    "time = 3\nls = [time]\nprint(ls)",
]
BROKEN = ["y = tf.square(x", "pip install datasets\npip install nltk"]


def main() -> int:
    shell = InteractiveShell.instance()
    ok = True
    for cell in CELLS + BROKEN:
        try:
            compile(shell.transform_cell(cell), "<cell>", "exec")
            ipython = "compiles"
        except SyntaxError:
            ipython = "SyntaxError"
        expected = "SyntaxError" if cell in BROKEN else "compiles"
        print(f"IPython: {ipython:11s} {cell.strip().splitlines()[0][:50]!r}")
        ok &= ipython == expected
    notebook = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in CELLS + BROKEN],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    found = [(v.code, v.cell) for v in tapelsp.check_notebook(json.dumps(notebook)) if v.code == "TL001"]
    print("tapelsp TL001:", found)
    ok &= sorted({cell for _, cell in found}) == [len(CELLS) + 1, len(CELLS) + 2]
    print("verdict:", "tapelsp reports TL001 on exactly the cells IPython rejects" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
