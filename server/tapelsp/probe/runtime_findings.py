"""Findings only the runtime can show: the RT rules (tapelsp side).

Each runtime fact that no static finding explains becomes a `Violation` of its RT rule
(`tapelsp/rules/runtime/rt0*.py` document them), on the line the fact happened, with
`Evidence(verdict="runtime")`:

- RT001: a gradient call that returned None for some sources;
- RT002: a tf.function traced two or more times beyond one trace per tf.function object,
  or TensorFlow's retracing warning;
- RT003: the variable-creation ValueError;
- RT004: the reused non-persistent tape RuntimeError;
- RT005: "Gradients do not exist for variables" / "No gradients provided for any variable";
- RT006: the program did not run to its end (run mode adds it; see `outcome_finding`).

Findings honour the settings (`--select`, `--ignore`, severities) like static ones.
"""

from __future__ import annotations

from ..model import Evidence, Range, Related, Violation
from ..settings import Settings
from .merge import GRADIENT_CODES, NONE_GRADIENT_CODES, RETRACE_CODES, RUNTIME, RuntimeIndex, associate, \
    describe_none_site
from .report import ProbeReport
from .source_map import SourceMap

# How many traces beyond one per tf.function object make a retracing finding.
RETRACE_THRESHOLD = 2

# Which static codes already explain each kind of runtime event.
EXPLAINED_BY = {
    "variable-creation": ("FUNC001", "FUNC002", "FUNC003"),
    "tape-reused": ("TAPE001", "TAPE002"),
    "no-gradients": ("OPT001", "OPT002"),
    "gradients-do-not-exist": ("OPT001", "OPT002"),
    "retracing-warning": ("FUNC009", "FUNC010"),
}
EVENT_CODES = {
    "variable-creation": "RT003",
    "tape-reused": "RT004",
    "no-gradients": "RT005",
    "gradients-do-not-exist": "RT005",
}


def make_violation(code: str, message: str, cell: int | None, rng: Range, settings: Settings, path: str | None,
                   evidence: Evidence, related: tuple[Related, ...] = ()) -> Violation | None:
    from ..rules import rule_by_code

    rule = rule_by_code(code)
    if rule is None or not settings.enabled(code, path):
        return None
    return Violation(code=code, name=rule.name, message=message, range=rng,
                     severity=settings.severity_for(code, rule.severity), related=related, url=rule.url(),
                     cell=cell, evidence=evidence)


def runtime_findings(report: ProbeReport, unit: SourceMap, index: RuntimeIndex, static: list[Violation],
                     settings: Settings) -> list[Violation]:
    path = unit.path
    found: list[Violation] = []
    explained_lines: dict[str, set[int]] = {}
    gradient_lines: set[int] = set()
    for violation in static:
        line = unit.violation_line(violation)
        explained_lines.setdefault(violation.code, set()).update({line} | unit.related_lines(violation))
        if violation.code in GRADIENT_CODES:
            gradient_lines.update(associate(violation, unit).lines)
            gradient_lines.add(line)

    def explained(codes, lines) -> bool:
        return any(explained_lines.get(code, set()) & set(lines) for code in codes)

    # RT001: None gradients nobody predicted.
    for line, sites in sorted(index.sites.items()):
        for site in sites:
            if not site.none_calls or line in gradient_lines:
                continue
            summary, details = describe_none_site(site, unit, line)
            call = unit.gradient_call_at(line, site.method)
            cell, rng = unit.range_of(line, call.node if call is not None else None)
            message = (f"{summary} at runtime: {'; '.join(details)}. The sources are not connected to the "
                       "target in what the tape recorded (a step left TensorFlow, ran outside the tape, or does "
                       "not use them).")
            violation = make_violation("RT001", message, cell, rng, settings, path,
                                       Evidence(RUNTIME, summary, details))
            if violation is not None:
                found.append(violation)

    # RT002: retracing.
    retrace_static = set().union(*(explained_lines.get(code, set()) for code in RETRACE_CODES))
    reported_functions: set[str] = set()
    for function in index.functions:
        if function.retraces < RETRACE_THRESHOLD:
            continue
        lines = [unit.unit_line(s.place) for s in function.call_sites] + \
                [unit.unit_line(p) for p, _c in function.created_at] + [unit.unit_line(function.place)]
        lines = [line for line in lines if line is not None]
        if not lines or retrace_static & set(lines):
            continue
        busiest = max(function.call_sites, key=lambda s: s.traces, default=None)
        line = unit.unit_line(busiest.place) if busiest is not None else None
        if line is None:
            continue
        changed = [c for trace in function.trace_log for c in trace.changed]
        objects = (f" across {function.instances} tf.function objects" if function.instances > 1 else "")
        summary = (f"`{function.name}` was traced {function.traces} times for {function.calls} calls{objects}; "
                   f"{busiest.traces} of the traces came from calls on {unit.label(line)}")
        why = (f"; between traces: {', '.join(changed[:4])}{', ...' if len(changed) > 4 else ''}" if changed else "")
        message = (f"{summary}{why}. Each new Python value (or new tf.function object) builds a new graph: pass "
                   "tensors, or give the tf.function an input_signature.")
        cell, rng = unit.range_of(line, unit.call_at(line))
        related = ()
        def_line = unit.unit_line(function.place)
        if def_line is not None:
            def_cell, def_range = unit.range_of(def_line)
            if def_cell == cell:
                related = (Related(def_range, f"the tf.function `{function.name}`"),)
        violation = make_violation("RT002", message, cell, rng, settings, path,
                                   Evidence(RUNTIME, summary, tuple(changed[:10])), related)
        if violation is not None:
            found.append(violation)
            reported_functions.add(function.name)

    # Events: variable creation, reused tapes, missing gradients, TensorFlow's retracing warning.
    for line, events in sorted(index.events.items()):
        for event in events:
            codes = EXPLAINED_BY.get(event.kind)
            if codes is None or explained(codes, [line]):
                continue
            if event.kind == "variable-creation":
                definition = unit.enclosing_definition(line)
                if definition is not None and any(definition.first <= l <= definition.end
                                                  for code in codes for l in explained_lines.get(code, ())):
                    continue
            if event.kind == "tape-reused" and line in gradient_lines:
                continue
            if event.kind == "retracing-warning":
                if line in retrace_static or reported_functions:
                    continue
                code = "RT002"
            else:
                code = EVENT_CODES[event.kind]
            summary = f"TensorFlow on {unit.label(line)}: {event.message}"
            times = f" ({event.count} times)" if event.count > 1 else ""
            cell, rng = unit.range_of(line, unit.call_at(line))
            violation = make_violation(code, f"At runtime{times}: {event.message}", cell, rng, settings, path,
                                       Evidence(RUNTIME, summary, ()))
            if violation is not None:
                found.append(violation)
    return found


def outcome_finding(message: str, place_line: int | None, cell: int | None, unit: SourceMap,
                    settings: Settings) -> Violation | None:
    """RT006: the program did not run to its end (on its last line, or the file's first)."""
    if place_line is not None:
        found_cell, rng = unit.range_of(place_line, unit.call_at(place_line))
    else:
        found_cell, rng = cell, Range.of(0, 0, 0, 0)
    text = message[0].upper() + message[1:] if message else message
    return make_violation("RT006", f"{text}. The probe saw nothing after that point; findings there keep their "
                          "static verdict.", found_cell, rng, settings, unit.path, Evidence(RUNTIME, message, ()))


__all__ = ["runtime_findings", "outcome_finding", "make_violation", "NONE_GRADIENT_CODES"]
