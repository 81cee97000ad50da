"""Fold the probe's runtime report into the static findings (tapelsp side).

For every static finding the merge looks for the runtime facts about the same code:

- the gradient calls it is about: the call on its own line or on a line of its related
  information, or a call on the tape whose `with` statement or block holds the finding
  (strong: enough to refute); else the next gradient call after it in the same function
  (weak: enough to confirm only);
- the events TensorFlow produced on its line (the variable-creation ValueError, the
  reused-tape RuntimeError, "No gradients provided", ...);
- the tf.function call sites and creation sites on its line (retracing).

A finding is *confirmed* when the symptom its rule predicts happened there (message
suffix, `Violation.evidence`, related information at the runtime line). It is *refuted*,
and dropped, only when the runtime really contradicts it: every strongly associated
gradient call ran and never returned None nor raised, or the tf.function called from the
flagged line again and again traced once. Anything else stays as it is: a line that did
not run proves nothing.

What no static finding explains becomes a runtime finding of its own (`runtime_findings`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..model import Evidence, Related, Violation
from ..settings import Settings
from .report import Event, FunctionReport, GradientSite, ProbeReport
from .source_map import SourceMap

# What each static rule predicts at runtime.
NONE_GRADIENT_CODES = frozenset({
    "TAPE001", "TAPE004", "TAPE005", "TAPE006", "TAPE007", "TAPE008", "TAPE009", "TAPE010", "TAPE011",
    "TAPE012", "TAPE013", "TAPE014", "TAPE015", "TAPE017", "MAP001", "MAP003", "FUNC004",
})
EVENT_KINDS = {
    "TAPE001": ("tape-reused",),
    "TAPE002": ("tape-reused",),
    "TAPE003": ("gradient-inside-context",),
    "TAPE012": ("integer-watch",),
    "TAPE016": ("eager-tf-gradients",),
    "FUNC001": ("variable-creation",),
    "FUNC002": ("variable-creation",),
    "FUNC003": ("variable-creation",),
    "OPT001": ("no-gradients", "gradients-do-not-exist"),
    "OPT002": ("no-gradients", "gradients-do-not-exist"),
}
VARIABLE_CODES = frozenset({"FUNC001", "FUNC002", "FUNC003"})
RETRACE_CODES = frozenset({"FUNC009", "FUNC010"})
REUSE_CODES = frozenset({"TAPE001", "TAPE002"})
GRADIENT_CODES = NONE_GRADIENT_CODES | REUSE_CODES | {"TAPE003"}

CONFIRMED = "confirmed"
RUNTIME = "runtime"


@dataclass(frozen=True)
class Refuted:
    violation: Violation
    reason: str


@dataclass(frozen=True)
class Merged:
    violations: tuple[Violation, ...]  # static (some confirmed) and runtime-only, sorted
    confirmed: tuple[Violation, ...] = ()
    refuted: tuple[Refuted, ...] = ()
    runtime_only: tuple[Violation, ...] = ()


@dataclass(frozen=True)
class Association:
    strong: tuple[int, ...]  # unit lines of gradient calls
    weak: tuple[int, ...]

    @property
    def lines(self) -> tuple[int, ...]:
        return self.strong + self.weak


class RuntimeIndex:
    """The report's facts that fall in one unit, keyed by unit line."""

    def __init__(self, report: ProbeReport, unit: SourceMap) -> None:
        self.report = report
        self.unit = unit
        self.sites: dict[int, list[GradientSite]] = {}
        for site in report.gradient_sites:
            line = unit.unit_line(site.place)
            if line is not None:
                self.sites.setdefault(line, []).append(site)
        self.events: dict[int, list[Event]] = {}
        for event in report.events:
            line = unit.unit_line(event.place)
            if line is not None:
                self.events.setdefault(line, []).append(event)
        self.functions: list[FunctionReport] = list(report.functions)

    def events_at(self, lines, kinds) -> list[tuple[int, Event]]:
        return [(line, event) for line in sorted(set(lines)) for event in self.events.get(line, ())
                if event.kind in kinds]

    def call_sites_at(self, line: int) -> list[tuple[FunctionReport, int, int]]:
        """(function, calls, traces) for calls of tf.functions from `line`."""
        out = []
        for function in self.functions:
            calls = traces = 0
            for site in function.call_sites:
                if self.unit.unit_line(site.place) == line:
                    calls += site.calls
                    traces += site.traces
            if calls:
                out.append((function, calls, traces))
        return out

    def created_at(self, line: int) -> list[tuple[FunctionReport, int]]:
        return [(function, count) for function in self.functions for place, count in function.created_at
                if self.unit.unit_line(place) == line]


def associate(violation: Violation, unit: SourceMap) -> Association:
    """The gradient calls (unit lines) a static finding is about."""
    line = unit.violation_line(violation)
    related = unit.related_lines(violation)
    strong: list[int] = []
    for call in unit.gradient_calls:
        if call.line == line or call.line in related:
            strong.append(call.line)
            continue
        for tape in unit.tapes:
            if (tape.name == call.receiver and tape.scope == call.scope and tape.line <= line <= tape.end
                    and call.line >= line and unit.scope_of(line) == call.scope):
                strong.append(call.line)
                break
    weak: list[int] = []
    if not strong:
        scope = unit.scope_of(line)
        following = sorted(c.line for c in unit.gradient_calls if c.line >= line and c.scope == scope)
        weak = following[:1]
    return Association(tuple(sorted(set(strong))), tuple(weak))


def first_sentence(text: str, limit: int = 140) -> str:
    cut = text.find(". ")
    sentence = text[: cut + 1] if cut != -1 else text
    return sentence if len(sentence) <= limit else sentence[: limit - 3] + "..."


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def describe_none_site(site: GradientSite, unit: SourceMap, line: int) -> tuple[str, tuple[str, ...]]:
    call = unit.gradient_call_at(line, site.method)
    names = source_names(call, unit, site.sources) if call is not None else {}
    details = []
    for none in site.none_sources:
        named = f"`{names[none.index]}`, " if none.index in names else ""
        details.append(f"source {none.index + 1} of {site.sources} ({named}{none.description}) was None in "
                       f"{none.calls} of {_plural(site.calls, 'call')}")
    receiver = f"{call.receiver}." if call is not None and call.receiver else ""
    summary = (f"`{receiver}{site.method}` on {unit.label(line)} returned None for "
               f"{_plural(len(site.none_sources), 'source')} in {site.none_calls} of {_plural(site.calls, 'call')}")
    return summary, tuple(details)


def source_names(call, unit: SourceMap, count: int) -> dict[int, str]:
    """Source expressions by flattened index, when the call's sources argument shows them."""
    sources = call.node.args[1] if len(call.node.args) > 1 else next(
        (k.value for k in call.node.keywords if k.arg in ("sources", "source")), None)
    if sources is None:
        return {}
    import ast

    if isinstance(sources, (ast.List, ast.Tuple)) and len(sources.elts) == count:
        return {i: text for i, elt in enumerate(sources.elts) if (text := unit.text_of(elt))}
    if count == 1 and not isinstance(sources, (ast.List, ast.Tuple)):
        text = unit.text_of(sources)
        return {0: text} if text else {}
    return {}


def _verdict(violation: Violation, unit: SourceMap, index: RuntimeIndex) -> tuple[str | None, str, tuple[str, ...], int | None]:
    """("confirmed" | "refuted" | None, summary, details, unit line of the evidence)."""
    code = violation.code
    line = unit.violation_line(violation)
    related = unit.related_lines(violation)
    association = associate(violation, unit) if code in GRADIENT_CODES else Association((), ())
    # Events of the kinds this rule predicts, on its lines or its gradient calls' lines.
    kinds = EVENT_KINDS.get(code, ())
    lines = {line} | (related if code not in VARIABLE_CODES else set()) | set(association.lines)
    events = index.events_at(lines, kinds)
    if code in VARIABLE_CODES and not events:
        definition = unit.enclosing_definition(line)
        if definition is not None:
            events = [(l, e) for l, evs in index.events.items() if definition.first <= l <= definition.end
                      for e in evs if e.kind in kinds]
    if events:
        at, event = events[0]
        count = sum(e.count for _l, e in events)
        return (CONFIRMED, f"TensorFlow said on {unit.label(at)}: \"{first_sentence(event.message)}\"",
                (event.message, f"seen {_plural(count, 'time')}"), at)
    if code in NONE_GRADIENT_CODES:
        for at in association.lines:
            for site in index.sites.get(at, ()):
                if site.none_calls:
                    summary, details = describe_none_site(site, unit, at)
                    return CONFIRMED, summary, details, at
    if code in REUSE_CODES:
        for at in association.lines:
            for site in index.sites.get(at, ()):
                if site.errors:
                    return (CONFIRMED, f"`{site.method}` on {unit.label(at)} raised in "
                            f"{site.errors} of {_plural(site.calls, 'call')}", (), at)
    if code in GRADIENT_CODES and association.strong:
        ran = [(at, site) for at in association.strong for site in index.sites.get(at, ())]
        covered = {at for at, _site in ran}
        if ran and covered == set(association.strong) and all(not s.none_calls and not s.errors for _a, s in ran):
            calls = sum(s.calls for _a, s in ran)
            places = ", ".join(unit.label(at) for at in sorted(covered))
            return (REFUTED, f"the gradient call on {places} ran {_plural(calls, 'time')} at runtime and never "
                    "returned None or raised", (), min(covered))
    if code == "FUNC009":
        for function, calls, traces in index.call_sites_at(line):
            if traces >= 2:
                changed = [c for t in function.trace_log for c in t.changed][:5]
                return (CONFIRMED, f"`{function.name}` traced {traces} times for {_plural(calls, 'call')} from "
                        f"{unit.label(line)}", tuple(changed), line)
        sites = index.call_sites_at(line)
        if sites and all(calls >= 2 and traces <= 1 for _f, calls, traces in sites):
            function, calls, traces = sites[0]
            return (REFUTED, f"`{function.name}` was called {calls} times from {unit.label(line)} and traced "
                    f"{'once' if traces == 1 else 'no more'} there", (), line)
    if code == "FUNC010":
        for function, count in index.created_at(line):
            if count >= 2:
                return (CONFIRMED, f"{count} tf.function objects for `{function.name}` were created on "
                        f"{unit.label(line)}, {function.traces} traces in all", (), line)
    return None, "", (), None


REFUTED = "refuted"


def merge(static: list[Violation] | tuple[Violation, ...], report: ProbeReport | None, unit: SourceMap,
          settings: Settings | None = None) -> Merged:
    """Static findings with runtime verdicts, plus runtime-only findings. A program that
    stopped early refutes nothing it did not reach: refutations are about lines that ran."""
    from .runtime_findings import runtime_findings

    settings = settings or Settings()
    if report is None:
        return Merged(tuple(static))
    index = RuntimeIndex(report, unit)
    kept: list[Violation] = []
    confirmed: list[Violation] = []
    refuted: list[Refuted] = []
    for violation in static:
        verdict, summary, details, at = _verdict(violation, unit, index)
        if verdict == CONFIRMED:
            marked = confirm(violation, summary, details, at, unit)
            kept.append(marked)
            confirmed.append(marked)
        elif verdict == REFUTED:
            refuted.append(Refuted(violation, summary))
        else:
            kept.append(violation)
    extra = runtime_findings(report, unit, index, kept + [r.violation for r in refuted], settings)
    everything = sorted(kept + extra, key=Violation.sort_key)
    return Merged(tuple(everything), tuple(confirmed), tuple(refuted), tuple(extra))


def confirm(violation: Violation, summary: str, details: tuple[str, ...], at: int | None,
            unit: SourceMap) -> Violation:
    related = violation.related
    if at is not None:
        cell, rng = unit.range_of(at, unit.gradient_call_at(at).node if unit.gradient_call_at(at) else None)
        if cell == violation.cell and rng.start.line != violation.range.start.line:
            related = related + (Related(rng, f"at runtime: {summary}"),)
    return replace(violation, message=f"{violation.message} [confirmed at runtime: {summary}]", related=related,
                   evidence=Evidence(CONFIRMED, summary, details))


__all__ = ["merge", "Merged", "Refuted", "associate", "RuntimeIndex", "confirm", "CONFIRMED", "RUNTIME", "REFUTED"]
