"""The def-use layer the GradientTape rules share."""

import ast
import textwrap

from tapelsp import facts as facts_mod
from tapelsp.facts.dataflow import flow_at
from tapelsp.parse import parse_source
from tapelsp.text import SourceText


def _facts(src: str):
    source = SourceText(textwrap.dedent(src))
    return facts_mod.build(parse_source(source).tree, source)


def _gradient(facts):
    return next(c for c in facts.calls if c.method == "gradient")


TRAIN = """
import tensorflow as tf
def train(model, x, y):
    pred = model(x)
    for step in range(3):
        with tf.GradientTape() as tape:
            h = pred * 2
            with tape.stop_recording():
                log = h.numpy()
            loss = tf.reduce_mean(h - y)
            loss = loss + 1
        total = loss
        grads = tape.gradient(total, model.trainable_variables)
        pred = model(x)
"""


def test_slice_follows_assignments_loop_carried_values_and_params():
    facts = _facts(TRAIN)
    call = _gradient(facts)
    flow = flow_at(facts, call.node)
    lines = [(d.name, d.stmt.lineno) for d in flow.slice(call.node.args[0], call.node)]
    # `pred` reaches from before the loop (line 4) and from the previous iteration (line 14).
    assert lines == [("model", 3), ("x", 3), ("y", 3), ("pred", 4), ("h", 7), ("loss", 10),
                     ("loss", 11), ("total", 12), ("pred", 14)]


def test_recorded_by_knows_tape_blocks_and_stop_recording():
    facts = _facts(TRAIN)
    tape = facts.tapes[0]
    flow = flow_at(facts, _gradient(facts).node)
    assert flow.definitions("h")[0].recorded_by(tape)
    assert not flow.definitions("log")[0].recorded_by(tape)  # under tape.stop_recording()
    assert not flow.definitions("total")[0].recorded_by(tape)  # after the block
    assert [d.name for d in flow.defs_in(tape)] == ["h", "log", "loss", "loss"]


def test_reaching_takes_the_last_definition_and_other_branches():
    facts = _facts("""
    import tensorflow as tf
    x = 1
    x = 2
    if cond:
        y = x
    else:
        y = 3
    z = y
    """)
    flow = flow_at(facts, facts.tree.body[-1])
    z_use = facts.tree.body[-1].value
    assert [d.stmt.lineno for d in flow.reaching("y", z_use)] == [8, 6]
    assert [d.stmt.lineno for d in flow.reaching("x", facts.tree.body[3].body[0].value)] == [4]


def test_self_reference_is_not_its_own_definition_outside_loops():
    facts = _facts("""
    import tensorflow as tf
    v = tf.Variable(1.0)
    v = v - 0.1
    """)
    stmt = facts.tree.body[-1]
    flow = flow_at(facts, stmt)
    assert [d.stmt.lineno for d in flow.reaching("v", stmt.value)] == [3]


def test_nested_functions_have_their_own_flow():
    facts = _facts("""
    import tensorflow as tf
    x = 1
    def f():
        x = 2
        return x
    """)
    ret = facts.tree.body[-1].body[-1]
    flow = flow_at(facts, ret)
    assert flow.scope.kind == "function"
    assert [d.stmt.lineno for d in flow.reaching("x", ret.value)] == [5]
