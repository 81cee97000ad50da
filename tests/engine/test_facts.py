"""The facts pass: how TensorFlow is imported, tapes, tf.functions, bindings, mode markers.

Rules read these instead of re-resolving imports, so a wrong fact is a wrong (or missing)
finding in every rule. The last tests check the same facts end to end through FUNC001.
"""

from __future__ import annotations

import ast

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.facts import Facts, build
from tapelsp.parse import parse_source
from tapelsp.text import SourceText


def facts_of(source: str) -> Facts:
    text = SourceText(source)
    return build(parse_source(text).tree, text)


def first_expr(facts: Facts, line: int) -> ast.expr:
    """The value of the assignment (or the expression) on a 1-based line."""
    for node in ast.walk(facts.tree):
        if isinstance(node, (ast.Assign, ast.Expr)) and node.lineno == line:
            return node.value
    raise AssertionError(f"no assignment or expression on line {line}")


def resolved(source: str, expression: str) -> str | None:
    facts = facts_of(source + f"\n__probe__ = {expression}\n")
    line = source.count("\n") + 2
    value = first_expr(facts, line)
    return facts.imports.resolve(value.func if isinstance(value, ast.Call) else value)


# --- import aliases ------------------------------------------------------------------

@pytest.mark.parametrize(("imports", "expression", "expected"), [
    ("import tensorflow as tf", "tf.GradientTape", "tensorflow.GradientTape"),
    ("import tensorflow", "tensorflow.GradientTape", "tensorflow.GradientTape"),
    ("from tensorflow import GradientTape as GT", "GT", "tensorflow.GradientTape"),
    ("from tensorflow import GradientTape", "GradientTape", "tensorflow.GradientTape"),
    ("import tensorflow.compat.v1 as tf", "tf.GradientTape", "tensorflow.GradientTape"),
    ("import tensorflow as tf", "tf.compat.v1.GradientTape", "tensorflow.GradientTape"),
    ("from tensorflow.compat import v1", "v1.Variable", "tensorflow.Variable"),
    ("from tensorflow.python.eager import backprop", "backprop.GradientTape", "tensorflow.GradientTape"),
    ("import tensorflow as tf", "tf.autodiff.GradientTape", "tensorflow.GradientTape"),
    ("import tensorflow as tf\nGradientTape = tf.GradientTape", "GradientTape", "tensorflow.GradientTape"),
    ("import tensorflow as tf", "tf.function", "tensorflow.function"),
    ("from tensorflow import function", "function", "tensorflow.function"),
    ("import tensorflow as tf", "tf.map_fn", "tensorflow.map_fn"),
    # tf.keras, keras and tf_keras all mean Keras
    ("import tensorflow as tf", "tf.keras.layers.Dense", "keras.layers.Dense"),
    ("import keras", "keras.layers.Dense", "keras.layers.Dense"),
    ("import tf_keras", "tf_keras.layers.Dense", "keras.layers.Dense"),
    ("from tensorflow import keras", "keras.layers.Dense", "keras.layers.Dense"),
    ("from tensorflow.keras import layers", "layers.Dense", "keras.layers.Dense"),
    ("import keras.layers as L", "L.Dense", "keras.layers.Dense"),
    ("import tf_keras as keras", "keras.Model", "keras.Model"),
    ("import numpy as np", "np.square", "numpy.square"),
    ("import tensorflow_probability as tfp", "tfp.distributions.Normal", "tensorflow_probability.distributions.Normal"),
    # conventional aliases that snippets and notebooks use without importing
    ("", "tf.Variable", "tensorflow.Variable"),
    ("", "np.square", "numpy.square"),
    # a local `tf` that is not TensorFlow
    ("import mylib as tf", "tf.Variable", "mylib.Variable"),
    ("import math", "math.sqrt", None),
])
def test_import_aliases(imports: str, expression: str, expected: str | None) -> None:
    got = resolved(imports, expression)
    if expected is None:
        assert got is None or not got.startswith(("tensorflow", "keras")), got
    else:
        assert got == expected


def test_compat_v1_import_is_recorded() -> None:
    facts = facts_of("import tensorflow.compat.v1 as tf\n")
    assert facts.imports.v1_imported
    assert facts.has_mode("compat_v1_import")
    assert not facts_of("import tensorflow as tf\n").has_mode("compat_v1_import")


# --- tapes -------------------------------------------------------------------------------

TAPES = '''\
import tensorflow as tf
from tensorflow import GradientTape as GT

x = tf.constant(1.0)
with tf.GradientTape(persistent=True, watch_accessed_variables=False) as outer:
    with GT(True) as inner:
        y = x * x
    g = inner.gradient(y, x)
h = outer.gradient(g, x)
h2 = outer.jacobian(g, x)
for step in range(3):
    while True:
        with tf.GradientTape() as looped:
            pass
tape = tf.GradientTape()
with tape:
    pass
with tf.GradientTape(persistent=flag) as unknown:
    pass
'''


def _tape(facts: Facts, name: str, line: int | None = None):
    found = [t for t in facts.tapes if t.name == name and (line is None or t.node.lineno == line)]
    assert found, f"no tape {name!r} (line {line}); tapes: {[(t.name, t.node.lineno) for t in facts.tapes]}"
    return found[0]


def test_tape_options_and_nesting() -> None:
    facts = facts_of(TAPES)
    outer, inner = _tape(facts, "outer"), _tape(facts, "inner")
    assert outer.option("persistent") is True and outer.option("watch_accessed_variables") is False
    assert inner.option("persistent") is True, "persistent passed positionally"
    assert inner.option("watch_accessed_variables") is True, "the default"
    assert inner.parent is outer and outer.parent is None
    assert _tape(facts, "unknown").option("persistent") is None, "not a literal: unknown"
    assert [t.node.lineno for t in facts.tapes if t.item is not None] == [5, 6, 13, 16, 18]


def test_tape_extent_and_calls() -> None:
    facts = facts_of(TAPES)
    outer, inner = _tape(facts, "outer"), _tape(facts, "inner")
    assert [stmt.lineno for stmt in outer.body] == [6, 8]
    assert [stmt.lineno for stmt in inner.body] == [7]
    assert [c.node.lineno for c in outer.uses("gradient", "jacobian")] == [9, 10]
    assert [c.node.lineno for c in inner.uses("gradient")] == [8]


def test_tapes_in_loops() -> None:
    facts = facts_of(TAPES)
    looped = _tape(facts, "looped")
    assert [type(loop).__name__ for loop in looped.loops] == ["For", "While"]
    assert _tape(facts, "outer").loops == ()


def test_tape_object_bound_then_entered() -> None:
    facts = facts_of(TAPES)
    bound = [t for t in facts.tapes if t.name == "tape"]
    assert [t.item is None for t in bound] == [True, False], "the binding, then the `with tape:` block"
    assert any(b.name == "tape" and b.kind == "tape" for b in facts.bindings)


def test_attribute_named_tape_and_calls_inside_the_block() -> None:
    facts = facts_of('''\
import tensorflow as tf
class Agent:
    def update(self, x):
        with tf.GradientTape() as self.tape:
            y = tf.square(x)
        return self.tape.gradient(y, x)
''')
    tape = _tape(facts, "self.tape")
    assert tape.scope.kind == "function"
    assert [c.node.lineno for c in tape.uses("gradient")] == [6]
    square = facts.calls_to("tensorflow.square")
    assert len(square) == 1 and square[0].tapes == (tape,)


# --- tf.function -------------------------------------------------------------------------

FUNCTIONS = '''\
import tensorflow as tf

@tf.function
def plain(x):
    return x

@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)], reduce_retracing=True,
             autograph=False, jit_compile=True)
def configured(x):
    return x

@tf.function(experimental_relax_shapes=True)
def relaxed(x):
    return x

def later(x):
    return x

wrapped = tf.function(later, reduce_retracing=True)
anonymous = tf.function(lambda z: z * 2)

class Trainer:
    def __init__(self):
        self.step = tf.function(self._step, jit_compile=True)

    def _step(self, x):
        def helper(y):
            return y
        return helper(x)

def untraced(x):
    return x
'''


def _function(facts: Facts, name: str):
    for tf_function in facts.tf_functions:
        node = tf_function.node
        label = getattr(node, "name", "lambda" if isinstance(node, ast.Lambda) else None)
        if label == name:
            return tf_function
    raise AssertionError(f"no tf.function for {name}; have {[getattr(f.node, 'name', f.node) for f in facts.tf_functions]}")


def test_decorated_functions() -> None:
    facts = facts_of(FUNCTIONS)
    plain = _function(facts, "plain")
    assert plain.kind == "decorator" and plain.input_signature is None
    assert plain.flag("autograph") is None and plain.flag("jit_compile") is None
    configured = _function(facts, "configured")
    assert "TensorSpec" in ast.unparse(configured.input_signature)
    assert configured.flag("reduce_retracing") is True
    assert configured.flag("autograph") is False
    assert configured.flag("jit_compile") is True
    assert _function(facts, "relaxed").flag("reduce_retracing") is True, "the pre-2.9 name"


def test_tf_function_calls() -> None:
    facts = facts_of(FUNCTIONS)
    later = _function(facts, "later")
    assert later.kind == "call" and later.flag("reduce_retracing") is True
    assert _function(facts, "lambda").kind == "call"
    step = _function(facts, "_step")
    assert step.kind == "call" and step.flag("jit_compile") is True
    assert any(b.name == "self.step" and b.kind == "tf_function" for b in facts.bindings)


def test_which_scopes_are_traced() -> None:
    facts = facts_of(FUNCTIONS)
    by_name = {getattr(node, "name", None): scope for node, scope in facts.function_scopes.items()}
    for traced in ("plain", "configured", "later", "_step", "helper"):
        assert by_name[traced].traced_by is not None, traced
    for untraced in ("untraced", "__init__"):
        assert by_name[untraced].traced_by is None, untraced
    assert by_name["helper"].traced_by is _function(facts, "_step"), "a def inside a traced function is traced"


def test_positional_options_of_the_call_form() -> None:
    facts = facts_of('''\
import tensorflow as tf
def f(x):
    return x
g = tf.function(f, [tf.TensorSpec([None])], False, True, True)
''')
    g = _function(facts, "f")
    assert g.input_signature is not None and "TensorSpec" in ast.unparse(g.input_signature)
    assert (g.flag("autograph"), g.flag("jit_compile"), g.flag("reduce_retracing")) == (False, True, True)


# --- bindings ------------------------------------------------------------------------------

BINDINGS = '''\
import tensorflow as tf
import keras
import tf_keras
from tensorflow.keras import Model

class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(3)
        self.w = tf.Variable(0.0)

class Deeper(Net):
    pass

class Block(keras.layers.Layer):
    pass

class Functional(Model):
    pass

class Counter(tf.Module):
    pass

class Plain:
    pass

v = tf.Variable(1.0)
v1 = tf.compat.v1.Variable(1.0)
m1 = keras.Sequential()
m2 = tf.keras.Sequential()
m3 = tf_keras.Sequential()
m4 = tf.keras.applications.MobileNetV2()
layer = keras.layers.Dense(4)
opt = tf.keras.optimizers.Adam(1e-3)
opt3 = keras.optimizers.SGD()
schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 100, 0.9)
metric = keras.metrics.Mean()
net = Net()
deeper = Deeper()
block = Block()
plain = Plain()
number = 3
'''


def test_bindings_of_tensorflow_objects() -> None:
    facts = facts_of(BINDINGS)
    kinds = {b.name: b.kind for b in facts.bindings}
    assert kinds == {
        "self.dense": "layer", "self.w": "variable", "v": "variable", "v1": "variable",
        "m1": "model", "m2": "model", "m3": "model", "m4": "model", "layer": "layer",
        "opt": "optimizer", "opt3": "optimizer", "metric": "metric",
        "net": "model", "deeper": "model", "block": "layer",
    }


def test_classes_deriving_from_keras_and_tf_module() -> None:
    facts = facts_of(BINDINGS)
    assert facts.class_kinds == {"Net": "model", "Deeper": "model", "Block": "layer", "Functional": "model",
                                 "Counter": "module"}


def test_tf_optimizers_alias_is_an_optimizer() -> None:
    facts = facts_of("import tensorflow as tf\nopt = tf.optimizers.Adam()\n")
    assert [(b.name, b.kind) for b in facts.bindings] == [("opt", "optimizer")]


# --- mode markers ----------------------------------------------------------------------------

@pytest.mark.parametrize(("source", "kinds"), [
    ("import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n", ["disable_eager_execution"]),
    ("import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\n", ["disable_v2_behavior"]),
    ("import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n", ["compat_v1_import", "disable_v2_behavior"]),
    ("from tensorflow.compat.v1 import disable_eager_execution\ndisable_eager_execution()\n",
     ["compat_v1_import", "disable_eager_execution"]),
    ("import tensorflow as tf\ntf.compat.v1.disable_control_flow_v2()\n", ["disable_control_flow_v2"]),
    ("import tensorflow as tf\nsess = tf.compat.v1.Session()\n", ["session"]),
    ("import tensorflow as tf\nx = tf.compat.v1.placeholder(tf.float32)\n", ["placeholder"]),
    ("import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n", []),
    ("import tensorflow as tf\nx = tf.constant(1.0)\n", []),
])
def test_mode_markers(source: str, kinds: list[str]) -> None:
    assert [m.kind for m in facts_of(source).modes] == kinds


# --- the same facts, end to end ----------------------------------------------------------------

@pytest.mark.parametrize("source", [
    "import tensorflow as tf\n@tf.function\ndef f(x):\n    return tf.Variable(1.0) * x\n",
    "from tensorflow import function, Variable\n@function(jit_compile=True)\ndef f(x):\n    return Variable(1.0) * x\n",
    "import tensorflow.compat.v1 as tf\n@tf.function\ndef f(x):\n    return tf.Variable(1.0) * x\n",
    "import tensorflow as tf\nstep = tf.function(f)\ndef f(x):\n    return tf.Variable(1.0) * x\n",
    "import tensorflow as tf\nclass T:\n    def __init__(self):\n        self.step = tf.function(self._step)\n"
    "    def _step(self, x):\n        return tf.Variable(1.0) * x\n",
    "@tf.function\ndef f(x):\n    return tf.Variable(1.0) * x\n",
], ids=["decorator", "from-import", "compat-v1", "call-before-def", "method", "no-import"])
def test_func001_sees_every_way_of_making_a_tf_function(source: str) -> None:
    findings = tapelsp.check_source(source, "f.py", Settings(tensorflow_version="2.21"))
    assert [v.code for v in findings if v.code.startswith(("FUNC001", "TL"))] == ["FUNC001"], findings


def test_a_local_module_called_tf_is_not_tensorflow() -> None:
    source = "import mylib as tf\n@tf.function\ndef f(x):\n    return tf.Variable(1.0) * x\n"
    assert tapelsp.check_source(source, "f.py", Settings(tensorflow_version="2.21")) == []


def test_tf_function_of_a_method_reached_through_attributes() -> None:
    """`tf.function(agent.collect_policy.action)`: `agent` is an `Agent(...)`, whose methods set
    `self.collect_policy` to a `Policy(...)` only: the call traces `Policy.action`. An attribute
    set to instances of two classes leaves the target unknown."""
    source = (
        "import tensorflow as tf\n\n"
        "class Policy:\n"
        "    def action(self, x):\n"
        "        return x\n\n"
        "class Other:\n"
        "    def action(self, x):\n"
        "        return -x\n\n"
        "class Agent:\n"
        "    def __init__(self, greedy):\n"
        "        self.collect_policy = Policy()\n"
        "        self.mixed = Policy() if greedy else Other()\n\n"
        "agent = Agent(True)\n"
        "act = tf.function(agent.collect_policy.action)\n"
        "mixed = tf.function(agent.mixed.action)\n"
    )
    facts = facts_of(source)
    by_line = {f.origin.lineno: f for f in facts.tf_functions if f.kind == "call"}
    traced = by_line[17].node
    assert isinstance(traced, ast.FunctionDef) and traced.name == "action" and traced.lineno == 4
    assert by_line[18].node is None
