"""TAPE007-TAPE018 beyond their examples: cross-module inference, version gating, the path analysis."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import tapelsp
from tapelsp import Settings


def _codes(source: str, *, path: str | None = None, project=None, tf: str = "2.21", code: str | None = None):
    found = tapelsp.check_source(textwrap.dedent(source), path, Settings(tensorflow_version=tf), project=project)
    return [(v.code, v.range.start.line + 1) for v in found if code is None or v.code == code]


NETS = """
import tensorflow as tf

class Actor(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.out = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.out(x)

class Critic(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.out = tf.keras.layers.Dense(1)

    def call(self, x):
        return self.out(x)
"""

LOSSES = """
import tensorflow as tf

def td_loss(values, targets):
    return tf.reduce_mean(tf.square(values - targets))
"""

TRAIN = """
import tensorflow as tf
from nets import Actor, Critic
from losses import td_loss

actor = Actor()
critic = Critic()

def update(states, targets):
    with tf.GradientTape() as tape:
        values = critic(states)
        loss = td_loss(values, targets)
    return tape.gradient(loss, actor.trainable_variables)
"""


class _FlatProject:
    """The one question the tape rules ask a project: which file `from <module> import ...` reads.
    (A stand-in for `tapelsp.project.Project` over a flat folder; one test uses the real one.)"""

    def __init__(self, root: Path) -> None:
        self.root = root

    def module_file(self, module: str, level: int = 0, importer: str | None = None) -> str | None:
        path = self.root / (module.replace(".", "/") + ".py")
        return str(path) if path.is_file() else None


def _project(tmp_path: Path, files: dict[str, str]) -> _FlatProject:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return _FlatProject(tmp_path)


def test_tape015_with_the_real_project_index(tmp_path: Path) -> None:
    project_module = pytest.importorskip("tapelsp.project")
    _project(tmp_path, {"nets.py": NETS, "losses.py": LOSSES, "train.py": TRAIN})
    project = project_module.Project(str(tmp_path))
    path = str(tmp_path / "train.py")
    assert _codes(TRAIN, path=path, project=project, code="TAPE015") == [("TAPE015", 13)]


def test_tape015_resolves_models_and_loss_functions_in_other_modules(tmp_path: Path) -> None:
    project = _project(tmp_path, {"nets.py": NETS, "losses.py": LOSSES, "train.py": TRAIN})
    path = str(tmp_path / "train.py")
    assert _codes(TRAIN, path=path, project=project, code="TAPE015") == [("TAPE015", 13)]


def test_tape015_is_silent_without_a_project() -> None:
    assert _codes(TRAIN, path="train.py", code="TAPE015") == []


def test_tape015_is_silent_when_the_imported_loss_uses_a_module_level_model(tmp_path: Path) -> None:
    impure = LOSSES + "\nactor_net = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n\ndef policy_loss(values, targets):\n    return actor_net(values) - targets\n"
    train = TRAIN.replace("from losses import td_loss", "from losses import policy_loss as td_loss")
    project = _project(tmp_path, {"nets.py": NETS, "losses.py": impure, "train.py": train})
    assert _codes(train, path=str(tmp_path / "train.py"), project=project, code="TAPE015") == []


def test_tape015_is_silent_when_the_imported_constructor_is_not_found(tmp_path: Path) -> None:
    project = _project(tmp_path, {"losses.py": LOSSES, "train.py": TRAIN})  # no nets.py
    assert _codes(TRAIN, path=str(tmp_path / "train.py"), project=project, code="TAPE015") == []


def test_tape015_models_from_a_shared_factory_over_a_global_layer_are_not_distinct() -> None:
    source = """
    import tensorflow as tf

    shared = tf.keras.layers.Dense(4)

    def make(units):
        return tf.keras.Sequential([shared, tf.keras.layers.Dense(units)])

    actor = make(2)
    critic = make(1)
    x = tf.ones((2, 3))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(critic(x))
    grads = tape.gradient(loss, actor.trainable_variables)
    """
    assert _codes(source, code="TAPE015") == []


def test_tape007_needs_the_imported_helper_resolved(tmp_path: Path) -> None:
    helpers = """
    import numpy as np

    def to_numpy_mean(t):
        return np.mean(t)
    """
    train = """
    import tensorflow as tf
    from helpers import to_numpy_mean

    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        loss = tf.constant(to_numpy_mean((w * 3.0).numpy()))
    g = tape.gradient(loss, w)
    """
    # Unresolved, the helper might use `w` itself: silent. Resolved, it only uses its argument.
    assert _codes(train, code="TAPE007") == []
    project = _project(Path(str(tmp_path)), {"helpers.py": helpers, "train.py": train})
    assert _codes(train, path=str(tmp_path / "train.py"), project=project, code="TAPE007") == [("TAPE007", 7)]


def test_tape016_depends_on_the_target_tensorflow_version() -> None:
    source = """
    import tensorflow as tf

    x = tf.Variable(3.0)
    y = x * x
    dy = tf.gradients(y, x)
    """
    assert _codes(source, tf="2.21", code="TAPE016") == [("TAPE016", 6)]
    assert _codes(source, tf="2.0", code="TAPE016") == [("TAPE016", 6)]
    assert _codes(source, tf="1.15", code="TAPE016") == []


def test_tape016_keras3_k_gradients_is_an_attribute_error() -> None:
    source = """
    import tensorflow as tf
    from tensorflow.keras import backend as K

    w = tf.Variable(2.0)
    grads = K.gradients(w * w, [w])
    """
    found = tapelsp.check_source(textwrap.dedent(source), None, Settings(tensorflow_version="2.21", keras_version="3.15"))
    messages = [v.message for v in found if v.code == "TAPE016"]
    assert len(messages) == 1 and "AttributeError" in messages[0]


def test_tape016_silent_for_functions_passed_elsewhere() -> None:
    source = """
    import tensorflow as tf

    def grad_fn(x):
        return tf.gradients(x * x, x)

    step = tf.function(grad_fn)
    callbacks = [grad_fn]
    """
    assert _codes(source, code="TAPE016") == []


def test_tape011_respects_intermediate_rebinding() -> None:
    source = """
    import tensorflow as tf

    w = tf.Variable(1.0)
    for step in range(3):
        w = tf.Variable(2.0)
        w = w * 2.0
    """
    assert _codes(source, code="TAPE011") == []


def test_tape009_stop_gradient_on_a_target_network_is_silent() -> None:
    source = """
    import tensorflow as tf

    online = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    target = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    x = tf.ones((2, 3))
    with tf.GradientTape() as tape:
        q = online(x)
        y = tf.stop_gradient(1.0 + 0.9 * target(x))
        loss = tf.reduce_mean((q - y) ** 2)
    grads = tape.gradient(loss, online.trainable_variables)
    """
    assert _codes(source, code="TAPE009") == []
    assert _codes(source, code="TAPE015") == []


def test_unknown_sources_keep_the_path_rules_silent() -> None:
    source = """
    import numpy as np
    import tensorflow as tf

    def step(model, x):
        with tf.GradientTape() as tape:
            loss = tf.constant(np.mean(model(x).numpy()))
        return tape.gradient(loss, tape.watched_variables())
    """
    assert _codes(source, code=None) == [] or all(c not in ("TAPE007", "TAPE015") for c, _ in _codes(source))


def test_numpy_in_a_seed_style_rl_loop_is_found() -> None:
    source = """
    import numpy as np
    import tensorflow as tf

    class Policy(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.out = tf.keras.layers.Dense(2)

        def call(self, x):
            return self.out(x)

    pi = Policy()
    optimizer = tf.keras.optimizers.Adam()
    for episode in range(3):
        with tf.GradientTape() as tape:
            probs = pi(tf.ones((1, 4)))
            log_prob = np.log(probs.numpy()[0, 0])
            loss = tf.constant(-log_prob)
        grads = tape.gradient(loss, pi.trainable_variables)
    """
    assert _codes(source, code="TAPE007") == [("TAPE007", 18)]


def test_tape011_a_loop_without_a_tape_is_left_alone() -> None:
    source = """
    import tensorflow as tf

    total = tf.Variable(0.0)
    for step in range(3):
        total = total + 1.0
    """
    assert _codes(source, code="TAPE011") == []


def test_values_appended_to_lists_inside_the_tape_stay_connected() -> None:
    source = """
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    x = tf.ones((2, 3))
    with tf.GradientTape() as tape:
        losses = []
        for step in range(3):
            losses.append(tf.reduce_mean(model(x)))
        total = sum(losses)
    grads = tape.gradient(total, model.trainable_variables)
    """
    assert _codes(source) == []


def test_numpy_values_appended_to_a_list_are_cut() -> None:
    source = """
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    x = tf.ones((2, 3))
    with tf.GradientTape() as tape:
        losses = []
        for step in range(3):
            losses.append(model(x).numpy().mean())
        total = tf.constant(sum(losses))
    grads = tape.gradient(total, model.trainable_variables)
    """
    assert _codes(source, code="TAPE007") == [("TAPE007", 9)]


def test_variables_kept_in_an_attribute_list_stay_connected() -> None:
    source = """
    import tensorflow as tf

    class Linear:
        def __init__(self, w, b):
            self.params = [w, b]

        def loss(self, x):
            with tf.GradientTape() as tape:
                out = x * self.params[0] + self.params[1]
            return tape.gradient(out, [w, b])

    w = tf.Variable(2.0)
    b = tf.Variable(1.0)
    """
    assert _codes(source) == []


def test_swapped_gan_lists_in_one_recording_are_connected_and_silent() -> None:
    # The generator's loss goes through the discriminator, so its gradient with respect to the
    # discriminator's variables is not None (wrong, but not this rule's silent None).
    source = """
    import tensorflow as tf

    def make(units):
        return tf.keras.Sequential([tf.keras.layers.Dense(units)])

    generator = make(3)
    discriminator = make(1)
    noise = tf.ones((2, 4))
    with tf.GradientTape() as gen_tape:
        fake = generator(noise)
        gen_loss = -tf.reduce_mean(discriminator(fake))
    grads = gen_tape.gradient(gen_loss, discriminator.trainable_variables)
    """
    assert _codes(source, code="TAPE015") == []
