"""analysis/traced.py: which bodies a tf.function's trace runs."""

from __future__ import annotations

import ast
import textwrap

from tapelsp.analysis.traced import traced_functions
from tapelsp.analysis.values import values_of
from tapelsp.facts.build import build
from tapelsp.text import SourceText

SOURCE = textwrap.dedent("""
    import tensorflow as tf

    def helper(x):
        return x * 2.0

    class Elman(tf.Module):
        def __call__(self, x):
            return self.step(x)

        def step(self, x):
            return x + 1.0

    class Agent:
        def act(self, x):
            return x

    rnn = Elman()
    agent = Agent()

    @tf.function
    def train_step(x):
        return rnn(helper(x)) + agent.act(x)
""")


def _names(found) -> set[str]:
    return {getattr(node, "name", "lambda") for node in found}


def test_a_trace_runs_the_helpers_it_calls_by_name_and_through_self():
    facts = build(ast.parse(SOURCE), SourceText(SOURCE))
    [tf_function] = facts.tf_functions
    assert _names(traced_functions(facts, tf_function)) == {"train_step", "helper"}


def test_with_the_value_model_it_runs_what_instances_hold():
    facts = build(ast.parse(SOURCE), SourceText(SOURCE))
    [tf_function] = facts.tf_functions
    found = traced_functions(facts, tf_function, values_of(facts))
    assert _names(found) == {"train_step", "helper", "__call__", "step", "act"}


def test_keras_step_methods_are_traces_and_untraced_files_answer_at_once():
    from tapelsp.analysis.traced import keras_traces, trace_of

    source = textwrap.dedent("""
        import keras

        class Net(keras.Model):
            def train_step(self, data):
                def inner(x):
                    return x
                return inner(data)

            def helper(self, x):
                return x
    """)
    facts = build(ast.parse(source), SourceText(source))
    values = values_of(facts)
    [(trace, bodies)] = keras_traces(values)
    assert trace.keras and trace.node.name == "train_step" and _names(bodies) == {"train_step", "inner"}
    helper = facts.classes["Net"].body[1]
    assert trace_of(values, facts.function_scopes[helper]) is None
    plain = "def f(x):\n    return x.sum()\n"
    facts = build(ast.parse(plain), SourceText(plain))
    assert trace_of(values_of(facts), facts.function_scopes[facts.tree.body[0]], combinators=True) is None
    assert facts.__dict__["_traces"] == {}
