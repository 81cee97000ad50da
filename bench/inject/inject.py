"""Generate the mutants of every correct program and keep those TensorFlow confirms.

    .venv/bin/python bench/inject/inject.py                 # all programs, all operators
    .venv/bin/python bench/inject/inject.py --sample 40     # 40 mutants drawn with a fixed seed
    .venv/bin/python bench/inject/inject.py --family tape-reused --origin own

Prints the mutants generated / confirmed per family and context, then one summary line.
Verdicts are cached in .cache/bench/inject/verdicts/ by the mutant's content hash (and the
runs in .cache/bench/inject/runs/), so a second run only executes what changed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import confirm
import operators
import sources
from tfrun import CACHE, Runner

CONTEXTS = ["function", "method", "train_step", "tf.data map", "notebook", "modules"]
VERDICT_VERSION = "4"


@dataclass
class Mutant:
    program: sources.Program  # the original
    mutation: operators.Mutation
    mutant: sources.Program  # the mutated program

    @property
    def id(self) -> str:
        blob = json.dumps([self.program.name, self.mutation.op, self.mutation.rel, self.mutation.text,
                           self.mutation.oracle, self.mutation.root], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def job(self, mode: str = "graph") -> dict:
        m = self.mutation
        extra = confirm.extra_job_fields(m)
        if m.oracle["kind"] == "slow-mapfn":
            extra["mapfn_lines"] = [f"{self.program.run_rel(m.rel)}:{m.oracle['line']}"]
        if mode == "eager" and m.oracle.get("data_debug"):
            extra["data_debug"] = True
            extra["trace_callbacks"] = True
        return self.mutant.job(mode, **extra)


# The rules' valid examples are ~150 short variants of the same few lines: one mutant per family
# and example is enough (the first in operator order).
ONE_PER_FAMILY = {"example"}


def generate(programs: list[sources.Program]) -> list[Mutant]:
    out = []
    for prog in programs:
        families: set[str] = set()
        for rel in prog.modules():
            for m in operators.mutations(rel, prog.module_text(rel), prog.kind):
                if prog.origin in ONE_PER_FAMILY:
                    if m.family in families:
                        continue
                    families.add(m.family)
                out.append(Mutant(prog, m, prog.with_module(rel, m.text)))
    return out


def select(mutants: list[Mutant], args) -> list[Mutant]:
    if getattr(args, "family", None):
        mutants = [m for m in mutants if m.mutation.family in args.family]
    if getattr(args, "op", None):
        mutants = [m for m in mutants if m.mutation.op in args.op]
    if getattr(args, "context", None):
        mutants = [m for m in mutants if m.mutation.context in args.context]
    if getattr(args, "program", None):
        mutants = [m for m in mutants if any(p in m.program.name for p in args.program)]
    if getattr(args, "sample", None):
        rng = random.Random(args.seed)
        mutants = sorted(rng.sample(mutants, min(args.sample, len(mutants))), key=lambda m: m.program.name)
    return mutants


def add_filters(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--sample", type=int, help="a random sample of N mutants (fixed --seed)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--family", nargs="+", help="only these families")
    ap.add_argument("--op", nargs="+", help="only these operators")
    ap.add_argument("--context", nargs="+", help="only these contexts")
    ap.add_argument("--program", nargs="+", help="only programs whose name contains one of these")
    ap.add_argument("--origin", nargs="+", default=["dev", "example", "own"], choices=["dev", "example", "own"])
    ap.add_argument("--engine", default="HEAD", help="git commit whose server/ is measured (default HEAD)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per TensorFlow run")
    ap.add_argument("--cached-only", action="store_true",
                    help="use only mutants whose verdict is cached (no new confirmation runs)")
    ap.add_argument("-v", "--verbose", action="store_true")


class Confirmer:
    def __init__(self, runner: Runner, verbose: bool = False, cached_only: bool = False):
        self.runner = runner
        self.cached_only = cached_only
        self.verbose = verbose
        self.originals: dict[str, dict] = {}
        self.confirm_hash = hashlib.sha256((Path(confirm.__file__).read_bytes())).hexdigest()[:12]

    def original(self, prog: sources.Program) -> dict:
        if prog.name not in self.originals:
            self.originals[prog.name] = self.runner.run(prog.job("graph"))
        return self.originals[prog.name]

    @staticmethod
    def original_ok(run: dict) -> bool:
        return not (run.get("final") or run.get("timeout") or run.get("worker_error") or run.get("exit"))

    def verdict(self, mt: Mutant) -> dict:
        vdir = CACHE / "verdicts"
        key = hashlib.sha256(json.dumps([mt.id, mt.program.files, self.confirm_hash, self.runner.worker_hash,
                                         VERDICT_VERSION], sort_keys=True).encode()).hexdigest()[:24]
        path = vdir / f"{key}.json"
        if path.exists():
            return json.loads(path.read_text())
        if self.cached_only:
            return {"confirmed": False, "why": "not confirmed yet (--cached-only)", "skipped": True}
        orig = self.original(mt.program)
        if not self.original_ok(orig):
            v = {"confirmed": False, "why": "original fails", "skipped": True}
        else:
            mut = self.runner.run(mt.job("graph"))
            mut_eager = self.runner.run(mt.job("eager")) if confirm.needs_eager(mt.mutation) else None
            orig_eager = self.runner.run(mt.program.job("eager")) if confirm.needs_original_eager(mt.mutation) else None
            v = confirm.verdict(mt.program, mt.mutation, orig, mut, orig_eager, mut_eager)
        vdir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(v))
        return v


def root_of(mt: Mutant, v: dict) -> int:
    return v.get("root") or mt.mutation.root


def confirm_all(mutants: list[Mutant], runner: Runner, verbose: bool = False, label: str = "confirm",
                cached_only: bool = False):
    c = Confirmer(runner, verbose, cached_only)
    out = []
    t0 = time.monotonic()
    for i, mt in enumerate(mutants, 1):
        v = c.verdict(mt)
        out.append((mt, v))
        if verbose:
            m = mt.mutation
            print(f"  {'+' if v['confirmed'] else '-'} {mt.program.name}:{m.root} {m.op} [{m.context}] {v['why']}"
                  f" {v.get('evidence', '')}", file=sys.stderr)
        elif i % 50 == 0:
            print(f"  {label}: {i}/{len(mutants)} ({runner.executed} TensorFlow runs, {time.monotonic() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
    return out, c


def table(rows: dict, cols: list[str], fmt, title: str) -> str:
    lines = [title, f"{'family':32}" + "".join(f"{c[:11]:>12}" for c in cols) + f"{'total':>12}"]
    for fam in sorted(rows):
        cells = rows[fam]
        lines.append(f"{fam:32}" + "".join(f"{fmt(cells.get(c)):>12}" for c in cols) + f"{fmt(cells.get('total')):>12}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_filters(ap)
    args = ap.parse_args()
    sha, server = sources.engine_snapshot(args.engine)
    programs = sources.all_programs(server, args.origin)
    mutants = select(generate(programs), args)
    runner = Runner(timeout=args.timeout)
    try:
        results, conf = confirm_all(mutants, runner, args.verbose, cached_only=args.cached_only)
    finally:
        runner.stop()
    gen = defaultdict(Counter)
    ok = defaultdict(Counter)
    for mt, v in results:
        f, c = mt.mutation.family, mt.mutation.context
        if v.get("skipped"):
            continue
        for col in (c, "total"):
            gen[f][col] += 1
            ok[f][col] += v["confirmed"]
    rows = {f: {c: (ok[f][c], gen[f][c]) for c in CONTEXTS + ["total"] if gen[f][c]} for f in gen}
    print(table(rows, CONTEXTS, lambda x: "" if x is None else f"{x[0]}/{x[1]}", "confirmed/generated"))
    failing = [n for n, r in conf.originals.items() if not conf.original_ok(r)]
    for n in failing:
        r = conf.originals[n]
        print(f"original not usable: {n}: {(r.get('final') or ['', 'timeout' if r.get('timeout') else 'exit', ''])[1:]}")
    total = sum(1 for _, v in results if not v.get("skipped"))
    if args.cached_only:
        print(f"--cached-only: {len(results) - total} mutants without a verdict yet left out")
    confirmed = sum(1 for _, v in results if v["confirmed"])
    print(f"inject: programs={len(programs)} mutants={total} confirmed={confirmed} "
          f"families={sum(1 for f in ok if ok[f]['total'])} tf_runs={runner.executed} cached={runner.cached} "
          f"engine={sha[:10]}")


if __name__ == "__main__":
    main()
