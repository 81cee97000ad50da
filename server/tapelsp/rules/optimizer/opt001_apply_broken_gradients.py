from __future__ import annotations

import ast

from ...facts.dataflow import flow_of
from ...facts.model import CallSite, Facts
from ...facts.names import dotted
from ...model import Range, Severity, Violation
from ...versions import VersionRange
from ..base import Context, Proof, Rule, invalid, valid

NO_GRADIENTS = "No gradients provided for any variable"
SOME_MISSING = "Gradients do not exist for variables"
_GRADIENT_METHODS = ("gradient", "jacobian")
# Clipping that keeps a list's None entries as None (tf.clip_by_global_norm ignores them).
_NONE_PRESERVING_CLIPS = frozenset({"tf.clip_by_global_norm", "tensorflow.clip_by_global_norm"})
_MAX_CLIPS = 2
# The GradientTape rules whose findings mean the gradient call returns None (for every
# source or some of them).
_NONE_RULES = ("TAPE001", "TAPE005", "TAPE006", "TAPE007", "TAPE008", "TAPE009", "TAPE010", "TAPE011",
               "TAPE013", "TAPE014", "TAPE015", "TAPE017", "TAPE021")


class ApplyBrokenGradients(Rule):
    """
    ## What it does
    Finds `optimizer.apply_gradients(zip(grads, variables))` (and Keras 3's
    `optimizer.apply(grads, variables)`) where `grads` comes from a `tape.gradient(...)`
    call in the same function that one of the GradientTape rules finds broken: the loss
    computed after the tape's block (TAPE005), the forward pass before it (TAPE006), a
    shadowed tape (TAPE001), variables of another model (TAPE015), NumPy on the path
    (TAPE007), and the others that make a gradient `None`.

    ## Why is this bad?
    The gradients are `None`. Keras optimizers then raise `ValueError: No gradients
    provided for any variable` when all of them are, and warn "Gradients do not exist for
    variables [...] when minimizing the loss" when some are, leaving those variables
    untrained. The error points at the optimizer; the cause is at the tape. This finding
    links the two: it is reported on the `apply_gradients` call with the gradient call
    and the tape finding as related locations.

    ## Example
    ```python
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
    loss = loss_fn(y, pred)                      # TAPE005: after the block
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # ValueError
    ```

    ## Use instead
    ```python
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    ```
    """

    code = "OPT001"
    name = "apply-broken-gradients"
    summary = "apply_gradients with gradients from a tape.gradient call that returns None"
    severity = Severity.WARNING
    tensorflow = VersionRange(">=2.0")
    cheap_without_triggers = True
    triggers = ("apply_gradients", ".apply(")
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
        """, 11, "the loss computed after the tape's block (Keras 3 optimizer)",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf
            import tf_keras

            actor = tf_keras.Sequential([tf_keras.layers.Dense(2)])
            critic = tf_keras.Sequential([tf_keras.layers.Dense(1)])
            optimizer = tf_keras.optimizers.Adam(0.01)
            states = tf.ones([8, 4])
            actor(states)
            with tf.GradientTape() as tape:
                values = critic(states)
                critic_loss = tf.reduce_mean(values ** 2)
            grads = tape.gradient(critic_loss, actor.trainable_variables)
            optimizer.apply_gradients(zip(grads, actor.trainable_variables))
        """, 13, "the variables of another model (tf_keras optimizer)",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf

            w = tf.Variable([1.0, 2.0])
            optimizer = tf.keras.optimizers.SGD(0.1)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * w)
                with tf.GradientTape() as tape:
                    pass
                grads = tape.gradient(loss, [w])
            optimizer.apply_gradients(zip(grads, [w]))
        """, 10, "a shadowed tape: the gradient asks the empty inner tape",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        invalid("""
            import tensorflow as tf

            actor = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            critic = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam(0.01)
            states = tf.ones([8, 4])
            critic(states)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(actor(states) ** 2)
            grads = tape.gradient(loss, critic.trainable_variables)
            grads, norm = tf.clip_by_global_norm(grads, 0.5)
            optimizer.apply_gradients(zip(grads, critic.trainable_variables))
        """, 12, "clipped by global norm first: clip_by_global_norm passes the None entries through",
            proof=Proof(raises=("ValueError", NO_GRADIENTS))),
        valid("""
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
        """, "the loss recorded inside the block",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            w = tf.Variable([1.0, 2.0])
            optimizer = tf.keras.optimizers.SGD(0.5)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * w)
            grads = tape.gradient(loss, [w])
            clipped = [tf.clip_by_norm(g, 1.0) for g in grads]
            optimizer.apply_gradients(zip(clipped, [w]))
        """, "healthy gradients, clipped before applying",
            proof=Proof(check="assert w.numpy().tolist() != [1.0, 2.0]")),
    )

    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        applies = [site for site in facts.calls if site.method == "apply_gradients"
                   or (site.method == "apply" and _is_optimizer(facts, site.receiver))]
        if not applies:
            return
        broken: dict[int, list[Violation]] | None = None
        for site in applies:
            gradient = _gradient_call(facts, site)
            if gradient is None:
                continue
            if broken is None:
                broken = _broken_gradient_lines(ctx)
            findings = broken.get(gradient.lineno, [])
            if not findings:
                continue
            finding = findings[0]
            causes = "; ".join(f"{f.code}: {_summary(f.code)}" for f in _first_per_code(findings))
            ctx.report(
                site.node,
                f"These gradients come from the gradient call on {ctx.where(gradient)}, which returns None "
                f"({causes}). The optimizer raises ValueError "
                f"\"{NO_GRADIENTS}\" when every gradient is None, and warns \"{SOME_MISSING} ...\" (leaving "
                "those variables untrained) when some are. Fix the tape first.",
                related=[ctx.related(gradient, "the gradient call that returns None"),
                         _related_range(finding.range, f"{finding.code} finds the cause here")],
            )


def _is_optimizer(facts: Facts, receiver: str | None) -> bool:
    return receiver is not None and any(b.kind == "optimizer" and b.name == receiver for b in facts.bindings)


def _gradient_call(facts: Facts, site: CallSite) -> ast.Call | None:
    """The `tape.gradient(...)` call whose result the apply call applies, in the same scope."""
    call = site.node
    if site.method == "apply":
        grads = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "grads"), None)
    else:
        pairs = call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == "grads_and_vars"), None)
        pairs = _single_value(facts, site, pairs, call)
        grads = _zipped_gradients(pairs)
    at: ast.AST = call
    for _ in range(_MAX_CLIPS + 1):
        if isinstance(grads, ast.Name):
            clipped = _clipped_from(facts, site, grads, at)
            if clipped is not None:
                at, grads = clipped
                continue
        grads = _single_value(facts, site, grads, at)
        if isinstance(grads, ast.Call) and isinstance(grads.func, ast.Attribute) \
                and grads.func.attr in _GRADIENT_METHODS:
            return grads
        return None
    return None


def _clipped_from(facts: Facts, site: CallSite, name: ast.Name, at: ast.AST) -> tuple[ast.Call, ast.expr] | None:
    """`grads, norm = tf.clip_by_global_norm(G, c)` reaching `at`: (that call, G). TensorFlow's
    clip_by_global_norm passes None entries through as None, so G's Nones reach the optimizer."""
    flow = flow_of(facts, site.scope.function or facts.module)
    reaching = flow.reaching(name.id, at)
    if len(reaching) != 1 or reaching[0].kind != "assign":
        return None
    stmt = reaching[0].stmt
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)):
        return None
    first = stmt.targets[0].elts[0] if stmt.targets[0].elts else None
    value = stmt.value
    if not (isinstance(first, ast.Name) and first.id == name.id and isinstance(value, ast.Call)
            and dotted(value.func) in _NONE_PRESERVING_CLIPS and value.args):
        return None
    return value, value.args[0]


def _zipped_gradients(pairs: ast.expr | None) -> ast.expr | None:
    """`G` in `zip(G, V)` or `list(zip(G, V))`."""
    if isinstance(pairs, ast.Call) and isinstance(pairs.func, ast.Name) and pairs.func.id == "list" \
            and len(pairs.args) == 1:
        pairs = pairs.args[0]
    if isinstance(pairs, ast.Call) and isinstance(pairs.func, ast.Name) and pairs.func.id == "zip" \
            and len(pairs.args) == 2 and not pairs.keywords:
        return pairs.args[0]
    return None


def _single_value(facts: Facts, site: CallSite, expr: ast.expr | None, at: ast.AST) -> ast.expr | None:
    """A name's value when exactly one assignment in the scope reaches `at`; other expressions as they are."""
    if not isinstance(expr, ast.Name):
        return expr
    flow_scope = site.scope.function or facts.module
    flow = flow_of(facts, flow_scope)
    reaching = flow.reaching(expr.id, at)
    if len(reaching) != 1 or reaching[0].kind != "assign" or reaching[0].value is None:
        return None
    stmt = reaching[0].stmt
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return reaching[0].value
    return None


def _broken_gradient_lines(ctx: Context) -> dict[int, list[Violation]]:
    """Lines of gradient calls the GradientTape rules find broken, with their findings."""
    from ..base import findings_of

    by_line: dict[int, list[Violation]] = {}
    for code in _NONE_RULES:
        violations = findings_of(ctx, code)
        if violations is None:
            continue
        for violation in violations:
            ranges = [violation.range, *(r.range for r in violation.related)]
            for rng in ranges:
                for line in range(rng.start.line + 1, rng.end.line + 2):
                    bucket = by_line.setdefault(line, [])
                    if violation not in bucket:
                        bucket.append(violation)
    return by_line


def _summary(code: str) -> str:
    from .. import rule_by_code

    rule = rule_by_code(code)
    return rule.summary[:1].lower() + rule.summary[1:] if rule is not None else code


def _first_per_code(findings: list[Violation]) -> list[Violation]:
    seen: dict[str, Violation] = {}
    for finding in findings:
        seen.setdefault(finding.code, finding)
    return [seen[code] for code in sorted(seen)]


def _related_range(rng: Range, message: str):
    from ...model import Related

    return Related(rng, message)
