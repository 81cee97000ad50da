"""TAPE001's fix: rename the inner tape and exactly its uses, or remove it so the outer tape answers."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings
from tapelsp.fixes import apply_fixes, parse_problem

SETTINGS = Settings(tensorflow_version="2.21", select=("TAPE001",))


def src(text: str) -> str:
    return inspect.cleandoc(text) + "\n"


def fixes(text: str) -> list:
    return [v.fix for v in tapelsp.check_source(text, "t.py", SETTINGS, fixes=True) if v.code == "TAPE001"]


def fixed(text: str) -> str:
    result = apply_fixes(text, "t.py", SETTINGS, unsafe=True)
    assert parse_problem(result.text) is None
    assert not [v for v in result.remaining if v.code == "TAPE001"]
    return result.text


def test_attribute_tapes_are_renamed_as_attributes():
    text = src("""
        import tensorflow as tf

        class Trainer:
            def second(self, x):
                with tf.GradientTape() as self.tape:
                    self.tape.watch(x)
                    with tf.GradientTape() as self.tape:
                        self.tape.watch(x)
                        y = x * x * x
                    dy = self.tape.gradient(y, x)
                return self.tape.gradient(dy, x)
    """)
    [fix] = fixes(text)
    assert fix.applicability.value == "safe" and "`inner_tape`" in fix.title
    assert fixed(text) == text.replace("as self.tape:\n                self.tape.watch",
                                       "as self.inner_tape:\n                self.inner_tape.watch") \
        .replace("dy = self.tape.gradient", "dy = self.inner_tape.gradient")


def test_the_new_name_is_fresh():
    text = src("""
        import tensorflow as tf

        inner_t = None
        x = tf.constant(1.0)
        with tf.GradientTape() as t:
            t.watch(x)
            with tf.GradientTape() as t:
                t.watch(x)
                y = x * x
            dy = t.gradient(y, x)
        d2y = t.gradient(dy, x)
    """)
    assert "as inner_t_2:" in fixed(text) and "dy = inner_t_2.gradient(y, x)" in fixed(text)


def test_removal_is_unsafe_when_the_outer_tape_would_be_asked_twice():
    text = src("""
        import tensorflow as tf

        x = tf.constant(3.0)
        with tf.GradientTape({persistent}) as tape:
            tape.watch(x)
            y = x * x
            with tf.GradientTape() as tape:
                dy = tape.gradient(y, x)
        g = tape.gradient(y, x)
    """)
    [fix] = fixes(text.format(persistent=""))
    assert fix.applicability.value == "unsafe" and fix.title.startswith("Remove the inner tape")
    [fix] = fixes(text.format(persistent="persistent=True"))
    assert fix.applicability.value == "safe"


def test_removal_keeps_every_comment_and_dedents_the_block():
    text = src("""
        import tensorflow as tf

        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            # ask for the gradient
            with tf.GradientTape() as tape:  # a second tape, by mistake
                # the derivative
                dy = tape.gradient(y, x)  # here
                # (end of the inner block)
            print(dy)
    """)
    assert fixed(text) == src("""
        import tensorflow as tf

        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            # ask for the gradient
            # a second tape, by mistake
            # the derivative
            dy = tape.gradient(y, x)  # here
            # (end of the inner block)
            print(dy)
    """)


def test_one_line_inner_block_and_a_tape_passed_on():
    text = src("""
        import tensorflow as tf

        def step(x, model, optimizer):
            with tf.GradientTape() as tape:
                y = model(x)
                with tf.GradientTape() as tape: loss = tf.reduce_sum(y)
            optimizer.minimize(loss, model.trainable_variables, tape=tape)
    """)
    [fix] = fixes(text)
    assert fix.applicability.value == "unsafe"  # `tape=tape`: which tape was meant is a guess
    assert "        y = model(x)\n        loss = tf.reduce_sum(y)\n    optimizer.minimize" in fixed(text)


def test_no_removal_of_a_with_that_holds_more_than_the_tape():
    text = src("""
        import tensorflow as tf

        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            with tf.GradientTape() as tape, tf.device("/cpu:0"):
                dy = tape.gradient(y, x)
    """)
    assert fixes(text) == [None]


def test_crlf_and_tabs_survive_removal():
    text = ("import tensorflow as tf\r\n\r\nx = tf.constant(3.0)\r\nwith tf.GradientTape() as tape:\r\n"
            "\ttape.watch(x)\r\n\ty = x * x\r\n\twith tf.GradientTape() as tape:\r\n\t\tdy = tape.gradient(y, x)\r\n"
            "print(dy)\r\n")
    assert fixed(text) == ("import tensorflow as tf\r\n\r\nx = tf.constant(3.0)\r\nwith tf.GradientTape() as tape:\r\n"
                           "\ttape.watch(x)\r\n\ty = x * x\r\n\tdy = tape.gradient(y, x)\r\nprint(dy)\r\n")


def test_multi_line_statements_in_the_removed_block_stay_valid():
    text = src('''
        import tensorflow as tf

        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            with tf.GradientTape() as tape:
                dy = tape.gradient(
                    y,
                    x,
                )
                note = """keep
            this text"""
    ''')
    out = fixed(text)
    assert '    dy = tape.gradient(\n        y,\n        x,\n    )\n' in out
    assert '    note = """keep\n    this text"""' in out  # the string's own lines are not re-indented
