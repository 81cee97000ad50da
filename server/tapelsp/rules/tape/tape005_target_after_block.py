from __future__ import annotations

import ast
from dataclasses import dataclass

from ...facts.dataflow import end_position, inside, position
from ...model import Applicability, Severity
from ...versions import VersionRange
from ._fixes import movable, pure_call, run_after
from ...analysis.gradcalls import (
    GradCall,
    Origin,
    calls_by_node,
    connected,
    fast_slice,
    gradient_call_in,
    gradient_calls,
    in_foreign_tape,
    origins,
    recorded,
    tape_item_range_node,
)
from ...analysis.paths import MUTATORS, handed_back, paused_at, recorded_at, store_owner
from ...analysis.values import TENSOR, VARIABLE, values_for
from ..base import Context, Proof, Rule, invalid, shares_findings, valid

NO_GRADIENTS = "No gradients provided for any variable"


class TargetAfterBlock(Rule):
    """
    ## What it does
    Finds the line that computes a gradient target (the loss) after the tape's `with`
    block has ended, from values the tape recorded, and targets written as an expression
    in the `tape.gradient(...)` call itself after the block (`tape.gradient(tf.reduce_mean(l), v)`).

    ## Why is this bad?
    A tape only records the operations that run inside its block. A loss computed after
    the block is a new tensor the tape knows nothing about, so `tape.gradient(loss, ...)`
    silently returns `None` for every source; `optimizer.apply_gradients` then fails with
    "No gradients provided for any variable".

    ## Example
    ```python
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
    loss = loss_fn(y, pred)  # not recorded
    grads = tape.gradient(loss, model.trainable_variables)  # [None, None, ...]
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    ```
    """

    code = "TAPE005"
    name = "target-computed-after-tape"
    summary = "The gradient target is computed after the tape's block ended"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    fixable = True
    examples = (
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.1)
            x = tf.ones([4, 3])
            y = tf.zeros([4, 1])
            with tf.GradientTape() as tape:
                pred = model(x, training=True)
            loss = tf.reduce_mean(tf.square(y - pred))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """, 9, "the loss after the block; apply_gradients then fails",
            proof=Proof(raises=("ValueError", NO_GRADIENTS)),
            fixed="""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.1)
            x = tf.ones([4, 3])
            y = tf.zeros([4, 1])
            with tf.GradientTape() as tape:
                pred = model(x, training=True)
                loss = tf.reduce_mean(tf.square(y - pred))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert all(g is not None for g in grads)
            # d/db mean((pred - 0)^2) = 2 * mean(pred)
            assert np.allclose(grads[1].numpy(), 2 * np.mean(pred.numpy()), atol=1e-5)
        """)),
        invalid("""
            import tensorflow as tf

            w = tf.Variable([1.0, 2.0])
            with tf.GradientTape() as tape:
                per_example = w * w
            grads = tape.gradient(tf.reduce_sum(per_example), w)
        """, 6, "the target written as an expression in the call, after the block: computed in the block",
            proof=Proof(check="assert grads is None"),
            fixed="""
            import tensorflow as tf

            w = tf.Variable([1.0, 2.0])
            with tf.GradientTape() as tape:
                per_example = w * w
                loss = tf.reduce_sum(per_example)
            grads = tape.gradient(loss, w)
        """, fixed_proof=Proof(check="assert grads.numpy().tolist() == [2.0, 4.0]")),
        invalid("""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
            y = x * x
            dy_dx = tape.gradient(y, x)
        """, 6, "the target computed after the block from the watched source itself",
            proof=Proof(check="assert dy_dx is None"),
            fixed="""
            import tensorflow as tf

            x = tf.constant(3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            dy_dx = tape.gradient(y, x)
        """, fixed_proof=Proof(check="assert float(dy_dx) == 6.0")),
        invalid("""
            import tensorflow as tf

            def f(x):
                return x ** 2

            x = tf.constant(3.0)
            with tf.GradientTape() as t:
                t.watch(x)
            g = t.gradient(f(x), x)
        """, 9, "the target computed in the call from the watched source alone",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            def f(x):
                return x ** 2

            x = tf.constant(3.0)
            with tf.GradientTape() as t:
                t.watch(x)
                loss = f(x)
            g = t.gradient(loss, x)
        """, fixed_proof=Proof(check="assert float(g) == 6.0")),
        invalid("""
            import tensorflow as tf

            def train_step(model, x, y, regularize):
                with tf.GradientTape() as tape:
                    pred = model(x, training=True)
                    loss = tf.reduce_mean(tf.square(y - pred))
                if regularize:
                    loss += 0.01 * tf.add_n([tf.nn.l2_loss(v) for v in model.trainable_variables])
                return tape.gradient(loss, model.trainable_variables)

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            grads = train_step(model, tf.ones([2, 3]), tf.zeros([2, 1]), True)
        """, 8, "a regularizer added after the block on one path: the `if` moves into the block",
            proof=Proof(check="assert all(g is None for g in grads)"),
            fixed="""
            import tensorflow as tf

            def train_step(model, x, y, regularize):
                with tf.GradientTape() as tape:
                    pred = model(x, training=True)
                    loss = tf.reduce_mean(tf.square(y - pred))
                    if regularize:
                        loss += 0.01 * tf.add_n([tf.nn.l2_loss(v) for v in model.trainable_variables])
                return tape.gradient(loss, model.trainable_variables)

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            grads = train_step(model, tf.ones([2, 3]), tf.zeros([2, 1]), True)
        """, fixed_proof=Proof(check="""
            import numpy as np
            assert all(g is not None for g in grads)
            kernel = model.trainable_variables[0].numpy()
            pred = np.ones([2, 3]) @ kernel + model.trainable_variables[1].numpy()
            # the bias gradient is 2 * mean(pred); the l2 term adds 0.01 * b (b is 0 at first)
            assert np.allclose(grads[1].numpy(), 2 * pred.mean(), atol=1e-5)
        """)),
        invalid("""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    y = x ** 3
                z = y * 2.0
                dz = inner.gradient(z, x)
        """, 7, "after the inner block, still inside an outer tape",
            proof=Proof(check="assert dz is None"),
            fixed="""
            import tensorflow as tf

            x = tf.Variable(2.0)
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    y = x ** 3
                    z = y * 2.0
                dz = inner.gradient(z, x)
        """, fixed_proof=Proof(check="assert float(dz) == 24.0")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                y = w * w

            print("forward done")
            # the loss
            loss = y + 1.0
            g = tape.gradient(loss, w)
        """, 9, "a print on the way moves too: unsafe (it now runs under the tape); comments move, blank lines stay",
            proof=Proof(check="assert g is None"),
            fixed="""
            import tensorflow as tf

            w = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                y = w * w
                print("forward done")
                # the loss
                loss = y + 1.0

            g = tape.gradient(loss, w)
        """, fixed_proof=Proof(check="assert float(g) == 6.0")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            x = tf.ones([4, 3])
            y = tf.zeros([4, 1])
            with tf.GradientTape() as tape:
                pred = model(x, training=True)
                loss = tf.reduce_mean(tf.square(y - pred))
            total = loss
            grads = tape.gradient(total, model.trainable_variables)
            print("loss", loss.numpy())
        """, "an alias after the block, `.numpy()` for logging after the step",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            w = tf.Variable([1.0, 2.0])
            with tf.GradientTape() as tape:
                losses = {"a": tf.reduce_sum(w * w), "b": tf.reduce_sum(w)}
            parts = [losses["a"], losses["b"]]
            grads = tape.gradient(parts, w)
        """, "targets picked out of a Python dict after the block",
            proof=Proof(check="assert grads.numpy().tolist() == [3.0, 5.0]")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(1.0)
            history = []
            for step in range(3):
                with tf.GradientTape() as tape:
                    loss = (w - 3.0) ** 2
                grad = tape.gradient(loss, w)
                w.assign_sub(0.1 * grad)
                loss = float(loss)
                history.append(loss)
        """, "the loss turned into a float after the gradient, in a loop",
            proof=Proof(check="assert len(history) == 3 and history[2] < history[0]")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            x = tf.ones([2, 3])
            with tf.GradientTape() as tape:
                pred = model(x)
            report = tf.reduce_mean(pred)
            grads = tape.gradient(pred, model.trainable_variables)
        """, "something computed after the block that is not the target",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
            images = tf.ones([2, 3])
            with tf.GradientTape() as tape:
                tape.watch(images)
                logits = model(images)
            score = logits[:, 1]
            saliency = tape.gradient(score, images)
        """, 8, "a tensor indexed after the block: the slice is an op the tape did not record",
            proof=Proof(check="assert saliency is None"),
            fixed="""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
            images = tf.ones([2, 3])
            with tf.GradientTape() as tape:
                tape.watch(images)
                logits = model(images)
                score = logits[:, 1]
            saliency = tape.gradient(score, images)
        """, fixed_proof=Proof(check="assert saliency is not None and saliency.shape == (2, 3)")),
        valid("""
            import tensorflow as tf

            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
            images = tf.ones([2, 3])
            with tf.GradientTape() as tape:
                tape.watch(images)
                outputs = [model(images), model(2.0 * images)]
            score = outputs[0]
            saliency = tape.gradient(score, images)
        """, "a Python list indexed after the block: the same tensor, recorded",
            proof=Proof(check="assert saliency is not None")),
        invalid("""
            import tensorflow as tf

            policy = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
            state = tf.ones([1, 4])
            log_probs = []
            with tf.GradientTape() as tape:
                for t in range(3):
                    log_probs.append(tf.reduce_sum(policy(state)))
            loss = -tf.add_n(log_probs)
            grads = tape.gradient(loss, policy.trainable_variables)
        """, 9, "a list the block filled with recorded tensors, summed after the block",
            proof=Proof(check="assert all(g is None for g in grads)"),
            fixed="""
            import tensorflow as tf

            policy = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
            state = tf.ones([1, 4])
            log_probs = []
            with tf.GradientTape() as tape:
                for t in range(3):
                    log_probs.append(tf.reduce_sum(policy(state)))
                loss = -tf.add_n(log_probs)
            grads = tape.gradient(loss, policy.trainable_variables)
        """, fixed_proof=Proof(check="assert all(g is not None for g in grads)")),
        invalid("""
            import tensorflow as tf

            class Linear(tf.Module):
                def __init__(self):
                    self.w = tf.zeros((2, 1))

                def __call__(self, x):
                    return x @ self.w

            hyper = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(2)])
            main = Linear()
            with tf.GradientTape() as tape:
                main.w = tf.reshape(hyper(tf.ones((1, 1))), (2, 1))
            loss = tf.reduce_sum(main(tf.ones((3, 2))))
            grads = tape.gradient(loss, hyper.trainable_variables)
        """, 14, "a hypernetwork: the block stores a recorded tensor into an attribute, the loss reads it after "
                 "the block (the move is unsafe: it calls the object's code under the tape)",
            proof=Proof(check="assert all(g is None for g in grads)"),
            fixed="""
            import tensorflow as tf

            class Linear(tf.Module):
                def __init__(self):
                    self.w = tf.zeros((2, 1))

                def __call__(self, x):
                    return x @ self.w

            hyper = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(2)])
            main = Linear()
            with tf.GradientTape() as tape:
                main.w = tf.reshape(hyper(tf.ones((1, 1))), (2, 1))
                loss = tf.reduce_sum(main(tf.ones((3, 2))))
            grads = tape.gradient(loss, hyper.trainable_variables)
        """, fixed_proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            w = tf.Variable([1.0, 2.0])
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * w)
            g = tape.gradient(tf.convert_to_tensor(loss), w)
        """, "`tf.convert_to_tensor` of a recorded tensor hands back that very tensor: no new op after the block",
            proof=Proof(check="assert g.numpy().tolist() == [2.0, 4.0]")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        by_node = calls_by_node(ctx.facts)
        for call in gradient_calls(ctx.facts):
            if not call.after_entry() or call.target is None or call.asks_zeros:
                continue
            found = _outside(call, by_node, values_for(ctx))
            if found is None:
                continue
            origin, recorded_def = found
            self._report(ctx, call, origin, recorded_def)

    def _report(self, ctx: Context, call: GradCall, origin: Origin, recorded_def) -> None:
        entry = call.entry
        assert entry is not None
        several = isinstance(call.target, (ast.List, ast.Tuple, ast.Dict))
        effect = (f"this target contributes nothing to what `{call.label()}` on {ctx.where(call.node)} returns"
                  if several else
                  f"`{call.label()}` on {ctx.where(call.node)} returns None for every source (an optimizer given "
                  "them raises "
                  f"\"{NO_GRADIENTS}\")")
        related = [ctx.related(tape_item_range_node(entry), "the tape's block, which ends before this line"),
                   ctx.related(call.node, "the gradient call that gets None")]
        if origin.d is None:
            where = origin.expr
            assert where is not None
            ctx.report(
                where,
                f"The gradient target `{_short(where)}` is computed here, in the call, "
                f"after the block of `{entry.name}` (opened on {ctx.where(entry.node)}) ended: the tape did "
                f"not record it, so {effect}. Compute it inside the `with` block and pass the result.",
                related=related, fix=_move_offer(ctx, call, None, where))
            return
        stmt = origin.d.stmt
        if recorded_def is None:
            ctx.report(
                stmt,
                f"`{origin.d.name}` is computed on {ctx.where(stmt)} from the gradient's sources, after the block "
                f"of `{entry.name}` (opened on {ctx.where(entry.node)}) ended: the tape recorded none of these "
                f"operations, so {effect}. Move this computation into the `with` block.",
                related=related, fix=_move_offer(ctx, call, stmt, None))
            return
        ctx.report(
            stmt,
            f"`{origin.d.name}` is computed on {ctx.where(stmt)}, after the block of `{entry.name}` (opened on "
            f"{ctx.where(entry.node)}) ended, from values the tape recorded: the tape did not record this "
            f"step, so {effect}. "
            "Move this computation into the `with` block.",
            related=related + [ctx.related(recorded_def.stmt, "recorded inside the tape's block")],
            fix=_move_offer(ctx, call, stmt, None))


def _move_offer(ctx: Context, call: GradCall, stmt: ast.stmt | None, target: ast.expr | None):
    """Move the statements between the block and the gradient call into the block (and the
    target expression of the call with them, as a name): safe when they are pure."""
    if not ctx.fixes:
        return None  # the offer is worked out only when fixes are wanted
    entry = call.entry
    if entry is None or not isinstance(entry.node, (ast.With, ast.AsyncWith)):
        return None
    with_node = entry.node
    run = run_after(with_node, call.node, call.index)
    if run is None or (stmt is not None and not any(_holds(s, stmt) for s in run)):
        return None
    tapes = {entry.name} if entry.name else set()
    pure = movable(run, ctx.facts, tapes)
    if pure is None:
        return None
    name = None
    if target is not None:
        if any(isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Yield, ast.Await)) for n in ast.walk(target)):
            return None
        if any(isinstance(n, ast.Name) and n.id in tapes for n in ast.walk(target)):
            return None
        pure = pure and all(pure_call(n, ctx.facts) for n in ast.walk(target) if isinstance(n, ast.Call))
        from ...fixes.names import fresh, identifiers

        name = fresh(["loss", "target"], "loss", identifiers(ctx.facts.tree))
    text = ctx.facts.source.text
    what = f"`{name} = {_short(target)}`" if target is not None else "the computation of the target"
    title = f"Move {what} into the `with` block of `{entry.name}`"

    def build():
        from ...fixes.move import move_into_block_fix

        return move_into_block_fix(text, with_node, run, title,  # type: ignore[arg-type]
                                   Applicability.SAFE if pure else Applicability.UNSAFE, target=target, name=name)
    return build


def _holds(outer: ast.stmt, node: ast.AST) -> bool:
    return position(outer) <= position(node) and end_position(node) <= end_position(outer)


def _outside(call: GradCall, by_node, values) -> tuple[Origin, object] | None:
    entry = call.entry
    assert entry is not None and call.target is not None
    block_end = end_position(entry.node)
    here = position(call.node)
    found: list[tuple[Origin, object]] = []
    for origin in origins(call.flow, call.target, call.node) + _tensor_slices(call, values):
        if origin.kind != "compute" or origin.expr is None:
            continue
        if origin.d is None:
            if not _makes_op(origin.expr) and not isinstance(origin.expr, ast.Subscript):
                continue
            if handed_back(origin.expr, values.facts) is not None:
                continue  # `tf.convert_to_tensor(loss)`: the recorded tensor itself (or data: a cut inside)
            source = connected(call.flow, origin.expr, call.node, entry)
            if source is not None or _uses_a_source(origin.expr, call):
                # Computed in the call from something recorded, or from a source itself
                # (`t.gradient(f(x), x)`): none of these ops ran while the tape recorded.
                found.append((origin, source))
            continue
        d = origin.d
        if not (block_end <= d.position < here) or recorded(d, entry):
            continue
        if in_foreign_tape(d, entry) is not None:
            continue  # recorded by a sibling tape: TAPE017
        other = gradient_call_in(d.value, by_node)
        if other is not None and other.name != call.name:
            continue  # the gradient of another tape: TAPE004
        source = connected(call.flow, origin.expr, d.stmt, entry)
        if d.kind == "augassign" and source is None:
            # `loss += reg`: the old value of the target is part of the new one.
            source = connected(call.flow, ast.Name(id=d.name, ctx=ast.Load()), d.stmt, entry)
        if source is None and d.kind in ("assign", "augassign") and _makes_op(origin.expr):
            source = _state_recorded(call, origin.expr, d.stmt, entry)
        if source is not None:
            found.append((origin, source))
        elif d.kind == "assign" and _makes_op(origin.expr) and _from_a_source(call, origin.expr, d.stmt):
            # Computed after the block from a source itself (`y = x * x` with `x` watched, a
            # Variable): no op between the source and the target was recorded.
            found.append((origin, None))
    if not found:
        return None
    found.sort(key=lambda pair: position(pair[0].d.stmt if pair[0].d else pair[0].expr))  # type: ignore[union-attr]
    return found[0]


@dataclass(frozen=True)
class _Recording:
    """A statement of the block that recorded into an object's state (not a name's definition)."""

    stmt: ast.stmt


def _state_recorded(call: GradCall, expr: ast.expr, at: ast.stmt, entry) -> _Recording | None:
    """`loss = tf.reduce_sum(tf.stack(memory))` after a block that filled `memory` with
    `memory.append(policy(state))`, or `loss = tf.reduce_sum(main(x))` after one that stored
    `main.w = tf.reshape(hyper(z), ...)`: the target is computed, after the block, from an object
    the block put recorded tensors into (a container, an attribute or item of the object), which
    no definition of a name describes. The statement of the block that did, or None."""
    names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    block_end = end_position(entry.node)
    for d in fast_slice(call.flow, expr, at):
        if block_end <= d.position and d.value is not None:
            names.update(n.id for n in d.names_used())
    scope = call.site.scope
    block = entry.node
    for name in sorted(names):
        for method in MUTATORS:
            for site in scope.method_calls.get((name, method), ()):
                if not (recorded_at(entry, site) and inside(site.node, block)):
                    continue
                args = [*site.node.args, *(k.value for k in site.node.keywords)]
                if any(_makes_op(a) or connected(call.flow, a, site.node, entry) is not None for a in args):
                    return _Recording(_statement_of(block, site.node))
        for stmt in ast.walk(block):
            if not isinstance(stmt, ast.Assign) or not _stmt_recorded(stmt, entry):
                continue
            owners = [store_owner(t) for t in stmt.targets if isinstance(t, (ast.Attribute, ast.Subscript))]
            if not any(o is not None and (o == name or o.startswith(name + ".")) for o in owners):
                continue
            if _makes_op(stmt.value) or connected(call.flow, stmt.value, stmt, entry) is not None:
                return _Recording(stmt)
    return None


def _stmt_recorded(stmt: ast.stmt, entry) -> bool:
    """Is `stmt`, a statement of `entry`'s block, out of its `stop_recording()` blocks (and of the
    functions and classes the block defines)?"""
    for node in ast.walk(entry.node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and inside(stmt, node):
            return False
    return not paused_at(entry, stmt)


def _statement_of(block: ast.AST, node: ast.AST) -> ast.stmt:
    """The innermost statement of `block` holding `node`."""
    found = block
    for stmt in ast.walk(block):
        if isinstance(stmt, ast.stmt) and inside(node, stmt) and inside(stmt, found):
            found = stmt
    return found  # type: ignore[return-value]


def _tensor_slices(call: GradCall, values) -> list[Origin]:
    """Indexing a tensor (`score = logits[:, k]`) is an op (a strided slice), not an alias of
    the tensor as indexing a list or a tuple is (which `origins` follows through): the
    subscripts of tensors the value model knows for certain, on the target's way back through
    plain names."""
    out: list[Origin] = []
    work: list[tuple[ast.expr, ast.AST, object]] = [(call.target, call.node, None)]  # type: ignore[list-item]
    seen: set[int] = set()
    while work and len(seen) < 64:
        expr, at, d = work.pop()
        if id(expr) in seen:
            continue
        seen.add(id(expr))
        if isinstance(expr, (ast.List, ast.Tuple)):
            work.extend((e.value if isinstance(e, ast.Starred) else e, at, d) for e in expr.elts)
        elif isinstance(expr, ast.Name):
            for definition in call.flow.reaching(expr.id, at):
                if definition.kind == "assign" and isinstance(definition.value, (ast.Name, ast.Subscript)):
                    work.append((definition.value, definition.stmt, definition))
        elif isinstance(expr, ast.Subscript):
            base = values.value(expr.value, values.scope_at(expr))
            if base.is_(TENSOR, VARIABLE):
                out.append(Origin("compute", expr, d, at))  # type: ignore[arg-type]
            else:
                work.append((expr.value, at, d))
    return out


def _uses_a_source(expr: ast.expr, call: GradCall) -> bool:
    """Does `expr` read one of the plain names the gradient call differentiates with respect to?"""
    sources = call.sources
    names = [sources] if isinstance(sources, ast.Name) else \
        list(sources.elts) if isinstance(sources, (ast.List, ast.Tuple)) else []
    wanted = {n.id for n in names if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.Name) and n.id in wanted for n in ast.walk(expr))


def _from_a_source(call: GradCall, expr: ast.expr, at: ast.AST) -> bool:
    """`expr` (at `at`) reads a source of the gradient call, itself or through the definitions
    it is computed from."""
    if _uses_a_source(expr, call):
        return True
    return any(d.value is not None and _uses_a_source(d.value, call) for d in fast_slice(call.flow, expr, at))


def _makes_op(expr: ast.expr) -> bool:
    """Is this expression, evaluated at the call, a new tensor (an op), not a container?"""
    if isinstance(expr, (ast.BinOp, ast.UnaryOp)):
        return True
    if isinstance(expr, ast.Call):
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name not in ("list", "tuple", "dict", "flatten", "values", "zip", "getattr", "sorted", "reversed")
    return False


def _short(expr: ast.AST) -> str:
    text = ast.unparse(expr)
    return text if len(text) <= 60 else text[:57] + "..."
