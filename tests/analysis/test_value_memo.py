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

