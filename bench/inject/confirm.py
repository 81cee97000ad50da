"""Does a mutant show its pitfall's symptom under TensorFlow, where the original program did not?

Every check compares the mutant's run with the original's (`worker.py` records both), with the
original's lines mapped onto the mutant's (the mutated module by difflib, other files 1:1):

* `none-grad`: a gradient call that returned no None in the original returns a None leaf in the
  mutant, or the mutant raises a new exception matching `raises` (what None gradients lead to);
* `raises`: a new exception (type and message not seen in the original) matching `raises`,
  even one the program caught itself;
* `retrace`: the mutant builds at least 2 more graphs (traces) than the original, and ends as the
  original did;
* `trace-only`: the planted line ran in fewer function activations when traced than with
  `tf.config.run_functions_eagerly(True)` (tf.data functions: debug mode) - it runs only while
  TensorFlow traces; with a `marker`, the printed marker also appears fewer times;
* `frozen`: what the mutant prints differs between traced and eager execution
  (`run_functions_eagerly`), while the original prints the same both ways;
* `slow-mapfn`: the planted `tf.map_fn` gives the same values as its function applied to the
  whole batch, and at least 2x slower (8+ elements, best of 3, side by side in one process).
"""
from __future__ import annotations

import re

from operators import line_map


def _exc_set(run: dict) -> set:
    out = {(e[1], e[2]) for e in run.get("exceptions", [])}
    if run.get("final"):
        out.add((run["final"][1], run["final"][2]))
    return out


def new_exceptions(orig: dict, mut: dict) -> list[list]:
    seen = _exc_set(orig)
    out = [e for e in mut.get("exceptions", []) if (e[1], e[2]) not in seen]
    f = mut.get("final")
    if f and (f[1], f[2]) not in seen and not any((e[1], e[2]) == (f[1], f[2]) for e in out):
        out.append(f)
    return out


def new_final(orig: dict, mut: dict) -> bool:
    f = mut.get("final")
    if not f:
        return False
    o = orig.get("final")
    return not o or (o[1], o[2]) != (f[1], f[2])


def key_mapper(program, mutation, mutant_text: str):
    run_rel = program.run_rel(mutation.rel)
    lm = line_map(program.module_text(mutation.rel), mutant_text)

    def to_mutant(key: str) -> str | None:
        rel, _, line = key.rpartition(":")
        if rel != run_rel:
            return key
        new = lm.get(int(line))
        return None if new is None else f"{rel}:{new}"
    return to_mutant


def verdict(program, mutation, orig: dict, mut: dict, orig_eager: dict | None = None,
            mut_eager: dict | None = None) -> dict:
    """{"confirmed": bool, "why": str, "root": line or None (from an exception)}."""
    o = mutation.oracle
    kind = o["kind"]
    if mut.get("timeout"):
        return {"confirmed": False, "why": "timeout"}
    if orig.get("timeout") or orig.get("worker_error"):
        return {"confirmed": False, "why": "original did not run"}
    to_mut = key_mapper(program, mutation, mutation.text)
    run_rel = program.run_rel(mutation.rel)
    regex = re.compile(o["raises"]) if o.get("raises") else None
    fresh = new_exceptions(orig, mut)
    matching = [e for e in fresh if regex and regex.search(f"{e[1]}: {e[2]}")]

    def exc_result(why):
        root = None
        if o.get("root_from_exception"):
            for e in matching:
                if e[0] and e[0].rpartition(":")[0] == run_rel:
                    root = int(e[0].rpartition(":")[2])
                    break
        return {"confirmed": True, "why": why, "root": root,
                "evidence": f"{matching[0][1]}: {matching[0][2][:160]}"}

    if kind == "none-grad":
        for key, (calls, with_none, _all) in orig.get("grads", {}).items():
            if calls and not with_none:
                mk = to_mut(key)
                m = mut.get("grads", {}).get(mk) if mk else None
                if m and m[1]:
                    return {"confirmed": True, "why": "gradient became None", "evidence": f"{mk}: {m[1]}/{m[0]} calls"}
        if matching:
            return exc_result("raised")
        return {"confirmed": False, "why": "no None gradient" + (f"; new {fresh[0][1]}: {fresh[0][2][:120]}" if fresh else "")}
    if kind == "raises":
        if matching:
            return exc_result("raised")
        return {"confirmed": False, "why": "not raised" + (f"; new {fresh[0][1]}: {fresh[0][2][:120]}" if fresh else "")}
    if kind == "retrace":
        to = sum(orig.get("graph_calls", {}).values())
        tm = sum(mut.get("graph_calls", {}).values())
        if new_final(orig, mut):
            return {"confirmed": False, "why": f"crashed: {mut['final'][1]}: {mut['final'][2][:120]}"}
        if tm >= to + 2:
            return {"confirmed": True, "why": "retraced", "evidence": f"traces {to} -> {tm}"}
        return {"confirmed": False, "why": f"traces {to} -> {tm}"}
    if kind == "trace-only":
        if mut_eager is None:
            return {"confirmed": False, "why": "no eager run"}
        key = f"{run_rel}:{o['line']}"
        g, e = mut.get("active", {}).get(key, 0), mut_eager.get("active", {}).get(key, 0)
        if new_final(orig, mut):
            return {"confirmed": False, "why": f"crashed: {mut['final'][1]}: {mut['final'][2][:120]}"}
        if not g or e <= g:
            return {"confirmed": False, "why": f"line ran {g} traced / {e} eager"}
        if o.get("marker"):
            mg, me = mut.get("markers", {}).get(o["marker"], 0), mut_eager.get("markers", {}).get(o["marker"], 0)
            if me <= mg:
                return {"confirmed": False, "why": f"printed {mg} traced / {me} eager"}
        return {"confirmed": True, "why": "runs only while tracing", "evidence": f"line ran {g} traced / {e} eager"}
    if kind == "slow-mapfn":
        key = f"{run_rel}:{o['line']}"
        r = mut.get("mapfn", {}).get(key)
        if not r:
            return {"confirmed": False, "why": "map_fn not reached eagerly"}
        if not r.get("equal"):
            return {"confirmed": False, "why": "vectorized op differs" + (f" ({r['error']})" if r.get("error") else "")}
        if r["n"] >= 8 and r["ratio"] >= 2.0:
            return {"confirmed": True, "why": "map_fn slower", "evidence": f"{r['ratio']:.1f}x slower over {r['n']} elements"}
        return {"confirmed": False, "why": f"ratio {r.get('ratio', 0):.1f} over {r.get('n')} elements"}
    if kind == "frozen":
        # What the program prints differs between traced and eager execution in the mutant only.
        if mut_eager is None or orig_eager is None:
            return {"confirmed": False, "why": "no eager runs"}
        if new_final(orig, mut):
            return {"confirmed": False, "why": f"crashed: {mut['final'][1]}: {mut['final'][2][:120]}"}
        if orig.get("stdout") != orig_eager.get("stdout"):
            return {"confirmed": False, "why": "the original prints differently when eager"}
        if mut.get("stdout") != mut_eager.get("stdout"):
            return {"confirmed": True, "why": "traced output frozen", "evidence": "prints differ traced vs eager"}
        return {"confirmed": False, "why": "same output traced and eager"}
    return {"confirmed": False, "why": f"unknown oracle {kind}"}


def needs_eager(mutation) -> bool:
    return mutation.oracle["kind"] in ("trace-only", "frozen")


def needs_original_eager(mutation) -> bool:
    return mutation.oracle["kind"] == "frozen"


def extra_job_fields(mutation) -> dict:
    out = {}
    o = mutation.oracle
    if o.get("marker"):
        out["markers"] = [o["marker"]]
    return out
