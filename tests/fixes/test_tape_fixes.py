"""The GradientTape fixes of issue 5 point 3 beyond the rules' examples: formatting kept (line
endings, tabs, comments, methods of a class), the places where no fix is offered, and what is
safe and what is not."""

from __future__ import annotations

import inspect

import tapelsp
from tapelsp import Settings
from tapelsp.fixes import apply_fixes, apply_notebook_fixes
from tapelsp.model import Applicability

from .properties import check_fix_properties


def _src(text: str) -> str:
    return inspect.cleandoc(text) + "\n"


def _fix(text: str, code: str, *, unsafe: bool = True) -> str:
    settings = Settings(tensorflow_version="2.21", select=(code,))
    check_fix_properties(text, "example.py", settings, unsafe=unsafe)
    return apply_fixes(text, "example.py", settings, unsafe=unsafe).text


def _offered(text: str, code: str):
    settings = Settings(tensorflow_version="2.21", select=(code,))
    found = [v for v in tapelsp.check_source(text, "example.py", settings, fixes=True) if v.code == code]
    assert found, f"{code} not reported"
    assert all(v.fix_error is None for v in found), [v.fix_error for v in found]
    return [v.fix for v in found]


# --- formatting ------------------------------------------------------------------------------

def test_crlf_line_endings_are_kept() -> None:
    text = _src("""
        import tensorflow as tf

        w = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            y = w * w
        loss = y + 1.0  # the loss
        g = tape.gradient(loss, w)
    """).replace("\n", "\r\n")
    fixed = _fix(text, "TAPE005")
    assert fixed == text.replace("    y = w * w\r\nloss = y + 1.0", "    y = w * w\r\n    loss = y + 1.0")
    assert "\n" not in fixed.replace("\r\n", "")


def test_tabs_are_the_block_indentation() -> None:
    text = "import tensorflow as tf\n\nx = tf.constant(2.0)\nif True:\n\twith tf.GradientTape() as tape:\n" \
           "\t\ty = x * x\n\tg = tape.gradient(y, x)\n"
    assert _fix(text, "TAPE010") == text.replace("\t\ty = x * x\n", "\t\ttape.watch(x)\n\t\ty = x * x\n")


def test_a_method_of_a_class_keeps_its_comments_and_layout() -> None:
    text = _src("""
        import tensorflow as tf


        class Trainer:
            \"\"\"Two losses, one tape.\"\"\"

            def step(self, actor, critic):
                # forward
                with tf.GradientTape() as tape:  # records both
                    a_loss = actor * actor  # actor
                    c_loss = critic * 3.0
                a_grad = tape.gradient(a_loss, actor)
                c_grad = tape.gradient(c_loss, critic)  # second call
                return a_grad, c_grad

            def other(self):
                return 1
    """)
    fixed = _fix(text, "TAPE002")
    assert fixed == text.replace("tf.GradientTape() as tape:  # records both",
                                 "tf.GradientTape(persistent=True) as tape:  # records both") \
        .replace("  # second call\n", "  # second call\n        del tape\n")


def test_statements_sharing_a_line_are_not_moved_but_can_be_anchors() -> None:
    moved = _src("""
        import tensorflow as tf

        w = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            y = w * w
        loss = y + 1.0; n = 1
        g = tape.gradient(loss, w)
    """)
    assert _offered(moved, "TAPE005") == [None]
    anchored = _src("""
        import tensorflow as tf

        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            y = x * x; z = y + 1.0
        g = tape.gradient(z, x)
    """)
    assert _fix(anchored, "TAPE010") == anchored.replace("    y = x * x;", "    tape.watch(x)\n    y = x * x;")


def test_a_block_on_the_line_of_its_with_gets_no_fix() -> None:
    text = _src("""
        import tensorflow as tf

        x = tf.constant(2.0)
        with tf.GradientTape() as tape: y = x * x
        g = tape.gradient(y, x)
    """)
    assert _offered(text, "TAPE010") == [None]


def test_a_semicolon_statement_is_rewritten_in_place() -> None:
    text = _src("""
        import tensorflow as tf

        w = tf.Variable(3.0)
        for step in range(2):
            with tf.GradientTape() as tape:
                loss = w * w
            g = tape.gradient(loss, w)
            w = w - 0.1 * g; step += 0  # update
    """)
    assert _fix(text, "TAPE011") == text.replace("w = w - 0.1 * g;", "w.assign_sub(0.1 * g);")


# --- where no fix (or only part of one) is offered ---------------------------------------------

def test_a_tape_already_deleted_only_becomes_persistent() -> None:
    text = _src("""
        import tensorflow as tf

        a = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            y = a * a
            z = a * 3.0
        gy = tape.gradient(y, a)
        gz = tape.gradient(z, a)
        del tape
    """)
    assert _fix(text, "TAPE002") == text.replace("tf.GradientTape()", "tf.GradientTape(persistent=True)")


def test_a_tape_a_closure_uses_is_not_deleted_so_no_fix() -> None:
    text = _src("""
        import tensorflow as tf

        a = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            y = a * a
            z = a * 3.0
        gy = tape.gradient(y, a)
        gz = tape.gradient(z, a)
        later = lambda: tape.gradient(y, a)
    """)
    assert _offered(text, "TAPE002") == [None]


def test_a_tape_used_after_the_loop_it_was_made_in_gets_no_fix() -> None:
    text = _src("""
        import tensorflow as tf

        a = tf.Variable(1.0)
        for i in range(1):
            with tf.GradientTape() as tape:
                y = a * a
                z = a * 3.0
        gy = tape.gradient(y, a)
        gz = tape.gradient(z, a)
    """)
    found = tapelsp.check_source(text, "example.py", Settings(select=("TAPE002",)), fixes=True)
    assert found and all(v.fix is None and v.fix_error is None for v in found)


def test_a_gradient_whose_result_the_block_uses_is_not_dedented_on_a_non_persistent_tape() -> None:
    text = _src("""
        import tensorflow as tf

        w = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            first = w * w
            g_first = tape.gradient(first, w)
            size = tf.abs(g_first)
            second = w * 5.0
        g_second = tape.gradient(second, w)
    """)
    found = tapelsp.check_source(text, "example.py", Settings(select=("TAPE003",)), fixes=True)
    assert found and all(v.fix is None and v.fix_error is None for v in found)


def test_numpy_calls_without_a_one_to_one_twin_are_left_alone() -> None:
    text = _src("""
        import numpy as np
        import tensorflow as tf

        w = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            loss = tf.convert_to_tensor(np.sum(np.clip(w, None, 1.0)))
        g = tape.gradient(loss, w)
    """)
    assert _offered(text, "TAPE007") == [None]


def test_the_files_own_tensorflow_alias_is_used() -> None:
    text = _src("""
        import numpy as np
        import tensorflow as tff

        w = tff.Variable([1.0, 2.0])
        with tff.GradientTape() as tape:
            loss = tff.convert_to_tensor(np.mean(np.square(w), axis=0, keepdims=True))
        g = tape.gradient(loss, w)
    """)
    assert _fix(text, "TAPE007") == text.replace("np.mean(np.square(w), axis=0, keepdims=True)",
                                                 "tff.reduce_mean(tff.square(w), axis=0, keepdims=True)")


def test_np_transpose_axes_becomes_perm() -> None:
    text = _src("""
        import numpy as np
        import tensorflow as tf

        w = tf.Variable([[1.0, 2.0]])
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.convert_to_tensor(np.transpose(w, axes=(1, 0))))
        g = tape.gradient(loss, w)
    """)
    assert "tf.transpose(w, perm=(1, 0))" in _fix(text, "TAPE007")


def test_a_positional_integer_dtype_is_made_float32() -> None:
    text = _src("""
        import tensorflow as tf

        x = tf.constant(200, tf.uint8)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cast(x, tf.float32) ** 2
        g = tape.gradient(y, x)
    """)
    assert _fix(text, "TAPE012") == text.replace("tf.constant(200, tf.uint8)", "tf.constant(200, tf.float32)")


# --- safe and unsafe ---------------------------------------------------------------------------

def test_unsafe_fixes_wait_for_unsafe_fixes() -> None:
    text = _src("""
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        x = tf.ones((4, 3))
        with tf.GradientTape() as tape:
            pred = model.predict(x)
            loss = tf.reduce_mean(pred)
        grads = tape.gradient(loss, model.trainable_variables)
    """)
    assert [f.applicability for f in _offered(text, "TAPE008")] == [Applicability.UNSAFE]
    assert _fix(text, "TAPE008", unsafe=False) == text
    assert _fix(text, "TAPE008") == text.replace("model.predict(x)", "model(x, training=False)")


def test_a_loss_with_a_method_call_moves_unsafely() -> None:
    text = _src("""
        import tensorflow as tf

        def step(model, loss_fn, x, y):
            with tf.GradientTape() as tape:
                pred = model(x)
            loss = loss_fn(y, pred)
            return tape.gradient(loss, model.trainable_variables)
    """)
    settings = Settings(select=("TAPE005",))
    found = [v for v in tapelsp.check_source(text, "example.py", settings, fixes=True) if v.code == "TAPE005"]
    assert [v.fix.applicability for v in found if v.fix] == [Applicability.UNSAFE]
    assert _fix(text, "TAPE005", unsafe=False) == text


def test_a_notebook_cell_gets_its_watch() -> None:
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
             "source": ["import tensorflow as tf\n"]},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
             "source": ["x = tf.constant(3.0)\n", "with tf.GradientTape() as tape:\n", "    y = x * x\n",
                        "g = tape.gradient(y, x)\n"]},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    result = apply_notebook_fixes(notebook, settings=Settings(select=("TAPE010",)))
    assert list(result.cells) == [2]
    assert result.notebook["cells"][1]["source"] == [
        "x = tf.constant(3.0)\n", "with tf.GradientTape() as tape:\n", "    tape.watch(x)\n", "    y = x * x\n",
        "g = tape.gradient(y, x)\n"]
