"""Fix cure rates on the mutants TensorFlow confirms (issue 19, item 3).

    .venv/bin/python bench/inject/fixes.py                  # every confirmed mutant + every original
    .venv/bin/python bench/inject/fixes.py --sample 80 -v

Copies every confirmed mutant and every original twice and runs, on one copy,
`tapelsp --check --fix` (safe fixes) and on the other `tapelsp --check --fix --unsafe-fixes`.
Each changed program is run under TensorFlow like the mutant was and counted, per rule whose fix
of that applicability was offered (`+` joins several) and per applicability:

* still buggy - the mutant's symptom check still fires on the fixed program;
* crashed     - it no longer fires, but the program ends in an exception the original did not
                raise (or times out, or the fixed text does not parse);
* cured       - neither: the symptom is gone and the program ends as the original did;
* unchanged   - no fix of that applicability was offered, or applying it changed nothing.

A crash is also marked when the mutant itself already ended in an exception (the fix moved the
failure rather than introduced one): such crashes are in `crashed` and counted again apart, as
"mutant already crashing", in the summary line; `crashed` minus those is what the fixes broke. The unsafe row of a mutant is counted only when it was offered an unsafe fix (otherwise the
unsafe run is the safe run again). Originals must come out byte-identical; any that changed is
listed. The fixed texts of crashes are kept in .cache/bench/inject/fixes/<engine>/crashed/ for reading.
"""
from __future__ import annotations

import argparse
import ast
import json
import shutil
import sys
from collections import Counter, defaultdict
from dataclasses import replace

import confirm
import inject
import run as recall
import sources
from operators import line_map
from tfrun import CACHE, Runner

MODES = {"safe": ["--fix"], "unsafe": ["--fix", "--unsafe-fixes"]}
OUTCOMES = ["cured", "still buggy", "crashed", "unchanged"]


def read_tree(root, key: str, prog: sources.Program) -> dict:
    return {rel: (root / key / rel).read_text(encoding="utf-8") for rel in prog.files}


def apply_fixes(server, base, entries, mode) -> dict[str, dict]:
    root = base / mode
    recall.write_tree(root, entries)
    flat = [k for k, p in entries if p.kind != "package"]
    for chunk in range(0, len(flat), 400):
        recall.tapelsp(server, root, [*MODES[mode], "--output-format", "json", *flat[chunk:chunk + 400]])
    for k, p in entries:
        if p.kind == "package":
            recall.tapelsp(server, root / k, [*MODES[mode], "--output-format", "json", "."])
    return {k: read_tree(root, k, p) for k, p in entries}


def fixed_program(mt: inject.Mutant, files: dict) -> sources.Program:
    return replace(mt.mutant, files=files)


def parses(prog: sources.Program) -> bool:
    try:
        for rel in prog.modules():
            ast.parse(prog.module_text(rel))
        return True
    except (SyntaxError, ValueError, KeyError):
        return False


def judge(mt: inject.Mutant, fixed: sources.Program, orig_run: dict, runner: Runner) -> tuple[str, str]:
    if not parses(fixed):
        return "crashed", "the fixed text does not parse"
    m = mt.mutation
    fixed_text = fixed.module_text(m.rel)
    oracle = dict(m.oracle)
    if "line" in oracle:
        new = line_map(m.text, fixed_text).get(oracle["line"])
        oracle["line"] = new if new is not None else -1
    probe = replace(m, text=fixed_text, oracle=oracle)
    fake = inject.Mutant(mt.program, probe, fixed)
    run = runner.run(fake.job("graph"))
    if run.get("timeout"):
        return "crashed", "timeout"
    if oracle.get("line") == -1:
        verdict = {"confirmed": False, "why": "the planted line was rewritten"}
    else:
        eager = runner.run(fake.job("eager")) if confirm.needs_eager(probe) else None
        orig_eager = runner.run(mt.program.job("eager")) if confirm.needs_original_eager(probe) else None
        verdict = confirm.verdict(mt.program, probe, orig_run, run, orig_eager, eager)
    if verdict["confirmed"]:
        return "still buggy", verdict.get("evidence") or verdict["why"]
    if confirm.new_final(orig_run, run):
        f = run["final"]
        return "crashed", f"{f[1]}: {f[2][:140]}"
    return "cured", verdict["why"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    inject.add_filters(ap)
    ap.add_argument("--json", help="write every outcome here")
    args = ap.parse_args()
    sha, server = sources.engine_snapshot(args.engine)
    programs = sources.all_programs(server, args.origin)
    mutants = inject.select(inject.generate(programs), args)
    runner = Runner(timeout=args.timeout)
    try:
        results, conf = inject.confirm_all(mutants, runner, cached_only=args.cached_only)
        confirmed = [mt for mt, v in results if v["confirmed"]]
        usable = sorted({mt.program.name: mt.program for mt, v in results if not v.get("skipped")}.values(),
                        key=lambda p: p.name)
        base = CACHE / "fixes" / sha[:12]
        entries = [(mt.id, mt.mutant) for mt in confirmed]
        orig_entries = [(f"orig{i:04d}", p) for i, p in enumerate(usable)]
        recall.write_tree(base / "plain", entries)
        findings = recall.check_tree(server, base / "plain", entries)
        fixed = {mode: apply_fixes(server, base, entries, mode) for mode in MODES}
        orig_fixed = {mode: apply_fixes(server, base / "originals", orig_entries, mode) for mode in MODES}

        table = defaultdict(Counter)
        crashed_before = Counter()
        records = []
        crashed_dir = base / "crashed"
        for i, mt in enumerate(confirmed, 1):
            offered = defaultdict(set)
            for f in findings.get(mt.id, []):
                if f.get("fix"):
                    offered[f["fix"]["applicability"]].add(f["code"])
            for mode in MODES:
                codes = offered.get(mode, set())
                if mode == "unsafe" and not codes:
                    continue
                rule = "+".join(sorted(codes)) or "(none)"
                files = fixed[mode][mt.id]
                if not codes or files == mt.mutant.files:
                    outcome, why = "unchanged", "no fix offered" if not codes else "fix changed nothing"
                else:
                    outcome, why = judge(mt, fixed_program(mt, files), conf.original(mt.program), runner)
                    if outcome == "crashed":
                        mutant_run = runner.run(mt.job("graph"))
                        if mutant_run.get("final"):
                            crashed_before[mode] += 1
                            why += f" (the mutant itself ended in {mutant_run['final'][1]})"
                        dest = crashed_dir / f"{mt.id}-{mode}"
                        if dest.exists():
                            shutil.rmtree(dest)
                        for rel, text in files.items():
                            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                            (dest / rel).write_text(text)
                        (dest / "WHY.txt").write_text(f"{mt.program.name} {mt.mutation.op} {mt.mutation.family}\n{why}\n")
                table[(rule, mode)][outcome] += 1
                records.append({"id": mt.id, "program": mt.program.name, "op": mt.mutation.op,
                                "family": mt.mutation.family, "mode": mode, "rules": rule, "outcome": outcome, "why": why})
                if args.verbose and outcome != "unchanged":
                    print(f"  {outcome:11} {mode:6} {rule:16} {mt.program.name} {mt.mutation.op}: {why[:120]}",
                          file=sys.stderr)
            if i % 50 == 0:
                print(f"  fixes: {i}/{len(confirmed)}", file=sys.stderr, flush=True)
    finally:
        runner.stop()

    print(f"fix outcomes per rule and applicability (engine {sha[:10]}; mutants confirmed: {len(confirmed)})")
    print(f"{'rule':26}{'mode':8}" + "".join(f"{o:>13}" for o in OUTCOMES) + f"{'cure rate':>11}")
    for (rule, mode) in sorted(table, key=lambda k: (k[0] == "(none)", k[0], k[1])):
        c = table[(rule, mode)]
        offered = c["cured"] + c["still buggy"] + c["crashed"]
        rate = f"{c['cured'] / offered:.2f}" if offered else "-"
        print(f"{rule:26}{mode:8}" + "".join(f"{c[o]:>13}" for o in OUTCOMES) + f"{rate:>11}")
    changed = []
    for mode in MODES:
        for k, p in orig_entries:
            if orig_fixed[mode][k] != p.files:
                changed.append(f"{p.name} ({mode})")
    print("\nCORRECT PROGRAMS CHANGED BY --fix:")
    print("\n".join(f"  {c}" for c in changed) or "  none")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"engine": sha, "outcomes": records, "originals_changed": changed}, fh, indent=1)
    tot = Counter()
    per_mode = {m: Counter() for m in MODES}
    for (rule, mode), c in table.items():
        tot.update(c)
        per_mode[mode].update(c)
    offered = tot["cured"] + tot["still buggy"] + tot["crashed"]
    print(f"fixes: applied={offered} cured={tot['cured']} ({tot['cured'] / max(offered, 1):.3f}) "
          f"still_buggy={tot['still buggy']} crashed={tot['crashed']} (safe {per_mode['safe']['crashed']}, "
          f"unsafe {per_mode['unsafe']['crashed']}; mutant already crashing: safe {crashed_before['safe']}, "
          f"unsafe {crashed_before['unsafe']}) unchanged={tot['unchanged']} "
          f"originals_changed={len(changed)}/{len(orig_entries)} engine={sha[:10]}")


if __name__ == "__main__":
    main()
