"""How the engine's time grows with the size of one file, beside `ast.parse` of the same text.

    python bench/growth.py                          # 1k, 2k, 5k, 10k, 20k, 50k lines
    python bench/growth.py --sizes 3000 10000 --repeat 5
    python bench/growth.py --server .cache/bench/ab/base/server   # an older copy of server/

For each size it generates a TensorFlow file with `editor_latency.generate` (the same
text the editor latency benchmark opens: tapes, nested tapes, tf.functions, map_fn, Keras
models, training loops, tf.data) and prints the best of --repeat runs of `ast.parse`
and of `check_source` (every rule on, no fixes, as the language server's diagnostics pass
runs it), their ratio and the cost per 1,000 lines of each: a flat per-line cost means
linear growth. Then the rules' own time at the largest size (top --top, each rule run once
in the engine's order on one facts object, as `check_source` runs them: a rule that reads
another rule's findings pays for them when it runs first) and the phases (parse, facts).

`--gc` adds `check_source` timed three ways at each size: the cyclic GC as it is, under
`gc.disable()`, and after `gc.freeze()` (everything alive before the run is left out of
collections: what a long-running process loop can do once after start-up).

A script, not a test: it asserts nothing about time. See shared/design/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
_server_arg = sys.argv[sys.argv.index("--server") + 1] if "--server" in sys.argv[:-1] else None
_SERVER_ROOT = Path(_server_arg).resolve() if _server_arg else BENCH.parent / "server"
sys.path.insert(0, str(_SERVER_ROOT))

import tapelsp  # noqa: E402
from editor_latency import generate  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        fn()
        times.append(time.process_time() - started)
    return min(times)


def best_gc(fn, repeat: int, mode: str) -> float:
    """Best time of `fn` with the cyclic GC as it is ("on"), disabled ("off") or after gc.freeze()."""
    times = []
    for _ in range(repeat):
        gc.collect()
        if mode == "off":
            gc.disable()
        elif mode == "freeze":
            gc.freeze()
        try:
            started = time.process_time()
            fn()
            times.append(time.process_time() - started)
        finally:
            if mode == "off":
                gc.enable()
            elif mode == "freeze":
                gc.unfreeze()
    return min(times)


def rule_times(text: str) -> tuple[float, float, list[tuple[float, str]]]:
    """(parse seconds, facts seconds, [(seconds, rule code)]) of one run in the engine's order.
    Reaches past the public API into the engine's steps; the engine's own loop is copied in
    spirit only (no suppression, no sorting)."""
    from tapelsp import facts as facts_mod
    from tapelsp.engine import _ensure_recursion_headroom, enabled_rules
    from tapelsp.parse import parse_source
    from tapelsp.rules.base import Context
    from tapelsp.settings import Settings
    from tapelsp.text import SourceText

    _ensure_recursion_headroom()
    settings = Settings()
    targets = settings.targets()
    source = SourceText(text)
    started = time.process_time()
    parsed = parse_source(source, "growth.py")
    parse_s = time.process_time() - started
    started = time.process_time()
    facts = facts_mod.build(parsed.tree, source)
    facts_s = time.process_time() - started
    rows = []
    for rule in enabled_rules(settings, "growth.py", targets):
        ctx = Context(facts=facts, targets=targets, rule=rule, severity=settings.severity_for(rule.code, rule.severity),
                      path="growth.py")
        started = time.process_time()
        try:
            rule.check(ctx)
        except Exception:  # noqa: BLE001 - timing only; the engine reports it as TL004
            pass
        rows.append((time.process_time() - started, rule.code))
    rows.sort(reverse=True)
    return parse_s, facts_s, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000, 10000, 20000, 50000])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the best is printed)")
    parser.add_argument("--top", type=int, default=10, help="rules listed at the largest size")
    parser.add_argument("--gc", action="store_true", help="also time check_source with the GC disabled and frozen")
    parser.add_argument("--server", metavar="DIR", help="time the tapelsp imported from DIR instead of server/")
    args = parser.parse_args()

    load = os.getloadavg()
    print(f"tapelsp from {Path(tapelsp.__file__).parent}; python {sys.version.split()[0]}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
          + ("  (busy machine: even the ratios are soft)" if load[0] > (os.cpu_count() or 1) else ""))
    print(f"best of {args.repeat}, CPU time of this process (time.process_time: other work on the machine "
          "does not count); check_source with every rule on, no fixes; GC as Python sets it\n")
    header = (f"{'lines':>7} {'findings':>8} {'ast.parse':>10} {'check_source':>12} {'ratio':>6} "
              f"{'parse/1k':>9} {'check/1k':>9}")
    if args.gc:
        header += f" {'gc off':>9} {'ratio':>6} {'off/1k':>8} {'gc.freeze':>9} {'ratio':>6}"
    print(header)
    sizes = sorted(args.sizes)
    text = ""
    tapelsp.check_source(generate(200), "growth.py")  # warm: imports, rule registry
    for size in sizes:
        text = generate(size)
        lines = text.count("\n")
        findings = len(tapelsp.check_source(text, "growth.py"))
        t_parse = best(lambda: ast.parse(text), args.repeat)
        t_check = best(lambda: tapelsp.check_source(text, "growth.py"), args.repeat)
        row = (f"{lines:>7} {findings:>8} {t_parse * 1000:>8.1f}ms {t_check * 1000:>10.1f}ms "
               f"{t_check / t_parse:>5.1f}x {t_parse * 1000 / lines * 1000:>7.2f}ms "
               f"{t_check * 1000 / lines * 1000:>7.1f}ms")
        if args.gc:
            t_off = best_gc(lambda: tapelsp.check_source(text, "growth.py"), args.repeat, "off")
            t_frozen = best_gc(lambda: tapelsp.check_source(text, "growth.py"), args.repeat, "freeze")
            row += (f" {t_off * 1000:>7.1f}ms {t_off / t_parse:>5.1f}x {t_off * 1000 / lines * 1000:>6.1f}ms "
                    f"{t_frozen * 1000:>7.1f}ms {t_frozen / t_parse:>5.1f}x")
        print(row, flush=True)
    print("  ratio = check_source / ast.parse of the same text; */1k = milliseconds per 1,000 lines.")
    if args.gc:
        print("  gc off = check_source under gc.disable() (off/1k: its cost per 1,000 lines); gc.freeze = after "
              "gc.freeze() (the GC still runs, but not over what was alive before).")

    parse_s, facts_s, rows = rule_times(text)
    total = parse_s + facts_s + sum(t for t, _ in rows)
    print(f"\none run at {text.count(chr(10)):,} lines, the engine's steps (GC on): "
          f"parse_source {parse_s * 1000:.0f} ms, facts {facts_s * 1000:.0f} ms, "
          f"all rules {sum(t for t, _ in rows) * 1000:.0f} ms, total {total * 1000:.0f} ms")
    print(f"top {args.top} rules:")
    for seconds, code in rows[:args.top]:
        print(f"  {code:8s} {seconds * 1000:8.1f} ms {100 * seconds / total:5.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
