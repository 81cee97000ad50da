"""FUNC001's fix, hoisting the tf.Variable out of the tf.function, beyond the rule's own examples."""

from __future__ import annotations

import inspect

import pytest

import tapelsp
from tapelsp import Settings
from tapelsp.fixes import apply_fixes, parse_problem

SETTINGS = Settings(tensorflow_version="2.21", select=("FUNC001",))


def src(text: str) -> str:
    return inspect.cleandoc(text) + "\n"


def fixes(text: str) -> list:
    return [v.fix for v in tapelsp.check_source(text, "t.py", SETTINGS, fixes=True) if v.code == "FUNC001"]


def fixed(text: str, unsafe: bool = True) -> str:
    result = apply_fixes(text, "t.py", SETTINGS, unsafe=unsafe)
    assert parse_problem(result.text) is None
    if unsafe:
        assert not [v for v in result.remaining if v.code == "FUNC001"], result.remaining
    return result.text


def test_safe_when_nothing_of_the_call_is_needed_unsafe_otherwise():
    text = src("""
        import tensorflow as tf

        @tf.function
        def f(x, n):
            a = tf.Variable(1.0)
            b = tf.Variable(tf.zeros([n]))
            if x > 0:
                c = tf.Variable(2.0)
            for i in range(3):
                d = tf.Variable(3.0)
            return a + b + c + d
    """)
    kinds = [fix.applicability.value for fix in fixes(text)]
    assert kinds == ["safe", "unsafe", "unsafe", "unsafe"]  # a; b needs n; c under an if; d in a loop
    assert fixed(text, unsafe=False).count("tf.Variable") == 4  # only `a` moved
    assert "a = tf.Variable(1.0)\n\n@tf.function" in fixed(text, unsafe=False)


def test_extends_an_existing_init_after_super_and_keeps_comments():
    text = src("""
        import tensorflow as tf


        class Model(tf.keras.Model):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units

            @tf.function
            def call(self, x):
                # the bias, one per unit
                b = tf.Variable(tf.zeros([self.units]))  # learned
                return x + b
    """)
    assert fixed(text) == src("""
        import tensorflow as tf


        class Model(tf.keras.Model):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units
                # the bias, one per unit
                self.b = tf.Variable(tf.zeros([self.units]))  # learned

            @tf.function
            def call(self, x):
                return x + self.b
    """)
    assert fixes(text)[0].applicability.value == "safe"


def test_attribute_only_set_outside_init_means_a_guard():
    text = src("""
        import tensorflow as tf

        class Layer(tf.Module):
            def build(self, units):
                self.units = units

            @tf.function
            def __call__(self, x):
                w = tf.Variable(tf.ones([self.units]))
                return x * w
    """)
    out = fixed(text)
    assert "    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n        self._w = None\n" in out
    assert "        if self._w is None:\n            self._w = tf.Variable(tf.ones([self.units]))\n        return x * self._w\n" in out
    assert fixes(text)[0].applicability.value == "unsafe"


def test_names_never_clash():
    text = src("""
        import tensorflow as tf

        v = 3

        class Holder:
            def __init__(self):
                self.scale = 1.0

            @tf.function
            def apply(self, x):
                scale = tf.Variable(2.0)
                return scale * x * self.scale

        @tf.function
        def f(x):
            v = tf.Variable(2.0)
            return v * x
    """)
    out = fixed(text)
    assert "f_v = tf.Variable(2.0)" in out and "return f_v * x" in out  # module `v` exists
    assert "self._scale = tf.Variable(2.0)" in out and "return self._scale * x * self.scale" in out
    assert "    def __init__(self):\n        self.scale = 1.0\n        self._scale = tf.Variable(2.0)\n" in out


def test_a_plain_class_gets_an_init_without_super():
    text = src("""
        import tensorflow as tf

        class Plain:
            @tf.function
            def run(self, x):
                return tf.Variable(1.0) * x
    """)
    assert fixed(text) == src("""
        import tensorflow as tf

        class Plain:
            def __init__(self):
                self.variable = tf.Variable(1.0)

            @tf.function
            def run(self, x):
                return self.variable * x
    """)


@pytest.mark.parametrize("head", ["@dataclasses.dataclass\nclass C:", "class C(typing.NamedTuple):",
                                  "class C:\n    __slots__ = ('a',)"])
def test_no_fix_where_init_cannot_be_written(head):
    text = ("import dataclasses, typing\nimport tensorflow as tf\n\n" + head + "\n"
            "    @tf.function\n    def run(self, x):\n        v = tf.Variable(1.0)\n        return v * x\n")
    assert fixes(text) == [None]


def test_no_fix_for_static_methods_lambdas_and_one_liners():
    text = src("""
        import tensorflow as tf

        class C:
            @staticmethod
            @tf.function
            def run(x):
                v = tf.Variable(1.0)
                return v * x

        @tf.function
        def g(x): v = tf.Variable(1.0); return v * x
    """)
    assert fixes(text) == [None, None]


def test_nested_function_hoists_before_its_def_and_guards_with_nonlocal():
    text = src("""
        import tensorflow as tf

        def make(n):
            @tf.function
            def step(x):
                w = tf.Variable(tf.zeros([n]))
                acc = tf.Variable(tf.zeros_like(x))
                return w + acc

            return step
    """)
    assert fixed(text) == src("""
        import tensorflow as tf

        def make(n):
            w = tf.Variable(tf.zeros([n]))
            acc = None

            @tf.function
            def step(x):
                nonlocal acc
                if acc is None:
                    acc = tf.Variable(tf.zeros_like(x))
                return w + acc

            return step
    """)


def test_tabs_crlf_and_unrelated_lines_are_kept():
    text = "import tensorflow as tf\r\n\r\nclass M(tf.Module):\r\n\t# keep me\r\n\t@tf.function\r\n\tdef f(self, x):\r\n" \
           "\t\tv = tf.Variable(1.0)\r\n\t\treturn v * x\r\n\r\nprint('done')  # end\r\n"
    out = fixed(text)
    assert out == ("import tensorflow as tf\r\n\r\nclass M(tf.Module):\r\n\tdef __init__(self, *args, **kwargs):\r\n"
                   "\t\tsuper().__init__(*args, **kwargs)\r\n\t\tself.v = tf.Variable(1.0)\r\n\r\n\t# keep me\r\n"
                   "\t@tf.function\r\n\tdef f(self, x):\r\n\t\treturn self.v * x\r\n\r\nprint('done')  # end\r\n")


def test_initializer_from_a_name_defined_after_the_function_is_guarded():
    text = src("""
        import tensorflow as tf

        @tf.function
        def f(x):
            v = tf.Variable(START)
            return v * x

        START = 2.0
    """)
    [fix] = fixes(text)
    assert fix.applicability.value == "unsafe" and "first call" in fix.title
    assert "global v\n    if v is None:\n        v = tf.Variable(START)" in fixed(text)


def test_several_variables_of_one_class_over_rounds():
    text = src("""
        import tensorflow as tf

        class Net(tf.Module):
            \"\"\"A net.\"\"\"

            @tf.function
            def __call__(self, x):
                w = tf.Variable(tf.ones([3, 3]))
                b = tf.Variable(tf.zeros([3]))
                return tf.matmul(x, w) + b
    """)
    result = apply_fixes(text, "t.py", SETTINGS)
    assert len(result.fixed) == 2 and len(result.rounds) == 2  # the second one waits for __init__ to exist
    assert result.text == src("""
        import tensorflow as tf

        class Net(tf.Module):
            \"\"\"A net.\"\"\"

            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.w = tf.Variable(tf.ones([3, 3]))
                self.b = tf.Variable(tf.zeros([3]))

            @tf.function
            def __call__(self, x):
                return tf.matmul(x, self.w) + self.b
    """)


def test_an_init_with_an_early_return_gets_the_attribute_after_super():
    text = src("""
        import tensorflow as tf

        class Net(tf.Module):
            def __init__(self, units=None):
                \"\"\"Doc.\"\"\"
                super().__init__()
                if units is None:
                    return
                self.units = units

            @tf.function
            def __call__(self, x):
                w = tf.Variable(2.0)
                u = tf.Variable(tf.ones([self.units]))
                return x * w * u
    """)
    out = fixed(text)
    assert out.startswith(src("""
        import tensorflow as tf

        class Net(tf.Module):
            def __init__(self, units=None):
                \"\"\"Doc.\"\"\"
                super().__init__()
                self._u = None
                self.w = tf.Variable(2.0)
                if units is None:
                    return
                self.units = units
    """))
    # `self.units` is not set on every path through __init__: `u` waits for the first call.
    assert "        if self._u is None:\n            self._u = tf.Variable(tf.ones([self.units]))\n" in out
