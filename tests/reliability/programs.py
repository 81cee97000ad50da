"""Hypothesis strategies for TensorFlow programs, and the properties the engine must keep on them.

`tf_programs()` composes what the rules look at: GradientTapes (persistent, nested, with the
same or an aliased name), tf.functions (decorated, wrapped, with signatures), tf.map_fn and
friends, loops, branches, classes with `__init__`/`call`, nested defs, names shadowed and
rebound, variables, layers and optimizers created in functions, NumPy and Python side effects.
Names come from a small pool so that shadowing, rebinding and reuse happen all the time. The
programs are syntactically valid Python (a few constructs, like `return` at module level or
`nonlocal` without an enclosing binding, only fail when compiled, which is fine: users write
them too).

`hypothesmith_programs()` is arbitrary valid Python from the grammar, with a TensorFlow import
in front so the engine does not skip it.

Shared by tests/reliability and bench/fuzz.py.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Any

from hypothesis import strategies as st

from tapelsp import Settings, check_source
from tapelsp.fixes import apply_fixes, parse_problem

# --- the generator ------------------------------------------------------------------------

NAMES = ["x", "y", "w", "v", "loss", "g", "tape", "t", "model", "opt", "i", "self.w", "self.v", "layer", "xs"]
TAPES = ["tape", "tape", "t", "g", "tape2"]
FUNCS = ["f", "step", "train_step", "fn", "g"]
HEADERS = [
    "import tensorflow as tf",
    "import numpy as np",
    "import random",
    "import time",
    "from tensorflow import GradientTape as GT",
    "from tensorflow import keras",
    "import tensorflow_probability as tfp",
    "import tensorflow.compat.v1 as tf1",
    "from tensorflow.keras import layers",
    "tf.compat.v1.disable_eager_execution()",
    "tf.compat.v1.disable_control_flow_v2()",
    "tf.compat.v1.disable_v2_behavior()",
    "import tensorflow.compat.v1 as tf",
    "K = tf.keras.backend",
]

name = st.sampled_from(NAMES)
tape_name = st.sampled_from(TAPES)
func_name = st.sampled_from(FUNCS)

EXPRS = [
    "{a}", "{a} * {b}", "{a} + 1.0", "tf.square({a})", "tf.reduce_sum({a})", "tf.reduce_mean({a} ** 2)",
    "tf.constant(3.0)", "tf.constant([1.0, 2.0])", "tf.constant({a})", "tf.constant(np.ones(3))",
    "tf.Variable(1.0)", "tf.Variable(tf.zeros([3]))", "tf.Variable({a})", "tf.Variable({a}, trainable=False)",
    "{a}.numpy()", "np.mean({a})", "np.sin({a})", "np.random.rand()", "random.random()", "time.time()",
    "tf.map_fn(lambda e: e * 2.0, {a})", "tf.map_fn(tf.square, {a})", "tf.map_fn({f}, {a}, back_prop=False)",
    "tf.vectorized_map({f}, {a})", "tf.scan(lambda acc, e: acc + e, {a})", "tf.while_loop(lambda k: k < 3, lambda k: k + 1, [0])",
    "model({a})", "model({a}, training=True)", "model.predict({a})", "model.predict_on_batch({a})",
    "K.eval({a})", "tf.keras.layers.Dense(3)", "tf.keras.layers.Dense(3)({a})", "layers.Dense({a})",
    "tf.keras.optimizers.Adam()", "tf.keras.optimizers.SGD(0.1)", "keras.Sequential([keras.layers.Dense(1)])",
    "{t}.gradient({a}, {b})", "{t}.gradient({a}, [{a}, {b}])", "{t}.gradient({a}, model.trainable_variables)",
    "{t}.jacobian({a}, {b})", "tf.gradients({a}, {b})", "K.gradients({a}, {b})",
    "tf.numpy_function(np.sin, [{a}], tf.float32)", "tf.py_function(np.sin, [{a}], tf.float32)",
    "tf.cast({a}, tf.int32)", "tf.round({a})", "tf.argmax({a})", "tf.stop_gradient({a})",
    "{f}({a})", "{f}(3)", "{f}({a}, 2)", "{f}(i)", "next(iter({a}))", "[{a}, {b}]", "{a}[0]",
    "{a} if {b} else 0.0", "len({a})", "float({a})", "{a}.assign({b})", "{a}.assign_add(1.0)",
    "tf.function({f})", "tf.function(lambda z: z * 2)", "tf.function({f}, reduce_retracing=True)",
    "tf.range(3)", "tfp.distributions.Normal(0.0, 1.0).log_prob({a})", "({a} := tf.ones([2]))",
    "lambda: {a}", "[e * 2 for e in {a}]", "GT()", "tf.GradientTape()", "{a}.shape[0]",
]

SIMPLE = [
    "{n} = {e}", "{n} += {e}", "{n} = {e}", "{n}, {m} = {m}, {n}", "{n}: tf.Tensor = {e}",
    "{t}.watch({a})", "{t}.watch([{a}, {b}])", "{e}", "print({a})", "tf.print({a})",
    "opt.apply_gradients(zip({g}, model.trainable_variables))", "opt.apply_gradients(zip([{g}], [{a}]))",
    "opt.minimize({a}, [{b}])", "opt.minimize(lambda: {a}, var_list=[{b}])", "del {t}", "del {n}",
    "{n}.append({e})", "{n}.assign({e})", "{n}[0] = {e}", "pass", "return {e}", "return", "global {bare}",
    "assert {e}", "raise ValueError({a})", "break", "continue", "yield {a}",
    "self.{bare} = {e}", "self.opt = tf.keras.optimizers.Adam()", "{n} = tf.keras.layers.Dense(4)",
    "{t} = tf.GradientTape(persistent=True)", "{n} = list()", "{n} = []", "{n} = iter(range(3))",
]

TAPE_ARGS = ["", "", "persistent=True", "watch_accessed_variables=False", "persistent=False"]
DECORATORS = ["@tf.function", "@tf.function()", "@tf.function(reduce_retracing=True)", "@tf.function(autograph=False)",
              "@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])", "@tf.function(jit_compile=True)",
              "@staticmethod", "@property", "@functools.lru_cache", ""]
PARAMS = ["", "x", "x, y", "self", "self, x", "self, x, training=False", "x, n=3", "*args, **kwargs", "x, /, y"]


def _fill(draw: Any, template: str) -> str:
    values = {
        "n": draw(name), "m": draw(name), "a": draw(name), "b": draw(name), "g": draw(name),
        "t": draw(tape_name), "f": draw(func_name), "bare": draw(name).removeprefix("self."),
    }
    if "{e}" in template:
        values["e"] = draw(st.sampled_from(EXPRS)).format(**values)
    return template.format(**values)


@st.composite
def simple_statement(draw: Any) -> list[str]:
    return [_fill(draw, draw(st.sampled_from(SIMPLE)))]


def _indent(lines: list[str], by: str = "    ") -> list[str]:
    return [by + line if line else line for line in lines]


@st.composite
def block(draw: Any, depth: int) -> list[str]:
    """A non-empty list of statements (lines, relative indentation)."""
    count = draw(st.integers(1, 4))
    out: list[str] = []
    for _ in range(count):
        if depth <= 0 or draw(st.integers(0, 2)) == 0:
            out += draw(simple_statement())
        else:
            out += draw(compound(depth - 1))
    return out


@st.composite
def compound(draw: Any, depth: int) -> list[str]:
    kind = draw(st.sampled_from(["tape", "tape", "tape", "function", "function", "def", "for", "while",
                                 "if", "try", "class", "with_two", "async"]))
    body = draw(block(depth))
    if kind == "tape":
        ctor = draw(st.sampled_from(["tf.GradientTape", "tf.GradientTape", "GT", "tf.autodiff.GradientTape",
                                     "tf1.GradientTape"]))
        target = draw(st.sampled_from([" as " + draw(tape_name), " as " + draw(tape_name), ""]))
        return [f"with {ctor}({draw(st.sampled_from(TAPE_ARGS))}){target}:"] + _indent(body)
    if kind == "with_two":
        first, second = draw(tape_name), draw(tape_name)
        return [f"with tf.GradientTape() as {first}, tf.GradientTape(persistent=True) as {second}:"] + _indent(body)
    if kind in ("function", "def", "async"):
        decorator = draw(st.sampled_from(DECORATORS)) if kind == "function" else ""
        prefix = "async def" if kind == "async" else "def"
        header = f"{prefix} {draw(func_name)}({draw(st.sampled_from(PARAMS))}):"
        return ([decorator] if decorator else []) + [header] + _indent(body)
    if kind == "for":
        iterable = draw(st.sampled_from(["range(3)", "tf.range(3)", "xs", "dataset", "zip(xs, xs)", "enumerate(xs)"]))
        head = f"for {draw(name)} in {iterable}:" if draw(st.booleans()) else f"for i, x in {iterable}:"
        return [head] + _indent(body)
    if kind == "while":
        return [f"while {draw(name)} > 0:"] + _indent(body)
    if kind == "if":
        orelse = draw(block(max(depth - 1, 0))) if draw(st.booleans()) else []
        out = [f"if {draw(name)} > 0:"] + _indent(body)
        return out + (["else:"] + _indent(orelse) if orelse else [])
    if kind == "try":
        return ["try:"] + _indent(body) + ["except Exception:"] + _indent(["pass"])
    # class: __init__ and call (or any other defs) from the drawn bodies
    base = draw(st.sampled_from(["tf.keras.Model", "tf.keras.layers.Layer", "tf.Module", "object", "keras.Model"]))
    init = ["def __init__(self):", "    super().__init__()"] + _indent(draw(block(0)))
    method = [draw(st.sampled_from(DECORATORS[:3] + [""])) or "# plain",
              f"def {draw(st.sampled_from(['call', '__call__', 'train_step', 'step']))}(self, x):"] + _indent(body)
    return [f"class {draw(st.sampled_from(['M', 'Model', 'Net']))}({base}):"] + _indent(init + method)


@st.composite
def tf_programs(draw: Any, max_depth: int = 3) -> str:
    headers = draw(st.lists(st.sampled_from(HEADERS), min_size=0, max_size=4))
    lines = ["import tensorflow as tf"] + headers
    for _ in range(draw(st.integers(1, 4))):
        lines += draw(block(draw(st.integers(0, max_depth))))
        if draw(st.booleans()):
            lines.append("")
    newline = draw(st.sampled_from(["\n", "\n", "\n", "\r\n"]))
    return newline.join(lines) + (newline if draw(st.booleans()) else "")


@st.composite
def example_mixes(draw: Any) -> str:
    """One to four of the rules' own examples (valid and invalid) put together and perturbed:
    wrapped in a function, loop, tape or class, names renamed, generated statements inserted,
    tabs for indentation, CRLF line endings. Every mix parses (a perturbation that would not
    is dropped)."""
    chosen = draw(st.lists(st.sampled_from(_examples()), min_size=1, max_size=4))
    imports: list[str] = []
    body: list[str] = []
    for source in chosen:
        lines = source.splitlines()
        for line in lines:
            if line.startswith(("import ", "from ")) and line not in imports:
                imports.append(line)
        rest = [line for line in lines if not line.startswith(("import ", "from "))]
        wrapper = draw(st.sampled_from(["", "", "", "def wrapper():", "for _ in range(2):",
                                        "with tf.GradientTape() as outer:", "if flag:", "class Holder:",
                                        "@tf.function\ndef traced():"]))
        candidate = rest
        if wrapper:
            candidate = wrapper.split("\n") + _indent(rest)
        if not parses("\n".join(imports + body + candidate)):
            candidate = rest
        body += candidate + [""]
    text = "\n".join(imports + body)
    for _ in range(draw(st.integers(0, 2))):  # rename a name everywhere it occurs
        names = sorted({n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)})
        if names:
            old, new = draw(st.sampled_from(names)), draw(st.sampled_from(NAMES[:11]))
            renamed = re.sub(rf"\b{re.escape(old)}\b", new, text)
            if parses(renamed):
                text = renamed
    for _ in range(draw(st.integers(0, 3))):  # insert a generated statement before a line
        lines = text.split("\n")
        at = draw(st.integers(0, len(lines) - 1))
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        inserted = "\n".join(lines[:at] + [indent + s for s in draw(simple_statement())] + lines[at:])
        if parses(inserted):
            text = inserted
    if draw(st.integers(0, 4)) == 0:  # tabs for indentation
        tabbed = re.sub(r"(?m)^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), text)
        if parses(tabbed):
            text = tabbed
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return text.replace("\n", newline)


_EXAMPLES: list[str] = []


def _examples() -> list[str]:
    if not _EXAMPLES:
        from tapelsp.rules import all_rules

        _EXAMPLES.extend(e.source for rule in all_rules() for e in rule.examples
                         if not rule.code.startswith(("TL", "RT")))
    return _EXAMPLES


def hypothesmith_programs() -> st.SearchStrategy[str]:
    import hypothesmith

    return hypothesmith.from_grammar().map(lambda code: "import tensorflow as tf\n" + code)


# --- the properties -----------------------------------------------------------------------

CRASH_CODES = ("TL004",)  # a rule raised: the engine caught it, but it is a bug


def describe(violations: Any) -> list[tuple]:
    """Everything a finding says, in a comparable form (fixes included)."""
    out = []
    for v in violations:
        fix = None if v.fix is None else (v.fix.title, v.fix.applicability.value,
                                          tuple((e.range, e.new_text) for e in v.fix.edits))
        out.append((v.code, v.range, v.message, v.severity, tuple((r.range, r.message) for r in v.related),
                    fix, v.fix_error))
    return out


def check_never_crashes(text: str, settings: Settings | None = None) -> list:
    settings = settings or Settings()
    found = check_source(text, "fuzz.py", settings)
    crashes = [v.message for v in found if v.code in CRASH_CODES]
    assert not crashes, f"the engine raised inside a rule:\n{crashes}\n--- source ---\n{text}"
    with_fixes = check_source(text, "fuzz.py", settings, fixes=True)
    crashes = [v.message for v in with_fixes if v.code in CRASH_CODES]
    assert not crashes, f"the engine raised while building fixes:\n{crashes}\n--- source ---\n{text}"
    # The same findings with and without fixes built.
    assert [d[:5] for d in describe(found)] == [d[:5] for d in describe(with_fixes)], text
    return with_fixes


def check_deterministic(text: str, settings: Settings | None = None) -> None:
    settings = settings or Settings()
    first = describe(check_source(text, "fuzz.py", settings, fixes=True))
    second = describe(check_source(text, "fuzz.py", settings, fixes=True))
    assert first == second, f"two checks of the same source differ\n--- source ---\n{text}"


def check_fixes(text: str, settings: Settings | None = None, *, unsafe: bool = True) -> tuple[int, int]:
    """Apply all fixes: the result parses (when the input did), a second round changes nothing.

    Returns (fixes applied, findings before)."""
    settings = settings or Settings()
    parsed = parse_problem(text) is None
    result = apply_fixes(text, "fuzz.py", settings, unsafe=unsafe)
    if not parsed:
        assert result.text == text, f"a source that does not parse was changed by fixing\n--- source ---\n{text}"
        return 0, 0
    problem = parse_problem(result.text)
    assert problem is None, (f"fixed code does not parse ({problem})\n--- source ---\n{text}\n"
                             f"--- fixed ---\n{result.text}")
    again = apply_fixes(result.text, "fuzz.py", settings, unsafe=unsafe)
    assert again.text == result.text and not again.fixed, (
        f"fixing is not idempotent: the second round fixed {[v.code for v in again.fixed]}\n"
        f"--- source ---\n{text}\n--- first round ---\n{result.text}\n--- second ---\n{again.text}")
    crashes = [v.message for v in result.remaining if v.code in CRASH_CODES]
    assert not crashes, f"checking the fixed code raised: {crashes}\n--- fixed ---\n{result.text}"
    return len(result.fixed), 0


def rule_counts(texts: list[str]) -> Counter:
    counts: Counter = Counter()
    for text in texts:
        counts.update(v.code for v in check_source(text, "fuzz.py"))
    return counts


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True
