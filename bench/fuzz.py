"""A longer fuzz run than the test suite's: generated TensorFlow programs, arbitrary Python
(hypothesmith) and damaged real sources (tf_keras, tensorflow_probability), for a time budget.

    .venv/bin/python bench/fuzz.py --seconds 600            # all three, split evenly
    .venv/bin/python bench/fuzz.py --only tf --seconds 120  # tf | examples | hypothesmith | broken
    .venv/bin/python bench/fuzz.py --seed 7 --save /tmp/crashes

Properties (tests/reliability/programs.py): `check_source` never raises and no rule fails
(TL004); the same findings with and without fixes; the same findings twice; applying all
fixes (safe, then safe + unsafe) gives code that parses, and a second round changes nothing.
For damaged sources: no crash, and the findings outside the damaged top-level block survive.

Prints the counts (programs tried, findings, fixes applied, failures by kind) and exits 1 if
anything failed; each failure's source is written to --save (default .cache/fuzz/).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))
sys.path.insert(0, str(REPO / "tests"))

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402

from reliability import damage, programs  # noqa: E402
from tapelsp import check_source  # noqa: E402


class Run:
    def __init__(self, save: Path) -> None:
        self.tried: Counter = Counter()
        self.failed: Counter = Counter()
        self.findings: Counter = Counter()
        self.fixed = 0
        self.save = save
        self.signatures: set[str] = set()

    def record_failure(self, kind: str, text: str, error: BaseException) -> None:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        signature = f"{kind}: {type(error).__name__}: {first[:160]}"
        self.failed[kind] += 1
        self.save.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        (self.save / f"{kind}-{digest}.py").write_text(
            text + "\n# " + "\n# ".join(traceback.format_exception_only(type(error), error)[-1].splitlines()),
            encoding="utf-8", errors="surrogatepass")
        if signature not in self.signatures:
            self.signatures.add(signature)
            print(f"  FAIL {signature}  -> {self.save}/{kind}-{digest}.py", flush=True)

    def program(self, kind: str, text: str) -> None:
        self.tried[kind] += 1
        try:
            found = programs.check_never_crashes(text)
            self.findings.update(v.code for v in found)
            programs.check_deterministic(text)
            for unsafe in (False, True):
                applied, _ = programs.check_fixes(text, unsafe=unsafe)
                self.fixed += applied
        except Exception as error:  # noqa: BLE001 - every failure is counted and saved
            self.record_failure(kind, text, error)


def fuzz_strategy(run: Run, kind: str, strategy, seconds: float, seed: int) -> None:
    deadline = time.monotonic() + seconds

    # Generation only: failures are caught and counted by `run.program`, the one exception
    # that reaches hypothesis is the end of the time budget, which must not be shrunk.
    @settings(max_examples=10**9, deadline=None, database=None, derandomize=False, phases=[Phase.generate],
              report_multiple_bugs=False, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(text: str) -> None:
        if time.monotonic() > deadline:
            raise _TimeUp
        run.program(kind, text)

    try:
        hypothesis_seed(seed)(one)()
    except (_TimeUp, Unsatisfiable):
        pass


class _TimeUp(Exception):
    pass


def fuzz_broken(run: Run, seconds: float, seed: int) -> None:
    rng = random.Random(seed)
    files = damage.corpus_files()
    if not files:
        print("  no tf_keras / tensorflow_probability sources (run bench/corpus.py); skipped")
        return
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        path = rng.choice(files)
        text = path.read_text(encoding="utf-8", errors="replace")
        if len(text) > 60_000:
            continue
        edit = rng.choice(damage.EDITS)
        damaged = edit(text, rng)
        if damaged is None:
            continue
        run.tried["broken"] += 1
        try:
            damage.check_damage(text, damaged, str(path))
        except Exception as error:  # noqa: BLE001
            run.record_failure("broken", damaged.text, error)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=300, help="total time budget (default 300)")
    parser.add_argument("--only", choices=["tf", "examples", "hypothesmith", "broken"], action="append")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, default=REPO / ".cache" / "fuzz")
    args = parser.parse_args(argv)
    kinds = args.only or ["tf", "examples", "hypothesmith", "broken"]
    share = args.seconds / len(kinds)
    run = Run(args.save)
    started = time.monotonic()
    for kind in kinds:
        print(f"== {kind} for {share:.0f} s", flush=True)
        if kind == "tf":
            fuzz_strategy(run, "tf", programs.tf_programs(), share, args.seed)
        elif kind == "examples":
            fuzz_strategy(run, "examples", programs.example_mixes(), share, args.seed)
        elif kind == "hypothesmith":
            fuzz_strategy(run, "hypothesmith", programs.hypothesmith_programs(), share, args.seed)
        else:
            fuzz_broken(run, share, args.seed)
    elapsed = time.monotonic() - started
    print(f"\n== {sum(run.tried.values())} programs in {elapsed:.0f} s")
    for kind in kinds:
        print(f"   {kind:13} tried {run.tried[kind]:6}   failed {run.failed[kind]}")
    print(f"   findings: {sum(run.findings.values())} over {len(run.findings)} rules; fixes applied: {run.fixed}")
    print(f"   rules seen: {' '.join(f'{c}={n}' for c, n in sorted(run.findings.items()))}")
    print(f"   distinct failures: {len(run.signatures)}")
    for signature in sorted(run.signatures):
        print(f"     {signature}")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
