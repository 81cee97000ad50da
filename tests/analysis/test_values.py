"""The value model (analysis/values.py) on its own: the kind, dtype and confidence of
expressions, at least one test per family of APIs in the library table."""

from __future__ import annotations

import ast
import textwrap

import pytest

from tapelsp.analysis import library
from tapelsp.analysis.values import Value, values_of
from tapelsp.facts.build import build
from tapelsp.text import SourceText


def value_at(source: str, line: int, target: str | None = None) -> Value:
    """The value assigned on `line` (to `target`, else to the statement's first target), or
    of the expression statement there."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    facts = build(tree, SourceText(source))
    model = values_of(facts)
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != line:
            continue
        if isinstance(node, ast.Assign) and (target is None or any(ast.unparse(t) == target for t in node.targets)):
            if isinstance(node.targets[0], ast.Tuple) and target is not None:
                continue
            return model.value(node.value)
        if isinstance(node, ast.Expr):
            return model.value(node.value)
    raise AssertionError(f"no assignment on line {line}")


def name_after(source: str, name: str) -> Value:
    """The value of `name` at the end of the module."""
    source = textwrap.dedent(source) + f"\n{name}\n"
    tree = ast.parse(source)
    facts = build(tree, SourceText(source))
    model = values_of(facts)
    return model.value(tree.body[-1].value)


def kind(value: Value) -> tuple[str, str | None, str]:
    return value.kind, value.dtype, value.confidence


# --- the table ------------------------------------------------------------------------------

def test_the_table_has_the_names_people_use_most():
    names = [row.name for row in library.rows() if not row.name.startswith("@")]
    assert len(names) >= 300
    assert len(set(names)) == len(names)
    for name in ("tensorflow.reduce_sum", "tensorflow.nn.relu", "tensorflow.linalg.matmul", "tensorflow.random.normal",
                 "tensorflow.image.resize", "keras.layers.{C}", "keras.optimizers.{C}", "keras.losses.{C}",
                 "numpy.linspace", "numpy.random.normal", "tensorflow_probability.distributions.{C}",
                 "tensorflow_probability.bijectors.{C}", "tensorflow_probability.util.TransformedVariable"):
        assert name in names, name


def test_patterns_cover_a_namespace_and_exact_rows_win():
    assert library.api("tensorflow.math.xlogy").kind == "tensor"          # tensorflow.math.{f}
    assert library.api("tensorflow.math.argmax").grad == "no"             # exact row
    assert library.api("keras.layers.Dense").kind == "layer"              # keras.layers.{C}
    assert library.api("keras.layers.concatenate").kind == "tensor"       # keras.layers.{f}
    assert library.api("tensorflow.assert_rank").kind == "none"           # tensorflow.assert_*
    assert library.api("tensorflow.config.list_physical_devices") is None  # no row: unknown
    assert library.api("tensorflow._private") is None


def test_rows_say_what_is_random_trace_time_python_eager_only_and_leaves_tensorflow():
    assert library.api("numpy.random.normal").has("random") and library.api("numpy.random.normal").has("trace_python")
    assert library.api("tensorflow.random.normal").has("random")
    assert not library.api("tensorflow.random.normal").has("trace_python")
    assert library.api("builtins.print").has("trace_python")
    assert library.api("time.time").has("trace_python")
    assert library.method("tensor", "numpy").has("eager_only") and library.method("tensor", "numpy").grad == "leave"
    assert library.method("tensor", "astype").has("numpy_only")
    assert library.api("tensorflow.Variable").has("creates")
    assert library.method("variable", "assign_add").has("stateful")
    assert library.api("tensorflow.stop_gradient").grad == "stop"
    assert library.api("tensorflow.map_fn").traced_fn == (0,)
    assert library.method("dataset", "map").traced_fn == (0,)
    assert library.api("tensorflow.py_function").py_callback == (0,)


# --- Python values -------------------------------------------------------------------------

@pytest.mark.parametrize("expr, expected", [
    ("3", ("number", "int", "certain")),
    ("3.0", ("number", "float", "certain")),
    ("True", ("number", "bool", "certain")),
    ("1 / 2", ("number", "float", "certain")),
    ("2 * 3", ("number", "int", "certain")),
    ("'a' + 'b'", ("str", None, "certain")),
    ("None", ("none", None, "certain")),
    ("[1.0, 2.0]", ("list", None, "certain")),
    ("(1, 'a')", ("tuple", None, "certain")),
    ("{'a': 1}", ("dict", None, "certain")),
    ("len([1])", ("number", "int", "certain")),
    ("float('1')", ("number", "float", "certain")),
])
def test_python_values(expr, expected):
    assert kind(value_at(f"x = {expr}\n", 1)) == expected


def test_elements_of_lists_and_tuples():
    source = """
        temps = [0.3, 0.5, 0.7]
        for t in temps:
            y = t
        a, b = 1, "s"
    """
    assert kind(value_at(source, 4)) == ("number", "float", "certain")
    assert kind(name_after(source, "a")) == ("number", "int", "certain")
    assert kind(name_after(source, "b")) == ("str", None, "certain")


# --- tf.* -----------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, expected", [
    ("tf.constant(3.0)", ("tensor", "float32", "certain")),
    ("tf.constant(3)", ("tensor", "int32", "certain")),
    ("tf.constant([1, 2])", ("tensor", "int32", "certain")),
    ("tf.constant([1.0, 2])", ("tensor", "float32", "certain")),
    ("tf.constant(3, dtype=tf.float64)", ("tensor", "float64", "certain")),
    ("tf.constant(np.ones(3))", ("tensor", "float64", "certain")),
    ("tf.constant(np.ones(3, dtype=np.float32))", ("tensor", "float32", "certain")),
    ("tf.convert_to_tensor(np.linspace(0, 1, 5)[:, None], dtype=tf.float32)", ("tensor", "float32", "certain")),
    ("tf.range(10)", ("tensor", "int32", "certain")),
    ("tf.range(10.0)", ("tensor", "float32", "certain")),
    ("tf.range(10, dtype=tf.float32)", ("tensor", "float32", "certain")),
    ("tf.reshape(tf.range(0, 10), [-1, 1])", ("tensor", "int32", "certain")),
    ("tf.expand_dims(tf.range(3), 0)[0]", ("tensor", "int32", "certain")),
    ("tf.cast(tf.range(3), tf.float32)", ("tensor", "float32", "certain")),
    ("tf.zeros([3])", ("tensor", "float32", "certain")),
    ("tf.fill([2], 1)", ("tensor", "int32", "certain")),
    ("tf.argmax(tf.zeros([3]))", ("tensor", "int64", "certain")),
    ("tf.argmax(tf.zeros([3]), output_type=tf.int32)", ("tensor", "int32", "certain")),
    ("tf.shape(tf.zeros([3]))", ("tensor", "int32", "certain")),
    ("tf.range(3) / 2", ("tensor", "float64", "certain")),
    ("tf.zeros([3]) > 0.5", ("tensor", "bool", "certain")),
    ("tf.zeros([3]) * 2", ("tensor", "float32", "certain")),
])
def test_tensorflow_tensors_and_their_dtypes(expr, expected):
    source = f"import numpy as np\nimport tensorflow as tf\nx = {expr}\n"
    assert kind(value_at(source, 3)) == expected


@pytest.mark.parametrize("expr, expected", [
    ("tf.math.log(tf.ones([2]))", ("tensor", "float32", "certain")),        # tf.math
    ("tf.nn.softmax(tf.ones([2], tf.float64))", ("tensor", "float64", "certain")),  # tf.nn
    ("tf.linalg.inv(tf.eye(2))", ("tensor", "float32", "certain")),         # tf.linalg
    ("tf.random.uniform([2], dtype=tf.float16)", ("tensor", "float16", "certain")),  # tf.random
    ("tf.image.decode_png(b'')", ("tensor", "uint8", "certain")),           # tf.image
    ("tf.image.resize(tf.zeros([1, 4, 4, 3], tf.uint8), (2, 2))", ("tensor", "float32", "certain")),
])
def test_each_tensorflow_namespace(expr, expected):
    source = f"import tensorflow as tf\nx = {expr}\n"
    assert kind(value_at(source, 2)) == expected


def test_variables_and_their_options():
    source = """
        import tensorflow as tf
        a = tf.Variable(0)
        b = tf.Variable(1.0, trainable=False)
        c = tf.Variable(tf.zeros([2]), dtype=tf.float64)
    """
    a, b, c = value_at(source, 3), value_at(source, 4), value_at(source, 5)
    assert kind(a) == ("variable", "int32", "certain") and a.trainable is True
    assert kind(b) == ("variable", "float32", "certain") and b.trainable is False
    assert kind(c) == ("variable", "float64", "certain")


def test_tensors_made_from_data_and_computed_from_variables():
    source = """
        import numpy as np
        import tensorflow as tf
        w = tf.Variable(1.0)
        x = tf.constant(np.linspace(-1, 1, 21)[:, None], dtype=tf.float32)
        y = w * x
        z = x * 2.0
    """
    assert value_at(source, 5).data
    assert not value_at(source, 6).data and value_at(source, 6).kind == "tensor"
    assert value_at(source, 7).data


def test_an_op_of_python_data_alone_is_data_and_one_of_a_variable_is_not():
    # Data comes from the operands, keywords included (tf.add(x=..., y=w)); no operand that is not
    # Python or NumPy data written out, or starred, makes it plain data.
    source = """
        import numpy as np
        import tensorflow as tf
        w = tf.Variable(1.0)
        a = tf.reduce_sum([1.0, 2.0])
        b = tf.reshape(np.ones(4), [2, 2])
        c = tf.add(x=[1.0], y=[2.0])
        d = tf.add(x=[1.0], y=w)
        e = tf.reduce_sum(w)
        f = tf.reduce_sum(*[[1.0]])
    """
    assert [value_at(source, line).data for line in range(5, 11)] == [True, True, True, False, False, False]


def test_symbolic_inside_a_tf_function_and_eager_outside():
    source = """
        import tensorflow as tf

        @tf.function
        def step(x):
            y = tf.reduce_sum(x)
            return y

        z = tf.reduce_sum(tf.ones([2]))
        out = step(tf.ones([2]))
    """
    assert value_at(source, 6).symbolic is True
    assert value_at(source, 9).symbolic is False
    assert kind(value_at(source, 10))[0] == "tensor" and value_at(source, 10).symbolic is False


# --- Keras ------------------------------------------------------------------------------------

def test_keras_objects_and_what_they_give():
    source = """
        import tensorflow as tf
        from tensorflow import keras
        model = keras.Sequential([keras.layers.Dense(1)])
        layer = tf.keras.layers.Dense(3)
        opt = keras.optimizers.Adam(1e-3)
        loss_fn = keras.losses.MeanSquaredError()
        metric = keras.metrics.Mean()
        out = model(tf.ones([1, 2]))
        variables = model.trainable_variables
        preds = model.predict(tf.ones([1, 2]))
        loss = loss_fn(tf.ones([1]), out)
    """
    assert kind(value_at(source, 4))[0] == "model"
    assert kind(value_at(source, 5))[0] == "layer"
    assert kind(value_at(source, 6))[0] == "optimizer"
    assert kind(value_at(source, 7))[0] == "loss"
    assert kind(value_at(source, 8))[0] == "metric"
    assert kind(value_at(source, 9)) == ("tensor", None, "certain")
    variables = value_at(source, 10)
    assert variables.kind == "list" and variables.item.kind == "variable"
    assert kind(value_at(source, 11)) == ("ndarray", "float32", "certain")
    assert kind(value_at(source, 12))[0] == "tensor"


def test_user_subclasses_of_keras_and_tf_module():
    source = """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(1)
                self.scale = tf.Variable(2.0)
                self.offset = tf.Variable(0, trainable=False)

            def call(self, x):
                return self.dense(x) * self.scale

        class Cal(tf.Module):
            def __init__(self):
                self.gain = tf.Variable(1.0)

        net = Net()
        y = net(tf.ones([1, 2]))
        s = net.scale
        o = net.offset
        cal = Cal()
        g = cal.gain
    """
    assert value_at(source, 18).kind == "model" and value_at(source, 18).user_class.name == "Net"
    assert kind(value_at(source, 19))[0] == "tensor"
    assert kind(value_at(source, 20)) == ("variable", "float32", "certain")
    offset = value_at(source, 21)
    assert kind(offset) == ("variable", "int32", "certain") and offset.trainable is False
    assert value_at(source, 22).kind == "module"
    assert kind(value_at(source, 23)) == ("variable", "float32", "certain")


def test_keras_train_step_data_is_symbolic_tensors():
    source = """
        import tensorflow as tf

        class M(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                return x
    """
    value = value_at(source, 5, None) if False else None
    tree_source = textwrap.dedent(source)
    tree = ast.parse(tree_source)
    facts = build(tree, SourceText(tree_source))
    model = values_of(facts)
    ret = next(n for n in ast.walk(tree) if isinstance(n, ast.Return))
    x = model.value(ret.value)
    assert x.kind == "tensor" and x.symbolic is True
    assert value is None


# --- NumPy ------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, expected", [
    ("np.linspace(0, 1, 5)", ("ndarray", "float64", "certain")),
    ("np.linspace(0, 1, 5, dtype=np.float32)", ("ndarray", "float32", "certain")),
    ("np.zeros((2, 2), np.uint8)", ("ndarray", "uint8", "certain")),
    ("np.arange(5)", ("ndarray", "int64", "certain")),
    ("np.arange(5.0)", ("ndarray", "float64", "certain")),
    ("np.array([1, 2])", ("ndarray", "int64", "certain")),
    ("np.array([1.0, 2])", ("ndarray", "float64", "certain")),
    ("np.ones(3).astype(np.float32)", ("ndarray", "float32", "certain")),
    ("np.ones(3).astype('int32') * 2.0", ("ndarray", "float64", "certain")),
    ("np.ones(3, np.float32) * 2.0", ("ndarray", "float32", "certain")),
    ("np.float32(1.0)", ("np_scalar", "float32", "certain")),
    ("np.exp(np.ones(2))", ("ndarray", "float64", "certain")),
    # float@0 / ufunc@0: an integer argument gives a float (NumPy 2, measured by tests/runtime)
    ("np.mean(np.array([1, 2]))", ("np_scalar", "float64", "certain")),
    ("np.mean(np.ones(2, np.float32))", ("np_scalar", "float32", "certain")),
    ("np.array([1, 2]).mean()", ("np_scalar", "float64", "certain")),
    ("np.divide(np.arange(3), 2)", ("ndarray", "float64", "certain")),
    ("np.exp(np.arange(3))", ("ndarray", "float64", "certain")),
    ("np.exp(np.zeros(2, np.uint8))", ("ndarray", "float16", "certain")),
    ("np.sqrt(np.zeros(2, np.int16))", ("ndarray", "float32", "certain")),
    ("np.log(np.ones(2, np.float32))", ("ndarray", "float32", "certain")),
    ("np.random.rand(3)", ("ndarray", "float64", "certain")),
    ("np.random.randint(0, 4, 10)", ("ndarray", "int64", "certain")),
    ("np.random.default_rng(0).normal(size=3)", ("ndarray", "float64", "certain")),
    ("np.random.default_rng(0).integers(0, 256, size=3, dtype=np.uint8)", ("ndarray", "uint8", "certain")),
    ("np.random.default_rng(0).random((2, 2), dtype=np.float32)", ("ndarray", "float32", "certain")),
])
def test_numpy_creation_math_and_random(expr, expected):
    source = f"import numpy as np\nx = {expr}\n"
    assert kind(value_at(source, 2)) == expected


def test_numpy_on_a_tensor_leaves_tensorflow():
    source = """
        import numpy as np
        import tensorflow as tf
        t = tf.ones([2])
        a = t.numpy()
        b = np.exp(t)
        c = t * np.float32(2.0)
    """
    assert kind(value_at(source, 5)) == ("ndarray", "float32", "certain")
    assert kind(value_at(source, 6))[0] == "ndarray"
    assert kind(value_at(source, 7)) == ("tensor", "float32", "certain")


# --- TFP --------------------------------------------------------------------------------------

def test_tfp_distributions_bijectors_and_transformed_variables():
    source = """
        import tensorflow as tf
        import tensorflow_probability as tfp
        tfd = tfp.distributions
        tfb = tfp.bijectors
        d = tfd.Normal(0.0, 1.0)
        b = tfb.Softplus()
        s = tfp.util.TransformedVariable(1.0, tfb.Softplus())
        x = d.sample(3)
        y = b.forward(tf.ones([2]))
    """
    assert value_at(source, 6).kind == "distribution"
    assert value_at(source, 7).kind == "bijector"
    assert value_at(source, 8).kind == "tfp_variable"
    assert kind(value_at(source, 9))[0] == "tensor"
    assert kind(value_at(source, 10)) == ("tensor", "float32", "certain")


# --- names, parameters, returns ------------------------------------------------------------

def test_a_parameter_holds_what_every_caller_passes():
    source = """
        import numpy as np
        import tensorflow as tf

        def saliency(model, images):
            images = tf.convert_to_tensor(images)
            return images

        def main():
            batch = np.random.default_rng(0).random((4, 3), dtype=np.float32)
            saliency(None, batch)
    """
    value = value_at(source, 6)
    assert kind(value) == ("tensor", "float32", "certain") and value.data


def test_parameters_with_disagreeing_callers_are_unknown_or_maybe():
    source = """
        import tensorflow as tf

        def f(x):
            y = x
            return y

        f(tf.Variable(1.0))
        f(tf.constant(1.0))
        f(object())
    """
    assert value_at(source, 5).confidence != "certain"


def test_a_function_returns_the_join_of_its_returns():
    source = """
        import math

        def cosine_lr(step, total, base=0.1):
            return 0.5 * base * (1 + math.cos(math.pi * step / total))

        lr = cosine_lr(1, 10)
    """
    assert kind(value_at(source, 7)) == ("number", "float", "certain")


def test_an_unknown_call_is_unknown():
    source = """
        from mystery import make
        x = make()
        y = x * 2
    """
    assert value_at(source, 3).kind == "unknown"
    assert value_at(source, 4).kind == "unknown"


def test_the_value_depends_on_the_point_in_the_code():
    source = """
        import tensorflow as tf
        x = tf.constant(1)
        a = x
        x = tf.constant(1.0)
        b = x
    """
    assert kind(value_at(source, 4)) == ("tensor", "int32", "certain")
    assert kind(value_at(source, 6)) == ("tensor", "float32", "certain")


def test_a_branch_makes_it_maybe():
    source = """
        import tensorflow as tf
        import random
        if random.random() > 0.5:
            x = tf.constant(1.0)
        else:
            x = mystery()
        y = x
    """
    assert value_at(source, 8).confidence == "maybe"


def test_tape_function_and_dataset():
    source = """
        import tensorflow as tf
        with tf.GradientTape() as tape:
            pass
        t = tape
        f = tf.function(lambda x: x)
        ds = tf.data.Dataset.from_tensor_slices([1.0]).map(lambda x: x * 2).batch(2)
    """
    assert value_at(source, 5).kind == "tape"
    assert value_at(source, 6).kind == "tf_function"
    assert value_at(source, 7).kind == "dataset"


def test_dataset_map_function_parameters_are_symbolic_tensors():
    source = """
        import tensorflow as tf

        def augment(image):
            flipped = image
            return flipped

        ds = tf.data.Dataset.from_tensor_slices([1.0]).map(augment)
    """
    value = value_at(source, 5)
    assert value.kind == "tensor" and value.symbolic is True


def test_definitions_a_read_sees_and_the_scope_that_makes_them():
    source = textwrap.dedent("""
        import tensorflow as tf
        scale = 2.0

        def f(x):
            later = x
            y = x * scale
            y = y + later
            return y
    """)
    tree = ast.parse(source)
    facts = build(tree, SourceText(source))
    model = values_of(facts)
    function = tree.body[2]
    scope = facts.function_scopes[function]
    read_y = function.body[2].value.left
    defs, owner = model.definitions("y", scope, read_y)
    assert owner is scope and [d.stmt.lineno for d in defs] == [7]
    defs, owner = model.definitions("x", scope, read_y)
    assert owner is scope and [d.kind for d in defs] == ["param"]
    defs, owner = model.definitions("scale", scope, read_y)
    assert owner is facts.module and [d.stmt.lineno for d in defs] == [3]
    # bound in f, but not yet where it is read
    defs, owner = model.definitions("later", scope, function.body[0].value)
    assert defs == [] and owner is scope
    assert model.definitions("nowhere", scope, read_y) == ([], None)


def test_a_chain_longer_than_the_depth_limit_is_followed():
    steps = "\n".join("x = x * 2 + 1.0" for _ in range(60))
    value = name_after(f"import tensorflow as tf\nx = tf.zeros([3])\n{steps}\n", "x")
    assert kind(value) == ("tensor", "float32", "certain")


def test_arithmetic_with_a_tensor_is_a_tensor_whatever_the_other_operand():
    source = """
        import tensorflow as tf
        t = tf.ones([2]) * mystery
        u = tf.ones([2]) + mystery()
    """
    assert kind(value_at(source, 3)) == ("tensor", "float32", "certain")
    assert kind(value_at(source, 4)) == ("tensor", "float32", "certain")


def test_a_method_of_a_base_class_and_a_model_created_lazily():
    source = """
        import tensorflow as tf

        class Base(tf.keras.Model):
            def predict(self, x):
                return x

        class Net(Base):
            def __init__(self):
                super().__init__()
                self.head = None

            def build(self, shape):
                self.head = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        net = Net()
        m = net.predict
        h = net.head
    """
    method = value_at(source, 17)
    assert method.kind == "method" and isinstance(method.origin, ast.FunctionDef) and method.origin.name == "predict"
    head = value_at(source, 18)
    assert head.kind == "model" and not head.certain and head.or_none and head.is_or_none("model")
    assert not value_at(source, 18).is_("model")


def test_none_or_an_unknown_way_is_not_or_none():
    source = """
        import tensorflow as tf
        import random
        if random.random() > 0.5:
            opt = tf.keras.optimizers.Adam()
        elif random.random() > 0.5:
            opt = None
        else:
            opt = make()
        o = opt
    """
    value = value_at(source, 10)
    assert value.kind == "optimizer" and not value.is_or_none("optimizer")


def test_keras_major_follows_the_import_and_the_targets():
    from tapelsp.settings import Targets
    from tapelsp.versions import Version

    source = textwrap.dedent("""
        import tensorflow as tf
        import tf_keras
        a = tf.keras.optimizers.Adam()
        b = tf_keras.optimizers.Adam()
    """)
    tree = ast.parse(source)
    facts = build(tree, SourceText(source))
    a, b = tree.body[2].value, tree.body[3].value
    assert values_of(facts, Targets(Version.parse("2.21"))).keras_major(a) == 3
    assert values_of(facts, Targets(Version.parse("2.21"))).keras_major(b) == 2
    assert values_of(facts, Targets(Version.parse("2.15"))).keras_major(a) == 2


def test_layers_say_whether_they_hold_variables():
    assert library.api("keras.layers.Dense").has("creates")
    assert library.api("keras.layers.Flatten").kind == "layer" and not library.api("keras.layers.Flatten").flags
    assert library.api("keras.layers.Dropout").has("seed_keras3") and not library.api("keras.layers.Dropout").has("creates")
    assert library.api("keras.layers.TimeDistributed").has("wraps")
    assert library.api("keras.Sequential").has("wraps") and not library.api("keras.Sequential").has("creates")


def test_the_argument_a_caller_passes_for_a_parameter():
    source = textwrap.dedent("""
        import tensorflow as tf

        class Agent:
            @tf.function
            def step(self, x, lr=0.1):
                return x * lr

            def run(self):
                self.step(tf.ones([2]), lr=0.5)

        agent = Agent()
        agent.step(tf.ones([2]))
        Agent.step(agent, *[tf.ones([2])])
    """)
    tree = ast.parse(source)
    facts = build(tree, SourceText(source))
    model = values_of(facts)
    step = tree.body[1].body[0]
    assert model.positional_parameters(step) == ["x", "lr"]
    passed = {call.lineno: (ast.unparse(model.argument(call, step, "x", bound) or ast.Constant("-")),
                            ast.unparse(model.argument(call, step, "lr", bound) or ast.Constant("-")))
              for call, _scope, bound in model.callers(step)}
    assert passed[10] == ("tf.ones([2])", "0.5")
    assert passed[13] == ("tf.ones([2])", "'-'")


def test_tf_use_legacy_keras_makes_tf_keras_keras_2():
    source = textwrap.dedent("""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf
        opt = tf.keras.optimizers.Adam()
    """)
    tree = ast.parse(source)
    facts = build(tree, SourceText(source))
    assert values_of(facts).keras_major(tree.body[3].value) == 2
    plain = build(ast.parse("import tensorflow as tf\nopt = tf.keras.optimizers.Adam()\n"), SourceText(""))
    assert values_of(plain).keras_major(plain.tree.body[1].value) == 3


def test_a_value_that_feeds_itself_keeps_the_kind_of_its_start():
    source = """
        import tensorflow as tf

        class Running:
            def __init__(self):
                self.sum = tf.zeros([3])

            def add(self, x):
                self.sum = self.sum + x * 0.5

        running = Running()
        running.add(tf.ones([3]))
        epsilon, step, total = 1.0, 0, 0.0
        for episode in range(8):
            epsilon = max(0.05, epsilon * 0.9)
            step += 1
            seen = total
            total = total + tf.ones([])
        e = epsilon
        s = step
    """
    assert kind(value_at(source, 9)) == ("tensor", "float32", "certain")
    assert kind(value_at(source, 19)) == ("number", "float", "certain")
    assert kind(value_at(source, 20)) == ("number", "int", "certain")
    # a Python float that becomes a tensor after the first iteration: neither
    assert value_at(source, 17).kind == "unknown"


def test_elementwise_ops_reductions_and_composite_tensors_are_rows():
    for name in ("tensorflow.nn.relu", "tensorflow.math.abs", "keras.ops.square", "keras.activations.tanh"):
        assert library.api(name).has("elementwise") and not library.api(name).has("binary"), name
    assert library.api("tensorflow.maximum").has("binary") and library.api("tensorflow.where").has("binary")
    assert library.api("tensorflow.math.reduce_sum").has("reduction") and library.api("tensorflow.reduce_mean").has("reduction")
    assert library.api("tensorflow.nn.softmax").has("last_axis")
    assert not library.api("keras.ops.identity").has("elementwise")  # an identity matrix
    # measured under a tape on TensorFlow 2.21: rounding has no gradient, a predicate is bool
    assert library.api("keras.ops.floor").grad == "no" and library.api("tensorflow.math.is_nan").dtype == ("bool",)
    assert library.api("tensorflow.ragged.constant").has("composite") and library.api("tensorflow.SparseTensor").has("composite")
    assert library.api("tensorflow.RaggedTensor.from_row_lengths").has("composite")
    assert not library.api("tensorflow.sparse.to_dense").has("composite")


def test_a_for_target_is_unpacked_and_a_tf_function_method_returns_where_it_is_called():
    source = """
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.lr = 0.1

            @tf.function
            def step(self, x, lr):
                return x - lr * x

            def decay(self):
                self.lr = max(0.01, self.lr * 0.5)

        trainer = Trainer()
        for i, batch in enumerate([tf.ones([2])] * 6):
            index = i
            out = trainer.step(batch, 0.1 / (i + 1))
        lr = trainer.lr
    """
    assert kind(value_at(source, 17)) == ("number", "int", "certain")
    out = value_at(source, 18)
    assert kind(out) == ("tensor", "float32", "certain") and out.symbolic is False
    assert kind(value_at(source, 19)) == ("number", "float", "certain")  # self.lr feeds itself in decay()


def test_a_call_of_one_of_two_library_functions_is_unknown():
    source = """
        import random
        from tf_keras.src.saving import serialization_lib, legacy_serialization
        fn = serialization_lib.serialize_keras_object
        if random.random() > 0.5:
            fn = legacy_serialization.serialize_keras_object
        out = fn(3)
    """
    assert value_at(source, 7).kind == "unknown"


def test_a_call_of_one_of_two_classes_or_methods_is_unknown():
    source = """
        import random

        class A:
            def f(self):
                return 1

        class B:
            def g(self):
                return 2

        cls = A if random.random() > 0.5 else B
        made = cls()
        a, b = A(), B()
        method = a.f if random.random() > 0.5 else b.g
        out = method()
    """
    assert value_at(source, 13).kind == "unknown"
    assert value_at(source, 16).kind in ("unknown", "number")


def test_the_call_that_traces_a_function_passed_to_dataset_map():
    source = textwrap.dedent("""
        import tensorflow as tf

        def augment(image):
            return image * 2.0

        def unused(image):
            return image

        ds = tf.data.Dataset.from_tensor_slices([1.0]).map(augment)
    """)
    tree = ast.parse(source)
    facts = build(tree, SourceText(source))
    model = values_of(facts)
    augment, unused = tree.body[1], tree.body[2]
    call = model.tracing_call(augment)
    assert isinstance(call, ast.Call) and ast.unparse(call.func).endswith(".map")
    assert model.tracing_call(unused) is None


# --- what TNS001 needs to know (issues 16/17) -------------------------------------------------

def test_numpy_functions_returning_tuples_hold_arrays_and_shapes_hold_numbers():
    source = """
        import numpy as np
        a = np.ones((2, 3))
        xs, ts = np.meshgrid(np.linspace(0.0, 1.0, 4), np.linspace(0.0, 1.0, 3))
        k = a.shape[1] - np.argmax(a, axis=1)
        rows = np.shape(a)[0]
    """
    assert name_after(source, "xs").kind == "ndarray"
    assert name_after(source, "ts").kind == "ndarray"
    assert name_after(source, "k").kind != "tensor"
    assert kind(name_after(source, "rows")) == ("number", "int", "certain")
    # TensorFlow's own ops that return several tensors still give tensors
    assert name_after("import tensorflow as tf\nx, y = tf.meshgrid(tf.range(3), tf.range(2))", "x").kind == "tensor"


def test_a_tensor_with_what_may_be_a_tensor_is_a_tensor():
    source = """
        import tensorflow as tf

        def adapt(w, x):
            return (x @ w) ** 2

        out = adapt(tf.Variable([[1.0]]), tf.ones((1, 1)))
        out = adapt(tf.ones((1, 1)), tf.ones((1, 1)))
    """
    value = returned(source)
    assert value.kind == "tensor" and value.certain


def returned(source: str) -> Value:
    """The value of the first `return` of the module's code."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    model = values_of(build(tree, SourceText(source)))
    return model.value(next(n for n in ast.walk(tree) if isinstance(n, ast.Return)).value)


def test_a_batch_of_a_dataset_is_eager_in_eager_code_and_symbolic_in_a_tf_function():
    source = """
        import numpy as np
        import tensorflow as tf

        ds = tf.data.Dataset.from_tensor_slices(np.ones((8, 3), np.float32)).batch(4)
        for xb in ds:
            eager = xb

        @tf.function
        def step(it):
            traced = next(it)
            return traced

        step(iter(ds))
    """
    assert name_after(source, "eager").kind == "tensor" and name_after(source, "eager").symbolic is False
    traced = returned(source)
    assert traced.kind == "tensor" and traced.symbolic is True


def test_parameters_of_a_function_called_through_a_dict_or_list_of_functions():
    # `LOSSES["mse"](pred, y)` and `steps[i](x)` run the entries of the literals they index.
    source = """
        import tensorflow as tf

        def mse(pred, y):
            diff = pred - y
            return diff

        def mae(pred, y):
            kept = pred
            return kept

        def double(x):
            doubled = x * 2
            return doubled

        LOSSES = {"mse": mse, "mae": mae}
        steps = [double]
        loss = LOSSES["mse"](tf.constant([1.0]), 1.0)
        out = steps[0](tf.ones([2]))
    """
    diff = value_at(source, 5)
    assert diff.kind == "tensor" and diff.certain
    # `mae` is named by no call: its parameters stay unknown
    assert value_at(source, 9).kind == "unknown"
    doubled = value_at(source, 13)
    assert doubled.kind == "tensor" and doubled.certain


def test_an_entry_of_a_dict_written_out_and_only_read():
    # `params["w"]` is the variable written for "w", while the file only reads the dict.
    source = """
        import tensorflow as tf

        params = {"w": tf.Variable([0.5, -1.0]), "lr": 0.1}
        w = params["w"]
        lr = params["lr"]
        grads = list(params.values())
        other = {"w": tf.Variable(1.0)}
        other["w"] = 3.0
        changed = other["w"]
        passed = {"w": tf.Variable(1.0)}
        print(passed)
        handed = passed["w"]
    """
    w = value_at(source, 5)
    assert w.kind == "variable" and w.certain
    lr = value_at(source, 6)
    assert lr.kind == "number" and lr.certain and lr.dtype == "float"
    # a store into the dict, or the dict handed to a call: only a maybe
    assert not value_at(source, 10).certain
    assert not value_at(source, 13).certain


def test_what_tape_gradient_returns():
    # Of one source: a tensor or None; arithmetic on it is a tensor (None would raise TypeError).
    source = """
        import tensorflow as tf

        x = tf.ones([3])
        w = tf.Variable([1.0, 2.0])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x) + tf.reduce_sum(w)
        dx = tape.gradient(y, x)
        squared = dx ** 2
        both = tape.gradient(y, [x, w])
    """
    dx = value_at(source, 9)
    assert dx.kind == "tensor" and not dx.certain and dx.or_none and dx.dtype == "float32"
    squared = value_at(source, 10)
    assert squared.kind == "tensor" and squared.certain
    # a list of sources: not said
    assert value_at(source, 11).kind == "unknown"


def test_outputs_of_a_functional_model_with_a_dict_among_them():
    # `outputs=(heads, extra)`: unpacking the call gives the dict of tensors, then the tensor;
    # iterating a dict gives its keys, which the model does not know.
    source = """
        import numpy as np
        import tensorflow as tf

        inputs = tf.keras.Input((3,))
        heads = {name: tf.keras.layers.Dense(1)(inputs) for name in ("a", "b")}
        model = tf.keras.Model(inputs, (heads, tf.keras.layers.Dense(2)(inputs)))
        outputs, aux = model(np.ones((4, 3), np.float32))
        first = outputs["a"]
        second = aux
        for name in outputs:
            key = name
    """
    first = value_at(source, 9)
    assert first.kind == "tensor" and first.certain
    second = value_at(source, 10)
    assert second.kind == "tensor" and second.certain
    assert value_at(source, 12).kind == "unknown"


# --- activations.get, and conditions the model decides ------------------------------------------

def test_activations_get_is_the_function_its_argument_names():
    source = """
        import tensorflow as tf

        relu = tf.keras.activations.get("relu")
        linear = tf.keras.activations.get(None)
        same = tf.keras.activations.get(tf.nn.elu)
    """
    assert (value_at(source, 4).kind, value_at(source, 4).ref) == ("library", "keras.activations.relu")
    assert (value_at(source, 5).kind, value_at(source, 5).ref) == ("library", "keras.activations.linear")
    assert (value_at(source, 6).kind, value_at(source, 6).ref) == ("library", "tensorflow.nn.elu")


def test_activations_get_of_a_parameter_callers_give_different_names_is_unknown():
    source = """
        import tensorflow as tf


        class Head(tf.keras.layers.Layer):
            def __init__(self, activation="tanh"):
                super().__init__()
                self.activation = tf.keras.activations.get(activation)


        default = Head()
        other = Head("relu")
    """
    assert value_at(source, 8).kind == "unknown"
    # One construction, which keeps the default: the function the default names.
    single = source.replace('        other = Head("relu")\n', "")
    assert (value_at(single, 8).kind, value_at(single, 8).ref) == ("library", "keras.activations.tanh")


def truth_at(source: str, line: int) -> bool | None:
    """The model's answer for the test of the `if` on `line`."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    model = values_of(build(tree, SourceText(source)))
    test = next(node.test for node in ast.walk(tree) if isinstance(node, ast.If) and node.lineno == line)
    return model.truth(test)


def test_truth_of_conditions_on_values_the_model_knows():
    source = """
        import tensorflow as tf


        class Dense(tf.keras.layers.Layer):
            def __init__(self, activation=None, use_bias=True, scale=None):
                super().__init__()
                self.activation = tf.keras.activations.get(activation)
                self.use_bias = use_bias
                self.scale = scale

            def call(self, x):
                if self.activation is not None:
                    x = self.activation(x)
                if self.use_bias:
                    x = x + 1.0
                if not self.use_bias or self.scale is None:
                    x = x * 2.0
                if self.scale is not None:
                    x = x * self.scale
                return x


        layer = Dense()
    """
    assert truth_at(source, 13) is True    # a function is not None
    assert truth_at(source, 15) is True    # the default True, never overridden
    assert truth_at(source, 17) is True    # `or`: the second operand decides
    assert truth_at(source, 19) is False   # the default None
    overridden = source.replace("        layer = Dense()", "        layer = Dense()\n        other = Dense(use_bias=False, scale=2.0)")
    assert truth_at(overridden, 15) is None
    assert truth_at(overridden, 19) is None
