"""Facts.release() breaks the reference cycles that keep a file's facts and syntax tree alive
after a full check of real code: they are freed by reference counting, not left for the
cyclic collector (a few small closures and local classes of the rules may still be, but none
that reaches them)."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import pytest

from tapelsp import engine
from tapelsp.analysis import guards as _guards
from tapelsp.facts.model import CallSite, Facts, Scope, Tape
from tapelsp.settings import Settings

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


def _check_keeping_facts(text: str, *, release: bool) -> list:
    """Check `text` and return the facts the check built, released or (whatever the engine
    does) not."""
    built = []
    real_build, real_release = engine.facts_mod.build, Facts.release

    def keep(*args, **kwargs):
        facts = real_build(*args, **kwargs)
        built.append(facts)
        return facts

    engine.facts_mod.build = keep
    if not release:
        Facts.release = lambda self: None  # type: ignore[method-assign]
    try:
        engine.check_source(text, "example.py", Settings())
    finally:
        engine.facts_mod.build, Facts.release = real_build, real_release  # type: ignore[method-assign]
    if release:
        for facts in built:
            facts.release()
    return built


def _cyclic_garbage(run) -> list[str]:
    """The type names of what only the cyclic collector frees after `run()` among the facts
    records and syntax trees (a rule's local class is a cycle of its own, and may hold a node
    it made: not the file's tree)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        # Some rules keep the last file's results per thread (to share them between rules):
        # let go of them as the next file would, so that what they held is measured too.
        vars(_guards._cache).clear()
        gc.collect()
        return [type(o).__name__ for o in gc.garbage
                if isinstance(o, (ast.Module, Facts, Scope, CallSite, Tape))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_released_check_leaves_no_cycle(path):
    text = path.read_text()

    def unreleased():
        assert len(_check_keeping_facts(text, release=False)) == 1

    def released():
        assert len(_check_keeping_facts(text, release=True)) == 1

    # The cycles are there without release() (else this test proves nothing) ...
    assert "Facts" in _cyclic_garbage(unreleased)
    # ... and gone with it.
    assert _cyclic_garbage(released) == []


def test_release_keeps_the_facts_fields():
    from tapelsp.facts import build
    from tapelsp.text import SourceText

    text = "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    y = f(x)\ntape.gradient(y, x)\n"
    facts = build(ast.parse(text), SourceText(text))
    facts.__dict__["_some_rule_cache"] = {"facts": facts}
    calls, tapes = list(facts.calls), list(facts.tapes)
    facts.release()
    assert "_some_rule_cache" not in facts.__dict__
    assert facts.calls == calls and facts.tapes == tapes and facts.tree is not None
    assert all(scope.method_calls == {} for scope in facts.scopes)
