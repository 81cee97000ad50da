"""The per-file indexes rules query instead of walking the tree again: each must give
exactly what the walk it replaces gives, on every example the rules document and on
files with the shapes the indexes special-case (decorators, handlers, match, nesting)."""

import ast
import random

from tapelsp import facts as facts_mod
from tapelsp.facts.walk import body_nodes, body_statements, statements_breadth_first, walk_body
from tapelsp.parse import parse_source
from tapelsp.rules import all_rules
from tapelsp.analysis.guards import _Parents
from tapelsp.analysis.python_state import file_state, own_nodes
from tapelsp.text import SourceText

SHAPES = '''
import tensorflow as tf

@tf.function(
    reduce_retracing=True)
def step(x, y=tf.constant(1.0)):
    try:
        with tf.GradientTape() as tape:
            z = x * y
    except (ValueError, KeyError) as error:
        z: float = 0.0
    else:
        z += 1
    finally:
        pass
    match z:
        case 1:
            w = 2
        case _:
            w = [v for v in range(3)]
    def inner(a, b=lambda q: q + 1):
        class Local:
            attr = 1
            def method(self):
                self.attr = tf.Variable(1.0)
        return Local
    return tape.gradient(z, x), w, inner

class Model(tf.keras.Model):
    def call(self, x):
        if x is None:
            for i in range(2):
                while i:
                    i -= 1
        return x
'''


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def _sources() -> list[str]:
    found = [SHAPES]
    for rule in all_rules():
        found.extend(example.source for example in rule.examples if _parses(example.source))
    return found


def _facts(text: str):
    source = SourceText(text)
    return facts_mod.build(parse_source(source).tree, source)


SOURCES = _sources()


def test_statements_breadth_first_meets_statements_in_ast_walk_order():
    kinds = (ast.stmt, ast.excepthandler, ast.match_case)
    for text in SOURCES:
        tree = ast.parse(text)
        expected = [n for n in ast.walk(tree) if isinstance(n, kinds)]
        assert [n for n in statements_breadth_first(tree) if n is not tree] == expected


def test_lazy_parent_map_answers_like_the_whole_map():
    rng = random.Random(7)
    for text in SOURCES:
        tree = ast.parse(text)
        whole: dict = {}
        stack = [tree]
        while stack:
            node = stack.pop()
            for child in ast.iter_child_nodes(node):
                whole[child] = node
                stack.append(child)
        nodes = list(ast.walk(tree))
        rng.shuffle(nodes)
        lazy = _Parents(tree)
        for node in nodes:
            assert lazy.get(node) is whole.get(node), ast.dump(node)[:80]
        assert lazy.get(ast.Name(id="elsewhere", lineno=1, col_offset=0)) is None


def test_lazy_parent_map_fills_only_the_statements_asked_about():
    tree = ast.parse(SHAPES)
    lazy = _Parents(tree)
    decorator = tree.body[1].decorator_list[0]
    assert lazy.get(decorator) is tree.body[1]
    assert lazy.filled == {1} and not lazy.whole


def test_tapes_in_is_the_scope_filter_over_tapes():
    for text in SOURCES:
        facts = _facts(text)
        for scope in facts.scopes:
            assert facts.tapes_in(scope) == [t for t in facts.tapes if t.scope is scope]


def test_body_nodes_are_walk_body_filtered_in_order():
    types = (ast.Assign, ast.Call, ast.If)
    statements = (ast.stmt, ast.excepthandler, ast.match_case)
    for text in SOURCES:
        facts = _facts(text)
        owners = [facts.tree, *facts.function_scopes,
                  *(n for n in ast.walk(facts.tree) if isinstance(n, (ast.For, ast.ClassDef)))]
        for owner in owners:
            body = owner.body if isinstance(getattr(owner, "body", None), list) else []
            assert body_nodes(facts, owner) == list(walk_body(body))
            assert body_nodes(facts, owner, types) == [n for n in walk_body(body) if isinstance(n, types)]
            # body_statements: the same statements, found without visiting the expressions
            assert sorted(map(id, body_statements(owner))) == \
                sorted(id(n) for n in walk_body(body) if isinstance(n, statements))


def test_own_nodes_shared_per_file_are_own_nodes():
    for text in SOURCES:
        facts = _facts(text)
        state = file_state(facts)
        for scope in facts.scopes:
            assert state.own(scope.node) == list(own_nodes(scope.node))
            assert state.own(scope.node, (ast.Call,)) == [n for n in own_nodes(scope.node) if isinstance(n, ast.Call)]


def test_names_used_is_computed_once():
    from tapelsp.facts.dataflow import _walk_same_scope, flow_of

    for text in SOURCES:
        facts = _facts(text)
        for scope in facts.scopes:
            for d in flow_of(facts, scope).ordered:
                first = d.names_used()
                assert d.names_used() is first
                loads = [n for n in _walk_same_scope(d.value) if isinstance(n, ast.Name)
                         and isinstance(n.ctx, ast.Load)] if d.value is not None else []
                assert first[:len(loads)] == loads
                assert len(first) == len(loads) + (d.kind == "augassign" and d.value is not None)


def test_children_are_iter_child_nodes_in_order():
    from tapelsp.facts.walk import children

    for text in SOURCES:
        for node in ast.walk(ast.parse(text)):
            assert children(node) == list(ast.iter_child_nodes(node))


def test_breadth_first_is_ast_walk_without_the_nodes_that_hold_nothing():
    from tapelsp.facts.walk import breadth_first

    for text in SOURCES:
        tree = ast.parse(text)
        walked = list(ast.walk(tree))
        kept = breadth_first(tree)
        ids = {id(n) for n in kept}
        assert [n for n in walked if id(n) in ids] == kept
        dropped = [n for n in walked if id(n) not in ids]
        assert all(not list(ast.iter_child_nodes(n)) for n in dropped)
        assert not any(isinstance(n, (ast.stmt, ast.expr, ast.excepthandler, ast.keyword, ast.arg)) for n in dropped)
