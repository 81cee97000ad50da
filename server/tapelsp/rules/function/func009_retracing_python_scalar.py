from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from ...facts.model import CallSite, Facts, Scope, TfFunction
from ...model import Applicability, Severity
from ...versions import Version, VersionRange
from ...analysis.python_state import (Assignment, FileState, file_state, function_label, is_number,
                            parameter_defaults, self_attribute, statements)
from ...analysis.values import LIST, NUMBER, TENSOR, TUPLE, VARIABLE, Value, ValueModel, values_for
from ...facts.dataflow import flow_of
from ._fixes import tf_alias
from ..base import Context, Proof, Rule, invalid, valid

# TensorFlow logs its retracing warning once this many of the recent calls traced.
WARNING_THRESHOLD = 5
# `experimental_relax_shapes` was renamed `reduce_retracing` in TensorFlow 2.9.
REDUCE_RETRACING_SINCE = Version.parse("2.9")


@dataclass(frozen=True)
class Target:
    """A tf.function a call reaches."""

    label: str  # `train` or `agent.train`
    input_signature: bool
    reduce_retracing: bool
    origin: ast.AST | None = None  # in this file
    node: ast.AST | None = None  # the traced def, in this file
    elsewhere: str | None = None  # "agents/dqn.py line 12" for another module of the project


class RetracingPythonScalar(Rule):
    """
    ## What it does
    Finds calls of a tf.function that pass a Python number which changes from call to
    call: a loop index (`for step in range(n)`, `enumerate(...)`), or a Python float
    or int updated in the loop or on `self` (an epsilon schedule, a decayed learning
    rate, a step counter). A loop too short for TensorFlow's warning counts when a Python
    float changes with every iteration (`decay=0.99 ** step`): every call traces. The
    tf.function may be defined in the same file, be a method
    called through `self` or an instance, or be imported from another module of the
    project.

    Three more forms, for a number the tf.function uses only as an operand of TensorFlow
    ops (not a `range` bound, an index or an `if`, which shape the graph): a call made while
    another tf.function traces, in a Python loop of its body (`for k in range(2, K + 1)`,
    one trace of the inner function per `k`; also for a parameter the inner function never
    reads); calls in a row with different Python literals
    (`train(num_steps=10)`, then `train(num_steps=20)`, as in TensorFlow's tf.function guide).
    And a Python list of numbers passed to a tf.function that loops over it (`for x, y in
    dataset`), directly, through `get_concrete_function` or through a helper that forwards
    its arguments: the loop is unrolled into the graph, one copy of its body per element.

    ## Why is this bad?
    A Python number passed to a tf.function is part of its trace key: TensorFlow traces
    the function again, and builds a new graph, for every value it has not seen. A
    loop that passes `epsilon` or `step` therefore traces on every call, and TensorFlow
    logs "5 out of the last 5 calls to <function train at ...> triggered tf.function
    retracing". The program is slow and its memory grows with each graph.
    `reduce_retracing=True` does not help: it relaxes tensor shapes, and Python values
    stay part of the trace key (checked on TensorFlow 2.21).

    ## Example
    ```python
    for episode in range(500):
        loss = train_step(batch, epsilon)     # one new trace per epsilon
        epsilon = max(0.05, epsilon * 0.99)
    ```

    ## Use instead
    ```python
    for episode in range(500):
        loss = train_step(batch, tf.constant(epsilon))
        epsilon = max(0.05, epsilon * 0.99)
    ```
    or give the tf.function an `input_signature`, which converts the value to a tensor.
    """

    code = "FUNC009"
    name = "retracing-python-scalar-argument"
    summary = "tf.function called with a Python number that changes per call: one trace per value"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    # A tf.function here, or a loop that may call one imported from another module.
    cheap_without_triggers = True
    triggers = (".function", "import function", "for ", "while ")
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function
            def train_step(x, epsilon):
                return tf.reduce_sum(x) * (1.0 - epsilon)

            x = tf.ones([4])
            epsilon = 1.0
            for episode in range(8):
                loss = train_step(x, epsilon)
                epsilon = max(0.05, epsilon * 0.9)
        """, 10, "an epsilon schedule passed as a Python float",
            proof=Proof(check="assert train_step.experimental_get_tracing_count() == 8"),
            fixed="""
            import tensorflow as tf

            @tf.function
            def train_step(x, epsilon):
                return tf.reduce_sum(x) * (1.0 - epsilon)

            x = tf.ones([4])
            epsilon = 1.0
            for episode in range(8):
                loss = train_step(x, tf.constant(epsilon))
                epsilon = max(0.05, epsilon * 0.9)
        """, fixed_proof=Proof(check="assert train_step.experimental_get_tracing_count() == 1 and abs(float(loss) - 4 * (1 - 0.9 ** 7)) < 1e-5")),
        invalid("""
            import tensorflow as tf

            @tf.function(reduce_retracing=True)
            def scaled(x, step):
                return x * tf.cast(step, tf.float32)

            for step in range(6):
                y = scaled(tf.constant(2.0), step)
        """, 8, "reduce_retracing=True does not stop retracing on Python ints; tf.constant(step) does (unsafe for ints)",
            proof=Proof(check="assert scaled.experimental_get_tracing_count() == 6"),
            fixed="""
            import tensorflow as tf

            @tf.function(reduce_retracing=True)
            def scaled(x, step):
                return x * tf.cast(step, tf.float32)

            for step in range(6):
                y = scaled(tf.constant(2.0), tf.constant(step))
        """, fixed_proof=Proof(check="assert scaled.experimental_get_tracing_count() == 1 and float(y) == 10.0")),
        invalid("""
            import tensorflow as tf

            @tf.function(experimental_relax_shapes=True)
            def scaled(x, step):
                return x * tf.cast(step, tf.float32)

            for step in range(6):
                y = scaled(tf.constant(2.0), step)
        """, 8, "TensorFlow 2.8 and older call the option experimental_relax_shapes; it does not help either",
            tensorflow_version="2.8",
            fixed="""
            import tensorflow as tf

            @tf.function(experimental_relax_shapes=True)
            def scaled(x, step):
                return x * tf.cast(step, tf.float32)

            for step in range(6):
                y = scaled(tf.constant(2.0), tf.constant(step))
        """),
        invalid("""
            import numpy as np
            import tensorflow as tf

            class Agent(tf.Module):
                def __init__(self):
                    self.w = tf.Variable(tf.ones([2]))
                    self.epsilon = 1.0

                @tf.function
                def train(self, states, epsilon):
                    explore = tf.random.uniform([]) < epsilon
                    return tf.where(explore, 0.0, tf.reduce_sum(states * self.w))

                def play(self, states):
                    loss = self.train(states, self.epsilon)
                    self.epsilon = max(0.1, self.epsilon * 0.95)
                    return loss

            agent = Agent()
            for _ in range(6):
                agent.play(tf.constant(np.ones(2, np.float32)))
        """, 15, "the seed's DQN agent: epsilon kept on self, decayed after every step",
            proof=Proof(check="assert agent.train.experimental_get_tracing_count() == 6"),
            fixed="""
            import numpy as np
            import tensorflow as tf

            class Agent(tf.Module):
                def __init__(self):
                    self.w = tf.Variable(tf.ones([2]))
                    self.epsilon = 1.0

                @tf.function
                def train(self, states, epsilon):
                    explore = tf.random.uniform([]) < epsilon
                    return tf.where(explore, 0.0, tf.reduce_sum(states * self.w))

                def play(self, states):
                    loss = self.train(states, tf.constant(self.epsilon))
                    self.epsilon = max(0.1, self.epsilon * 0.95)
                    return loss

            agent = Agent()
            for _ in range(6):
                agent.play(tf.constant(np.ones(2, np.float32)))
        """, fixed_proof=Proof(check="assert agent.train.experimental_get_tracing_count() == 1 and abs(agent.epsilon - 0.95 ** 6) < 1e-9")),
        invalid("""
            import tensorflow as tf

            class Trainer:
                @tf.function
                def step(self, x, lr):
                    return x - lr * x

            trainer = Trainer()
            for i, batch in enumerate([tf.ones([2])] * 6):
                out = trainer.step(batch, 0.1 / (i + 1))
        """, 10, "an enumerate index in a learning-rate expression, through an instance",
            proof=Proof(check="assert trainer.step.experimental_get_tracing_count() == 6"),
            fixed="""
            import tensorflow as tf

            class Trainer:
                @tf.function
                def step(self, x, lr):
                    return x - lr * x

            trainer = Trainer()
            for i, batch in enumerate([tf.ones([2])] * 6):
                out = trainer.step(batch, tf.constant(0.1 / (i + 1)))
        """, fixed_proof=Proof(check="assert trainer.step.experimental_get_tracing_count() == 1 and abs(float(out[0]) - (1 - 0.1 / 6)) < 1e-6")),
        invalid("""
            import tensorflow as tf

            @tf.function
            def sample(logits, temperature):
                return tf.nn.softmax(logits / temperature)

            logits = tf.constant([1.0, 2.0, 3.0])
            for temperature in [0.3, 0.5, 0.7, 0.9, 1.1, 1.3]:
                probs = sample(logits, temperature)
        """, 9, "a loop over a Python list of floats: one trace per element",
            proof=Proof(check="assert sample.experimental_get_tracing_count() == 6"),
            fixed="""
            import tensorflow as tf

            @tf.function
            def sample(logits, temperature):
                return tf.nn.softmax(logits / temperature)

            logits = tf.constant([1.0, 2.0, 3.0])
            for temperature in [0.3, 0.5, 0.7, 0.9, 1.1, 1.3]:
                probs = sample(logits, tf.constant(temperature))
        """, fixed_proof=Proof(check="assert sample.experimental_get_tracing_count() == 1 and abs(float(probs[2]) - 0.5959) < 1e-3")),
        invalid("""
            import math
            import tensorflow as tf

            w = tf.Variable(1.0)

            @tf.function
            def decay(lr):
                w.assign_sub(lr * w)

            def cosine(index, total):
                return 0.5 * (1 + math.cos(math.pi * index / total))

            for i in range(8):
                decay(cosine(i, 8))
        """, 14, "a helper's float computed from the loop index",
            proof=Proof(check="assert decay.experimental_get_tracing_count() == 8"),
            fixed="""
            import math
            import tensorflow as tf

            w = tf.Variable(1.0)

            @tf.function
            def decay(lr):
                w.assign_sub(lr * w)

            def cosine(index, total):
                return 0.5 * (1 + math.cos(math.pi * index / total))

            for i in range(8):
                decay(tf.constant(cosine(i, 8)))
        """, fixed_proof=Proof(check="assert decay.experimental_get_tracing_count() == 1 and float(w) < 0.1")),
        invalid("""
            import tensorflow as tf

            @tf.function
            def act(obs, t):
                epsilon = 0.99 ** t
                return obs * epsilon

            obs = tf.ones([3])
            for t in range(12):
                out = act(obs, t)
        """, 10, "a Python int used in float arithmetic: tf.constant(t) would be an int32 tensor, which "
                 "`0.99 ** t` rejects, so the fix gives it the dtype the function computes in (unsafe for ints)",
            proof=Proof(check="assert act.experimental_get_tracing_count() == 12"),
            fixed="""
            import tensorflow as tf

            @tf.function
            def act(obs, t):
                epsilon = 0.99 ** t
                return obs * epsilon

            obs = tf.ones([3])
            for t in range(12):
                out = act(obs, tf.constant(t, dtype=tf.float32))
        """, fixed_proof=Proof(check="""
            assert act.experimental_get_tracing_count() == 1
            assert abs(float(out[0]) - 0.99 ** 11) < 1e-6
        """)),
        invalid("""
            import tensorflow as tf

            @tf.function
            def update(x, decay):
                return x * decay

            x = tf.ones([2])
            for step in range(4):
                y = update(x, decay=0.99 ** step)
        """, 9, "a short loop: a new Python float on every call, so every call traces (4 calls, 4 traces)",
            proof=Proof(check="assert update.experimental_get_tracing_count() == 4"),
            fixed="""
            import tensorflow as tf

            @tf.function
            def update(x, decay):
                return x * decay

            x = tf.ones([2])
            for step in range(4):
                y = update(x, decay=tf.constant(0.99 ** step))
        """, fixed_proof=Proof(check="assert update.experimental_get_tracing_count() == 1 and abs(float(y[0]) - 0.99 ** 3) < 1e-6")),
        valid("""
            import tensorflow as tf

            @tf.function
            def update(w, lr):
                return w - lr * w

            for lr in [0.1, 0.01]:
                w = tf.ones([2])
                for step in range(10):
                    w = update(w, lr)
        """, "a sweep over two listed learning rates: one trace per setting, reused by its ten steps",
            proof=Proof(check="assert update.experimental_get_tracing_count() == 2")),
        valid("""
            import tensorflow as tf

            @tf.function
            def train_step(x, epsilon):
                return tf.reduce_sum(x) * (1.0 - epsilon)

            x = tf.ones([4])
            epsilon = 1.0
            for episode in range(8):
                loss = train_step(x, tf.constant(epsilon))
                epsilon = max(0.05, epsilon * 0.9)
        """, "the changing value passed as a tensor",
            proof=Proof(check="assert train_step.experimental_get_tracing_count() == 1")),
        valid("""
            import tensorflow as tf

            @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32)])
            def train_step(x, epsilon):
                return x * (1.0 - epsilon)

            epsilon = 1.0
            for episode in range(8):
                loss = train_step(tf.constant(1.0), epsilon)
                epsilon = epsilon * 0.9
        """, "an input_signature converts the Python float to a tensor",
            proof=Proof(check="assert train_step.experimental_get_tracing_count() == 1")),
        valid("""
            import tensorflow as tf

            @tf.function
            def train_step(x, training):
                return x * 2.0 if training else x

            @tf.function
            def head(x, index):
                return x[index]

            for epoch in range(3):
                y = train_step(tf.constant(1.0), True)
                for k in range(2):
                    z = head(tf.constant([1.0, 2.0]), k)
        """, "a constant argument, and a loop index with fewer values than TensorFlow's warning threshold",
            proof=Proof(check="""
                assert train_step.experimental_get_tracing_count() == 1
                assert head.experimental_get_tracing_count() == 2
            """)),
        valid("""
            import tensorflow as tf

            @tf.function
            def train_step(x):
                return x * 2.0

            dataset = tf.data.Dataset.from_tensor_slices(tf.ones([6, 2])).batch(2)
            for step, batch in enumerate(dataset):
                y = train_step(batch)
                print(step, float(tf.reduce_sum(y)))
        """, "the loop index is used outside the tf.function only",
            proof=Proof(check="assert train_step.experimental_get_tracing_count() == 1")),
        invalid("""
            import tensorflow as tf

            @tf.function
            def moment(ps, k):
                centered = ps - tf.reduce_mean(ps, 0)
                return tf.reduce_mean(tf.math.pow(centered, k), 0)

            @tf.function
            def discrepancy(ps, qs, K=5):
                result = tf.norm(tf.reduce_mean(ps, 0) - tf.reduce_mean(qs, 0))
                for k in range(2, K + 1):
                    p_k = moment(ps, k)
                    q_k = moment(qs, k)
                    result += tf.norm(p_k - q_k)
                return result

            ps, qs = tf.ones([8, 3]), tf.zeros([8, 3])
            for _ in range(3):
                d = discrepancy(ps, qs)
        """, (12, 13), "a report (lingxiaoli94/CWB#2): a Python loop unrolled while the outer tf.function traces gives "
                 "the inner one a new Python int per iteration: 4 traces of `moment` for 1 of `discrepancy` (no fix: an int's tensor needs the dtype it meets)",
            fixed="""
            import tensorflow as tf

            @tf.function
            def moment(ps, k):
                centered = ps - tf.reduce_mean(ps, 0)
                return tf.reduce_mean(tf.math.pow(centered, k), 0)

            @tf.function
            def discrepancy(ps, qs, K=5):
                result = tf.norm(tf.reduce_mean(ps, 0) - tf.reduce_mean(qs, 0))
                for k in range(2, K + 1):
                    p_k = moment(ps, k)
                    q_k = moment(qs, k)
                    result += tf.norm(p_k - q_k)
                return result

            ps, qs = tf.ones([8, 3]), tf.zeros([8, 3])
            for _ in range(3):
                d = discrepancy(ps, qs)
        """,
            proof=Proof(check="assert moment.experimental_get_tracing_count() == 4 and discrepancy.experimental_get_tracing_count() == 1")),
        valid("""
            import tensorflow as tf

            @tf.function
            def moment(ps, k):
                centered = ps - tf.reduce_mean(ps, 0)
                return tf.reduce_mean(tf.math.pow(centered, k), 0)

            @tf.function
            def discrepancy(ps, qs, K=5):
                result = tf.norm(tf.reduce_mean(ps, 0) - tf.reduce_mean(qs, 0))
                for k in range(2, K + 1):
                    kk = tf.constant(k, tf.float32)
                    result += tf.norm(moment(ps, kk) - moment(qs, kk))
                return result

            ps, qs = tf.ones([8, 3]), tf.zeros([8, 3])
            for _ in range(3):
                d = discrepancy(ps, qs)
        """, "the loop's value passed to the inner tf.function as a tensor",
            proof=Proof(check="assert moment.experimental_get_tracing_count() == 1")),
        invalid("""
            import tensorflow as tf

            @tf.function
            def layer(x, scale=1.0):
                return tf.nn.relu(x) + 1.0

            @tf.function
            def model(x):
                for i in range(4):
                    x = layer(x, scale=0.5 ** i)
                return x

            y = model(tf.ones([2]))
        """, 10, "inside a trace, a Python float for a parameter the inner tf.function never reads: still "
                 "part of the trace key, 4 traces of the same graph",
            proof=Proof(check="assert layer.experimental_get_tracing_count() == 4"),
            fixed="""
            import tensorflow as tf

            @tf.function
            def layer(x, scale=1.0):
                return tf.nn.relu(x) + 1.0

            @tf.function
            def model(x):
                for i in range(4):
                    x = layer(x, scale=tf.constant(0.5 ** i))
                return x

            y = model(tf.ones([2]))
        """, fixed_proof=Proof(check="assert layer.experimental_get_tracing_count() == 1 and float(y[0]) == 5.0")),
        valid("""
            import tensorflow as tf

            @tf.function
            def block(x, depth):
                for _ in range(depth):
                    x = tf.nn.relu(x) + 1.0
                return x

            @tf.function
            def model(x):
                for i in range(3):
                    x = block(x, 2)
                for depth in range(1, 4):
                    x = block(x, depth)
                return x

            y = model(tf.ones([2]))
        """, "inside a trace: a constant Python value, and one that shapes the inner graph (a `range` bound)",
            proof=Proof(check="assert block.experimental_get_tracing_count() == 3")),
        invalid("""
            import tensorflow as tf

            @tf.function
            def train(num_steps):
                total = tf.constant(0)
                for i in tf.range(num_steps):
                    total += i
                return total

            train(num_steps=10)
            train(num_steps=20)
        """, 11, "the tf.function guide: two Python literals for a number used only by TensorFlow ops, two traces (no fix for an int)",
            fixed="""
            import tensorflow as tf

            @tf.function
            def train(num_steps):
                total = tf.constant(0)
                for i in tf.range(num_steps):
                    total += i
                return total

            train(num_steps=10)
            train(num_steps=20)
        """,
            proof=Proof(check="assert train.experimental_get_tracing_count() == 2")),
        valid("""
            import tensorflow as tf

            @tf.function
            def train(num_steps):
                total = tf.constant(0)
                for i in tf.range(num_steps):
                    total += i
                return total

            train(num_steps=tf.constant(10))
            train(num_steps=tf.constant(20))
            train(num_steps=10)
            train(num_steps=10)
        """, "tensors reuse the trace, and the same literal again reuses its own",
            proof=Proof(check="assert train.experimental_get_tracing_count() == 2")),
        valid("""
            import tensorflow as tf

            @tf.function
            def stack(x, layers):
                for _ in range(layers):
                    x = tf.tanh(x)
                return x

            shallow = stack(tf.ones([2]), 2)
            deep = stack(tf.ones([2]), 8)
        """, "a Python number that builds the graph (a `range` bound): a trace per value is what it asks for",
            proof=Proof(check="assert stack.experimental_get_tracing_count() == 2")),
        invalid("""
            import tensorflow as tf

            def graph_size(f, *args):
                return len(f.get_concrete_function(*args).graph.as_graph_def().node)

            @tf.function
            def train(dataset):
                loss = tf.constant(0)
                for x, y in dataset:
                    loss += tf.abs(y - x)
                return loss

            small_data = [(1, 1)] * 3
            big_data = [(1, 1)] * 10
            small = graph_size(train, small_data)
            big = graph_size(train, big_data)
        """, (15, 16), "the tf.function guide: a loop over a Python list is unrolled into the graph, once per element (no fix: how to make the dataset is the program's choice)",
            fixed="""
            import tensorflow as tf

            def graph_size(f, *args):
                return len(f.get_concrete_function(*args).graph.as_graph_def().node)

            @tf.function
            def train(dataset):
                loss = tf.constant(0)
                for x, y in dataset:
                    loss += tf.abs(y - x)
                return loss

            small_data = [(1, 1)] * 3
            big_data = [(1, 1)] * 10
            small = graph_size(train, small_data)
            big = graph_size(train, big_data)
        """,
            proof=Proof(check="assert big > 2 * small and train.experimental_get_tracing_count() == 2, (small, big)")),
        valid("""
            import tensorflow as tf

            def graph_size(f, *args):
                return len(f.get_concrete_function(*args).graph.as_graph_def().node)

            @tf.function
            def train(dataset):
                loss = tf.constant(0)
                for x, y in dataset:
                    loss += tf.abs(y - x)
                return loss

            small_data = [(1, 1)] * 3
            big_data = [(1, 1)] * 10
            small = graph_size(train, tf.data.Dataset.from_generator(lambda: small_data, (tf.int32, tf.int32)))
            big = graph_size(train, tf.data.Dataset.from_generator(lambda: big_data, (tf.int32, tf.int32)))
        """, "the data wrapped in a tf.data.Dataset: one loop op, the same graph size",
            proof=Proof(check="assert big == small, (small, big)")),
        valid("""
            import tensorflow as tf

            @tf.function
            def run(x, layers):
                for layer in layers:
                    x = layer(x)
                return x

            layers = [tf.keras.layers.Dense(3), tf.keras.layers.Dense(2)]
            y = run(tf.ones([1, 4]), layers)
        """, "a Python list of layers: unrolling it is the model",
            proof=Proof(check="assert y.shape == (1, 2)")),
    )

    def check(self, ctx: Context) -> None:
        state = file_state(ctx.facts)
        values = values_for(ctx)
        analysis = _Scalars(ctx.facts, state, values)
        local_names = {name for (_, name) in _local_functions(ctx.facts, state)}
        remote = _may_reach_project(ctx)
        if not local_names and not remote:
            return
        for site in ctx.facts.calls:
            if not _may_reach_tf_function(site, local_names, remote):
                continue
            traced = site.scope.traced_by is not None
            if not analysis.may_change(site):
                continue
            changing = analysis.changing_arguments(site)
            if not changing:
                continue
            target = _resolve_target(site, state, ctx)
            if target is None or target.input_signature:
                continue
            if traced:
                # Inside another tf.function: the inner one traces only when the outer one does,
                # but once per value a Python loop unrolled by that trace gives it.
                self._report_unrolled(ctx, analysis, site, target, changing, values)
                continue
            changing = analysis.python_numbers(changing, site)
            for argument, description, because, calls in changing:
                if calls is None:
                    how = (f"again for every new value (\"{WARNING_THRESHOLD} out of the last {WARNING_THRESHOLD} "
                           "calls to <function ...> triggered tf.function retracing\")")
                else:
                    how = (f"anew for each of its {calls} values, one per iteration of the loop on "
                           f"{_line(ctx.facts, because)} (too few for TensorFlow's retracing warning, which "
                           f"starts at {WARNING_THRESHOLD} traces; a longer loop traces on every iteration)")
                message = (
                    f"{target.label} is a tf.function and `{ast.unparse(argument)}` is {description}: Python "
                    f"numbers are part of the trace key, so TensorFlow traces {target.label} {how}. Pass "
                    f"`tf.constant({ast.unparse(argument)})` instead, or give the function an `input_signature`.")
                if target.reduce_retracing:
                    option = "reduce_retracing" if ctx.targets.tensorflow >= REDUCE_RETRACING_SINCE \
                        else "experimental_relax_shapes"
                    message += (f" Its `{option}=True` does not help: that relaxes tensor shapes, "
                                "while Python values stay part of the trace key.")
                if target.elsewhere:
                    message += f" ({target.label} is defined in {target.elsewhere}.)"
                related = [ctx.related(because, "the value changes here")]
                if target.origin is not None:
                    related.append(ctx.related(target.origin, "the tf.function"))
                ctx.report(argument, message, related=related, fix=_as_tensor(ctx, argument, site, values))
        self._report_literals(ctx, values, local_names)
        self._report_python_data(ctx, values, local_names)

    def _report_python_data(self, ctx: Context, values: ValueModel, names: set[str]) -> None:
        """A Python list of numbers (or of tuples of numbers) passed to a tf.function of this
        file whose body loops over that parameter (the tf.function guide's `train(dataset)`
        with `[(1, 1)] * 3`): AutoGraph converts a loop over a tensor or a dataset only, so the
        loop runs while TensorFlow traces and puts a copy of its body in the graph for every
        element; a list of other values traces again (3 elements, 11 nodes; 10, 32 on
        TensorFlow 2.21). Calls through `f.get_concrete_function(...)` and through a helper
        that forwards its arguments (`measure(f, *args)` calling `f(*args)`) count."""
        facts = ctx.facts
        for site in facts.calls:
            if site.scope.traced_by is not None:
                continue
            reached = _data_call(facts, site, names)
            if reached is None:
                continue
            tf_function, pairs = reached
            if _present(tf_function.input_signature):
                continue
            for argument, param in pairs:
                data = _python_data(values.value(argument, site.scope))
                loop = _loop_over(tf_function.node, param) if data is not None else None
                if loop is None:
                    continue
                label = function_label(tf_function)
                message = (
                    f"{label} loops over `{param}` on {_line(facts, loop)}, and this call passes it "
                    f"`{ast.unparse(argument)}`, {data}: AutoGraph converts a loop over a "
                    f"tensor or a tf.data.Dataset only, so this one runs in Python while TensorFlow traces {label} "
                    "and puts a copy of its body in the graph for every element, and a list of other values traces "
                    "again. Pass the data as a `tf.data.Dataset` (`tf.data.Dataset.from_tensor_slices(...)`) or a "
                    "tensor: the loop becomes one loop op, whatever the length.")
                ctx.report(argument, message, related=[ctx.related(loop, "the loop AutoGraph leaves to Python"),
                                                       ctx.related(tf_function.origin, "the tf.function")])

    def _report_literals(self, ctx: Context, values: ValueModel, names: set[str]) -> None:
        """Calls in a row, in one scope and outside loops and branches, that pass a tf.function of
        this file different Python number literals for a parameter it uses only as an operand
        of TensorFlow ops (the tf.function guide's `train(num_steps=10)` then
        `train(num_steps=20)`): each new value traces again, a graph that differs only by a
        constant (2 calls, 2 traces on TensorFlow 2.21). The second and later values are
        reported; a parameter that shapes the graph (a `range` bound, an index, an `if`) is
        a retrace the program asks for."""
        facts = ctx.facts
        seen: dict[tuple[int, int, str], list[tuple[object, ast.Call]]] = {}
        sites = sorted((s for s in facts.calls if s.scope.traced_by is None and not s.loops and not s.guards
                        and isinstance(s.node.func, ast.Name) and s.node.func.id in names
                        and (s.node.args or s.node.keywords)),
                       key=lambda s: (s.node.lineno, s.node.col_offset))
        for site in sites:
            tf_function = _nearest_tf_function(facts, site)
            if tf_function is None or _present(tf_function.input_signature):
                continue
            for argument in _arguments(site):
                number = _literal_number(argument)
                if number is None:
                    continue
                param = _parameter_for(site.node, argument, tf_function.node, facts)
                if param is None:
                    continue
                earlier = seen.setdefault((id(site.scope.node), id(tf_function.node), param), [])
                if earlier and all(number != value for value, _ in earlier):
                    uses = _tensor_uses(tf_function.node, param, values, facts)
                    if uses:
                        first, call = earlier[0]
                        label = f"`{site.node.func.id}`"  # type: ignore[attr-defined]
                        shown = ast.unparse(argument)
                        message = (
                            f"{label} was called with `{param}={first!r}` on {_line(facts, call)}, and this call "
                            f"passes another Python number, `{shown}`: Python numbers are part of the trace key, so "
                            f"TensorFlow traces {label} again, a graph that differs only by a constant (`{param}` is "
                            f"only an operand of TensorFlow ops there, as in `{uses}`). "
                            f"{_pass_tensor(shown, argument, site, values)}")
                        related = [ctx.related(call, "the earlier call, with another value"),
                                   ctx.related(tf_function.origin, "the tf.function")]
                        ctx.report(argument, message, related=related, fix=_float_fix(ctx, argument, site, values))
                earlier.append((number, site.node))

    def _report_unrolled(self, ctx: Context, analysis: "_Scalars", site: CallSite, target: Target,
                         changing: list[tuple[ast.expr, str, ast.AST]], values: ValueModel) -> None:
        """A call made while another tf.function traces, in a Python loop of its body (`for k in
        range(2, K + 1)`, unrolled by the trace), passing the loop's Python number to a
        tf.function of this file that uses it only as an operand of TensorFlow ops: the inner
        function traces once per value, graphs that differ only by a constant (checked on
        TensorFlow 2.21: 4 values of `k`, 4 traces of the inner function for 1 of the outer)."""
        if target.node is None:
            return
        outer = site.scope.traced_by
        for argument, description, because in changing:
            if because not in site.loops or not _python_loop(because, analysis, site.scope) \
                    or _loop_count(because, values, site.scope) < 2 or not analysis.is_scalar(argument, site.scope):
                continue
            param = _parameter_for(site.node, argument, target.node, ctx.facts)
            uses = _tensor_uses(target.node, param, values, ctx.facts) if param is not None else None
            unread = not uses and param is not None and _unread(target.node, param)
            if not uses and not unread:
                continue
            shown = ast.unparse(argument)
            graphs = (f"the same graph each time (`{param}` is not read in its body)" if unread else
                      f"graphs that differ only by a constant (`{param}` is only an operand of TensorFlow ops "
                      f"there, as in `{uses}`)")
            message = (
                f"{target.label} is a tf.function called while {function_label(outer)} traces, and `{shown}` is "
                f"{description}: that loop runs in Python during the trace, and Python numbers are part of the "
                f"trace key, so TensorFlow traces {target.label} once for each value, {graphs}. "
                f"{_pass_tensor(shown, argument, site, values)}")
            related = [ctx.related(because, "the value changes here")]
            if target.origin is not None:
                related.append(ctx.related(target.origin, "the tf.function"))
            ctx.report(argument, message, related=related, fix=_float_fix(ctx, argument, site, values))


def _pass_tensor(shown: str, argument: ast.expr, site: CallSite, values: ValueModel) -> str:
    if values.value(argument, site.scope).dtype == "float":
        return f"Pass `tf.constant({shown})` instead: one trace for every value."
    return (f"Pass it as a tensor instead (`tf.constant({shown})`; `tf.constant({shown}, tf.float32)` where it "
            "meets float32 tensors): one trace for every value.")


def _float_fix(ctx: Context, argument: ast.expr, site: CallSite, values: ValueModel):
    """The fix for a Python float only: an int's tensor needs the dtype of what it meets in the
    function (`tf.math.pow(ps, k)` with float32 `ps` rejects an int32 `k`), which the function
    does not always tell."""
    if values.value(argument, site.scope).dtype != "float":
        return None
    return _as_tensor(ctx, argument, site, values)


def _literal_number(expr: ast.expr) -> int | float | None:
    """The value of an int or float literal (`20`, `-0.5`; not a bool)."""
    sign = 1
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        sign, expr = -1, expr.operand
    if isinstance(expr, ast.Constant) and type(expr.value) in (int, float):
        return sign * expr.value
    return None


def _nearest_tf_function(facts: Facts, site: CallSite, name: str | None = None) -> TfFunction | None:
    """The decorated tf.function of the call's scope that a plain-name call reaches (or that
    `name` there names): the last binding of the name above the call in that scope's own
    statements (a notebook cell that defines the function again makes a new tf.function with
    traces of its own)."""
    last = _nearest_binding(facts, site, name or site.node.func.id)  # type: ignore[attr-defined]
    if last is None:
        return None
    return next((t for t in facts.tf_functions if t.node is last and t.kind == "decorator"), None)


def _nearest_binding(facts: Facts, site: CallSite, name: str) -> ast.AST | None:
    """The last def, class, assignment target or import of `name` above the call, in the
    statements of the call's own scope."""
    cache = facts.__dict__.setdefault("_func009_bindings", {})
    key = (id(site.scope.node), name)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _bindings_of(site.scope.node, name)
    where = (site.node.lineno, site.node.col_offset)
    last = None
    for start, node in found:
        if start > where:
            break
        last = node
    return last


def _bindings_of(scope_node: ast.AST, name: str) -> list[tuple[tuple[int, int], ast.AST]]:
    """(start of its statement, binding) for each binding of `name` in a scope's own statements,
    in order (a def or class by itself; a nested def's body is not looked into)."""
    body = getattr(scope_node, "body", None)
    if not isinstance(body, list):
        return []
    found: list[tuple[tuple[int, int], ast.AST]] = []
    for stmt in body:
        start = (stmt.lineno, stmt.col_offset)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if stmt.name == name:
                found.append((start, stmt))
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load) \
                    or isinstance(node, ast.alias) and (node.asname or node.name).split(".")[0] == name:
                found.append((start, node))
    return found


def _data_call(facts: Facts, site: CallSite, names: set[str]
               ) -> tuple[TfFunction, list[tuple[ast.expr, str]]] | None:
    """The decorated tf.function of this file a call reaches, with (argument, parameter) pairs:
    `train(data)`, `train.get_concrete_function(data)`, or `helper(train, data)` where `helper`
    forwards its arguments to its first parameter (`f(*args)`, `f.get_concrete_function(*args)`)."""
    call = site.node
    func = call.func
    if not call.args or not any(isinstance(n, ast.Name) and n.id in names
                                for n in (func, getattr(func, "value", None), call.args[0])):
        return None  # names no tf.function of this file
    if isinstance(func, ast.Attribute) and func.attr == "get_concrete_function" and isinstance(func.value, ast.Name):
        tf_function = _nearest_tf_function(facts, site, func.value.id)
        given = list(call.args)
    elif isinstance(func, ast.Name):
        tf_function = _nearest_tf_function(facts, site)
        given = list(call.args)
        if tf_function is None:
            helper = _nearest_binding(facts, site, func.id)
            if not _forwards(helper) or not call.args or not isinstance(call.args[0], ast.Name):
                return None
            tf_function = _nearest_tf_function(facts, site, call.args[0].id)
            given = list(call.args[1:])
    else:
        return None
    if tf_function is None or not isinstance(tf_function.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [a.arg for a in tf_function.node.args.posonlyargs + tf_function.node.args.args]
    pairs = []
    for index, argument in enumerate(given):
        if isinstance(argument, ast.Starred):
            break
        if index < len(params):
            pairs.append((argument, params[index]))
    if func is call.func and not isinstance(func, ast.Attribute) and given is call.args:
        pairs += [(k.value, k.arg) for k in call.keywords if k.arg in params]
    return tf_function, pairs


def _forwards(helper: ast.AST | None) -> bool:
    """A plain function `def helper(f, *args)` whose body calls `f(*args)` or
    `f.get_concrete_function(*args)`."""
    if not isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)) or helper.decorator_list:
        return False
    arguments = helper.args
    if not arguments.args or arguments.vararg is None:
        return False
    first, rest = arguments.args[0].arg, arguments.vararg.arg
    for node in ast.walk(helper):
        if not isinstance(node, ast.Call) or len(node.args) != 1 or not isinstance(node.args[0], ast.Starred) \
                or not (isinstance(node.args[0].value, ast.Name) and node.args[0].value.id == rest):
            continue
        callee = node.func
        if isinstance(callee, ast.Attribute) and callee.attr == "get_concrete_function":
            callee = callee.value
        if isinstance(callee, ast.Name) and callee.id == first:
            return True
    return False


def _python_data(value: Value) -> str | None:
    """"a Python list of 3 elements" for a Python list or tuple whose elements are Python
    numbers or tuples of them (data, not layers or tensors): written out with two elements or
    more, or made otherwise (`[(1, 1)] * 3`) with elements the value model knows."""
    if value.kind not in (LIST, TUPLE) or not value.certain:
        return None
    if value.items is not None:
        if len(value.items) < 2 or not all(_numbers(item) for item in value.items):
            return None
        return f"a Python {value.kind} of {len(value.items)} elements"
    if value.item is None or not _numbers(value.item):
        return None
    what = "tuples of Python numbers" if value.item.kind in (LIST, TUPLE) else "Python numbers"
    return f"a Python {value.kind} of {what}"


def _numbers(item: Value) -> bool:
    parts = item.items if item.kind in (LIST, TUPLE) and item.items is not None else (item,)
    return bool(parts) and all(_number(part) for part in parts)


def _loop_over(function: ast.AST, param: str) -> ast.stmt | None:
    """A for loop of the function's own body over the parameter itself (`for x, y in dataset`),
    when the body never rebinds it."""
    found = None
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == param and not isinstance(node.ctx, ast.Load):
            return None
        if found is None and isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Name) \
                and node.iter.id == param:
            found = node
    return found


def _python_loop(loop: ast.AST, analysis: "_Scalars", scope: Scope) -> bool:
    """A for loop that AutoGraph leaves to Python: over `range(...)` of Python numbers, or over a
    list or tuple written out."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop.iter
    if isinstance(iterable, (ast.List, ast.Tuple)):
        return True
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
            and iterable.func.id in ("range", "enumerate") and iterable.args and not iterable.keywords:
        args = iterable.args if iterable.func.id == "range" else iterable.args[:1]
        if iterable.func.id == "enumerate":
            return isinstance(args[0], (ast.List, ast.Tuple))
        return all(_python_number_expression(a, analysis, scope) for a in args)
    return False


def _python_number_expression(expr: ast.expr, analysis: "_Scalars", scope: Scope) -> bool:
    """A Python number, or arithmetic on Python numbers (`K + 1` with a parameter `K=5`)."""
    if analysis.is_scalar(expr, scope):
        return True
    if isinstance(expr, ast.BinOp):
        return _python_number_expression(expr.left, analysis, scope) \
            and _python_number_expression(expr.right, analysis, scope)
    if isinstance(expr, ast.UnaryOp):
        return _python_number_expression(expr.operand, analysis, scope)
    return isinstance(expr, ast.Constant) and type(expr.value) in (int, float)


def _parameter_for(call: ast.Call, argument: ast.expr, function: ast.AST, facts: Facts) -> str | None:
    """The parameter of `function` that `argument` of `call` is given for."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    scope = facts.function_scopes.get(function)
    if scope is not None and scope.parent is not None and scope.parent.kind == "class" \
            and isinstance(call.func, ast.Attribute) and params:
        params = params[1:]  # bound to the instance
    for index, given in enumerate(call.args):
        if isinstance(given, ast.Starred):
            return None
        if given is argument:
            return params[index] if index < len(params) else None
    for keyword in call.keywords:
        if keyword.value is argument and keyword.arg in params:
            return keyword.arg
    return None


def _unread(function: ast.AST, param: str) -> bool:
    """A parameter the body never reads (nor a nested def, nor `locals()` / `vars()`): its value
    cannot shape the graph, yet a Python number given for it is part of the trace key."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and (node.id == param or node.id in ("locals", "vars", "eval", "exec")):
            return False
    return True


def _tensor_uses(function: ast.AST, param: str, values: ValueModel, facts: Facts) -> str | None:
    """The first TensorFlow op that takes `param`, when every read of it in the body is an
    argument of a TensorFlow API (`tf.range(n)`, `tf.math.pow(x, k)`), an operand of arithmetic
    with a tensor, or something printed, and one at least is not a print: a value that does not
    shape the graph (a `range` bound, an index, an `if`, a shape would). None otherwise."""
    scope = facts.function_scopes.get(function)
    parents: dict[int, ast.AST] = {}
    reads: list[ast.Name] = []
    for node in ast.walk(function):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, ast.Name) and node.id == param:
            if not isinstance(node.ctx, ast.Load):
                return None
            reads.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not function:
            if any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(node)):
                return None
    first = None
    for read in reads:
        parent = parents.get(id(read))
        if isinstance(parent, ast.keyword):
            parent = parents.get(id(parent))
        if isinstance(parent, ast.Call) and read is not parent.func:
            if isinstance(parent.func, ast.Name) and parent.func.id == "print":
                continue
            qualname = facts.imports.resolve(parent.func)
            if qualname == "tensorflow.print":
                continue
            if qualname is not None and qualname.split(".")[0] == "tensorflow" and qualname != "tensorflow.function":
                first = first or ast.unparse(parent)
                continue
            return None
        if isinstance(parent, ast.BinOp):
            other = parent.right if parent.left is read else parent.left
            if values.value(other, scope).is_(TENSOR, VARIABLE):
                first = first or ast.unparse(parent)
                continue
        return None
    return first


# --- the fix ----------------------------------------------------------------------------


def _as_tensor(ctx: Context, argument: ast.expr, site: CallSite, values: ValueModel):
    """`f(x, epsilon)` -> `f(x, tf.constant(epsilon))`: one trace for every value. Safe when the
    number is a float (a float32 scalar tensor computes what the Python float did); unsafe for
    ints and numbers of unknown kind (the function may use it as a Python int: `range(n)`, a
    shape, an index into a Python list; and it becomes an int32 tensor)."""
    alias = tf_alias(ctx.facts)
    if alias is None:
        return None
    number = values.value(argument, site.scope)
    safe = number.is_(NUMBER) and number.dtype == "float"
    text = ctx.facts.source.text
    shown = ast.unparse(argument)
    shown = shown if len(shown) <= 30 else shown[:27] + "..."

    def build():
        from ...fixes.scalars import constant_dtype
        from ...fixes.wrap import wrap_fix

        # The dtype the function's arithmetic needs (an int used with floats: float32, not int32).
        dtype = constant_dtype(values, ctx.facts, site.node, argument, number)
        more = f"dtype={alias}.{dtype}" if dtype is not None else ""
        shown_call = f"{alias}.constant({shown}{', ' + more if more else ''})"
        return wrap_fix(text, argument, f"{alias}.constant", f"Pass `{shown_call}`: one trace for every value",
                        Applicability.SAFE if safe else Applicability.UNSAFE, more)
    return build


# --- which tf.function a call reaches --------------------------------------------------


def _arguments(site: CallSite) -> list[ast.expr]:
    found = [a for a in site.node.args if not isinstance(a, ast.Starred)]
    return found + [k.value for k in site.node.keywords if k.arg is not None]


def _may_reach_project(ctx: Context) -> bool:
    """Could a call of this file reach a tf.function of another module of the project? Not when
    no import of the file can name a project file (the project says), and not without one."""
    if ctx.project is None:
        return False
    may_import = getattr(ctx.project, "may_import", None)
    return may_import is None or may_import(ctx.facts.imports, ctx.path)


def _may_reach_tf_function(site: CallSite, local_names: set[str], remote: bool) -> bool:
    """A cheap first test: could this call reach a tf.function at all (`remote`: one of
    another module of the project)?"""
    if not site.node.args and not site.node.keywords:
        return False
    if site.qualname is not None and site.qualname.split(".")[0] in ("tensorflow", "keras", "numpy"):
        return False
    func = site.node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name is None:
        return False
    return name in local_names or remote


def _local_functions(facts: Facts, state: FileState) -> dict[tuple[int, str], TfFunction]:
    """(id of the scope node that binds it, name) -> tf.function defined in this file."""
    cached = getattr(state, "_func009_local", None)
    if cached is not None:
        return cached
    found: dict[tuple[int, str], TfFunction] = {}
    for tf_function in facts.tf_functions:
        node = tf_function.node
        if tf_function.kind == "decorator" and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope = facts.function_scopes.get(node)
            if scope is not None and scope.parent is not None:
                found[(id(scope.parent.node), node.name)] = tf_function
    by_origin = {id(t.origin): t for t in facts.tf_functions}
    for binding in facts.bindings:
        if binding.kind != "tf_function":
            continue
        tf_function = by_origin.get(id(binding.value))
        if tf_function is None:
            continue
        if "." not in binding.name:
            found[(id(binding.scope.node), binding.name)] = tf_function
        elif binding.name.startswith("self.") and binding.name.count(".") == 1:
            cls = state.class_of(binding.scope)
            if cls is not None:
                found.setdefault((id(cls), binding.name[5:]), tf_function)
    state._func009_local = found  # type: ignore[attr-defined]
    return found


def _local_target(tf_function: TfFunction, label: str) -> Target:
    return Target(label, _present(tf_function.input_signature), tf_function.flag("reduce_retracing") is True,
                  origin=tf_function.origin, node=tf_function.node)


def _present(expr: ast.expr | None) -> bool:
    return expr is not None and not (isinstance(expr, ast.Constant) and expr.value is None)


def _resolve_target(site: CallSite, state: FileState, ctx: Context) -> Target | None:
    """The tf.function the call reaches (kept per scope and callee text: a scope calls the same
    few callees again and again, and each answer may look into the project)."""
    cache = state.__dict__.setdefault("_func009_targets", {})
    key = (id(site.scope.node), ast.unparse(site.node.func))
    if key not in cache:
        cache[key] = _find_target(site, state, ctx)
    found = cache[key]
    return replace(found, label=f"`{ast.unparse(site.node.func)}`") if found is not None else None


def _find_target(site: CallSite, state: FileState, ctx: Context) -> Target | None:
    func = site.node.func
    local = _local_functions(ctx.facts, state)
    label = f"`{ast.unparse(func)}`"
    if isinstance(func, ast.Name):
        defining = state.defining_scope(site.scope, func.id)
        if defining is not None and (id(defining.node), func.id) in local:
            return _local_target(local[(id(defining.node), func.id)], label)
        if defining is not None and defining.kind != "module":
            return None
        return _remote_function(func, state, ctx, label)
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
        cls = state.class_of(site.scope)
        return _method_of_class(cls, func.attr, state, ctx, label, 0) if cls is not None else None
    attr = self_attribute(receiver)
    if attr is not None:
        # `self.agent.train(...)` with `self.agent = Agent(...)` in the class.
        cls = state.class_of(site.scope)
        cls_expr = _instance_class(state.class_attrs(cls).get(attr, [])) if cls is not None else None
        if cls_expr is None:
            return None
        return _method_of_class_expr(cls_expr, func.attr, state.facts.module, state, ctx, label)
    if isinstance(receiver, ast.Name):
        defining = state.defining_scope(site.scope, receiver.id)
        if defining is None:
            return None
        bindings = state.names(defining).bindings.get(receiver.id, [])
        if bindings and all(b.kind == "import" for b in bindings):
            return _remote_function(func, state, ctx, label)
        cls_expr = _instance_class(bindings)
        if cls_expr is None:
            return None
        return _method_of_class_expr(cls_expr, func.attr, site.scope, state, ctx, label)
    return None


def _instance_class(bindings: list[Assignment]) -> ast.expr | None:
    """`agent = Agent(...)`: the class expression, when every binding agrees."""
    classes = {ast.dump(b.value.func) if b.kind == "assign" and isinstance(b.value, ast.Call) else None
               for b in bindings}
    if len(classes) != 1 or None in classes:
        return None
    value = bindings[0].value
    assert isinstance(value, ast.Call)
    return value.func


def _method_of_class_expr(cls_expr: ast.expr, method: str, scope: Scope, state: FileState, ctx: Context,
                          label: str) -> Target | None:
    if isinstance(cls_expr, ast.Name) and cls_expr.id in ctx.facts.classes:
        defining = state.defining_scope(scope, cls_expr.id)
        if defining is None or defining.kind == "module":
            return _method_of_class(ctx.facts.classes[cls_expr.id], method, state, ctx, label, 0)
        return None
    project = ctx.project
    if project is None:
        return None
    relative = _relative_import(cls_expr, state)
    if relative is not None:
        module, name, level, attr = relative
        if attr is not None:
            return None
        remote = project.imported_method(module, name, method, level, ctx.path)
    else:
        qualname = ctx.facts.imports.resolve(cls_expr)
        if qualname is None:
            return None
        remote = project.method(qualname, method, ctx.path)
    return _remote_target(remote, label, project)


def _method_of_class(cls: ast.ClassDef, method: str, state: FileState, ctx: Context, label: str,
                     depth: int) -> Target | None:
    local = _local_functions(ctx.facts, state)
    found = local.get((id(cls), method))
    if found is not None:
        return _local_target(found, label)
    if depth >= 4 or any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == method
                         for s in cls.body):
        return None
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in ctx.facts.classes and ctx.facts.classes[base.id] is not cls:
            inherited = _method_of_class(ctx.facts.classes[base.id], method, state, ctx, label, depth + 1)
            if inherited is not None:
                return inherited
        elif ctx.project is not None:
            target = _method_of_class_expr(base, method, ctx.facts.module, state, ctx, label)
            if target is not None:
                return target
    return None


def _relative_import(expr: ast.expr, state: FileState) -> tuple[str, str, int, str | None] | None:
    """(module, imported name, level, attribute) when `expr` starts at a name from `from . import`."""
    attr = None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        attr, expr = expr.attr, expr.value
    if not isinstance(expr, ast.Name):
        return None
    for binding in state.names(state.facts.module).bindings.get(expr.id, []):
        stmt = binding.stmt
        if isinstance(stmt, ast.ImportFrom) and stmt.level:
            for alias in stmt.names:
                if (alias.asname or alias.name) == expr.id:
                    return stmt.module or "", alias.name, stmt.level, attr
    return None


def _remote_function(func: ast.expr, state: FileState, ctx: Context, label: str) -> Target | None:
    project = ctx.project
    if project is None:
        return None
    relative = _relative_import(func, state)
    if relative is not None:
        module, name, level, attr = relative
        if attr is None:
            remote = project.imported_tf_function(module, name, level, ctx.path)
        else:  # `from . import steps` then `steps.step(...)`
            module = f"{module}.{name}" if module else name
            remote = project.imported_tf_function(module, attr, level, ctx.path)
        return _remote_target(remote, label, project)
    qualname = ctx.facts.imports.resolve(func)
    if qualname is None or qualname.split(".")[0] in ("tensorflow", "keras", "numpy", "tensorflow_probability"):
        return None
    return _remote_target(project.tf_function(qualname, ctx.path), label, project)


def _remote_target(remote, label: str, project) -> Target | None:
    if remote is None:
        return None
    return Target(label, remote.input_signature, remote.reduce_retracing,
                  elsewhere=remote.location(getattr(project, "root", None)))


# --- which arguments are Python numbers that change ----------------------------------


def _mentions_attribute(expr: ast.expr | None, attr: str) -> bool:
    return expr is not None and any(self_attribute(node) == attr for node in ast.walk(expr))


def _number(value: Value) -> bool:
    """A Python int or float (a bool takes two values: a trace each at most)."""
    return value.is_(NUMBER) and value.dtype in ("int", "float")


class _Scalars:
    """Python-number analysis for the scopes of one file, on its value model."""

    def __init__(self, facts: Facts, state: FileState, values: ValueModel) -> None:
        self.facts = facts
        self.state = state
        self.values = values
        self._loop_stores: dict[int, set[str]] = {}
        self._scope_attrs: dict[int, set[str]] = {}
        self._attribute_kinds: dict[tuple[int, str], str | None] = {}

    def is_scalar(self, expr: ast.expr, scope: Scope) -> bool:
        """Certainly a Python number (a parameter with a number default that no call of this
        file passes counts too)."""
        if _number(self.values.value(expr, scope)):
            return True
        if isinstance(expr, ast.Name):
            defs, owner = self.values.definitions(expr.id, scope, expr)
            return bool(defs) and owner is not None and all(
                d.kind == "param" and is_number(parameter_defaults(owner.node).get(expr.id)) for d in defs)
        return False

    def _attribute_kind(self, attr: str, scope: Scope) -> str | None:
        """"constant" or "changing" for a `self.attr` that only holds Python numbers."""
        cls = self.state.class_of(scope)
        if cls is None:
            return None
        key = (id(cls), attr)
        if key not in self._attribute_kinds:
            self._attribute_kinds[key] = self._compute_attribute_kind(attr, cls)
        return self._attribute_kinds[key]

    def _compute_attribute_kind(self, attr: str, cls: ast.ClassDef) -> str | None:
        bindings = self.state.class_attrs(cls).get(attr, [])
        # (cheap first: a number assigned somewhere; a change is an update of the attribute by
        # itself, `self.epsilon = max(0.1, self.epsilon * 0.95)` or `self.step += 1`)
        if not any(b.kind == "assign" and is_number(b.value) for b in bindings):
            return None
        changes = [b for b in bindings if not is_number(b.value)]
        if not changes:
            return "constant"
        if not all(b.kind == "augassign" or _mentions_attribute(b.value, attr) for b in changes):
            return None
        return "changing" if _number(self.values.instance_attribute(cls, attr)) else None

    def may_change(self, site: CallSite) -> bool:
        """A cheap first test: does an argument mention a name stored in a loop around the call,
        or an attribute of `self` that some method changes?"""
        loads = site.scope.loads
        stored: set[str] = set()
        for loop in site.loops:
            stored |= self._stores(loop)
        stored = {name for name in stored if name in loads}
        attrs = self._changing_attributes(site.scope)
        if not stored and not attrs:
            return False
        for argument in _arguments(site):
            if isinstance(argument, ast.Constant):
                continue
            for node in ast.walk(argument):
                if isinstance(node, ast.Name) and node.id in stored:
                    return True
                if attrs and self_attribute(node) in attrs:
                    return True
        return False

    def _changing_attributes(self, scope: Scope) -> set[str]:
        """`self.x` read in this scope where `x` is a Python number some method changes."""
        found = self._scope_attrs.get(id(scope.node))
        if found is None:
            found = set()
            if self.state.class_of(scope) is not None:
                for key in scope.loads:
                    if key.startswith("self.") and self._attribute_kind(key[5:], scope) == "changing":
                        found.add(key[5:])
            self._scope_attrs[id(scope.node)] = found
        return found

    def _stores(self, loop: ast.stmt) -> set[str]:
        found = self._loop_stores.get(id(loop))
        if found is None:
            found = self._loop_stores[id(loop)] = _stored_names(loop)
        return found

    def changing_arguments(self, site: CallSite) -> list[tuple[ast.expr, str, ast.AST]]:
        """(argument, description, where it changes) for each argument that changes from call to call."""
        arguments = _arguments(site)
        if not arguments:
            return []
        scope = site.scope.function or self.facts.module
        found = []
        for argument in arguments:
            if isinstance(argument, ast.Constant):
                continue
            reason = self._changes(argument, site, scope)
            if reason is not None:
                found.append((argument, *reason))
        return found

    def _changes(self, argument: ast.expr, site: CallSite, scope: Scope) -> tuple[str, ast.AST] | None:
        """Why the argument would change from call to call as a Python number: a loop index or
        element, a name reassigned in the loop, an attribute some method updates (in the code
        alone; `python_numbers` then asks the value model whether it is a number)."""
        flow = flow_of(self.facts, scope)
        reason: tuple[str, ast.AST] | None = None
        for node in ast.walk(argument):
            if isinstance(node, ast.Name) and flow.definitions(node.id):
                found = self._name_changes(node.id, site, scope, flow)
                if found is not None:
                    reason = found if node is argument else \
                        (f"a Python number computed from `{node.id}`, {found[0]}", found[1])
                    break
            attr = self_attribute(node)
            if attr is not None and self._attribute_kind(attr, scope) == "changing":
                cls = self.state.class_of(scope)
                assert cls is not None
                change = next(b.stmt for b in self.state.class_attrs(cls)[attr] if not is_number(b.value))
                reason = f"a Python number that changes on {_line(self.facts, change)}", change
                break
        return reason

    def python_numbers(self, changing: list[tuple[ast.expr, str, ast.AST]], site: CallSite
                       ) -> list[tuple[ast.expr, str, ast.AST, int | None]]:
        """The changing arguments that are Python numbers (the value model, asked last: it costs
        the most), each with the number of calls when that is fewer than TensorFlow's warning
        threshold (None: as many as the loop runs).

        A few values (a loop of fewer than 5 iterations, or over fewer than 5 values) are kept
        only for a Python float that changes with the outermost loop around the call, in module
        code or a function nothing calls in a loop, and then only when that loop is the only one
        (every call traces, no trace is ever reused: `decay=0.99 ** step` for `step in
        range(4)`, 4 calls and 4 traces on TensorFlow 2.21), or is a counter (`range`,
        `enumerate`: an epoch loop, one trace per epoch, as many as it counts). A Python int may
        be meant as structure (an index into a list of layers, a `range` bound); a loop over a
        few listed values around an inner loop is a sweep, a trace per setting reused inside;
        values of an inner loop repeat on every iteration of the outer one: silence."""
        out = []
        total = _iterations(site.loops, self.values, site.scope) if site.loops else float("inf")
        for argument, description, because in changing:
            if not self.is_scalar(argument, site.scope):
                continue
            runs = _loop_count(because, self.values, site.scope) if because in site.loops else float("inf")
            few = min(total, runs)
            if few >= WARNING_THRESHOLD:
                out.append((argument, description, because, None))
            elif self._new_every_call(argument, because, site):
                out.append((argument, description, because, int(few)))
        return out

    def _new_every_call(self, argument: ast.expr, because: ast.AST, site: CallSite) -> bool:
        """A Python float that takes a new value on every call: it changes with the outermost
        loop around the call, in module code or a function this file never calls in a loop."""
        value = self.values.value(argument, site.scope)
        if not (value.is_(NUMBER) and value.dtype == "float") or not site.loops or because is not site.loops[0]:
            return False
        counter = isinstance(because, (ast.For, ast.AsyncFor)) and isinstance(because.iter, ast.Call) \
            and isinstance(because.iter.func, ast.Name) and because.iter.func.id in ("range", "enumerate")
        if len(site.loops) > 1 and not counter:
            return False
        function = site.scope.function
        if function is None:
            return True
        name = getattr(function.node, "name", None)
        if name is None:
            return False
        return not any(other.loops and (ast.unparse(other.node.func).rsplit(".", 1)[-1] == name)
                       for other in self.facts.calls)

    def _name_changes(self, name: str, site: CallSite, scope: Scope, flow) -> tuple[str, ast.AST] | None:
        for loop in site.loops:
            index = _loop_index(loop, name, self.values, site.scope) if isinstance(loop, (ast.For, ast.AsyncFor)) \
                else None
            if index is not None:
                if index == "element":
                    return (f"an element of what the loop on {_line(self.facts, loop)} iterates, a new Python "
                            "number on every iteration"), loop
                return f"the {index} of the loop on {_line(self.facts, loop)}, a new Python int on every iteration", loop
            for d in flow.definitions(name):
                if d.kind in ("assign", "augassign") and loop in d.loops:
                    return (f"a Python number reassigned on {_line(self.facts, d.stmt)}, inside the loop "
                            "around this call"), d.stmt
        return None


def _stored_names(loop: ast.stmt) -> set[str]:
    """Names a loop binds: its targets and the names assigned in its body."""
    found: set[str] = set()
    targets: list[ast.expr] = []
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        targets.append(loop.target)
    for stmt in statements([loop]):
        if isinstance(stmt, ast.Assign):
            targets.extend(stmt.targets)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            targets.append(stmt.target)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            targets.append(stmt.target)
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                found.add(node.id)
    return found


def _line(facts: Facts, node: ast.AST) -> str:
    return facts.line_label(getattr(node, "lineno", 0))


def _loop_index(loop: ast.AST, name: str, values: ValueModel, scope: Scope) -> str | None:
    """"index" when `name` is the Python int counter of this for loop ("enumerate index" through
    enumerate), "element" when it is the loop's target over a Python list of numbers."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    target = loop.target
    call = loop.iter
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
        if call.func.id == "range" and isinstance(target, ast.Name) and target.id == name:
            return "index"
        if call.func.id == "enumerate" and isinstance(target, ast.Tuple) and target.elts \
                and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name:
            return "enumerate index"
    if isinstance(target, ast.Name) and target.id == name:
        return "element"
    return None


def _loop_count(loop: ast.stmt, values: ValueModel, scope: Scope) -> float:
    """How many times one run of this loop runs its body (inf when not written out)."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        if isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range":
            count = _range_length(loop.iter)
        else:
            count = _length(values.value(loop.iter, scope))
        if count is not None:
            return count
    return float("inf")


def _length(value: Value) -> int | None:
    """How many elements a list or tuple written out has."""
    return len(value.items) if value.kind in (LIST, TUPLE) and value.items is not None else None


def _iterations(loops: tuple[ast.stmt, ...], values: ValueModel, scope: Scope) -> float:
    """How many times the innermost body runs, when every loop is over a literal range or a list
    or tuple written out."""
    total = 1.0
    for loop in loops:
        total *= _loop_count(loop, values, scope)
    return total


def _range_length(call: ast.Call) -> int | None:
    if call.keywords or not call.args or not all(isinstance(a, ast.Constant) and type(a.value) is int
                                                 for a in call.args):
        return None
    try:
        return len(range(*[a.value for a in call.args]))  # type: ignore[union-attr]
    except (TypeError, ValueError):
        return None

