"""Sources the language-server tests open."""

LEARNER = '''import tensorflow as tf


class Learner(tf.Module):
    def __init__(self, model):
        self.model = model

    @tf.function
    def train(self, x):
        step = tf.Variable(0, dtype=tf.int64)
        step.assign_add(1)
        return self.model(x)
'''

# The same class after the FUNC001 quick fix: the variable is created once, in __init__.
LEARNER_FIXED = '''import tensorflow as tf


class Learner(tf.Module):
    def __init__(self, model):
        self.model = model
        self.step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def train(self, x):
        self.step.assign_add(1)
        return self.model(x)
'''

NESTED_TAPES = '''import tensorflow as tf

x = tf.linspace(0.0, 1.0, 16)
with tf.GradientTape() as tape:
    tape.watch(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        u = tf.sin(3.0 * x)
    du_dx = tape.gradient(u, x)
d2u_dx2 = tape.gradient(du_dx, x)
'''

NESTED_TAPES_FIXED = '''import tensorflow as tf

x = tf.linspace(0.0, 1.0, 16)
with tf.GradientTape() as tape:
    tape.watch(x)
    with tf.GradientTape() as inner_tape:
        inner_tape.watch(x)
        u = tf.sin(3.0 * x)
    du_dx = inner_tape.gradient(u, x)
d2u_dx2 = tape.gradient(du_dx, x)
'''

# Both problems in one file, far apart (for syntax errors in between).
BOTH = LEARNER + "\n\n" + NESTED_TAPES.split("\n", 1)[1]
