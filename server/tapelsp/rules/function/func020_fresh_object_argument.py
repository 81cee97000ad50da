from __future__ import annotations

import ast

from ...analysis.python_state import function_label, inside
from ...analysis.values import FUNCTION, INSTANCE, TF_FUNCTION, Value, ValueModel, values_for
from ...facts.model import CallSite, Facts, TfFunction
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid

# A class that says how TensorFlow should trace it, or whose instances TensorFlow reads as
# a structure of values rather than as one object: its fresh instances do not retrace.
_TRACED_AS_VALUES = ("__tf_tracing_type__", "_fields", "__tf_flatten__")


class FreshObjectArgument(Rule):
    """
    ## What it does
    Finds a `tf.function` called with an instance of a plain Python class of the file that
    is made anew for the call: `step(x, Config())` in a loop, or a name bound to
    `Config()` in the loop body and passed in, or two calls that each make one
    (`f(Apple(), Mango())` twice).

    ## Why is this bad?
    TensorFlow keys the traces of a tf.function on its arguments. An instance of a plain
    Python class counts by identity (a weak reference), not by its contents: every fresh
    instance, even one equal to the last, makes TensorFlow trace the function again. The
    loop traces on every iteration, as slow as Python, and TensorFlow warns about
    "excessive retracing" once it has traced five times.

    ## Example
    ```python
    for step in range(100):
        loss = train_step(batch, Config(lr=0.1))   # a new trace every step
    ```

    ## Use instead
    Make the object once, outside the loop, and pass the same one every time; or pass the
    numbers it holds as tensors; or give the class a `__tf_tracing_type__` (see TensorFlow's
    tf.function guide) so that equal objects share a trace.
    """

    code = "FUNC020"
    name = "fresh-object-argument-retraces"
    summary = "A tf.function called with a new Python object each time traces again on every call"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.9")
    cheap_without_triggers = True
    triggers = ("function",)
    examples = (
        invalid("""
            import tensorflow as tf

            class Config:
                def __init__(self, scale):
                    self.scale = scale

            @tf.function
            def scaled(x, config):
                return x * config.scale

            for step in range(4):
                y = scaled(tf.constant(1.0), Config(2.0))
        """, 12, "a new instance on every iteration",
            proof=Proof(check="assert scaled.experimental_get_tracing_count() == 4")),
        invalid("""
            import tensorflow as tf

            class Fruit:
                flavor = tf.constant([0, 0])

            class Apple(Fruit):
                flavor = tf.constant([1, 2])

            @tf.function
            def flavor_of(fruit):
                return fruit.flavor

            first = flavor_of(Apple())
            second = flavor_of(Apple())
        """, 14, "two calls, each with a new instance: the second traces again",
            proof=Proof(check="assert flavor_of.experimental_get_tracing_count() == 2")),
        valid("""
            import tensorflow as tf

            class Config:
                def __init__(self, scale):
                    self.scale = scale

            @tf.function
            def scaled(x, config):
                return x * config.scale

            config = Config(2.0)
            for step in range(4):
                y = scaled(tf.constant(1.0), config)
            again = scaled(tf.constant(3.0), config)
        """, "the same instance on every call",
            proof=Proof(check="assert scaled.experimental_get_tracing_count() == 1")),
        valid("""
            import collections
            import tensorflow as tf

            Config = collections.namedtuple("Config", ["scale"])

            @tf.function
            def scaled(x, config):
                return x * config.scale

            for step in range(4):
                y = scaled(tf.constant(1.0), Config(2.0))
        """, "a namedtuple is traced by its values",
            proof=Proof(check="assert scaled.experimental_get_tracing_count() == 1")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        if not facts.tf_functions or not facts.classes:
            return
        if not any(scope.kind == "class" and _plain_class(facts, scope.node) for scope in facts.scopes):
            return  # a finding is an instance of a plain class of this file: there is none
        values = values_for(ctx)
        fresh_calls: dict[int, list[tuple[CallSite, ast.expr, TfFunction]]] = {}
        for site in facts.calls:
            call = site.node
            if not isinstance(call.func, (ast.Name, ast.Attribute)) or not (call.args or call.keywords):
                continue
            if not any(isinstance(a, ast.Call) or isinstance(a, ast.Name) for a in _arguments(call)):
                continue
            tf_function = _tf_function(values, call, site)
            if tf_function is None or tf_function.input_signature is not None:
                continue
            for arg in _arguments(call):
                if _fresh_instance(values, arg, site):
                    fresh_calls.setdefault(id(tf_function), []).append((site, arg, tf_function))
                    break
        for found in fresh_calls.values():
            # Two calls that each make the object where they pass it (a name passed twice may
            # be the same object). The first of them traces as any first call does.
            made_here = [arg for _, arg, _ in found if isinstance(arg, ast.Call)]
            first = min(made_here, key=lambda a: (a.lineno, a.col_offset)) if made_here else None
            for site, arg, tf_function in found:
                looped = _made_in_loop(values, arg, site)
                if not (looped or (len(made_here) > 1 and isinstance(arg, ast.Call) and arg is not first)):
                    continue
                label = function_label(tf_function)
                how = "in a loop" if looped else "anew for this call, as for an earlier one"
                ctx.report(
                    arg,
                    f"`{ast.unparse(arg)}` is a new Python object, made {how}: TensorFlow keys {label}'s "
                    "traces on a plain object's identity, not its contents, so every call with a fresh "
                    f"one traces {label} again. Make the object once and pass the same one, pass its "
                    "numbers as tensors, or give the class a `__tf_tracing_type__`.",
                    related=[ctx.related(tf_function.origin, "the tf.function")],
                )


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [a for a in call.args if not isinstance(a, ast.Starred)] + [k.value for k in call.keywords if k.arg]


def _tf_function(values: ValueModel, call: ast.Call, site: CallSite) -> TfFunction | None:
    called = values.value(call.func, site.scope)
    if not called.is_(TF_FUNCTION) or called.home is not None:
        return None
    target = called.ref
    if isinstance(target, Value) and target.kind == FUNCTION and target.home is None:
        scope = values.facts.function_scopes.get(target.ref)
        if scope is not None and scope.tf_function is not None and scope.tf_function.kind == "decorator":
            return scope.tf_function
    return next((t for t in values.facts.tf_functions if t.origin is called.origin), None)


def _fresh_instance(values: ValueModel, arg: ast.expr, site: CallSite) -> bool:
    """Certainly an instance of a plain class of this file, made by a call of that class."""
    value = values.value(arg, site.scope)
    if not value.is_(INSTANCE) or value.home is not None:
        return False
    cls = value.user_class
    made = value.origin
    if cls is None or not isinstance(made, ast.Call) or not _plain_class(values.facts, cls):
        return False
    return made is arg or isinstance(arg, ast.Name)


def _made_in_loop(values: ValueModel, arg: ast.expr, site: CallSite) -> bool:
    """The call is in a loop, and the object is made at the call or in the loop's body."""
    value = values.value(arg, site.scope)
    made = value.origin
    return any(inside(made, loop) for loop in site.loops) if made is not None else False


def _plain_class(facts: Facts, cls: ast.ClassDef, seen: frozenset[int] = frozenset()) -> bool:
    """A class of the file whose bases are classes of the file (or `object`), none of them saying
    how TensorFlow traces it."""
    if id(cls) in seen:
        return False
    for node in cls.body:
        names = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
        if any(n in _TRACED_AS_VALUES for n in names):
            return False
    if cls.keywords:
        return False  # metaclass=...
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id == "object" and "object" not in facts.classes:
            continue
        parent = facts.classes.get(base.id) if isinstance(base, ast.Name) else None
        if parent is None or not _plain_class(facts, parent, seen | {id(cls)}):
            return False
    return True
