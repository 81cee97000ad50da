#!/usr/bin/env python3
"""Score tapelsp on the held-out batch of real reports (bench/holdout), or check its labels
under TensorFlow.

    python bench/holdout/score.py -v --tapelsp .venv/bin/tapelsp
    python bench/holdout/score.py --oracle --python .venv/bin/python   # every bug= against its label

Scoring is the report corpus's (bench/reports/score.py): a positive is found (strict) when a
finding starts on its `line`, lenient when on `line` or one of `alt_lines`; a negative is
flagged when any finding is in it. The last line is the summary:
`holdout: strict a/b lenient c/b negatives flagged d/e`. Standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")


def labels() -> list[dict]:
    with open(os.path.join(HERE, "labels.json"), encoding="utf-8") as fh:
        return json.load(fh)


def findings_by_file(output: str) -> dict[str, list[tuple[int, str]]]:
    """`tapelsp --check --output-format json` output: (row, code) of each finding, by file name."""
    found: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for item in json.loads(output or "[]"):
        found[os.path.basename(item["filename"])].append((item["location"]["row"], item["code"]))
    return found


def score(cases: list[dict], found: dict[str, list[tuple[int, str]]]) -> list[tuple[dict, str, list]]:
    """Each case with its verdict: found, lenient, missed (positives); clean, flagged (negatives)."""
    out = []
    for case in cases:
        here = sorted(found.get(case["path"], []))
        if case["positive"]:
            rows = {row for row, _ in here}
            verdict = "found" if case["line"] in rows else \
                "lenient" if rows & set(case.get("alt_lines", [])) else "missed"
        else:
            verdict = "flagged" if here else "clean"
        out.append((case, verdict, here))
    return out


def summary(scored: list[tuple[dict, str, list]]) -> str:
    pos = [v for c, v, _ in scored if c["positive"]]
    neg = [v for c, v, _ in scored if not c["positive"]]
    return (f"holdout: strict {pos.count('found')}/{len(pos)} lenient {pos.count('found') + pos.count('lenient')}"
            f"/{len(pos)} negatives flagged {neg.count('flagged')}/{len(neg)}")


def oracle(cases: list[dict], python: str) -> int:
    failed = 0
    for case in cases:
        run = subprocess.run([python, case["path"]], cwd=CASES, capture_output=True, text=True, timeout=300)
        lines = [line for line in run.stdout.splitlines() if line.startswith("ORACLE:")]
        bug = re.search(r"bug=(True|False)", lines[-1]) if lines else None
        ok = bug is not None and (bug.group(1) == "True") == case["positive"] and \
            (not case.get("expect") or re.search(case["expect"], run.stdout + run.stderr) is not None)
        failed += not ok
        print(f"{'ok ' if ok else 'BAD'} {case['case']}: {lines[-1] if lines else 'no ORACLE line'}")
    print(f"oracle: {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tapelsp", default="tapelsp")
    ap.add_argument("--json", help="score this saved `tapelsp --check --output-format json` output instead")
    ap.add_argument("--oracle", action="store_true", help="run every case and check bug= against its label")
    ap.add_argument("--python", default=sys.executable, help="the Python with TensorFlow, for --oracle")
    ap.add_argument("-v", action="store_true", help="every case, not only the misses")
    args = ap.parse_args()
    cases = labels()
    if args.oracle:
        return oracle(cases, args.python)
    if args.json:
        with open(args.json, encoding="utf-8") as fh:
            output = fh.read()
    else:
        try:
            output = subprocess.run([args.tapelsp, "--check", ".", "--output-format", "json", "--exit-zero",
                                     "--no-cache"], cwd=CASES, capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"error: could not run tapelsp: {error}", file=sys.stderr)
            return 2
    scored = score(cases, findings_by_file(output))
    for case, verdict, here in scored:
        if args.v or verdict in ("missed", "lenient", "flagged"):
            print(f"{verdict:8s} {case['case']} [{case['family']}] line {case['line']}"
                  f"{' alt ' + str(case['alt_lines']) if case.get('alt_lines') else ''}: "
                  f"{', '.join(f'{row} {code}' for row, code in here) or 'no findings'}")
    print(summary(scored))
    return 0


if __name__ == "__main__":
    sys.exit(main())
