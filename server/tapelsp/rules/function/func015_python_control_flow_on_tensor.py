from __future__ import annotations

import ast

from ...facts.model import Facts, TfFunction
from ...model import Severity
from ...versions import VersionRange
from ...facts.walk import body_nodes, walk_body
from ...analysis.traced import function_name, keras3_calls, traced_function_nodes, traced_functions
from ...analysis.values import BUILTIN, NONE, NUMBER, SHAPE, TENSOR, VARIABLE, ValueModel, values_for
from ..base import Context, Proof, Rule, invalid, valid

AS_BOOL = ("OperatorNotAllowedInGraphError \"Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.\"")
ITERATE = "OperatorNotAllowedInGraphError \"Iterating over a symbolic `tf.Tensor` is not allowed.\""
FOR_BREAK = ("NotImplementedError \"break and return statements which depend on a TF condition are not "
             "supported in Python for loops. Did you intend to make it a TF loop?\"")
WHILE_BREAK = ("NotImplementedError \"The condition of while loop started as non-Tensor, then changed to "
               "Tensor. This may happen either because variables changed type, or when a break or return "
               "statement inside the loop depends on a Tensor condition.\"")
RETURN = "ValueError \"the else branch must also have a return statement.\""
_ITERATION_HELPERS = ("enumerate", "zip", "reversed")


class PythonControlFlowOnTensor(Rule):
    """
    ## What it does
    Finds Python control flow that needs a tensor's value while a `tf.function` is
    traced and that AutoGraph cannot convert:

    - with `autograph=False`, an `if`/`while`/`assert`/`and`/`or`/`not` on a tensor, or a
      `for` loop over a tensor; the same in the `call` of a Keras 3 layer or model, which
      Keras 3 runs without AutoGraph whenever it traces it (Keras 2, tf_keras, converts it);
    - with AutoGraph on, a `break` or `return` under a tensor condition inside a Python
      loop (`for i in range(10)`, a loop over a list, a `while` on a Python condition).

    ## Why is this bad?
    While tracing, tensors have no value. Without AutoGraph, Python asks for one and
    TensorFlow raises `OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor as a
    Python bool is not allowed` (or "Iterating over a symbolic `tf.Tensor` is not
    allowed"). With AutoGraph, a Python loop is unrolled while tracing, so it cannot stop
    at a tensor condition: `NotImplementedError: break and return statements which depend
    on a TF condition are not supported in Python for loops` (for `while`: "The condition
    of while loop started as non-Tensor, then changed to Tensor"; for a `return`,
    often "ValueError: the else branch must also have a return statement.").

    ## Example
    ```python
    @tf.function(autograph=False)
    def magnitude(x):
        if x > 0:
            return x
        return -x

    @tf.function
    def grow(x):
        for _ in range(10):
            x = x * 2
            if tf.reduce_sum(x) > 100:
                break
        return x
    ```

    ## Use instead
    ```python
    @tf.function(autograph=False)
    def magnitude(x):
        return tf.where(x > 0, x, -x)   # or tf.cond

    @tf.function
    def grow(x):
        for _ in tf.range(10):          # a TF loop can break on a tensor
            x = x * 2
            if tf.reduce_sum(x) > 100:
                break
        return x
    ```
    """

    code = "FUNC015"
    name = "python-control-flow-on-tensor"
    summary = "Python control flow on a tensor that a tf.function trace cannot convert"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("function", "def call")  # a tf.function, or a Keras layer's call
    examples = (
        invalid("""
            import tensorflow as tf

            @tf.function(autograph=False)
            def magnitude(x):
                if x > 0:
                    return x
                return -x

            magnitude(tf.constant(-3.0))
        """, 5, "the catalogue's `if` on a tensor without AutoGraph",
            proof=Proof(raises=("OperatorNotAllowedInGraphError",
                                "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"))),
        invalid("""
            import tensorflow as tf

            @tf.function(autograph=False)
            def total(n):
                s = tf.constant(0)
                for i in tf.range(n):
                    s += i
                return s

            total(tf.constant(4))
        """, 6, "a loop over a tensor without AutoGraph",
            proof=Proof(raises=("OperatorNotAllowedInGraphError",
                                "Iterating over a symbolic `tf.Tensor` is not allowed"))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def grow(x):
                for _ in range(10):
                    x = x * 2
                    if tf.reduce_sum(x) > 100:
                        break
                return x

            grow(tf.constant(3.0))
        """, 8, "a tensor-dependent break in a Python range loop",
            proof=Proof(raises=("NotImplementedError",
                                "break and return statements which depend on a TF condition are not supported"))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def grow(x):
                steps = 0
                while steps < 10:
                    x = x * 2
                    if x > 100:
                        break
                    steps += 1
                return x

            grow(tf.constant(3.0))
        """, 9, "a tensor-dependent break in a Python while loop",
            proof=Proof(raises=("NotImplementedError", "The condition of while loop started as non-Tensor"))),
        invalid("""
            import tensorflow as tf

            @tf.function
            def first_large(x):
                for _ in range(10):
                    if x > 100:
                        return x
                    x = x * 2
                return x

            first_large(tf.constant(3.0))
        """, 7, "a tensor-dependent return in a Python loop",
            proof=Proof(raises=("ValueError", "the else branch must also have a return statement"))),
        valid("""
            import tensorflow as tf

            @tf.function(autograph=False)
            def magnitude(x):
                return tf.cond(x > 0, lambda: x, lambda: -x)

            out = magnitude(tf.constant(-3.0))
        """, "tf.cond without AutoGraph",
            proof=Proof(check="assert float(out) == 3.0")),
        valid("""
            import tensorflow as tf

            @tf.function(autograph=False)
            def pick(x, training):
                if training:
                    x = x * 0.5
                if x.shape[0] > 1:
                    x = x[:1]
                return x

            out = pick(tf.constant([2.0, 4.0]), True)
        """, "Python conditions on Python values and static shapes",
            proof=Proof(check="assert out.numpy().tolist() == [1.0]")),
        valid("""
            import tensorflow as tf

            @tf.function
            def grow(x):
                for _ in tf.range(10):
                    x = x * 2
                    if tf.reduce_sum(x) > 100:
                        break
                return x

            out = grow(tf.constant(3.0))
        """, "a TF loop can break on a tensor",
            proof=Proof(check="assert float(out) == 192.0")),
        valid("""
            import tensorflow as tf

            @tf.function
            def scaled(x):
                for i in range(5):
                    if i > 2:
                        break
                    x = tf.where(x > 1.0, x * 2.0, x)
                return x

            out = scaled(tf.constant(3.0))
        """, "a Python break on a Python condition; tensor work through tf.where",
            proof=Proof(check="assert float(out) == 24.0")),
        invalid("""
            import tensorflow as tf
            import keras

            class Clip(keras.layers.Layer):
                def call(self, x):
                    if tf.reduce_max(x) > 5.0:
                        return x / tf.reduce_max(x)
                    return x

            model = keras.Sequential([keras.Input((3,)), Clip()])
        """, 6, "Keras 3 traces a layer's call without AutoGraph (here to build the functional model)",
            proof=Proof(raises=("OperatorNotAllowedInGraphError", "as a Python `bool` is not allowed"))),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        values = values_for(ctx)
        keras3 = keras3_calls(values)
        for tf_function, node in traced_function_nodes(facts):
            autograph = tf_function.flag("autograph") is not False
            for function in sorted(traced_functions(facts, tf_function, values), key=lambda n: (n.lineno, n.col_offset)):
                scope = facts.function_scopes.get(function)
                if scope is None or (scope.tf_function is not None and scope.tf_function is not tf_function) \
                        or id(function) in keras3:
                    continue
                tensors = _Tensors(values, scope)
                where = (f"the tf.function {function_name(node)}, which has autograph=False",
                         ctx.related(tf_function.origin, "autograph=False here"), "drop autograph=False")
                if autograph:
                    self._python_loop_exits(ctx, tf_function, node, function, tensors)
                else:
                    self._without_autograph(ctx, where, function, tensors)
        for method, cls in ((m, c) for m, c in ((n, keras3.get(id(n))) for n in facts.function_scopes) if c is not None):
            where = (f"`{cls.name}.call`, which Keras 3 runs without AutoGraph whenever it traces it (fit, predict, "
                     "a functional model, a tf.function calling the layer)",
                     ctx.related(cls, "a Keras 3 layer"), "use Keras 2 (tf_keras), which converts `call`")
            self._without_autograph(ctx, where, method, _MadeInCall(values, facts.function_scopes[method], method))

    # --- autograph=False ----------------------------------------------------------------

    def _without_autograph(self, ctx: Context, where: tuple, function: ast.AST, tensors: "_Tensors") -> None:
        """`where`: (the words for what traces `function` without AutoGraph, the related location
        that says so, the alternative to tf.cond and friends)."""
        what, related, alternative = where
        nodes = body_nodes(ctx.facts, function) if isinstance(getattr(function, "body", None), list) \
            else walk_body([function.body])
        seen: set[int] = set()
        for node in nodes:
            tests: list[ast.expr] = []
            if isinstance(node, (ast.If, ast.While, ast.IfExp)):
                tests.append(node.test)
            elif isinstance(node, ast.Assert):
                tests.append(node.test)
            elif isinstance(node, ast.BoolOp):
                tests.extend(node.values[:-1])  # the last operand is returned, not tested
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                tests.append(node.operand)
            elif isinstance(node, (ast.For, ast.AsyncFor)) and tensors.is_tensor(node.iter):
                ctx.report(node.iter,
                           f"A Python `for` over a tensor in {what}: tracing raises {ITERATE} Use tf.while_loop, "
                           f"tf.map_fn or a vectorized op, or {alternative} so AutoGraph converts the loop.",
                           related=[related])
                continue
            for test in tests:
                if id(test) in seen or not _tensor_condition(test, tensors):
                    continue
                seen.update(id(sub) for sub in ast.walk(test))
                ctx.report(test,
                           f"Python control flow on a tensor in {what}: tracing raises {AS_BOOL} Use tf.cond / "
                           f"tf.where, or {alternative} so AutoGraph converts it.",
                           related=[related])

    # --- AutoGraph on: exits from Python loops -----------------------------------------------

    def _python_loop_exits(self, ctx: Context, tf_function: TfFunction, traced: ast.AST,
                           function: ast.AST, tensors: "_Tensors") -> None:
        for loop in body_nodes(ctx.facts, function, (ast.For, ast.While)):
            if not _python_loop(ctx.facts, loop, tensors, function):
                continue
            for exit_stmt, condition in _tensor_exits(loop, tensors):
                if isinstance(exit_stmt, ast.Return):
                    symptom = f"{RETURN} (or {FOR_BREAK})" if isinstance(loop, ast.For) else RETURN
                    what = "return"
                else:
                    symptom = FOR_BREAK if isinstance(loop, ast.For) else WHILE_BREAK
                    what = "break"
                kind = "for" if isinstance(loop, ast.For) else "while"
                ctx.report(
                    exit_stmt,
                    f"A `{what}` under a tensor condition inside a Python `{kind}` loop in the tf.function "
                    f"{function_name(traced)}: AutoGraph unrolls a Python loop while tracing and cannot stop it "
                    f"on a tensor: {symptom} Loop over tf.range(...) (a TF loop), or keep the condition in "
                    "Python values.",
                    related=[ctx.related(condition, "the condition is a tensor"),
                             ctx.related(loop, "a Python loop, unrolled while tracing")],
                )


class _Tensors:
    """The value model's answers for one traced function's body."""

    def __init__(self, values: ValueModel, scope) -> None:
        self.values, self.scope = values, scope

    def is_tensor(self, expr: ast.expr) -> bool:
        """A tensor or a tf.Variable, certainly."""
        return self.values.value(expr, self.scope).is_(TENSOR, VARIABLE)

    def is_python(self, expr: ast.expr) -> bool:
        """Certainly a Python number or None, known while tracing (a static shape's dimension too)."""
        value = self.values.value(expr, self.scope)
        return value.is_(NUMBER, NONE) or (value.kind == NUMBER and isinstance(expr, ast.Subscript)
                                           and self.values.value(expr.value, self.scope).kind == SHAPE)


class _MadeInCall(_Tensors):
    """For a Keras 3 `call`: a tensor counts only when `call` itself makes it with a TensorFlow
    op (`peak = tf.reduce_max(...)`, `tf.random.uniform(()) > 0.5`), outside a branch taken only
    eagerly (`tf.executing_eagerly()`). What an attribute or a parameter holds (a Python bool
    named `bias`, a list of feature maps, a tensor compared with None) is not told well enough
    by the value model to say the layer breaks: those were the false findings on public code."""

    def __init__(self, values: ValueModel, scope, method: ast.AST) -> None:
        super().__init__(values, scope)
        self.method = method
        self.eager_only: set[int] = set()
        for node in ast.walk(method):
            if isinstance(node, ast.If) and "executing_eagerly" in ast.unparse(node.test):
                self.eager_only.update(id(sub) for stmt in node.body for sub in ast.walk(stmt))

    def is_tensor(self, expr: ast.expr) -> bool:
        if id(expr) in self.eager_only or not super().is_tensor(expr):
            return False
        if isinstance(expr, ast.Compare) and any(isinstance(c, ast.Constant) and c.value is None
                                                 for c in expr.comparators):
            return False
        return any(self._made_here(sub) for sub in ast.walk(expr))

    def _made_here(self, expr: ast.AST) -> bool:
        resolve = self.values.facts.imports.resolve
        if isinstance(expr, ast.Call):
            return (resolve(expr.func) or "").startswith("tensorflow.") and \
                self.values.value(expr, self.scope).is_(TENSOR)
        if isinstance(expr, ast.Name):
            value = self.values.value(expr, self.scope)
            origin = value.origin
            return value.is_(TENSOR) and value.remote is None and isinstance(origin, ast.Call) \
                and self.method.lineno <= origin.lineno <= (self.method.end_lineno or origin.lineno) \
                and (resolve(origin.func) or "").startswith("tensorflow.")
        return False


def _tensor_condition(test: ast.expr, tensors: _Tensors) -> bool:
    if isinstance(test, ast.BoolOp):
        return any(_tensor_condition(v, tensors) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _tensor_condition(test.operand, tensors)
    return tensors.is_tensor(test)


def _python_loop(facts: Facts, loop: ast.For | ast.While, tensors: _Tensors, function: ast.AST) -> bool:
    """A loop AutoGraph leaves to Python (unrolled while tracing)."""
    if isinstance(loop, ast.While):
        return _python_value(loop.test, tensors, allow_compare=True)
    return _python_iterable(loop.iter, tensors)


def _python_iterable(expr: ast.expr, tensors: _Tensors) -> bool:
    if isinstance(expr, (ast.List, ast.Tuple)):
        return True
    if isinstance(expr, ast.Call):
        func = tensors.values.value(expr.func, tensors.scope)
        if func.kind != BUILTIN:
            return False
        if func.ref == "range":
            return bool(expr.args) and all(_python_value(a, tensors) for a in expr.args)
        if func.ref in _ITERATION_HELPERS:
            return bool(expr.args) and all(_python_iterable(a, tensors) for a in expr.args)
        return False
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return not tensors.is_tensor(expr)
    return False


def _python_value(expr: ast.expr, tensors: _Tensors, allow_compare: bool = False) -> bool:
    """An int-like Python value known while tracing: numbers, len(), static shapes, attributes
    of `self` that are not tensors, arithmetic of those."""
    if tensors.is_tensor(expr):
        return False
    if tensors.is_python(expr):
        return True
    if isinstance(expr, ast.Attribute):
        return isinstance(expr.value, ast.Name) and expr.value.id == "self" and expr.attr != "shape"
    if isinstance(expr, ast.BinOp):
        return _python_value(expr.left, tensors) and _python_value(expr.right, tensors)
    if isinstance(expr, ast.UnaryOp):
        return _python_value(expr.operand, tensors, allow_compare)
    if allow_compare and isinstance(expr, ast.Compare):
        return all(_python_value(e, tensors) for e in (expr.left, *expr.comparators))
    if allow_compare and isinstance(expr, ast.BoolOp):
        return all(_python_value(e, tensors, True) for e in expr.values)
    if isinstance(expr, ast.Name):
        # A name some of whose values are static shapes: every value it is given here is Python.
        defs, owner = tensors.values.definitions(expr.id, tensors.scope, expr)
        return owner is tensors.scope and bool(defs) and all(
            d.kind in ("assign", "augassign") and d.value is not None and _python_value(d.value, tensors)
            for d in defs)
    return False


def _tensor_exits(loop: ast.For | ast.While, tensors: "_Tensors") -> list[tuple[ast.stmt, ast.expr]]:
    """`break`/`return` statements of this loop (not of loops nested in it) under a tensor `if`."""
    found: list[tuple[ast.stmt, ast.expr]] = []

    def visit(statements: list[ast.stmt], condition: ast.expr | None) -> None:
        for stmt in statements:
            if isinstance(stmt, (ast.Break, ast.Return)):
                if condition is not None:
                    found.append((stmt, condition))
            elif isinstance(stmt, ast.If):
                inner = stmt.test if condition is None and _tensor_condition(stmt.test, tensors) else condition
                visit(stmt.body, inner)
                visit(stmt.orelse, inner)
            elif isinstance(stmt, (ast.With, ast.AsyncWith, ast.Try)):
                visit(stmt.body, condition)
                for handler in getattr(stmt, "handlers", ()):
                    visit(handler.body, condition)
                visit(getattr(stmt, "orelse", []), condition)
                visit(getattr(stmt, "finalbody", []), condition)
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                # A nested loop's `break` is its own; a `return` still leaves this loop.
                visit([s for s in ast.walk(stmt) if isinstance(s, ast.Return)], condition)

    visit(loop.body, None)
    return found
