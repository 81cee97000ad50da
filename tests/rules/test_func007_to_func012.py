"""FUNC007-FUNC012 beyond their examples: the seed's DQN agent, TensorFlow versions, severities,
notebooks, and near misses that must stay silent. (Calls into other modules: test_project.py.)"""

from __future__ import annotations

import inspect
import json

import tapelsp
from tapelsp import Settings
from tapelsp.model import Severity

CODES = ("FUNC007", "FUNC008", "FUNC009", "FUNC010", "FUNC011", "FUNC012")


def src(text: str) -> str:
    return inspect.cleandoc(text) + "\n"


def findings(source: str, tensorflow: str = "2.21", codes=CODES, **settings):
    chosen = Settings(tensorflow_version=tensorflow, select=tuple(codes), **settings)
    return [v for v in tapelsp.check_source(source, "t.py", chosen) if v.code in codes]


def flagged(source: str, tensorflow: str = "2.21", codes=CODES) -> list[tuple[str, int]]:
    return sorted((v.code, v.range.start.line + 1) for v in findings(source, tensorflow, codes))


# --- the seed: a DQN agent whose tf.function draws numpy indices and gets epsilon as a float ----

DQN = src("""
    import numpy as np
    import tensorflow as tf


    class DQN:
        def __init__(self, num_actions, batch_size=32, min_experiences=100):
            self.num_actions = num_actions
            self.batch_size = batch_size
            self.min_experiences = min_experiences
            self.experience = {"s": [], "a": [], "r": [], "s2": [], "done": []}
            self.model = tf.keras.Sequential([tf.keras.layers.Dense(num_actions)])
            self.optimizer = tf.keras.optimizers.Adam(1e-3)

        @tf.function
        def train(self, target_net, epsilon):
            if len(self.experience["s"]) < self.min_experiences:
                return 0
            ids = np.random.randint(low=0, high=len(self.experience["s"]), size=self.batch_size)
            states = tf.gather(self.experience["s"], ids)
            return tf.reduce_sum(self.model(states)) * epsilon


    def play(agent, target, episodes):
        epsilon = 0.99
        for episode in range(episodes):
            loss = agent.train(target, epsilon)
            epsilon = max(0.1, epsilon * 0.99)


    def run():
        agent, target = DQN(2), DQN(2)
        for step in range(1000):
            agent.train(target, step / 1000)
""")


def test_seed_dqn_randomness_and_epsilon() -> None:
    found = flagged(DQN)
    assert ("FUNC008", 18) in found, found
    # `agent` is a parameter in `play`: its class is unknown there, so that call stays silent;
    # in `run` it is a DQN, whose `train` is a tf.function.
    assert ("FUNC009", 33) in found, found
    assert ("FUNC009", 26) not in found
    assert all(code in ("FUNC008", "FUNC009") for code, _ in found), found


# --- versions -----------------------------------------------------------------------------

EVERY_RULE = src("""
    import random
    import tensorflow as tf

    log = []
    scale = 1.0
    batches = iter([1.0, 2.0])

    @tf.function
    def step(x, i):
        log.append(i)
        noise = random.random()
        return x * scale + next(batches) + noise

    for i in range(10):
        step(tf.constant(1.0), i)
        tf.function(lambda t: t)(tf.constant(1.0))
    scale = 2.0
    step(tf.constant(1.0), 0)
""")


def test_every_rule_fires_on_tensorflow_2() -> None:
    codes = {code for code, _ in flagged(EVERY_RULE)}
    assert codes == set(CODES), codes


def test_no_tf_function_before_tensorflow_2() -> None:
    assert flagged(EVERY_RULE, tensorflow="1.15") == []


def test_reduce_retracing_is_named_as_no_cure() -> None:
    source = src("""
        import tensorflow as tf

        @tf.function(reduce_retracing=True)
        def step(x, i):
            return x * i

        @tf.function(experimental_relax_shapes=True)
        def old_step(x, i):
            return x * i

        for i in range(10):
            step(tf.constant(1.0), i)
            old_step(tf.constant(1.0), i)
    """)
    found = findings(source, codes=("FUNC009",))
    assert [v.range.start.line + 1 for v in found] == [12, 13]
    assert all("reduce_retracing=True` does not help" in v.message for v in found)


def test_the_option_is_named_as_the_configured_tensorflow_calls_it() -> None:
    source = src("""
        import tensorflow as tf

        @tf.function(experimental_relax_shapes=True)
        def step(x, i):
            return x * i

        for i in range(10):
            step(tf.constant(1.0), i)
    """)
    new, = findings(source, codes=("FUNC009",))
    old, = findings(source, tensorflow="2.8", codes=("FUNC009",))
    assert "`reduce_retracing=True` does not help" in new.message
    assert "`experimental_relax_shapes=True` does not help" in old.message


# --- severities ---------------------------------------------------------------------------

PRINT_AND_APPEND = src("""
    import tensorflow as tf

    log = []

    @tf.function
    def step(x):
        print("step", x)
        log.append(x)
        return x
""")


def test_print_is_information_and_state_a_warning() -> None:
    by_line = {v.range.start.line + 1: v.severity for v in findings(PRINT_AND_APPEND, codes=("FUNC007",))}
    assert by_line == {7: Severity.INFORMATION, 8: Severity.WARNING}


def test_a_configured_severity_applies_to_print_too() -> None:
    found = findings(PRINT_AND_APPEND, codes=("FUNC007",), severity_overrides=(("FUNC007", Severity.ERROR),))
    assert {v.severity for v in found} == {Severity.ERROR}


# --- notebooks ----------------------------------------------------------------------------


def test_global_rebound_in_a_later_cell() -> None:
    cells = [
        "import tensorflow as tf\nthreshold = 0.5\n",
        "@tf.function\ndef keep(x):\n    return tf.boolean_mask(x, x > threshold)\n\nkeep(tf.constant([0.2, 0.9]))\n",
        "threshold = 0.1\nkeep(tf.constant([0.2, 0.9]))\n",
    ]
    notebook = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": [],
                           "execution_count": None} for c in cells],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    found = [v for v in tapelsp.check_notebook(json.dumps(notebook), "n.ipynb", Settings(select=("FUNC011",)))
             if v.code == "FUNC011"]
    assert len(found) == 1
    assert "cell 3" in found[0].message, found[0].message


# --- near misses that must stay silent ----------------------------------------------------


def test_silent_near_misses() -> None:
    source = src("""
        import numpy as np
        import tensorflow as tf

        counter = tf.Variable(0)
        rng = tf.random.Generator.from_seed(1)
        cache = {}
        data = iter(tf.data.Dataset.range(10))

        class Model(tf.Module):
            def __init__(self):
                self.calls = tf.Variable(0)
                self.buffer = []

            @tf.function
            def __call__(self, x):
                self.calls.assign_add(1)
                return x

        @tf.function
        def step(x, iterator):
            np.random.seed(0)
            local = []
            local.append(x)
            counter.assign_add(1)
            tf.print("value", x)
            noise = rng.normal([])
            element = next(iterator)
            first = next(data)
            return tf.stack(local) + noise + tf.cast(element + first, tf.float32)

        def plain(x):
            print(x)
            cache[x] = np.random.rand()
            return x

        def square(x):
            return x * x

        @tf.function
        def outer(x):
            for i in range(10):
                x = step(x, i)
            return x

        for i in range(3):
            step(tf.constant(1.0), data)
        for epoch in range(100):
            fn = tf.function(square)
            cache[epoch] = fn
        plain(1.0)
    """)
    assert flagged(source) == []


def test_func011_a_module_call_above_every_def_of_the_name_is_not_a_call_of_it() -> None:
    """Module code runs top to bottom: `p = penalty()` above the only `def penalty` cannot call
    that tf.function, so the rebinding of `w` between it and the last call is no stale read."""
    source = src("""
        import tensorflow as tf

        w = tf.Variable([1.0, -2.0])
        p = penalty()
        w = tf.Variable([1.0, -2.0])

        @tf.function
        def penalty():
            return tf.reduce_sum(w)

        p = penalty()
    """)
    assert flagged(source, codes=("FUNC011",)) == []
    rebound_between_calls = src("""
        import tensorflow as tf

        w = tf.Variable([1.0, -2.0])

        @tf.function
        def penalty():
            return tf.reduce_sum(w)

        p = penalty()
        w = tf.Variable([1.0, -2.0])
        p = penalty()
    """)
    assert flagged(rebound_between_calls, codes=("FUNC011",)) == [("FUNC011", 7)]
