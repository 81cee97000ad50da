"""Throughput of `tapelsp --check` on real TensorFlow code, side by side with ruff,
plain `ast.parse` and (optionally) fixit, all in the same run.

    python bench/throughput.py                       # tf_keras, 5 rounds
    python bench/throughput.py --corpus keras --repeat 7
    python bench/throughput.py --with-fixit          # adds fixit (~75 s a run)

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
    parser.add_argument("--corpus", choices=corpus.ALL_CORPORA, default="tf_keras",
                        help="tf_keras (default), keras, tfp, or tensorflow (tensorflow/python from the wheel)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per tool (default 5)")
    parser.add_argument("--with-fixit", action="store_true", help="also time `fixit lint` (~75 s per run)")
    parser.add_argument("--fixit-repeat", type=int, default=1,
                        help="rounds for fixit (default 1: it takes ~75 s each)")
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
    args = parser.parse_args()
    if args.server:
        global SERVER
        SERVER = args.server.resolve()
    if args.fallback_worker:
        fallback_worker(args.fallback_worker[0], int(args.fallback_worker[1]))
        return

    env = corpus.ensure()
    root = env.corpus(args.corpus)
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

    version = versions.get({"tfp": "tensorflow-probability"}.get(args.corpus, args.corpus), "2.21")
    print(f"corpus: {args.corpus} {version} "
          f"— {len(paths)} files, {lines:,} lines ({root})")
    print(f"tapelsp: {SERVER} ({source_state(SERVER)})")
    if args.compare:
        print(f"tapelsp[B]: {args.compare.resolve()} ({source_state(args.compare.resolve())})")
    print(f"machine: {total_cores} cores ({usable_cores} usable), {platform.machine()}, "
          f"Python {platform.python_version()}; ruff {versions['ruff']}, fixit {versions['fixit']}")
    print(f"rounds: {args.repeat} (fixit: {args.fixit_repeat if args.with_fixit else 'skipped'}), "
          "each tool once untimed first to warm the file cache")
    print("load average before: " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + "\n", flush=True)

    try:
        run_rounds(runners, scratch)
    finally:
        if fixit_copy is not None:
            shutil.rmtree(fixit_copy, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    print("load average after:  " + " ".join(f"{x:.2f}" for x in os.getloadavg())
          + "  (above the core count means other work shared the machine)\n")
    print_table(results, len(paths), lines, have_cli, args.compare.resolve() if args.compare else None)
    if have_cli:
        expected = expected_findings(paths)
        got = {r.note for r in results if r.label.startswith(("tapelsp ", "tapelsp -"))}
        verdict = "matches" if got == {f"{expected} findings"} else "DIFFERS: the CLI did not check the same files?"
        print(f"\ncross-check: in-process check_source loop finds {expected}; CLI runs reported "
              f"{', '.join(sorted(got))} -> {verdict}")


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
    refs = [(name, by[label]) for name, label in (("ruff", "ruff check --select ALL"),
                                                  ("ast-parse", "ast.parse, one core"),
                                                  ("fixit", "fixit lint")) if label in by]
    print("ratios of median wall time (lower is better for tapelsp; goal: <= 1.0 vs ruff, <= 1/30 vs fixit)")
    for subject in subjects:
        parts = [f"tapelsp/{name} = {subject.median / ref.median:6.3f}" for name, ref in refs]
        print(f"  {subject.label:26s} " + "   ".join(parts))
        if "fixit lint" in by:
            print(f"  {'':26s} ({by['fixit lint'].median / subject.median:.0f}x faster than fixit)")
    print("ratios of median CPU time (total work, less sensitive to a busy machine)")
    for subject in subjects:
        parts = [f"tapelsp/{name} = {subject.cpu_median / ref.cpu_median:6.3f}" for name, ref in refs]
        print(f"  {subject.label:26s} " + "   ".join(parts))
    print("\ncommands:")
    for r in results:
        where = ""
        if r.label.startswith("tapelsp[B]"):
            where = f"PYTHONPATH={shlex.quote(str(compare))} "
        elif r.label.startswith("tapelsp"):
            where = f"PYTHONPATH={shlex.quote(str(SERVER))} "
        print(f"  {r.label}: {where}{r.command}")
    if not have_cli:
        print("\nNOTE: tapelsp rows are the in-script fallback, not the CLI.")


if __name__ == "__main__":
    main()
