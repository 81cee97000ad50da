"""Where the engine's time goes on a real corpus: reading vs parse vs facts vs rules.

    python bench/profile_engine.py                    # tf_keras
    python bench/profile_engine.py --corpus tfp --top 40
    python bench/profile_engine.py --generated 3000 10000   # the editor benchmark's files

Two passes over the same files, one process, one core:
1. plain timing, no profiler, with Python's cyclic GC on (as the CLI runs) and off:
   reading every file, `ast.parse` alone, the facts pass alone on trees parsed
   before, and `check_source` on the texts already read (best of --repeat); then the
   `check_source` loop followed by a full collection, with and without releasing each
   file's facts (`Facts.release()`), and how many objects only the cyclic collector frees;
2. `cProfile` around the `check_source` loop, summarised by phase (the cumulative
   time of the engine's own functions: parse_source, facts build, each rule's
   check, the finishing step) and then the top functions by cumulative and own time.

cProfile slows Python code several times over and C code (`ast.parse`) not at all,
so the profiled shares overstate the pure-Python phases; pass 1 is the honest split
between parsing and the rest. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import io
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

# `--server DIR` profiles the tapelsp in DIR (a patched copy of server/) instead.
_server_arg = sys.argv[sys.argv.index("--server") + 1] if "--server" in sys.argv[:-1] else None
_SERVER_ROOT = Path(_server_arg).resolve() if _server_arg else corpus.REPO / "server"
sys.path.insert(0, str(_SERVER_ROOT))
import tapelsp  # noqa: E402

SERVER = str(_SERVER_ROOT / "tapelsp")


def read_all(paths: list[Path]) -> list[tuple[str, str]]:
    out = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            out.append((str(path), handle.read()))
    return out


def facts_pass(texts: list[tuple[str, str]]):
    """A callable that runs only the facts pass on pre-parsed trees, or None if the
    engine's internals have moved (this reaches past the public API)."""
    try:
        from tapelsp.facts import build
        from tapelsp.text import SourceText

        prepared = [(ast.parse(text, path), SourceText(text)) for path, text in texts]
        build(*prepared[0])
    except Exception as error:  # noqa: BLE001 - internals changed: skip the row
        print(f"(facts-only row skipped: {type(error).__name__}: {error})", file=sys.stderr)
        return None

    def run() -> None:
        for tree, source in prepared:
            build(tree, source)

    return run


def released_checks(texts: list[tuple[str, str]]):
    """A callable like the `check_source` loop that releases each file's facts once its check
    has returned (`Facts.release()`, as the engine could when the fixes are final), taking an
    argument: release or not. None if this tapelsp has no `Facts.release` or the engine's
    internals have moved."""
    try:
        from tapelsp import engine
        from tapelsp.facts.model import Facts

        real_build = engine.facts_mod.build
        Facts.release  # noqa: B018 (present or not is the point)
    except (ImportError, AttributeError) as error:
        print(f"(release rows skipped: {type(error).__name__}: {error})", file=sys.stderr)
        return None

    def run(release: bool = True) -> None:
        built = []

        def keep(*args, **kwargs):
            facts = real_build(*args, **kwargs)
            built.append(facts)
            return facts

        engine.facts_mod.build = keep
        try:
            for path, text in texts:
                tapelsp.check_source(text, path)
                if release:
                    for facts in built:
                        facts.release()
                built.clear()
        finally:
            engine.facts_mod.build = real_build

    return run


def cyclic_garbage(fn) -> int:
    """How many objects only the cyclic collector frees after `fn()`."""
    gc.collect()
    gc.disable()
    try:
        fn()
        return gc.collect()
    finally:
        gc.enable()


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def phase_rows(stats: pstats.Stats) -> list[tuple[str, float, int]]:
    """(label, cumulative seconds, calls) for the engine's phase functions."""
    rows: dict[str, list[float]] = {}

    def add(label: str, cum: float, calls: int) -> None:
        slot = rows.setdefault(label, [0.0, 0])
        slot[0] += cum
        slot[1] += calls

    for (filename, _line, name), (_cc, calls, _tt, cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if not filename.startswith(SERVER):
            if filename == "~" and name == "<built-in method builtins.compile>":
                add("  of which ast.parse (compile, C)", cum, calls)
            continue
        rel = filename[len(SERVER) + 1:]
        if name == "check_source" and rel == "engine.py":
            add("check_source (total)", cum, calls)
        elif name == "parse_source" and rel == "parse.py":
            add("parse_source (ast.parse + recovery)", cum, calls)
        elif name == "build" and rel.startswith("facts/"):
            add(f"facts build ({rel})", cum, calls)
        elif name == "check" and rel.startswith("rules/"):
            add(f"rule check {Path(rel).stem.split('_')[0].upper()}", cum, calls)
        elif name == "_finish" and rel == "engine.py":
            add("finish (suppression, sort)", cum, calls)
        elif name == "__init__" and rel == "text.py":
            add("SourceText (split lines)", cum, calls)
        elif name == "enabled_rules" and rel == "engine.py":
            add("enabled_rules (per file)", cum, calls)
        elif name == "ignores_whole_file":
            add("ignore-file test", cum, calls)
    order = ["check_source (total)", "ignore-file test", "enabled_rules (per file)", "SourceText (split lines)",
             "parse_source (ast.parse + recovery)", "  of which ast.parse (compile, C)"]
    keys = order + sorted(k for k in rows if k not in order)
    return [(k, rows[k][0], int(rows[k][1])) for k in keys if k in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=corpus.ALL_CORPORA, default="tf_keras")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--top", type=int, default=25, help="functions to list by cumulative and own time")
    parser.add_argument("--out", metavar="FILE", help="save the raw cProfile stats (for snakeviz etc.)")
    parser.add_argument("--server", metavar="DIR", help="profile the tapelsp imported from DIR instead of server/")
    parser.add_argument("--generated", metavar="LINES", type=int, nargs="+",
                        help="profile the generated TensorFlow files of bench/editor_latency.py of these sizes "
                             "(e.g. 3000 10000) instead of a corpus")
    args = parser.parse_args()
    if args.generated:
        from editor_latency import generate

        texts = [(f"generated-{size}.py", generate(size)) for size in args.generated]
        paths = []
        args.corpus = "generated " + ", ".join(f"{size:,}" for size in args.generated) + " lines"
    else:
        env = corpus.ensure(quiet=True)
        paths = corpus.python_files(env.corpus(args.corpus))
        texts = read_all(paths)
    lines = sum(t.count("\n") for _, t in texts)

    def check_all() -> int:
        return sum(len(tapelsp.check_source(text, path)) for path, text in texts)

    def parse_all() -> None:
        for path, text in texts:
            try:
                ast.parse(text, path)
            except SyntaxError:
                pass

    check_all()  # warm: imports, rule registry, caches
    t_read = best(lambda: read_all(paths), args.repeat)
    facts_all = facts_pass(texts)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"tapelsp from {Path(tapelsp.__file__).parent}; load average {load}")
    print(f"corpus {args.corpus}: {len(texts)} files, {lines:,} lines; best of {args.repeat}, one core, no profiler")
    print(f"  {'':40s} {'gc on':>8s} {'gc off':>8s}")
    print(f"  {'read every file (open + decode)':40s} {t_read:8.3f}")
    rows = [("ast.parse every file", parse_all), ("check_source every file (texts read)", check_all)]
    if facts_all is not None:
        rows.insert(1, ("facts build only (trees parsed before)", facts_all))
    released = released_checks(texts)
    measured = {}
    for label, fn in rows:
        on = best(fn, args.repeat)
        gc.disable()
        try:
            off = best(fn, args.repeat)
        finally:
            gc.enable()
        measured[label] = (on, off)
        print(f"  {label:40s} {on:8.3f} {off:8.3f}")
    parse_on, parse_off = measured["ast.parse every file"]
    check_on, check_off = measured["check_source every file (texts read)"]
    print(f"  check_source / ast.parse: {check_on / parse_on:.2f} (gc on), {check_off / parse_off:.2f} (gc off); "
          f"the cyclic GC costs check_source {check_on - check_off:.3f} s "
          f"({100 * (check_on - check_off) / check_on:.0f}%)")
    if released is not None:
        # The collector off during the loop and one full collection at its end, timed: so the
        # garbage of every file is freed inside the timing whichever way it goes.
        def collected(release: bool) -> float:
            return best(lambda: (released(release), gc.collect()), args.repeat)

        gc.disable()
        try:
            kept_s, freed_s = collected(False), collected(True)
        finally:
            gc.enable()
        kept, freed = cyclic_garbage(lambda: released(False)), cyclic_garbage(released)
        print(f"  check_source every file, then gc.collect(): {kept_s:.3f} s; {freed_s:.3f} s with each file's "
              f"facts released\n  objects only the cyclic collector frees after checking every file: "
              f"{kept:,}; {freed:,} with each file's facts released")
    print()

    profiler = cProfile.Profile()
    profiler.enable()
    findings = check_all()
    profiler.disable()
    if args.out:
        profiler.dump_stats(args.out)
    stats = pstats.Stats(profiler)
    rows = phase_rows(stats)
    total = next((cum for label, cum, _ in rows if label == "check_source (total)"), 0.0) or 1.0
    print(f"cProfile of the check_source loop ({findings} findings), cumulative time by phase:")
    for label, cum, calls in rows:
        print(f"  {label:42s} {cum:8.3f} s {100 * cum / total:6.1f}%  ({calls} calls)")
    for key in ("cumulative", "tottime"):
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).strip_dirs().sort_stats(key).print_stats(args.top)
        text = buffer.getvalue()
        start = text.find("   ncalls")
        print(f"\ntop {args.top} by {key}:")
        print(text[start:].rstrip())


if __name__ == "__main__":
    main()
