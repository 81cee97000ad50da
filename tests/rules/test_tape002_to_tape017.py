"""TAPE002-TAPE006, TAPE010, TAPE012, TAPE017 beyond their examples.

- whole, correct training programs (WGAN-GP, MAML, DQN, REINFORCE, a PINN, a custom
  train_step, FGSM, gradient accumulation, actor-critic ...) stay silent, and run clean
  under real TensorFlow;
- sources defined at module level or imported from another module of the project;
- version gating; which scopes get a def-use flow (speed);
- the tape-call resolution the rules share (`del tape` in a loop, `with tape:` re-entry).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest
import tapelsp
from tapelsp import Settings
from tapelsp import facts as facts_mod
from tapelsp.parse import parse_source
from tapelsp.analysis import gradcalls as _tape_gradcalls
from tapelsp.text import SourceText

CODES = ("TAPE002", "TAPE003", "TAPE004", "TAPE005", "TAPE006", "TAPE010", "TAPE012", "TAPE017")


def flagged(source: str, *, path: str | None = None, project=None, tf: str = "2.21",
            codes: tuple[str, ...] = CODES) -> list[tuple[str, int]]:
    found = tapelsp.check_source(textwrap.dedent(source), path, Settings(tensorflow_version=tf, select=codes),
                                 project=project)
    return sorted((v.code, v.range.start.line + 1) for v in found)


# --- correct programs stay silent ---------------------------------------------------------------

PROGRAMS = {
    "wgan_gp": '''\
import tensorflow as tf

G = tf.keras.Sequential([tf.keras.layers.Dense(4)])
D = tf.keras.Sequential([tf.keras.layers.Dense(1)])
g_opt = tf.keras.optimizers.Adam(1e-4)
d_opt = tf.keras.optimizers.Adam(1e-4)


def gradient_penalty(real, fake):
    alpha = tf.random.uniform([tf.shape(real)[0], 1], 0.0, 1.0)
    interpolated = real + alpha * (fake - real)
    with tf.GradientTape() as gp_tape:
        gp_tape.watch(interpolated)
        pred = D(interpolated, training=True)
    grads = gp_tape.gradient(pred, [interpolated])[0]
    norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=[1]))
    return tf.reduce_mean((norm - 1.0) ** 2)


def train_step(real):
    noise = tf.random.normal([tf.shape(real)[0], 3])
    with tf.GradientTape() as d_tape:
        fake = G(noise, training=True)
        d_loss = tf.reduce_mean(D(fake)) - tf.reduce_mean(D(real))
        d_loss += 10.0 * gradient_penalty(real, fake)
    d_grads = d_tape.gradient(d_loss, D.trainable_variables)
    d_opt.apply_gradients(zip(d_grads, D.trainable_variables))
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        fake = G(noise, training=True)
        gen_loss = -tf.reduce_mean(D(fake, training=True))
        disc_loss = tf.reduce_mean(D(fake, training=True))
    gen_grads = gen_tape.gradient(gen_loss, G.trainable_variables)
    disc_grads = disc_tape.gradient(disc_loss, D.trainable_variables)
    g_opt.apply_gradients(zip(gen_grads, G.trainable_variables))
    return d_loss, gen_loss, disc_grads


out = train_step(tf.ones([8, 4]))
assert all(g is not None for g in out[2])
''',
    "maml": '''\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
meta_opt = tf.keras.optimizers.Adam(1e-3)
x = tf.ones([4, 2])
y = tf.zeros([4, 1])

with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        inner_loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = inner.gradient(inner_loss, model.trainable_variables)
    fast = [w - 0.01 * g for w, g in zip(model.trainable_variables, grads)]
    pred = tf.matmul(x, fast[0]) + fast[1]
    meta_loss = tf.reduce_mean(tf.square(pred - y))
meta_grads = outer.gradient(meta_loss, model.trainable_variables)
meta_opt.apply_gradients(zip(meta_grads, model.trainable_variables))
assert all(g is not None for g in meta_grads)
''',
    "dqn": '''\
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(4,))])
target_model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(4,))])
optimizer = tf.keras.optimizers.Adam(1e-3)
loss_fn = tf.keras.losses.Huber()
gamma = 0.99


def train(states, actions, rewards, next_states, dones):
    next_q = target_model.predict(next_states, verbose=0)
    targets = rewards + gamma * np.max(next_q, axis=1) * (1 - dones)
    masks = tf.one_hot(actions, 2)
    with tf.GradientTape() as tape:
        q_values = model(states)
        q_action = tf.reduce_sum(q_values * masks, axis=1)
        loss = loss_fn(targets, q_action)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return float(loss), grads


states = np.ones((8, 4), np.float32)
loss, grads = train(states, np.zeros(8, np.int32), np.ones(8, np.float32), states, np.zeros(8, np.float32))
assert all(g is not None for g in grads)
''',
    "reinforce": '''\
import tensorflow as tf

policy = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(4,))])
optimizer = tf.keras.optimizers.Adam(1e-2)
episode_rewards = []
for episode in range(3):
    rewards, log_probs = [], []
    state = tf.ones([1, 4])
    with tf.GradientTape() as tape:
        for t in range(5):
            logits = policy(state)
            action = tf.random.categorical(logits, 1)[0, 0]
            log_probs.append(tf.nn.log_softmax(logits)[0, action])
            rewards.append(1.0)
            if t == 3:
                break
        returns = tf.constant([sum(rewards[i:]) for i in range(len(rewards))])
        loss = -tf.reduce_sum(tf.stack(log_probs) * returns)
    grads = tape.gradient(loss, policy.trainable_variables)
    optimizer.apply_gradients(zip(grads, policy.trainable_variables))
    episode_rewards.append(sum(rewards))
assert all(g is not None for g in grads)
''',
    "pinn": '''\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="tanh", input_shape=(1,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam(1e-3)
x = tf.reshape(tf.linspace(0.0, 1.0, 10), [-1, 1])


def residual(x):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        u = model(x)
        u_x = tape.gradient(u, x)
    u_xx = tape.gradient(u_x, x)
    del tape
    return u_xx + u


for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(residual(x)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
assert all(g is not None for g in grads)
''',
    "custom_model": '''\
import tensorflow as tf


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d = tf.keras.layers.Dense(1)
        self.loss_tracker = tf.keras.metrics.Mean(name="loss")

    def call(self, x, training=False):
        return self.d(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = tf.reduce_mean(tf.square(y - y_pred))
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}


net = Net()
net.compile(optimizer="adam")
net.fit(tf.ones([8, 2]), tf.zeros([8, 1]), epochs=1, verbose=0)
''',
    "misc": '''\
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,))])
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# FGSM
image = tf.convert_to_tensor(np.ones((1, 2), np.float32))
label = tf.constant([1])
with tf.GradientTape() as tape:
    tape.watch(image)
    prediction = model(image)
    loss = loss_object(label, prediction)
gradient = tape.gradient(loss, image)
adv = image + 0.1 * tf.sign(gradient)
assert gradient is not None

# gradient accumulation
accum = [tf.zeros_like(v) for v in model.trainable_variables]
for xb in [tf.ones([2, 2]), tf.zeros([2, 2])]:
    with tf.GradientTape() as tape:
        l = tf.reduce_mean(model(xb))
    grads = tape.gradient(l, model.trainable_variables)
    accum = [a + g for a, g in zip(accum, grads)]

# actor-critic, one persistent tape
actor = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(2,))])
critic = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
s = tf.ones([1, 2])
with tf.GradientTape(persistent=True) as tape:
    value = critic(s)
    probs = tf.nn.softmax(actor(s))
    advantage = 1.0 - value
    actor_loss = -tf.math.log(probs[0, 0]) * tf.stop_gradient(advantage)
    critic_loss = tf.square(advantage)
a_grads = tape.gradient(actor_loss, actor.trainable_variables)
c_grads = tape.gradient(critic_loss, critic.trainable_variables)
del tape
assert all(g is not None for g in a_grads + c_grads)

# watch_accessed_variables=False with an explicit watch
kernel = tf.Variable(tf.ones([2, 1]))
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(kernel)
    out = tf.reduce_sum(s @ kernel)
g = tape.gradient(out, [kernel])
assert all(x is not None for x in g)

# losses kept for logging
history = []
w = tf.Variable(3.0)
for step in range(3):
    with tf.GradientTape() as tape:
        loss = (w - 1.0) ** 2
    history.append(loss.numpy())
    dw = tape.gradient(loss, w)
    w.assign_sub(0.1 * dw)
print(np.mean(history))


@tf.function
def jvp(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sin(x)
    return tape.gradient(y, x)


assert jvp(tf.constant(0.0)) is not None

# metrics under stop_recording
acc = tf.keras.metrics.Mean()
with tf.GradientTape() as tape:
    logits = model(s)
    loss = tf.reduce_mean(logits)
    with tape.stop_recording():
        acc.update_state(tf.reduce_mean(logits).numpy())
grads = tape.gradient(loss, model.trainable_variables)
assert all(x is not None for x in grads)

# tape returned by a helper
def forward(x):
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(model(x))
    return t, loss

t, l = forward(s)
assert all(x is not None for x in t.gradient(l, model.trainable_variables))
''',
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_correct_program_is_silent(name: str) -> None:
    assert flagged(PROGRAMS[name], codes=("TAPE",)) == []


RUNNER = """
import sys, json
programs = json.loads(sys.stdin.read())
for name, source in programs.items():
    exec(compile(source, name, "exec"), {"__name__": "__program__"})
    print("ran", name)
"""


@pytest.mark.tensorflow
def test_correct_programs_run_clean_under_tensorflow() -> None:
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed for this interpreter")
    import json

    done = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(PROGRAMS), capture_output=True, check=False,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("ran ") == len(PROGRAMS)



# --- where the source comes from ----------------------------------------------------------------

def test_module_level_constant_used_as_source_in_a_function() -> None:
    source = """
        import tensorflow as tf

        x0 = tf.constant([0.5, 1.5])

        def slope(f):
            with tf.GradientTape() as tape:
                y = f(x0)
            return tape.gradient(y, x0)
    """
    assert flagged(source) == [("TAPE010", 9)]


def test_module_level_constant_rebound_somewhere_is_unknown() -> None:
    source = """
        import tensorflow as tf

        x0 = tf.constant([0.5, 1.5])
        if __name__ == "__main__":
            x0 = tf.Variable([0.5, 1.5])

        def slope(f):
            with tf.GradientTape() as tape:
                y = f(x0)
            return tape.gradient(y, x0)
    """
    assert flagged(source) == []


PARAMS = """
import tensorflow as tf

start = tf.constant(3)
scale = tf.constant(2.0)
"""

TRAIN = """
import tensorflow as tf
from params import scale, start

with tf.GradientTape() as tape:
    tape.watch(start)
    y = tf.cast(start, tf.float32) * scale
g_start, g_scale = tape.gradient(y, [start, scale])
"""


def _project(tmp_path, files: dict[str, str]):
    project_module = pytest.importorskip("tapelsp.project")
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return project_module.Project(str(tmp_path))


def test_sources_imported_from_another_module_of_the_project(tmp_path) -> None:
    project = _project(tmp_path, {"params.py": PARAMS, "train.py": TRAIN})
    path = str(tmp_path / "train.py")
    found = tapelsp.check_source(TRAIN, path, Settings(select=CODES), project=project)
    assert sorted((v.code, v.range.start.line + 1) for v in found) == [("TAPE010", 8), ("TAPE012", 8)]
    integer = next(v for v in found if v.code == "TAPE012")
    assert "`start` is an integer tensor (int32, made in params.py)" in integer.message
    assert "The dtype of the watched tensor must be floating" in integer.message  # it is watched


def test_imported_sources_are_unknown_without_a_project() -> None:
    assert flagged(TRAIN, path="train.py") == []


# --- versions -------------------------------------------------------------------------------------

def test_rules_apply_to_tensorflow_2_only() -> None:
    source = """
        import tensorflow as tf

        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            y = x * x
        g1 = tape.gradient(y, x)
        g2 = tape.gradient(y, x)
    """
    assert flagged(source) == [("TAPE002", 8), ("TAPE010", 7), ("TAPE010", 8)]
    assert flagged(source, tf="1.15") == []


# --- the shared resolution of tape calls -----------------------------------------------------------

def test_del_tape_at_the_end_of_a_loop_does_not_hide_the_tape() -> None:
    source = """
        import tensorflow as tf

        w = tf.Variable(1.0)
        for step in range(3):
            with tf.GradientTape() as tape:
                a = w * 2.0
                b = w * 3.0
            ga = tape.gradient(a, w)
            gb = tape.gradient(b, w)
            del tape
    """
    assert flagged(source) == [("TAPE002", 10)]


def test_a_with_tape_reentered_is_left_alone() -> None:
    # The pattern of official/legacy/bert/model_training_utils.py: the loss scaled in a second
    # `with tape:` block of the same tape object. The facts do not describe that recording.
    source = """
        import tensorflow as tf

        w = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            loss = w * w
        with tape:
            scaled = loss * 128.0
        grads = tape.gradient(scaled, w)
    """
    assert flagged(source) == []


def test_flows_are_built_only_for_scopes_with_tape_calls() -> None:
    source = textwrap.dedent("""
        import tensorflow as tf

        def unrelated(a, b):
            c = a + b
            return c * 2

        def step(w):
            with tf.GradientTape() as tape:
                y = w * w
            return tape.gradient(y, w)
    """)
    text = SourceText(source)
    facts = facts_mod.build(parse_source(text).tree, text)
    from tapelsp.rules import all_rules
    from tapelsp.rules.base import Context

    for rule in all_rules():
        if rule.code in CODES:
            rule().check(Context(facts=facts, targets=Settings().targets(), rule=rule(), severity=rule.severity))
    built = facts.__dict__.get("_flows", {})
    scopes = {id(s): s for s in facts.scopes}
    names = sorted(getattr(scopes[key].node, "name", "<module>") for key in built)
    assert names == ["step"]
    assert len(_tape_gradcalls.gradient_calls(facts)) == 1


# --- TAPE017 and its neighbours report once ------------------------------------------------------

def test_target_recorded_by_a_sibling_tape_is_tape017_only() -> None:
    source = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        x = tf.ones([2, 3])
        with tf.GradientTape() as first:
            loss = tf.reduce_sum(model(x))
        with tf.GradientTape() as second:
            other = tf.reduce_sum(model(x * 2.0))
        grads = second.gradient(loss, model.trainable_variables)
    """
    assert flagged(source) == [("TAPE017", 10)]


def test_episode_buffer_passed_to_unknown_code_is_left_alone() -> None:
    source = """
        import tensorflow as tf
        from replay import maybe_reset

        policy = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        memory = []
        for episode in range(3):
            with tf.GradientTape() as tape:
                memory.append(policy(tf.ones([1, 4])))
                loss = tf.reduce_sum(tf.stack(memory))
            grads = tape.gradient(loss, policy.trainable_variables)
            maybe_reset(memory)
    """
    assert flagged(source) == []


def test_episode_buffer_never_cleared() -> None:
    source = """
        import tensorflow as tf

        policy = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        memory = []
        for episode in range(3):
            with tf.GradientTape() as tape:
                memory.append(policy(tf.ones([1, 4])))
                loss = tf.reduce_sum(tf.stack(memory))
            grads = tape.gradient(loss, policy.trainable_variables)
    """
    found = tapelsp.check_source(textwrap.dedent(source), None, Settings(select=("TAPE017",)))
    assert [(v.code, v.range.start.line + 1) for v in found] == [("TAPE017", 8)]
    assert "Nothing in the loop clears it." in found[0].message


def test_episode_buffer_emptied_by_slice_assignment() -> None:
    source = """
        import tensorflow as tf

        policy = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        memory = []
        for episode in range(3):
            with tf.GradientTape() as tape:
                memory.append(policy(tf.ones([1, 4])))
                loss = tf.reduce_sum(tf.stack(memory))
            grads = tape.gradient(loss, policy.trainable_variables)
            memory[:] = []
    """
    assert flagged(source) == []


# --- TAPE006 stays silent when the model may run again inside ------------------------------------

def test_forward_before_tape_with_a_method_that_may_call_the_model() -> None:
    source = """
        import tensorflow as tf

        class Agent:
            def __init__(self):
                self.actor = tf.keras.Sequential([tf.keras.layers.Dense(2)])

            def actor_loss(self, states):
                return -tf.reduce_mean(self.actor(states))

            def update(self, states):
                logits = self.actor(states)
                with tf.GradientTape() as tape:
                    loss = self.actor_loss(states) + 0.0 * tf.reduce_sum(logits)
                return tape.gradient(loss, self.actor.trainable_variables)
    """
    assert flagged(source) == []


def test_forward_before_tape_with_a_closure_over_the_model() -> None:
    source = """
        import tensorflow as tf

        def update(model, x):
            baseline = model(x)

            def loss_fn():
                return tf.reduce_mean(model(x) - tf.stop_gradient(baseline))

            with tf.GradientTape() as tape:
                loss = loss_fn()
            return tape.gradient(loss, model.trainable_variables)
    """
    assert flagged(source) == []


def test_forward_before_tape_in_a_function_with_a_local_model() -> None:
    source = """
        import tensorflow as tf

        def update(model, x, y, loss_fn):
            pred = model(x)
            with tf.GradientTape() as tape:
                loss = loss_fn(y, pred)
            return tape.gradient(loss, model.trainable_variables)
    """
    assert flagged(source) == [("TAPE006", 5)]


def test_forward_before_tape_silent_when_the_loss_goes_through_a_list_filled_inside() -> None:
    source = """
        import tensorflow as tf

        def step(model, x):
            acc = []
            pred = model(x)
            with tf.GradientTape() as tape:
                acc.append(model(x) * 2.0)
                loss = tf.reduce_mean(tf.stack(acc)) + tf.reduce_sum(pred)
            return tape.gradient(loss, model.trainable_variables)
    """
    assert flagged(source) == []


def test_memoized_slice_matches_the_def_use_layer() -> None:
    from tapelsp.rules import all_rules

    for rule in all_rules():
        if rule.code not in CODES:
            continue
        for example in rule.examples:
            text = SourceText(example.source)
            facts = facts_mod.build(parse_source(text).tree, text)
            for call in _tape_gradcalls.gradient_calls(facts):
                if call.target is None:
                    continue
                expected = call.flow.slice(call.target, call.node)
                assert [id(d) for d in _tape_gradcalls.fast_slice(call.flow, call.target, call.node)] == \
                    [id(d) for d in expected], (rule.code, example.title)


# --- TAPE006 looks into loss functions of other modules through the project ----------------------

LOSSES_PURE = """
import tensorflow as tf

def _squared(a):
    return tf.square(a)

def mse(y, p):
    return tf.reduce_mean(_squared(y - p))
"""

LOSSES_USING_THE_MODEL = """
import tensorflow as tf
from train import model

def mse(y, p):
    return tf.reduce_mean(tf.square(y - model(p)))
"""

SCRIPT = """
import tensorflow as tf
from losses import mse

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
x = tf.ones([4, 3])
y = tf.zeros([4, 1])
pred = model(x)
with tf.GradientTape() as tape:
    loss = mse(y, pred)
grads = tape.gradient(loss, model.trainable_variables)
"""


def test_forward_before_tape_with_a_loss_from_another_module(tmp_path) -> None:
    project = _project(tmp_path, {"losses.py": LOSSES_PURE, "train.py": SCRIPT})
    assert flagged(SCRIPT, path=str(tmp_path / "train.py"), project=project) == [("TAPE006", 8)]


def test_forward_before_tape_loss_module_that_imports_the_model(tmp_path) -> None:
    project = _project(tmp_path, {"losses.py": LOSSES_USING_THE_MODEL, "train.py": SCRIPT})
    assert flagged(SCRIPT, path=str(tmp_path / "train.py"), project=project) == []


def test_forward_before_tape_with_an_unresolved_loss_is_silent() -> None:
    assert flagged(SCRIPT, path="train.py") == []


def test_unconnected_gradients_asked_for_on_purpose_is_left_alone() -> None:
    source = """
        import tensorflow as tf

        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            y = x * x
        g = tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    """
    assert flagged(source) == []
