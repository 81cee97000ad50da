"""The value model's memo survives nodes that rules build to ask a question.

Rules ask about expressions that are not in the tree (`ast.Name(obj)` then
`ast.Attribute(ast.Name(obj), "n")`, FUNC007's object counters). Such a node is freed after its
question, and CPython gives the next node of the same size the same address: a memo keyed by
`id(node)` answered the second question with the first one's value, so whether FUNC007 reported
`counter.calls += 1` depended on what the allocator did (the incremental checker's test failed
under pytest, not alone).
"""

from __future__ import annotations

import ast
import gc
import textwrap

from tapelsp.analysis.values import values_of
from tapelsp.facts.build import build
from tapelsp.text import SourceText

SOURCE = textwrap.dedent("""\
    import tensorflow as tf

    class Stats:
        def __init__(self):
            self.calls = 0

    stats = Stats()
    value = stats.calls
    """)


def test_a_freed_question_node_does_not_answer_for_the_next_one():
    tree = ast.parse(SOURCE)
    model = values_of(build(tree, SourceText(SOURCE)))
    scope = model.scope_at(tree.body[-1])
    where = dict(lineno=8, col_offset=8)
    for _ in range(200):
        holder = ast.Name("stats", ast.Load(), **where)
        first = model.value(holder, scope)
        del holder
        gc.collect()
        read = ast.Attribute(ast.Name("stats", ast.Load(), **where), "calls", ast.Load(), **where)
        assert first.kind == "instance"
        assert model.value(read, scope).kind == "number", "the attribute was answered with the object's value"



ORDER_SOURCE = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf

    class Gated(tf.Module):
        def __init__(self):
            super().__init__()
            self.gate = tf.keras.layers.Dense(1)
            self.head = tf.keras.layers.Dense(1)

        def __call__(self, x):
            gate_prob = tf.sigmoid(self.gate(x))
            share = tf.reduce_mean((gate_prob > 0.5).astype("float32"))
            return gate_prob * self.head(x) + share

    def main():
        x = np.ones((4, 3), np.float32)
        y = np.zeros((4, 1), np.float32)
        net = Gated()
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((net(x) - y) ** 2)
        return tape.gradient(loss, net.gate.kernel)

    main()
    """)


def test_an_answer_worked_out_inside_another_cycle_is_not_kept():
    # What `gate_prob > 0.5` holds must not depend on what was asked first. Asking for `loss`
    # (the one `tape.gradient` reads) evaluates `x` in `__call__` through its callers, which looks at every call of the file,
    # `(gate_prob > 0.5).astype(...)` too, while `gate_prob` is itself being worked out: that
    # read of `gate_prob` is a cycle, and it was kept as unknown for every later question.
    tree = ast.parse(ORDER_SOURCE)
    model = values_of(build(tree, SourceText(ORDER_SOURCE)))
    compare = next(node for node in ast.walk(tree) if isinstance(node, ast.Compare))
    loss = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "loss"][-1]
    model.value(loss, model.scope_at(loss))
    assert model.value(compare, model.scope_at(compare)).kind == "tensor"
