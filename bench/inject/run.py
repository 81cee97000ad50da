"""Recall of tapelsp on the mutants TensorFlow confirms, per family x context.

    .venv/bin/python bench/inject/run.py                      # everything (confirmation is cached)
    .venv/bin/python bench/inject/run.py --sample 60 -v       # a quick look, with the misses
    .venv/bin/python bench/inject/run.py --family tape-reused --engine HEAD~3

Runs `tapelsp --check --output-format json` (the engine of `--engine`, a commit of this repo,
unpacked under .cache/bench/inject/engine/) on every confirmed mutant and on every original.
A mutant is *found* when a finding sits on its root-cause line (same file and, in notebooks, the
same cell); *lenient* also accepts its alternative lines. Any finding in an original is a false
positive and is listed. Prints the table and one summary line.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import inject
import sources
from tfrun import CACHE, PYTHON, Runner


def write_tree(root: Path, entries: list[tuple[str, sources.Program]]) -> None:
    if root.exists():
        shutil.rmtree(root)
    for key, prog in entries:
        for rel, text in prog.files.items():
            path = root / key / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def tapelsp(server: Path, cwd: Path, args: list[str]) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(server)}
    done = subprocess.run([str(PYTHON), "-m", "tapelsp", "--check", "--exit-zero", "--no-cache", "--isolated", *args],
                          cwd=cwd, capture_output=True, text=True, env=env)
    return done.returncode, done.stdout, done.stderr


def check_tree(server: Path, root: Path, entries: list[tuple[str, sources.Program]]) -> dict[str, list[dict]]:
    """Findings per entry key: one tapelsp run for the scripts and notebooks, one per package."""
    out: dict[str, list[dict]] = defaultdict(list)
    flat = [k for k, p in entries if p.kind != "package"]
    runs = [(root, flat)] if flat else []
    runs += [(root / k, None) for k, p in entries if p.kind == "package"]
    for cwd, keys in runs:
        if keys is not None:
            paths = keys
        else:
            paths = ["."]
        findings = []
        for chunk in range(0, len(paths), 400):
            code, stdout, stderr = tapelsp(server, cwd, ["--output-format", "json", *paths[chunk:chunk + 400]])
            try:
                findings += json.loads(stdout or "[]")
            except ValueError:
                raise SystemExit(f"tapelsp gave no JSON (exit {code}): {stderr[-2000:]}")
        for f in findings:
            name = Path(f["filename"])
            if keys is None:
                key, rel = cwd.name, name.as_posix()
            else:
                key, rel = name.parts[0], Path(*name.parts[1:]).as_posix()
            f["_rel"] = rel
            out[key].append(f)
    return out


def hit(prog: sources.Program, rel: str, line: int, findings: list[dict]) -> bool:
    cell, row = prog.cell_line(rel, line)
    for f in findings:
        if f["_rel"] != rel:
            continue
        if cell is not None and f.get("cell") != cell:
            continue
        if f["location"]["row"] == row:
            return True
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    inject.add_filters(ap)
    ap.add_argument("--json", help="write every confirmed mutant's result here")
    args = ap.parse_args()
    sha, server = sources.engine_snapshot(args.engine)
    programs = sources.all_programs(server, args.origin)
    mutants = inject.select(inject.generate(programs), args)
    runner = Runner(timeout=args.timeout)
    try:
        results, conf = inject.confirm_all(mutants, runner, cached_only=args.cached_only)
    finally:
        runner.stop()
    confirmed = [(mt, v) for mt, v in results if v["confirmed"]]
    usable = sorted({mt.program.name: mt.program for mt, v in results if not v.get("skipped")}.values(),
                    key=lambda p: p.name)

    tree = CACHE / "check" / sha[:12]
    entries = [(mt.id, mt.mutant) for mt, _ in confirmed]
    orig_entries = [(f"orig{i:04d}", p) for i, p in enumerate(usable)]
    write_tree(tree / "mutants", entries)
    write_tree(tree / "originals", orig_entries)
    found_by = check_tree(server, tree / "mutants", entries)
    orig_found = check_tree(server, tree / "originals", orig_entries)

    strict = defaultdict(Counter)
    lenient = defaultdict(Counter)
    total = defaultdict(Counter)
    records = []
    misses = []
    for mt, v in confirmed:
        m = mt.mutation
        root = inject.root_of(mt, v)
        fs = found_by.get(mt.id, [])
        s = hit(mt.mutant, m.rel, root, fs)
        le = s or any(hit(mt.mutant, m.rel, a, fs) for a in m.alt)
        for col in (m.context, "total"):
            total[m.family][col] += 1
            strict[m.family][col] += s
            lenient[m.family][col] += le
        cell, row = mt.mutant.cell_line(m.rel, root)
        where = f"{mt.program.name}{'/' + m.rel if mt.program.kind == 'package' else ''}" + \
                (f"[cell {cell}]" if cell else "") + f":{row}"
        got = ", ".join(f"{f['location']['row']}{'/c' + str(f['cell']) if f.get('cell') else ''} {f['code']}"
                        for f in fs if f["_rel"] == m.rel) or "no findings"
        records.append({"id": mt.id, "program": mt.program.name, "op": m.op, "family": m.family, "context": m.context,
                        "rel": m.rel, "root": root, "cell": cell, "row": row, "alt": list(m.alt), "found": s,
                        "lenient": le, "evidence": v.get("evidence"), "findings": got})
        if not s:
            misses.append(f"  [{'lenient-only' if le else 'missed'}] {m.family} [{m.context}] {m.op}: {where} -- got: {got}")
    cols = inject.CONTEXTS
    rows = {f: {c: (strict[f][c], total[f][c]) for c in cols + ["total"] if total[f][c]} for f in total}
    print(inject.table(rows, cols, lambda x: "" if x is None else f"{x[0]}/{x[1]}",
                       f"tapelsp found / TensorFlow-confirmed mutants (strict; engine {sha[:10]})"))
    ctx_tot = Counter()
    ctx_hit = Counter()
    for f in total:
        for c in cols:
            ctx_tot[c] += total[f][c]
            ctx_hit[c] += strict[f][c]
    print("per context: " + "  ".join(f"{c} {ctx_hit[c]}/{ctx_tot[c]}" for c in cols if ctx_tot[c]))
    flagged = [(p, orig_found[k]) for k, p in orig_entries if orig_found.get(k)]
    if args.verbose:
        print("\nMISSES:")
        print("\n".join(misses) or "  none")
    print("\nFALSE POSITIVES (findings in the original, correct programs):")
    for p, fs in flagged:
        for f in fs:
            cell = f"[cell {f['cell']}]" if f.get("cell") else ""
            print(f"  {p.name}/{f['_rel']}{cell}:{f['location']['row']} {f['code']} -- {f['message'][:110]}")
    if not flagged:
        print("  none")
    if args.json:
        Path(args.json).write_text(json.dumps({"engine": sha, "mutants": records,
                                               "false_positives": [[p.name, [x["code"] for x in fs]] for p, fs in flagged]},
                                              indent=1))
    n = len(confirmed)
    ns = sum(r["found"] for r in records)
    nl = sum(r["lenient"] for r in records)
    families = len(total)
    worst = min(((strict[f]["total"] / total[f]["total"], f) for f in total), default=(0, "-"))
    print(f"inject recall: strict={ns / max(n, 1):.3f} ({ns}/{n}) lenient={nl / max(n, 1):.3f} families={families} "
          f"worst_family={worst[1]}:{worst[0]:.2f} originals_flagged={len(flagged)}/{len(usable)} engine={sha[:10]}")


if __name__ == "__main__":
    sys.exit(main())
