#!/usr/bin/env python3
"""Verify every label of the report corpus by running the cases under TensorFlow.

Each case prints, as its last line, ``ORACLE: bug=<True|False> key=value ...``
computed at run time (a gradient that is None, the exception TensorFlow
raised, a trace count, a measured speed-up, a value frozen at trace time...).
A case passes when its ``bug=`` equals the label's ``positive`` and, for a
label with an ``expect`` regex (positives whose symptom is an exception), the
regex is found in the case's stdout or stderr, so that an unrelated crash
cannot pass for the labelled one.

Usage:
    python oracle.py [--python PY] [-k SUBSTR ...] [-v] [--timeout S]

  --python PY   interpreter with TensorFlow 2.21 (default: $TAPELSP_ORACLE_PYTHON,
                else /work/main/.venv/bin/python when it exists, else this one)
  -k SUBSTR     run only the cases whose name contains SUBSTR (repeatable)
  -v            print every ORACLE line, and the output tail of failures
  --timeout S   seconds per case (default 120)

Cases run one at a time (TensorFlow takes both cores of the shared machine).
Scripts run as ``python CASE.py`` inside cases/, packages as ``python main.py``
inside their folder, notebooks through ``python oracle.py --run-notebook NB``
(code cells in order in one namespace, like "Run All" in a fresh kernel).
The last line is ``N passed, M failed``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
LABELS = os.path.join(HERE, "labels.json")
_VENV_PY = "/work/main/.venv/bin/python"


def default_python() -> str:
    env = os.environ.get("TAPELSP_ORACLE_PYTHON")
    if env:
        return env
    if os.path.exists(_VENV_PY):
        return _VENV_PY
    return sys.executable


def run_notebook(path: str) -> None:
    """Execute the code cells of a notebook in order, in one namespace."""
    with open(path, encoding="utf-8") as fh:
        nb = json.load(fh)
    namespace = {"__name__": "__main__"}
    for index, cell in enumerate(nb.get("cells", []), start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        code = compile(source, f"<cell {index}>", "exec")
        exec(code, namespace)  # noqa: S102 - the corpus's own notebooks


def command(case: str, python: str) -> tuple[list[str], str]:
    path = os.path.join(CASES, case)
    if os.path.isdir(path):
        return [python, "main.py"], path
    if case.endswith(".ipynb"):
        return [python, os.path.abspath(__file__), "--run-notebook", path], CASES
    return [python, path], CASES


def parse_oracle(stdout: str) -> tuple[bool | None, dict[str, str]]:
    lines = [ln.strip() for ln in stdout.splitlines() if ln.strip()]
    if not lines or not lines[-1].startswith("ORACLE:"):
        return None, {}
    fields = {}
    for token in lines[-1][len("ORACLE:"):].split():
        key, sep, value = token.partition("=")
        if sep:
            fields[key] = value
    if fields.get("bug") not in ("True", "False"):
        return None, fields
    return fields["bug"] == "True", fields


def run_case(label: dict, python: str, timeout: float) -> dict:
    argv, cwd = command(label["case"], python)
    env = dict(os.environ)
    env.update({"TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "", "PYTHONHASHSEED": "0",
                "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"})
    start = time.time()
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        out, err, rc = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err, rc = f"TIMEOUT after {timeout:.0f}s", None
    secs = time.time() - start
    bug, _fields = parse_oracle(out)
    if bug is None:
        ok, why = False, ("timeout" if rc is None else "no ORACLE line")
    elif bug != label["positive"]:
        ok, why = False, f"bug={bug} but positive={label['positive']}"
    elif label.get("expect") and not re.search(label["expect"], out + "\n" + err):
        ok, why = False, f"expected symptom /{label['expect']}/ not in the output"
    else:
        ok, why = True, ""
    last = [ln for ln in out.splitlines() if ln.strip()]
    return {"case": label["case"], "ok": ok, "why": why, "secs": secs,
            "oracle": last[-1].strip() if last else "",
            "tail": out[-1500:] + "\n--- stderr ---\n" + err[-2500:]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=default_python())
    ap.add_argument("-k", action="append", default=[])
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--run-notebook", metavar="NB", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run_notebook:
        run_notebook(args.run_notebook)
        return 0
    with open(LABELS, encoding="utf-8") as fh:
        labels = json.load(fh)
    if args.k:
        labels = [lab for lab in labels if any(k in lab["case"] for k in args.k)]
    passed = failed = 0
    for label in labels:
        res = run_case(label, args.python, args.timeout)
        line = f"{'PASS' if res['ok'] else 'FAIL'} {res['case']} ({res['secs']:.1f}s)"
        if not res["ok"]:
            line += f"  {res['why']}"
        if args.v or not res["ok"]:
            line += f"\n      {res['oracle']}"
        print(line, flush=True)
        if not res["ok"] and args.v:
            print("      " + res["tail"].replace("\n", "\n      "))
        passed += res["ok"]
        failed += not res["ok"]
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
