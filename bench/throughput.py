"""Throughput of `tapelsp --check` on real TensorFlow code, side by side with ruff,
plain `ast.parse` and (optionally) fixit, all in the same run.

    python bench/throughput.py                       # tf_keras, 5 rounds
    python bench/throughput.py --corpus keras --repeat 7
    python bench/throughput.py --with-fixit          # adds fixit (~75 s a run)
    python bench/throughput.py --corpus tf_keras keras tfp --with-fixit --prefilter-proof

Rows per corpus: tapelsp with a cold cache (--no-cache; default jobs and -j 1) and a
warm one (the cache a previous run of the same tree left), ruff, ast.parse on one
core, fixit (optional), and the latency of checking one file from the command line
(the corpus's largest file, tapelsp cold and warm, ruff). With several corpora a
summary table in Markdown ends the output (the README's performance section).

tapelsp's modules are compiled to bytecode first (`compileall`), as an install has them.
Every tool runs `--repeat` times, interleaved round by round so that drift on a
shared machine hits all of them alike; the table shows the median (and the
fastest) wall time. Absolute seconds move from run to run here; the ratios
measured in one run are the numbers to quote (see shared/design/BENCHMARKS.md).

This is a script, not a test: it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import re
import resource
import shutil
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

REPO = corpus.REPO
SERVER = REPO / "server"
# What the `tapelsp` console script runs; `python -m tapelsp` is the same entry point.
CLI_LAUNCH = "import sys; from tapelsp.cli.main import main; sys.exit(main())"


@dataclass
class Result:
    label: str
    command: str
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # user + sys seconds, children included
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cores() -> tuple[int, int]:
    total = os.cpu_count() or 1
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = total
    return total, usable


def child_env(server: Path | None = None) -> dict[str, str]:
    """The environment of every timed tool: `server/` (or --server) first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(server or SERVER), env.get("PYTHONPATH")) if p)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def source_state(server: Path) -> str:
    """The commit the measured tapelsp comes from, and whether its tree has local edits."""
    proc = subprocess.run(["git", "-C", str(server), "describe", "--always", "--dirty", "--exclude", "*"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return "not a git checkout"
    if server.resolve() != (REPO / "server").resolve():
        return f"a copy; this repo is now at {proc.stdout.strip()}"
    return f"git {proc.stdout.strip()}"


def tapelsp_command(args: argparse.Namespace) -> list[str]:
    if args.tapelsp:
        return shlex.split(args.tapelsp)
    if (SERVER / "tapelsp" / "__main__.py").exists():
        return [sys.executable, "-m", "tapelsp"]
    return [sys.executable, "-c", CLI_LAUNCH]


def cli_available(base: list[str]) -> tuple[bool, str]:
    """Does the real CLI run? Returns its --help text when it does."""
    proc = subprocess.run(base + ["--help"], capture_output=True, text=True, env=child_env(), cwd=REPO)
    return proc.returncode == 0, proc.stdout + proc.stderr


def timed(cmd: list[str], cwd: Path, check_json: bool = False, ok_codes: tuple[int, ...] = (0,),
          server: Path | None = None, fixit: bool = False) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds of the whole process tree, and a note."""
    cpu_before = children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=child_env(server), cwd=cwd)
    elapsed = time.perf_counter() - start
    cpu = children_cpu() - cpu_before
    if proc.returncode not in ok_codes:
        sys.stderr.write(proc.stderr.decode(errors="replace")[-4000:])
        raise SystemExit(f"command failed with exit {proc.returncode}: {shlex.join(cmd)}")
    summary = ""
    if check_json:
        try:
            findings = json.loads(proc.stdout)
        except ValueError:
            sys.stderr.write(proc.stdout.decode(errors="replace")[:2000])
            raise SystemExit(f"not JSON output from: {shlex.join(cmd)}") from None
        summary = f"{len(findings)} findings"
    if fixit:
        checked = re.search(r"(\d+) files? checked", (proc.stdout + proc.stderr).decode(errors="replace"))
        summary = f"{checked.group(1)} files checked" if checked else "no fixit summary line"
    return elapsed, cpu, summary


def expected_findings(paths: list[Path]) -> int | None:
    """Findings of an in-process check_source loop over the same files, to check that
    the CLI really analysed the whole tree (its JSON must list as many)."""
    code = ("import sys, json; from tapelsp import check_source\n"
            "n = 0\n"
            "for p in sys.stdin.read().splitlines():\n"
            "    n += len(check_source(open(p, encoding='utf-8', errors='replace').read(), p))\n"
            "print(n)")
    proc = subprocess.run([sys.executable, "-c", code], input="\n".join(map(str, paths)), capture_output=True,
                          text=True, env=child_env())
    return int(proc.stdout) if proc.returncode == 0 else None


def parse_all(paths: list[Path]) -> tuple[float, float, str]:
    """Read and `ast.parse` every file on this one core, in this process."""
    cpu_start = time.process_time()
    start = time.perf_counter()
    failed = 0
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        try:
            ast.parse(text, str(path))
        except SyntaxError:
            failed += 1
    elapsed = time.perf_counter() - start
    return elapsed, time.process_time() - cpu_start, f"{failed} files failed to parse" if failed else ""


# --- --fallback: a bare check_source loop, to see what the CLI adds on top ---------------

def _fallback_one(path: str) -> int:
    from tapelsp import check_source

    with open(path, encoding="utf-8", errors="replace") as handle:
        return len(check_source(handle.read(), path))


def fallback_worker(directory: str, jobs: int) -> None:
    """Stand-in for `tapelsp --check DIR -j N` (same startup cost: a fresh interpreter)."""
    sys.path.insert(0, str(SERVER))
    paths = [str(p) for p in corpus.python_files(Path(directory))]
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            counts = list(pool.map(_fallback_one, paths, chunksize=16))
    else:
        counts = [_fallback_one(p) for p in paths]
    json.dump([{}] * sum(counts), sys.stdout)  # one entry per finding, like the CLI's list


# --- the run -----------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=corpus.ALL_CORPORA, nargs="+", default=["tf_keras"],
                        help="one or more of tf_keras (default), keras, tfp, tensorflow")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per tool (default 5)")
    parser.add_argument("--with-fixit", action="store_true", help="also time `fixit lint` (~75 s per run)")
    parser.add_argument("--fixit-repeat", type=int, default=1,
                        help="rounds for fixit (default 1: it takes ~75 s each)")
    parser.add_argument("--prefilter-proof", action="store_true",
                        help="also check in process that every file gives the same findings with the "
                             "pre-parse filter as without it, and count what it skipped")
    parser.add_argument("--tapelsp", metavar="CMD",
                        help="command that runs the tapelsp CLI (default: this interpreter with server/ on the path)")
    parser.add_argument("--server", metavar="DIR", type=Path,
                        help="import tapelsp from this directory instead of server/")
    parser.add_argument("--compare", metavar="DIR", type=Path,
                        help="also time the tapelsp imported from DIR (a patched copy of server/), rows marked [B]")
    parser.add_argument("--fallback", action="store_true",
                        help="time a bare check_source loop (same process start-up, own worker pool) "
                             "instead of the CLI; for comparing the CLI's overhead, never for the headline")
    parser.add_argument("--fallback-worker", nargs=2, metavar=("DIR", "JOBS"), help=argparse.SUPPRESS)
    parser.add_argument("--prefilter-worker", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.server:
        global SERVER
        SERVER = args.server.resolve()
    if args.fallback_worker:
        fallback_worker(args.fallback_worker[0], int(args.fallback_worker[1]))
        return
    if args.prefilter_worker:
        prefilter_worker(args.prefilter_worker)
        return
    ensure_bytecode([SERVER] + ([args.compare.resolve()] if args.compare else []))
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()
    summaries = [bench_corpus(name, args) for name in args.corpus]
    if len(summaries) > 1 or args.with_fixit:
        print_summary(summaries, started, load_before, args)


def ensure_bytecode(dirs: list[Path]) -> None:
    """Write the .pyc files of every module under `dirs` before anything is timed, as `pip
    install` does for an installed tapelsp. Without them (a fresh checkout, or
    PYTHONDONTWRITEBYTECODE=1 in the environment, which stops Python writing them on import)
    every timed process, the CLI and each of its workers, compiles tapelsp's ~200 modules
    again: seconds of CPU a user's installed copy never spends."""
    for directory in dirs:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(directory)], check=True,
                       stdout=subprocess.DEVNULL)


def bench_corpus(name: str, args: argparse.Namespace) -> dict:
    env = corpus.ensure()
    root = env.corpus(name)
    paths = corpus.python_files(root)
    lines = corpus.count_lines(paths)
    total_cores, usable_cores = cores()
    versions = corpus.installed_versions(env)
    # Tools run from a scratch directory so that no config file of this repo applies
    # and no cache lands in the repo.
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=corpus.CACHE))

    base = tapelsp_command(args)
    have_cli, help_text = (False, "") if args.fallback else cli_available(base)
    if not have_cli:
        if not args.fallback:
            sys.stderr.write(help_text[-3000:])
            raise SystemExit(f"the tapelsp CLI does not run ({shlex.join(base)} --help failed); "
                             "fix it, or pass --fallback to time a bare check_source loop instead")
        base = [sys.executable, str(Path(__file__).resolve()), "--fallback-worker"]
    no_cache = ["--no-cache"] if "--no-cache" in help_text else []
    largest = max(paths, key=lambda p: p.stat().st_size)

    results: list[Result] = []
    runners = []

    def add(label: str, cmd: list[str] | None, fn=None, rounds: int | None = None, **kw) -> None:
        result = Result(label, shlex.join(cmd) if cmd else kw.pop("shown", ""))
        results.append(result)
        runners.append((result, cmd, fn, rounds or args.repeat, kw))

    if have_cli:
        check = base + ["--check", str(root), "--output-format", "json", "--exit-zero", *no_cache]
        add("tapelsp (default jobs)", check, check_json=True)
        add("tapelsp -j 1", check + ["-j", "1"], check_json=True)
        if no_cache:
            warm = base + ["--check", str(root), "--output-format", "json", "--exit-zero"]
            add("tapelsp warm cache", warm, check_json=True)
        if args.compare:
            other = args.compare.resolve()
            add("tapelsp[B] (default jobs)", check, check_json=True, server=other)
            add("tapelsp[B] -j 1", check + ["-j", "1"], check_json=True, server=other)
    else:
        add(f"fallback loop ({usable_cores} procs)", base + [str(root), str(usable_cores)], check_json=True)
        add("fallback loop (1 proc)", base + [str(root), "1"], check_json=True)
    add("ruff check --select ALL", [str(env.ruff), "check", "--select", "ALL", "--no-cache", "--exit-zero",
                                    "--quiet", str(root)])
    add("ast.parse, one core", None, fn=lambda: parse_all(paths),
        shown="in process: open().read() + ast.parse() per file")
    if have_cli:
        one = base + ["--check", str(largest), "--output-format", "json", "--exit-zero"]
        add("latency: tapelsp one file", one + no_cache, check_json=True)
        if no_cache:
            add("latency: tapelsp one, warm", one, check_json=True)
        add("latency: ruff one file", [str(env.ruff), "check", "--select", "ALL", "--no-cache", "--exit-zero",
                                       "--quiet", str(largest)])
    fixit_copy = None
    if args.with_fixit:
        # fixit (trailrunner) obeys the .gitignore of the project it finds above a path, and
        # this repo ignores .cache/, so on the venv's copy it would lint nothing. It gets an
        # identical copy of the tree outside any project instead.
        fixit_copy = Path(tempfile.mkdtemp(prefix="tapelsp-bench-fixit-"))
        fixit_root = fixit_copy / root.name
        shutil.copytree(root, fixit_root, ignore=shutil.ignore_patterns("__pycache__"))
        add("fixit lint", [str(env.fixit), "lint", str(fixit_root)], rounds=args.fixit_repeat,
            ok_codes=tuple(range(256)), fixit=True)

    version = versions.get({"tfp": "tensorflow-probability"}.get(name, name), "2.21")
    print(f"corpus: {name} {version} "
          f"— {len(paths)} files, {lines:,} lines ({root})")
    print(f"tapelsp: {SERVER} ({source_state(SERVER)})")
    if args.compare:
        print(f"tapelsp[B]: {args.compare.resolve()} ({source_state(args.compare.resolve())})")
    print(f"machine: {total_cores} cores ({usable_cores} usable), {platform.machine()}, "
          f"Python {platform.python_version()}; ruff {versions['ruff']}, fixit {versions['fixit']}")
    print(f"rounds: {args.repeat} (fixit: {args.fixit_repeat if args.with_fixit else 'skipped'}), "
          "each tool once untimed first to warm the file cache (and tapelsp's results cache for the warm rows)")
    print(f"latency rows: the largest file, {largest.relative_to(root)} "
          f"({corpus.count_lines([largest]):,} lines)")
    load_before = os.getloadavg()
    print("load average before: " + " ".join(f"{x:.2f}" for x in load_before) + "\n", flush=True)

    try:
        run_rounds(runners, scratch)
    finally:
        if fixit_copy is not None:
            shutil.rmtree(fixit_copy, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    load_after = os.getloadavg()
    print("load average after:  " + " ".join(f"{x:.2f}" for x in load_after)
          + "  (above the core count means other work shared the machine)\n")
    print_table(results, len(paths), lines, have_cli, args.compare.resolve() if args.compare else None)
    cross = ""
    if have_cli:
        expected = expected_findings(paths)
        got = {r.note for r in results if r.label.startswith(("tapelsp ", "tapelsp -"))}
        verdict = "matches" if got == {f"{expected} findings"} else "DIFFERS: the CLI did not check the same files?"
        cross = f"{expected} findings, {verdict}"
        print(f"\ncross-check: in-process check_source loop finds {expected}; CLI runs reported "
              f"{', '.join(sorted(got))} -> {verdict}")
    proof = ""
    if args.prefilter_proof:
        proof = prefilter_proof(root)
        print(f"\npre-parse filter: {proof}")
    print("\n" + "=" * 100 + "\n", flush=True)
    return {"name": name, "version": version, "files": len(paths), "lines": lines,
            "by": {r.label: r for r in results}, "load": (load_before, load_after), "cross": cross,
            "proof": proof}


# --- --prefilter-proof: the filter changes no finding on the corpus ----------------------

def prefilter_worker(directory: str) -> None:
    """In a fresh interpreter: every file with and without the filter; print a JSON verdict."""
    sys.path.insert(0, str(SERVER))
    from tapelsp import engine, prefilter
    from tapelsp.settings import Settings

    settings = Settings()
    targets = settings.targets()
    real_worth, real_rules = prefilter.worth_parsing, prefilter.rules_to_run
    counts = {"files": 0, "parsed": 0, "facts": 0, "rule_runs": 0, "rule_runs_unfiltered": 0,
              "findings": 0, "differ": []}
    rules = engine.enabled_rules(settings, None, targets)
    for path in corpus.python_files(Path(directory)):
        text = path.read_text(encoding="utf-8", errors="replace")
        counts["files"] += 1
        if real_worth(text, rules, True):
            counts["parsed"] += 1
            chosen = real_rules(text, rules)
            counts["facts"] += any(rule.triggers for rule in chosen)
            counts["rule_runs"] += len(chosen) if any(rule.triggers for rule in chosen) else 0
        counts["rule_runs_unfiltered"] += len(rules)
        filtered = engine.check_source(text, str(path), settings, targets)
        prefilter.worth_parsing = lambda text, rules, syntax: True
        prefilter.rules_to_run = lambda text, rules: list(rules)
        try:
            unfiltered = engine.check_source(text, str(path), settings, targets)
        finally:
            prefilter.worth_parsing, prefilter.rules_to_run = real_worth, real_rules
        counts["findings"] += len(filtered)
        if filtered != unfiltered:
            counts["differ"].append(str(path))
    json.dump(counts, sys.stdout)


def prefilter_proof(root: Path) -> str:
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--prefilter-worker", str(root)],
                          capture_output=True, text=True, env=child_env(), cwd=REPO)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        return "the proof did not run (see above)"
    c = json.loads(proc.stdout)
    verdict = ("same findings with and without it" if not c["differ"]
               else f"FINDINGS DIFFER in {len(c['differ'])} files: {', '.join(c['differ'][:5])}")
    return (f"{c['files']} files: {c['parsed']} parsed, {c['facts']} got the facts pass, rules ran "
            f"{c['rule_runs']:,} times of {c['rule_runs_unfiltered']:,} without the filter; "
            f"{c['findings']} findings, {verdict}")


def print_summary(summaries: list[dict], started: str, load_before: tuple, args: argparse.Namespace) -> None:
    """One Markdown table for every corpus: the README's performance section."""
    load_after = os.getloadavg()
    print(f"summary — {started}, load average before {' '.join(f'{x:.2f}' for x in load_before)}, "
          f"after {' '.join(f'{x:.2f}' for x in load_after)}; {cores()[1]} usable cores; "
          f"median of {args.repeat} rounds (fixit: {args.fixit_repeat if args.with_fixit else 'not run'})")
    print("command: python bench/throughput.py --corpus " + " ".join(args.corpus)
          + (" --with-fixit" if args.with_fixit else "") + (" --prefilter-proof" if args.prefilter_proof else "")
          + (f" --repeat {args.repeat}" if args.repeat != 5 else ""))
    print()

    def cell(by: dict, label: str) -> str:
        r = by.get(label)
        return f"{r.median:.2f} s ({r.cpu_median:.2f})" if r and r.times else "–"

    def ratio(by: dict, a: str, b: str, cpu: bool = False) -> str:
        x, y = by.get(a), by.get(b)
        if not (x and y and x.times and y.times):
            return "–"
        return f"{(x.cpu_median / y.cpu_median) if cpu else (x.median / y.median):.2f}"

    print("| corpus | files / lines | tapelsp cold | tapelsp -j 1 cold | tapelsp warm | ruff --select ALL "
          "| ast.parse, 1 core | fixit |")
    print("|---|---|---|---|---|---|---|---|")
    for s in summaries:
        by = s["by"]
        print(f"| {s['name']} {s['version']} | {s['files']:,} / {s['lines']:,} | {cell(by, 'tapelsp (default jobs)')} "
              f"| {cell(by, 'tapelsp -j 1')} | {cell(by, 'tapelsp warm cache')} | {cell(by, 'ruff check --select ALL')} "
              f"| {cell(by, 'ast.parse, one core')} | {cell(by, 'fixit lint')} |")
    print("\n(wall seconds, median; in brackets CPU seconds of the whole process tree)\n")
    print("| corpus | cold/ruff | cold/ruff CPU | warm/ruff | cold/ast.parse | warm/ast.parse | fixit/cold "
          "| 1 file: tapelsp/ruff | 1 file warm: tapelsp/ruff |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in summaries:
        by = s["by"]
        fx = by.get("fixit lint")
        cold = by.get("tapelsp (default jobs)")
        faster = f"{fx.median / cold.median:.0f}x" if fx and fx.times and cold and cold.times else "–"
        print(f"| {s['name']} | {ratio(by, 'tapelsp (default jobs)', 'ruff check --select ALL')} "
              f"| {ratio(by, 'tapelsp (default jobs)', 'ruff check --select ALL', cpu=True)} "
              f"| {ratio(by, 'tapelsp warm cache', 'ruff check --select ALL')} "
              f"| {ratio(by, 'tapelsp (default jobs)', 'ast.parse, one core')} "
              f"| {ratio(by, 'tapelsp warm cache', 'ast.parse, one core')} | {faster} "
              f"| {ratio(by, 'latency: tapelsp one file', 'latency: ruff one file')} "
              f"| {ratio(by, 'latency: tapelsp one, warm', 'latency: ruff one file')} |")
    for s in summaries:
        if s["proof"]:
            print(f"\npre-parse filter on {s['name']}: {s['proof']}")


def run_rounds(runners: list, scratch: Path) -> None:
    # Warm-up: the OS file cache, and the tapelsp cache that the warm row then reads.
    for result, cmd, fn, _rounds, kw in runners:
        if result.label.startswith("fixit"):
            continue
        _, _, result.note = fn() if fn else timed(cmd, scratch, **kw)
    for round_no in range(max(r[3] for r in runners)):
        for result, cmd, fn, rounds, kw in runners:
            if round_no >= rounds:
                continue
            elapsed, cpu, note = fn() if fn else timed(cmd, scratch, **kw)
            result.times.append(elapsed)
            result.cpu.append(cpu)
            result.note = note or result.note
            print(f"  round {round_no + 1}: {result.label:26s} {elapsed:7.3f} s wall {cpu:7.3f} s cpu",
                  file=sys.stderr, flush=True)


def print_table(results: list[Result], files: int, lines: int, have_cli: bool,
                compare: Path | None = None) -> None:
    print(f"{'tool':28s} {'median s':>9s} {'min s':>8s} {'cpu s':>8s} {'runs':>4s} {'files/s':>9s} "
          f"{'lines/s':>10s}  note")
    for r in results:
        m = r.median
        print(f"{r.label:28s} {m:9.3f} {min(r.times):8.3f} {r.cpu_median:8.3f} {len(r.times):4d} {files / m:9.0f} "
              f"{lines / m:10.0f}  {r.note}")
    print("(median and min: wall seconds; cpu s: median user+sys seconds of the whole process tree)")
    print()
    by = {r.label: r for r in results}
    subjects = [r for r in results if r.label.startswith(("tapelsp", "fallback"))]
    latency = [(r, by.get("latency: ruff one file")) for r in results if r.label.startswith("latency: tapelsp")]
    refs = [(name, by[label]) for name, label in (("ruff", "ruff check --select ALL"),
                                                  ("ast-parse", "ast.parse, one core"),
                                                  ("fixit", "fixit lint")) if label in by]
    print("ratios of median wall time (lower is better for tapelsp; goal: <= 1.0 vs ruff, <= 1/30 vs fixit)")
    for subject in subjects:
        parts = [f"tapelsp/{name} = {subject.median / ref.median:6.3f}" for name, ref in refs]
        print(f"  {subject.label:26s} " + "   ".join(parts))
        if "fixit lint" in by:
            print(f"  {'':26s} ({by['fixit lint'].median / subject.median:.0f}x faster than fixit)")
    for subject, ruff_one in latency:
        if ruff_one is not None:
            print(f"  {subject.label:26s} tapelsp/ruff = {subject.median / ruff_one.median:6.3f}  (one file, "
                  "process start-up included)")
    print("ratios of median CPU time (total work, less sensitive to a busy machine)")
    for subject in subjects:
        parts = [f"tapelsp/{name} = {subject.cpu_median / ref.cpu_median:6.3f}" for name, ref in refs]
        print(f"  {subject.label:26s} " + "   ".join(parts))
    print("\ncommands:")
    for r in results:
        where = ""
        if r.label.startswith("tapelsp[B]"):
            where = f"PYTHONPATH={shlex.quote(str(compare))} "
        elif r.label.startswith(("tapelsp", "latency: tapelsp")):
            where = f"PYTHONPATH={shlex.quote(str(SERVER))} "
        print(f"  {r.label}: {where}{r.command}")
    if not have_cli:
        print("\nNOTE: tapelsp rows are the in-script fallback, not the CLI.")


if __name__ == "__main__":
    main()
