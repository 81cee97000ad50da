#!/usr/bin/env python3
"""Score tapelsp on the corpus of real user reports (standard library only).

Runs, with cases/ as the working directory,

    tapelsp --check --output-format json --exit-zero --no-cache .

and compares the findings with labels.json:

  strict recall    a positive is found when a finding is on its root-cause
                   line: the labelled file (and cell, for a notebook) and row.
  lenient recall   the same, but a finding on one of "alt_lines" also counts.
  negatives        a negative is flagged when tapelsp reports anything in any
                   of its files; clean_negatives counts the unflagged ones.
  extras           findings in positives on neither the root-cause line nor
                   an alternative line, and findings in files of no case.

Rule codes are not compared: the corpus's family names are its own.

Usage:
    python score.py [-v] [--tapelsp CMD] [--json FILE] [--cases DIR] [--labels FILE]

  --tapelsp CMD  the command to run, split like a shell would (default:
                 $TAPELSP, else tapelsp on PATH)
  --json FILE    score findings saved earlier instead of running tapelsp
  -v             list the misses, the false positives and the extras

The last line is
    recall=X (a/b) lenient=Y clean_negatives=Z (c/d) extras=E
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def findings_from_tapelsp(cmd: str, cases_dir: str) -> list[dict]:
    argv = shlex.split(cmd) + ["--check", "--output-format", "json", "--exit-zero", "--no-cache", "."]
    proc = subprocess.run(argv, cwd=cases_dir, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        sys.exit(f"score.py: {argv[0]} exited with status {proc.returncode}")
    return parse_findings(proc.stdout, proc.stderr)


def parse_findings(stdout: str, stderr: str = "") -> list[dict]:
    text = stdout.strip()
    if not text:
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        sys.stderr.write(text[:2000] + "\n" + stderr[-2000:])
        sys.exit("score.py: the tapelsp output is not JSON")
    if not isinstance(data, list):
        sys.exit("score.py: expected a JSON list of findings")
    return data


def relative(name: str, cases_dir: str) -> str:
    if os.path.isabs(name):
        name = os.path.relpath(name, cases_dir)
    name = os.path.normpath(name).replace(os.sep, "/")
    return name[2:] if name.startswith("./") else name


def normalise(findings: list[dict], cases_dir: str) -> dict[str, list[dict]]:
    """Findings grouped by the case (top-level entry of cases/) they fall in."""
    by_case: dict[str, list[dict]] = collections.defaultdict(list)
    for f in findings:
        path = relative(str(f.get("filename", "")), cases_dir)
        by_case[path.split("/", 1)[0]].append({
            "path": path, "cell": f.get("cell"), "row": (f.get("location") or {}).get("row"),
            "code": f.get("code", "?"), "message": f.get("message", "")})
    return by_case


def on_rows(label: dict, rows: set[int], f: dict) -> bool:
    cell = label.get("cell")
    return f["path"] == label["path"] and (cell is None or f["cell"] == cell) and f["row"] in rows


def score(labels: list[dict], by_case: dict[str, list[dict]]) -> dict:
    families: dict[str, dict[str, int]] = {}
    sources: dict[str, dict[str, int]] = {}
    misses, false_pos, extras = [], [], []
    for lab in sorted(labels, key=lambda l: (l["family"], l["case"])):
        fam = families.setdefault(lab["family"], dict.fromkeys(("pos", "strict", "lenient", "neg", "flagged"), 0))
        src = sources.setdefault(lab.get("source_type", "?"), dict.fromkeys(("pos", "strict", "neg", "flagged"), 0))
        got = by_case.get(lab["case"], [])
        if lab["positive"]:
            fam["pos"] += 1
            src["pos"] += 1
            strict = [f for f in got if on_rows(lab, {lab["line"]}, f)]
            lenient = [f for f in got if on_rows(lab, {lab["line"], *lab.get("alt_lines", [])}, f)]
            fam["strict"] += bool(strict)
            src["strict"] += bool(strict)
            fam["lenient"] += bool(lenient)
            if not strict:
                misses.append((lab, got, bool(lenient)))
            extras.extend((lab["case"], f) for f in got if f not in lenient)
        else:
            fam["neg"] += 1
            src["neg"] += 1
            if got:
                fam["flagged"] += 1
                src["flagged"] += 1
                false_pos.append((lab, got))
    known = {lab["case"] for lab in labels}
    for case, got in sorted(by_case.items()):
        if case not in known:
            extras.extend((case, f) for f in got)
    return {"families": families, "sources": sources, "misses": misses, "false_pos": false_pos, "extras": extras}


def where(f: dict) -> str:
    cell = f"[cell {f['cell']}]" if f.get("cell") else ""
    return f"{f['path']}{cell}:{f['row']} {f['code']}"


def report(result: dict, verbose: bool) -> str:
    out = []
    fams = result["families"]
    width = max([len(k) for k in fams] + [6]) + 2
    out.append(f"{'family':<{width}} {'pos':>4} {'strict':>7} {'lenient':>8} {'neg':>4} {'flagged':>8}")
    total = dict.fromkeys(("pos", "strict", "lenient", "neg", "flagged"), 0)
    for name, st in fams.items():
        out.append(f"{name:<{width}} {st['pos']:>4} {st['strict']:>7} {st['lenient']:>8} {st['neg']:>4} {st['flagged']:>8}")
        for key in total:
            total[key] += st[key]
    out.append(f"{'TOTAL':<{width}} {total['pos']:>4} {total['strict']:>7} {total['lenient']:>8} "
               f"{total['neg']:>4} {total['flagged']:>8}")
    out.append("")
    out.append(f"{'source type':<{width}} {'pos':>4} {'strict':>7} {'neg':>4} {'flagged':>8}")
    for name, st in sorted(result["sources"].items()):
        out.append(f"{name:<{width}} {st['pos']:>4} {st['strict']:>7} {st['neg']:>4} {st['flagged']:>8}")
    if verbose:
        out.append("\nMISSES (positives without a finding on the root-cause line):")
        for lab, got, lenient in result["misses"]:
            cell = f"[cell {lab['cell']}]" if lab.get("cell") else ""
            seen = ", ".join(where(f) for f in got) or "no findings"
            tag = "lenient-only" if lenient else "missed"
            out.append(f"  [{tag}] {lab['family']}: {lab['path']}{cell}:{lab['line']} "
                       f"alt={lab.get('alt_lines', [])} -- got: {seen}")
        out.append("\nFALSE POSITIVES (findings in negative cases):")
        for lab, got in result["false_pos"]:
            for f in got:
                out.append(f"  {lab['family']}: {where(f)} -- {f['message'][:110]}")
        out.append("\nEXTRAS (findings off the labelled lines in positives, or outside any case):")
        for _case, f in result["extras"]:
            out.append(f"  {where(f)} -- {f['message'][:110]}")
        out.append("")
    n_pos, n_neg = total["pos"], total["neg"]
    clean = n_neg - total["flagged"]
    out.append(f"recall={total['strict'] / n_pos if n_pos else 0:.3f} ({total['strict']}/{n_pos}) "
               f"lenient={total['lenient'] / n_pos if n_pos else 0:.3f} "
               f"clean_negatives={clean / n_neg if n_neg else 0:.3f} ({clean}/{n_neg}) "
               f"extras={len(result['extras'])}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tapelsp", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--cases", default=os.path.join(HERE, "cases"))
    ap.add_argument("--labels", default=os.path.join(HERE, "labels.json"))
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    cases_dir = os.path.abspath(args.cases)
    with open(args.labels, encoding="utf-8") as fh:
        labels = json.load(fh)
    if args.json:
        with open(args.json, encoding="utf-8") as fh:
            findings = parse_findings(fh.read())
    else:
        cmd = args.tapelsp or os.environ.get("TAPELSP") or shutil.which("tapelsp") or "tapelsp"
        findings = findings_from_tapelsp(cmd, cases_dir)
    print(report(score(labels, normalise(findings, cases_dir)), args.v))


if __name__ == "__main__":
    main()
