"""OPT001 reads the findings of the GradientTape rules; `shares_findings` computes them once
per file and replays them when the engine runs those rules itself. The replay must be what
running the rule again would give: same findings, the caller's severity, fix offers kept."""

import ast
from dataclasses import replace

from tapelsp import check_source
from tapelsp import facts as facts_mod
from tapelsp.model import Severity
from tapelsp.parse import parse_source
from tapelsp.rules import rule_by_code
from tapelsp.rules.base import Context, Rule, findings_of, shares_findings
from tapelsp.rules.optimizer.opt001_apply_broken_gradients import _NONE_RULES
from tapelsp.settings import Settings
from tapelsp.text import SourceText

SOURCE = "import tensorflow as tf\nx = tf.constant(1.0)\n"


def _facts(text: str = SOURCE):
    source = SourceText(text)
    return facts_mod.build(parse_source(source).tree, source)


class _Counting(Rule):
    code = "TAPE998"
    name = "counting"
    summary = "Counts its runs."
    severity = Severity.WARNING
    runs = 0
    fail = False

    @shares_findings
    def check(self, ctx: Context) -> None:
        type(self).runs += 1
        if self.fail:
            raise RuntimeError("broken")
        node = ctx.facts.tree.body[1]
        ctx.report(node, "first", fix=lambda: None)
        ctx.report(node, "second")


def _ctx(facts, severity=Severity.WARNING, fixes=True, path="a.py"):
    rule = _Counting()
    return Context(facts=facts, targets=Settings().targets(), rule=rule, severity=severity, path=path, fixes=fixes)


def test_a_second_run_on_the_same_file_replays_with_the_callers_severity_and_fix_offers():
    _Counting.runs = 0
    facts = _facts()
    first = _ctx(facts)
    _Counting().check(first)
    second = _ctx(facts, severity=Severity.ERROR)
    _Counting().check(second)
    assert _Counting.runs == 1
    assert [v.message for v in second.violations] == ["first", "second"]
    assert [v.severity for v in second.violations] == [Severity.ERROR, Severity.ERROR]
    assert [(v.code, v.range, v.message) for v in second.violations] == \
        [(v.code, v.range, v.message) for v in first.violations]
    offered = second.violations[0]
    assert set(second.fix_offers) == {id(offered)}
    assert second.fix_offers[id(offered)] is first.fix_offers[id(first.violations[0])]
    same = _ctx(facts)
    _Counting().check(same)
    assert same.violations == first.violations and same.violations[0] is first.violations[0]


def test_another_file_path_or_fixes_flag_runs_the_check_again():
    _Counting.runs = 0
    facts = _facts()
    _Counting().check(_ctx(facts))
    _Counting().check(_ctx(facts, fixes=False))
    _Counting().check(_ctx(facts, path="b.py"))
    _Counting().check(_ctx(_facts()))
    assert _Counting.runs == 4


def test_a_check_that_raised_is_not_recorded():
    _Counting.runs = 0
    facts = _facts()
    broken = _Counting()
    broken.fail = True
    for _ in range(2):
        try:
            broken.check(_ctx(facts))
        except RuntimeError:
            pass
    assert _Counting.runs == 2


def test_findings_of_an_unknown_rule_is_none():
    assert findings_of(_ctx(_facts()), "TAPE000") is None


def _examples(codes):
    for code in codes:
        for example in rule_by_code(code).examples:
            try:
                ast.parse(example.source)
            except SyntaxError:
                continue
            yield example.source


def test_the_engine_reports_what_each_rule_finds_alone():
    """Every GradientTape rule OPT001 reads, and OPT001 itself, on their own examples: the
    findings of one run with every rule on are the findings of one run per rule."""
    codes = ("OPT001", *_NONE_RULES)
    compared = 0
    for text in _examples(codes):
        together = [v for v in check_source(text, "x.py", fixes=True) if v.code in codes]
        alone = []
        for code in codes:
            alone.extend(check_source(text, "x.py", Settings(select=(code,)), fixes=True))
        key = lambda v: (v.range.start, v.code, v.message)  # noqa: E731
        # (Fixes are compared built or not: the check of a fixed text runs the rules that are on,
        # so a fix another rule's finding turns down is there when its rule runs alone.)
        def bare(found):
            return [replace(v, fix=None, fix_error=None) for v in sorted(found, key=key)]
        assert bare(together) == bare(alone)
        pairs = zip(sorted(together, key=key), sorted(alone, key=key))
        assert all(a.fix is not None for t, a in pairs if t.fix is not None)
        compared += len(together)
    assert compared > 20


def test_a_tape_rule_run_after_opt001_read_it_gets_its_own_severity():
    text = next(t for t in _examples(("TAPE015",)) if any(v.code == "TAPE015" for v in check_source(t, "x.py")))
    facts = _facts(text)
    rule = rule_by_code("TAPE015")()
    targets = Settings().targets()
    opt001 = Context(facts=facts, targets=targets, rule=rule_by_code("OPT001")(), severity=Severity.ERROR, path="x.py")
    read = findings_of(opt001, "TAPE015")
    assert read and all(v.severity == rule.severity for v in read)
    engine = Context(facts=facts, targets=targets, rule=rule, severity=Severity.HINT, path="x.py")
    rule.check(engine)
    assert [(v.range, v.message) for v in engine.violations] == [(v.range, v.message) for v in read]
    assert all(v.severity == Severity.HINT for v in engine.violations)
    settings = Settings(severity_overrides=(("TAPE015", Severity.HINT),))
    assert {v.severity for v in check_source(text, "x.py", settings) if v.code == "TAPE015"} == {Severity.HINT}
