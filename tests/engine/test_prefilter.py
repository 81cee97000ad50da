"""The pre-parse filter (tapelsp/prefilter.py) changes no finding: every rule example gives
the same findings with it as without it, files are skipped only when no enabled rule can fire,
and every analysing rule declares its triggers."""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings, prefilter
from tapelsp import engine
from tapelsp.rules import all_rules

from .test_rule_examples import CASES, DEFAULT_TF, IDS, runtime_only


@pytest.fixture
def unfiltered(monkeypatch):
    """check_source with the filter off: every file parsed, every rule run."""

    def run(*args, **kwargs):
        with monkeypatch.context() as patch:
            patch.setattr(prefilter, "worth_parsing", lambda text, rules, syntax: True)
            patch.setattr(prefilter, "rules_to_run", lambda text, rules: list(rules))
            return tapelsp.check_source(*args, **kwargs)

    return run


@pytest.mark.parametrize(("rule", "example"), CASES, ids=IDS)
def test_every_rule_example_gives_the_same_findings_without_the_filter(rule, example, unfiltered):
    settings = Settings(tensorflow_version=example.tensorflow_version or DEFAULT_TF)
    filtered = tapelsp.check_source(example.source, "example.py", settings, fixes=True)
    assert filtered == unfiltered(example.source, "example.py", settings, fixes=True)


ANALYSING = [rule for rule in all_rules() if not rule.code.startswith("TL") and not runtime_only(rule)]


@pytest.mark.parametrize("rule", ANALYSING, ids=lambda rule: rule.code)
def test_every_analysing_rule_declares_triggers_its_invalid_examples_contain(rule):
    assert rule.triggers, f"{rule.code} declares no triggers: files would be parsed for it only by chance"
    for example in rule.examples:
        if not example.valid:
            assert prefilter.may_fire(example.source, rule.triggers), (rule.code, example.title)


def test_rules_without_triggers_are_only_the_probes_and_meta_codes():
    silent = {rule.code for rule in all_rules() if not rule.triggers}
    assert silent == {rule.code for rule in all_rules() if rule.code.startswith("TL") or runtime_only(rule)}


@pytest.fixture
def parses(monkeypatch):
    seen = []
    real = engine.parse_source

    def counting(source, path):
        seen.append(path)
        return real(source, path)

    monkeypatch.setattr(engine, "parse_source", counting)
    return seen


def test_a_file_no_rule_can_fire_on_is_not_parsed(parses):
    assert tapelsp.check_source("import os\nx = os.getcwd()\n", "a.py") == []
    assert parses == []


def test_a_file_mentioning_tensorflow_is_parsed_for_its_syntax_errors(parses):
    found = tapelsp.check_source("import tensorflow as tf\nx = (\n", "a.py")
    assert [v.code for v in found] == ["TL001"] and parses == ["a.py"]
    # ... unless syntax errors are not wanted and no rule has a trigger in it
    parses.clear()
    assert tapelsp.check_source("import tensorflow as tf\nx = (\n", "a.py", Settings(ignore=("TL001",))) == []
    assert parses == []


def test_only_the_rules_with_a_trigger_in_the_file_run(monkeypatch):
    ran = []
    real_rules = prefilter.rules_to_run

    def recording(text, rules):
        chosen = real_rules(text, rules)
        ran.extend(rule.code for rule in chosen)
        return chosen

    monkeypatch.setattr(prefilter, "rules_to_run", recording)
    source = "import tensorflow as tf\n\ndef f(x):\n    return tf.map_fn(lambda v: v * 2, x)\n"
    found = tapelsp.check_source(source, "a.py")
    assert [v.code for v in found] == ["MAP002"]
    searched = {rule.code for rule in all_rules() if rule.triggers and not rule.cheap_without_triggers}
    # A rule whose triggers are searched for runs only where one is: no tape rule of those.
    assert "MAP002" in ran and "TAPE001" in searched and not searched & {"TAPE001", "TAPE002", "TAPE005"} & set(ran)
    # The cheap ones run on every file that gets a facts pass, their triggers present or not.
    assert {"TAPE012", "TNS001", "FUNC005"} <= set(ran)


def test_cheap_rules_run_without_their_triggers_only_where_the_facts_pass_runs_anyway():
    rules = engine.enabled_rules(Settings(), None, Settings().targets())
    cheap = {rule.code for rule in rules if rule.triggers and rule.cheap_without_triggers}
    assert {"MAP002", "TNS001", "FUNC005"} <= cheap and "TAPE011" not in cheap

    def chosen(text):
        return {rule.code for rule in prefilter.rules_to_run(text, rules) if rule.triggers}

    # `Variable` is searched for (TAPE011): every cheap rule runs beside it.
    assert chosen("import tensorflow as tf\nv = tf.Variable(1.0)\n") == cheap | {"TAPE011"}
    # Only a cheap rule's trigger (`map_fn`): the cheap rules, and none whose triggers are searched.
    assert chosen("import tensorflow as tf\ny = tf.map_fn(f, x)\n") == cheap
    # No trigger at all: no rule that looks at code (the engine then builds no facts).
    assert chosen("import tensorflow as tf\nprint(tf.__version__)\n") == set()


@pytest.mark.parametrize("source", [
    # an alias still spells the trigger
    "from tensorflow import GradientTape as GT\nimport tensorflow as tf\nx = tf.constant(1.0)\n"
    "with GT() as t:\n    t.watch(x)\n    y = x * x\n    with GT() as t:\n        d = t.gradient(y, x)\n",
    # TensorFlow's internal module names
    "from tensorflow.python.eager import backprop\nimport tensorflow as tf\nx = tf.constant(1.0)\n"
    "with backprop.GradientTape() as t:\n    t.watch(x)\n    y = x * x\n    with backprop.GradientTape() as t:\n"
    "        d = t.gradient(y, x)\n",
])
def test_aliases_and_internal_names_still_reach_the_rules(source, unfiltered):
    filtered = tapelsp.check_source(source, "a.py")
    assert filtered == unfiltered(source, "a.py")
    assert "TAPE001" in {v.code for v in filtered}


def test_a_file_parsed_only_for_syntax_errors_gets_no_facts_pass(monkeypatch, parses):
    built = []
    real = engine.facts_mod.build

    def counting(tree, *args, **kwargs):
        built.append(tree)
        return real(tree, *args, **kwargs)

    monkeypatch.setattr(engine.facts_mod, "build", counting)
    assert tapelsp.check_source("import tensorflow as tf\nprint(tf.__version__)\n", "a.py") == []
    assert parses == ["a.py"] and built == []
    assert tapelsp.check_source("import tensorflow as tf\nv = tf.Variable(1)\n", "b.py") == []
    assert parses == ["a.py", "b.py"] and len(built) == 1  # FUNC001/TAPE011's trigger `Variable`
