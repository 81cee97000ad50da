"""check_source: text in, findings out. The one analysis entry point.

Every front end (CLI, language server, JupyterLab extension) calls this and
nothing else to analyse Python code.
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import sys
import traceback
from functools import lru_cache
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

from . import facts as facts_mod, prefilter
from .model import Position, Range, Violation
from .parse import TooComplex, parse_source
from .rules import all_rules
from .rules.base import Context, Rule
from .settings import Settings, Targets
from .suppression import filter_suppressed, ignores_whole_file
from .text import SourceText

from .meta_codes import INTERNAL_ERROR, SYNTAX_ERROR, TOO_COMPLEX, UNREADABLE  # noqa: F401 (re-exported)
TENSORFLOW_MENTIONS = prefilter.TENSORFLOW_MENTIONS


# Since Python 3.11 a call between Python functions does not use the C stack, so a higher
# recursion limit is safe and lets rules follow long operator chains that Python compiles.
_RECURSION_HEADROOM = 8000


def _ensure_recursion_headroom() -> None:
    if sys.version_info >= (3, 11) and sys.getrecursionlimit() < _RECURSION_HEADROOM:
        sys.setrecursionlimit(_RECURSION_HEADROOM)


@lru_cache(maxsize=32)
def _rules_for(catalogue: tuple[type[Rule], ...], targets: Targets) -> tuple[Rule, ...]:
    """One instance of every analysing rule that applies to these library versions."""
    return tuple(rule for rule in (cls() for cls in catalogue)
                 if not rule.code.startswith("TL") and rule.applies_to(targets))


def enabled_rules(settings: Settings, path: str | None, targets: Targets) -> list[Rule]:
    # Without per-file ignores the path decides nothing: one answer serves every file.
    return list(_enabled_rules(tuple(all_rules()), settings, path if settings.per_file_ignores else None, targets))


@lru_cache(maxsize=256)
def _enabled_rules(catalogue: tuple[type[Rule], ...], settings: Settings, path: str | None,
                   targets: Targets) -> tuple[Rule, ...]:
    return tuple(rule for rule in _rules_for(catalogue, targets) if settings.enabled(rule.code, path))


def meta_violation(code: str, message: str, rng: Range | None = None,
                   settings: Settings | None = None, path: str | None = None) -> Violation | None:
    from .rules import rule_by_code

    settings = settings or Settings()
    if not settings.enabled(code, path):
        return None
    rule = rule_by_code(code)
    assert rule is not None, code
    return Violation(code=code, name=rule.name, message=message,
                     range=rng or Range(Position(0, 0), Position(0, 0)),
                     severity=settings.severity_for(code, rule.severity), url=rule.url())


def check_source(text: str, path: str | None = None, settings: Settings | None = None,
                 targets: Targets | None = None, *,
                 line_label: Callable[[int], str] | None = None,
                 project: Any = None, fixes: bool = False) -> list[Violation]:
    """All findings for one Python source text, sorted by position.

    `line_label` names a 1-based line in messages (notebooks pass one that names the cell).
    `project` (a `tapelsp.project.Project`, when the caller has one) lets rules look into
    the other modules of the user's project; rules work without it, preferring silence.
    `fixes=True` builds the rules' fixes (with libcst, so it costs): `Violation.fix` is
    None otherwise.

    The cyclic garbage collector is paused for the call: one check allocates many small
    objects (syntax tree, facts) that live until it ends, and the collector's repeated
    scans of them cost a third of the time on a 10,000-line file (bench/growth.py --gc).
    What the check leaves behind is collected as usual once it is back on.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _check_source(text, path, settings, targets, line_label=line_label,
                             project=project, fixes=fixes)
    finally:
        if paused:
            gc.enable()


def _check_source(text: str, path: str | None, settings: Settings | None, targets: Targets | None, *,
                  line_label: Callable[[int], str] | None, project: Any, fixes: bool) -> list[Violation]:
    settings = settings or Settings()
    targets = targets or settings.targets()
    if ignores_whole_file(text):
        return []
    rules = enabled_rules(settings, path, targets)
    # Files that never mention anything a rule looks for are not even parsed, and a rule
    # none of whose triggers is in the text is not run (prefilter.py says why that is sound).
    if not prefilter.worth_parsing(text, rules, settings.enabled(SYNTAX_ERROR, path)):
        return []
    rules = prefilter.rules_to_run(text, rules)
    _ensure_recursion_headroom()
    source = SourceText(text)
    found: list[Violation] = []
    offers: dict[int, Any] = {}
    try:
        parsed = parse_source(source, path or "<unknown>")
        trees = _trees.get()
        if trees is not None:
            trees.append(parsed)
        for problem in parsed.problems:
            found.append(meta_violation(SYNTAX_ERROR, f"SyntaxError: {problem.message}", problem.range,
                                        settings, path))
        if not any(rule.triggers for rule in rules):
            # Parsed for its syntax errors only: no rule that looks at code has a trigger here
            # (the trigger-less ones are the probe's, which report nothing statically).
            return _finish(found, source)
        facts = facts_mod.build(parsed.tree, source, line_label)
    except (TooComplex, RecursionError, MemoryError) as error:
        why = "Too large to analyse within the memory allowed" if isinstance(error, MemoryError) \
            else "Too deeply nested to analyse"
        found.append(meta_violation(
            TOO_COMPLEX, f"{why} ({error or type(error).__name__}); "
            "no other findings are reported for this file.", None, settings, path))
        return _finish(found, source)
    for rule in rules:
        ctx = Context(facts=facts, targets=targets, rule=rule,
                      severity=settings.severity_for(rule.code, rule.severity),
                      path=path, project=project, fixes=fixes)
        try:
            rule.check(ctx)
        except RecursionError:
            found.append(meta_violation(
                TOO_COMPLEX, f"{rule.code} skipped: the code nests too deeply for it.", None, settings, path))
            continue
        except Exception as error:  # one broken rule must not stop the others
            where = traceback.extract_tb(error.__traceback__)[-1]
            found.append(meta_violation(
                INTERNAL_ERROR,
                f"Internal error in rule {rule.code} ({type(error).__name__}: {error} at "
                f"{where.filename.rsplit('/', 1)[-1]}:{where.lineno}); other rules still ran. "
                "Please report this with the file.", None, settings, path))
            continue
        found.extend(ctx.violations)
        offers.update(ctx.fix_offers)
    finished = _finish(found, source)
    pending = _deferred.get() if offers else None
    kept = _kept_analyses.get()
    if offers:
        # What the fixed text of each fix is analysed again with, before the fix is offered.
        again = Analysis(settings, targets, project, path, line_label, facts, tuple(finished),
                         not parsed.problems and not parsed.dropped)
        if pending is not None:  # inside `deferred_fixes()`: hand the offers over unbuilt
            pending.extend(FixOffer(v, offers[id(v)], source.text, path, again) for v in finished if id(v) in offers)
        else:
            finished = [_with_fix(v, offers[id(v)], source, path, again) if id(v) in offers else v
                        for v in finished]
    if kept is not None:
        kept.append((facts, finished))
    elif pending is None:
        # Nothing will read these facts again (no fix offer holds them): break their cycles so
        # that they and the tree are freed at once, not by a later trace of the cyclic collector.
        facts.release()
    return finished


@dataclass(frozen=True)
class Analysis:
    """How a text was analysed, kept with its fix offers: a fix is checked by analysing the
    fixed text the same way (fixes/verify.py)."""

    settings: Settings
    targets: Targets
    project: Any
    path: str | None
    line_label: Callable[[int], str] | None
    facts: Any  # the text's facts (their tree and value model)
    findings: tuple[Violation, ...]  # what the analysis reported, without fixes
    parsed: bool  # the text parsed without recovery


# Within `analysed()`: every (facts, findings) of check_source, facts kept whole.
_kept_analyses: contextvars.ContextVar[list | None] = contextvars.ContextVar("tapelsp_kept_analyses", default=None)


def analysed(text: str, analysis: Analysis) -> tuple[list[Violation], Any]:
    """`text` analysed as `analysis` was (its settings, targets, project, path), without fixes:
    the findings and the facts (None when the text was not parsed: nothing in it for a rule).
    The caller releases the facts (`facts.release()`) when it is done with them."""
    kept: list = []
    tokens = [(_deferred, _deferred.set(None)), (_trees, _trees.set(None)), (_kept_analyses, _kept_analyses.set(kept))]
    try:
        found = check_source(text, analysis.path, analysis.settings, analysis.targets,
                             line_label=analysis.line_label, project=analysis.project)
    finally:
        for var, token in reversed(tokens):
            var.reset(token)
    return found, (kept[0][0] if kept else None)


@dataclass(frozen=True)
class FixOffer:
    """A finding's fix, offered by its rule but not built yet (see `deferred_fixes`)."""

    violation: Violation  # as check_source returned it (without its fix)
    offer: Any
    text: str  # the source text the fix's edits refer to
    path: str | None
    analysis: Any = None  # the `Analysis` of that text (the fix is checked against it)


_deferred: contextvars.ContextVar[list[FixOffer] | None] = contextvars.ContextVar("tapelsp_deferred_fixes",
                                                                                  default=None)


_trees: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("tapelsp_parsed", default=None)


@contextlib.contextmanager
def _collecting(into: contextvars.ContextVar) -> Iterator[list[Any]]:
    collected: list[Any] = []
    token = into.set(collected)
    try:
        yield collected
    finally:
        into.reset(token)


def kept_parses() -> contextlib.AbstractContextManager[list[Any]]:
    """Within this block every `parse.Parsed` that `check_source` analysed is appended to the
    yielded list (a caller that needs the tree too does not parse the text again)."""
    return _collecting(_trees)


def deferred_fixes() -> contextlib.AbstractContextManager[list[FixOffer]]:
    """Within this block `check_source(..., fixes=True)` (and `check_notebook`) return the
    findings without building their fixes: the offer of each finding that has one is appended
    to the yielded list, and `build_fix(offer)` builds one fix when it is wanted (an editor
    needs the fix of the finding under the cursor, not all of them)."""
    return _collecting(_deferred)


def build_fix(offer: FixOffer) -> Violation:
    """The offer's finding with its fix built and validated (or `fix_error` saying why not)."""
    return _with_fix(offer.violation, offer.offer, SourceText(offer.text), offer.path, offer.analysis)


def _finish(found: list[Violation | None], source: SourceText) -> list[Violation]:
    kept = [v for v in found if v is not None]
    kept = filter_suppressed(kept, source)
    unique = {(v.code, v.range, v.message): v for v in kept}
    return sorted(unique.values(), key=Violation.sort_key)


def _with_fix(violation: Violation, offer: Any, source: SourceText, path: str | None,
              analysis: Analysis | None = None) -> Violation:
    """The finding with its fix built, and checked on the fixed text when the analysis is
    known (only findings that survived suppression get here)."""
    from .fixes.validate import log_dropped, resolve_fix

    fix, error = resolve_fix(offer, source.text)
    if fix is not None and analysis is not None:
        from .fixes.verify import verify

        fix, error = verify(violation, fix, source.text, analysis)
    if error is not None:
        log_dropped(violation.code, path, violation.range.start.line, error, kept=fix is not None)
    return replace(violation, fix=fix, fix_error=error)

