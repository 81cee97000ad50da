from __future__ import annotations

import ast

from ...facts.dataflow import flow_of, inside, position
from ...facts.names import dotted
from ...facts.model import Scope, Tape
from ...model import Severity
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid


class PersistentTapeNotReleased(Rule):
    """
    ## What it does
    Finds a `tf.GradientTape(persistent=True)` opened inside a loop with no `del tape`
    (or `tape = None`) after its last use in the loop body; and one made once in an
    attribute (`self.tape = ...` in `__init__`) that another method enters with `with
    self.tape:` on every call, where the one tape records every call.

    ## Why is this bad?
    A persistent tape keeps every intermediate tensor it recorded alive until the tape
    object itself is released. In a loop that means the previous step's activations stay
    in memory through the optimizer step, logging and evaluation until the name is
    rebound, and the last one until the function returns. With large activations this is
    a second copy of the forward pass held for nothing. A non-persistent tape frees its
    resources after the first `gradient` call; a persistent one needs `del tape`.

    ## Example
    ```python
    for x in batches:
        with tf.GradientTape(persistent=True) as tape:
            y = model(x)
            loss = tf.reduce_mean(y)
        g1 = tape.gradient(loss, model.trainable_variables)
        g2 = tape.gradient(y, x)
    ```

    ## Use instead
    ```python
    for x in batches:
        with tf.GradientTape(persistent=True) as tape:
            y = model(x)
            loss = tf.reduce_mean(y)
        g1 = tape.gradient(loss, model.trainable_variables)
        g2 = tape.gradient(y, x)
        del tape
    ```
    """

    code = "TAPE018"
    name = "persistent-tape-not-released"
    summary = "A persistent GradientTape in a loop is never released with `del`"
    severity = Severity.INFORMATION
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("persistent",)
    examples = (
        invalid("""
            import weakref
            import tensorflow as tf

            w = tf.Variable(2.0)
            alive = []
            for step in range(3):
                with tf.GradientTape(persistent=True) as tape:
                    y = w * w
                    z = y * w
                dy = tape.gradient(y, w)
                dz = tape.gradient(z, w)
                alive.append(weakref.ref(tape))
        """, 7, "the last tape (and what it recorded) outlives the loop",
            proof=Proof(check="assert alive[-1]() is not None")),
        invalid("""
            import gc
            import weakref
            import tensorflow as tf

            class Agent:
                def __init__(self):
                    self.w = tf.Variable(2.0)
                    self.tape = tf.GradientTape(persistent=True)

                def step(self, x):
                    with self.tape:
                        y = self.w * x
                        z = y * y
                    grad = self.tape.gradient(z, self.w)
                    return weakref.ref(y), grad

            agent = Agent()
            refs = [agent.step(tf.constant(float(i + 1)))[0] for i in range(3)]
            gc.collect()
        """, 8, "one tape made in __init__, entered again on every call: every call's tensors stay alive",
            proof=Proof(check="assert all(ref() is not None for ref in refs)")),
        valid("""
            import gc
            import weakref
            import tensorflow as tf

            class Agent:
                def __init__(self):
                    self.w = tf.Variable(2.0)
                    self.tape = tf.GradientTape(persistent=True)

                def step(self, x):
                    self.tape = tf.GradientTape(persistent=True)
                    with self.tape:
                        y = self.w * x
                        z = y * y
                    grad = self.tape.gradient(z, self.w)
                    return weakref.ref(y), grad

            agent = Agent()
            refs = [agent.step(tf.constant(float(i + 1)))[0] for i in range(3)]
            gc.collect()
        """, "a new tape in each call: the earlier calls' tensors are released",
            proof=Proof(check="assert [ref() is not None for ref in refs] == [False, False, True]")),
        valid("""
            import weakref
            import tensorflow as tf

            w = tf.Variable(2.0)
            alive = []
            for step in range(3):
                with tf.GradientTape(persistent=True) as tape:
                    y = w * w
                    z = y * w
                dy = tape.gradient(y, w)
                dz = tape.gradient(z, w)
                alive.append(weakref.ref(tape))
                del tape
        """, "persistent tape used twice, then deleted",
            proof=Proof(check="assert all(ref() is None for ref in alive) and float(dz) == 12.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            for step in range(3):
                with tf.GradientTape() as tape:
                    y = w * w
                dy = tape.gradient(y, w)
        """, "a non-persistent tape releases its resources on the gradient call",
            proof=Proof(check="assert float(dy) == 4.0")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape(persistent=True) as tape:
                y = w * w
                z = y * w
            dy = tape.gradient(y, w)
            dz = tape.gradient(z, w)
        """, "not in a loop", proof=Proof(check="assert float(dz) == 12.0")),
    )

    def check(self, ctx: Context) -> None:
        for tape in ctx.facts.tapes:
            self._held_by_object(ctx, tape)
            if not tape.loops or tape.option("persistent") is not True or tape.name is None:
                continue
            if tape.scope.traced_by is not None or tape.call is None:
                continue
            if isinstance(tape.node, (ast.Assign, ast.AnnAssign)) and _opened_later(ctx, tape):
                continue
            loop = tape.loops[-1]
            if _released(ctx, tape, loop):
                continue
            anchor = tape.item.context_expr if tape.item is not None else tape.call
            ctx.report(
                anchor,
                f"This persistent GradientTape is opened in a loop and never released: `{tape.name}` keeps "
                "every tensor it recorded alive until the next iteration rebinds it (the last one until the "
                f"scope ends). Add `del {tape.name}` after its last gradient call.",
                related=[ctx.related(loop, "the loop")],
            )


    def _held_by_object(self, ctx: Context, tape: Tape) -> None:
        """`self.tape = tf.GradientTape(persistent=True)` made once in one method and entered by
        `with self.tape:` in another: every call records into the same tape, which keeps it all."""
        name = tape.name
        scope = tape.scope
        if tape.option("persistent") is not True or not isinstance(tape.node, ast.Assign) or tape.call is None \
                or name is None or not name.startswith("self.") or name.count(".") != 1 \
                or scope.parent is None or scope.parent.kind != "class":
            return
        cls = scope.parent.node
        if any(isinstance(node, (ast.With, ast.AsyncWith)) and any(dotted(item.context_expr) == name
                                                                  for item in node.items)
               for node in ast.walk(scope.node)):
            return  # the maker records into it too: one tape that gathers on purpose (deepxde's ZCS)
        entries = []
        for method in getattr(cls, "body", []):
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method is scope.node:
                continue
            for node in ast.walk(method):
                if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                        dotted(item.context_expr) == name for item in node.items):
                    entries.append((method, node))
                if _resets(node, name, tape.node):
                    return  # made anew, deleted or reset somewhere: not one record for the object's life
        entries = [(method, entry) for method, entry in entries if _called_in_a_loop(ctx, method.name)]
        if not entries:
            return
        method, entry = entries[0]
        ctx.report(
            tape.call,
            f"This persistent GradientTape is made once, here, and `with {name}:` in `{method.name}` enters it "
            f"again on every call: the one tape records every call and keeps every tensor it recorded alive "
            f"for as long as the object lives. Make a new tape in `{method.name}` (`with "
            f"tf.GradientTape(persistent=True) as tape:`), or release it with `del` after its last gradient.",
            related=[ctx.related(entry, "entered again here, on every call")],
        )


def _called_in_a_loop(ctx: Context, method: str) -> bool:
    """Is `<something>.method(...)` called in a loop (or a comprehension) anywhere in the file?"""
    for site in ctx.facts.calls:
        func = site.node.func
        if isinstance(func, ast.Attribute) and func.attr == method and site.loops:
            return True
    for node in ast.walk(ctx.facts.module.node):
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)) and any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == method
                for c in ast.walk(node)):
            return True
    return False


def _resets(node: ast.AST, name: str, made: ast.AST) -> bool:
    """Does `node` rebind, delete or reset the attribute `name` (other than the statement `made`)?"""
    if isinstance(node, ast.Assign) and node is not made:
        return any(dotted(t) == name for t in node.targets)
    if isinstance(node, ast.Delete):
        return any(dotted(t) == name for t in node.targets)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "reset" \
        and dotted(node.func.value) == name


def _opened_later(ctx: Context, tape: Tape) -> bool:
    """`tape = tf.GradientTape(persistent=True)` followed by `with tape:` has its own record."""
    return any(other is not tape and other.name == tape.name
               and other.item is not None and other.call is tape.call for other in ctx.facts.tapes_in(tape.scope))


def _flow_scope(scope: Scope) -> Scope:
    while scope.kind == "class" and scope.parent is not None:
        scope = scope.parent
    return scope


def _released(ctx: Context, tape: Tape, loop: ast.stmt) -> bool:
    flow = flow_of(ctx.facts, _flow_scope(tape.scope))
    for d in flow.definitions(tape.name):  # type: ignore[arg-type]
        if not inside(d.stmt, loop) or position(d.stmt) <= position(tape.node):
            continue
        if d.kind == "del":
            return True
        if d.kind == "assign" and isinstance(d.value, ast.Constant) and d.value.value is None:
            return True
    if "." in (tape.name or ""):
        # `del self.tape` is not a definition of a plain name; look at the statements.
        for node in ast.walk(loop):
            if isinstance(node, ast.Delete) and any(ast.unparse(t) == tape.name for t in node.targets):
                return True
    return False
