from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ...facts.dataflow import Flow, flow_of, inside, position
from ...facts.model import CallSite, Facts, Scope, Tape
from ...facts.names import dotted
from ...model import Severity
from ...versions import VersionRange
from ...analysis.gradcalls import (
    ScopeIndex,
    argument,
    calls_in_scope,
    foreign_target,
    gradient_calls,
    mentions,
    recorded,
    scope_index,
    stop_recording_around,
    tape_item_range_node,
)
from ...analysis.values import TAPE, values_for
from ..base import Context, Proof, Rule, invalid, shares_findings, valid

NO_GRADIENTS = "No gradients provided for any variable"
_APPENDS = ("append", "extend", "insert", "appendleft")
_LIBRARY_PREFIXES = ("tensorflow.", "numpy.", "keras.")
_READ_ONLY = frozenset({"len", "list", "tuple", "reversed", "enumerate", "zip", "print", "sorted", "sum", "min", "max",
                        "iter", "any", "all", "isinstance"})


class StaleTape(Rule):
    """
    ## What it does
    Finds gradients asked of a tape for data that another tape recorded:
    - in a loop that opens a new tape every iteration (episode), tensors recorded in one
      iteration are kept in a list (or attribute) that outlives the iteration, and a later
      iteration's tape is asked for gradients of targets built from them: the list is not
      cleared on every path through the loop (for example a `break` skips the reset);
    - `tape_b.gradient(loss, ...)` where `loss` was computed inside the block of another
      tape `tape_a`, not inside `tape_b`'s.

    ## Why is this bad?
    Each tape records only the operations run inside its own block. Tensors that an
    earlier iteration's tape recorded mean nothing to the current tape: their part of the
    gradient is silently `None`, and when a target is built only from them,
    `tape.gradient` returns `None` for every source and `optimizer.apply_gradients`
    raises "No gradients provided for any variable" — typically only in the episodes
    after a `break`, so the bug looks random.

    ## Example
    ```python
    memory = []
    for episode in range(episodes):
        with tf.GradientTape() as tape:
            for t in range(max_steps):
                logits = policy(state)
                memory.append(logits)
                if done:
                    break
                for old_logits in memory:        # memory may hold last episode's tensors
                    loss = -tf.reduce_mean(old_logits)
                    with tape.stop_recording():
                        grads = tape.gradient(loss, policy.trainable_variables)
                memory.clear()                    # skipped by `break`
    ```

    ## Use instead
    Open the tape where the data is recorded and clear the list at the start of every
    iteration (`memory = []` as the loop's first statement), so a tape is only asked about
    what it recorded.
    """

    code = "TAPE017"
    name = "tape-asked-for-other-tapes-data"
    summary = "A tape is asked for gradients of data that another tape (or iteration) recorded"
    severity = Severity.ERROR
    tensorflow = VersionRange(">=2.0")
    triggers = ("GradientTape",)
    examples = (
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)

            def collect():
                with tf.GradientTape() as tape:
                    logp = w * 3.0
                return tape, logp

            def update(rollout_tape, logp):
                with tf.GradientTape() as loss_tape:
                    loss = -logp * 2.0
                return rollout_tape.gradient(loss, w)

            tape, logp = collect()
            g = update(tape, logp)
        """, 13, "a tape handed in from elsewhere, asked about a loss another tape recorded",
            proof=Proof(check="assert g is None")),
        invalid("""
            import tensorflow as tf

            policy = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            state = tf.ones([1, 4])
            memory = []
            results = []
            for episode in range(2):
                with tf.GradientTape(persistent=True) as tape:
                    for t in range(3):
                        logits = policy(state)
                        memory.append(logits)
                        if t == 1 and episode == 0:
                            break
                        for old_logits in memory:
                            loss = -tf.reduce_mean(old_logits)
                            with tape.stop_recording():
                                grads = tape.gradient(loss, policy.trainable_variables)
                            results.append(all(g is None for g in grads))
                        memory.clear()
                del tape
        """, 12, "the seed's pattern in one function: a break skips the reset, the next episode's tape gets old tensors",
            proof=Proof(check="assert results == [False, True, False, False, False]")),
        invalid("""
            import tensorflow as tf

            class Agent(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.head = tf.keras.layers.Dense(2)
                    self.memory = []
                    self.none_grads = 0

                def call(self, state):
                    return self.head(state)

                def remember(self, logits, reward):
                    self.memory.append((logits, reward))

                def learn(self, tape):
                    for logits, reward in self.memory[::-1]:
                        loss = -reward * tf.reduce_mean(logits)
                        with tape.stop_recording():
                            grads = tape.gradient(loss, self.trainable_variables)
                        self.none_grads += sum(g is None for g in grads)
                    self.memory = []

            agent = Agent()
            state = tf.ones([1, 4])
            for episode in range(2):
                with tf.GradientTape(persistent=True) as tape:
                    for t in range(3):
                        logits = agent(state)
                        agent.remember(logits, 1.0)
                        done = t == 1 and episode == 0
                        if done:
                            break
                        agent.learn(tape)
                del tape
        """, 30, "the seed's pattern across methods: `learn` resets the memory, but `break` skips it",
            proof=Proof(check="assert agent.none_grads == 2")),
        invalid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            with tf.GradientTape() as loss_tape:
                loss = w * w
            with tf.GradientTape() as other_tape:
                penalty = w * 3.0
            g = other_tape.gradient(loss, w)
        """, 8, "the gradient asked of the wrong tape",
            proof=Proof(check="assert g is None")),
        valid("""
            import tensorflow as tf

            policy = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            state = tf.ones([1, 4])
            for episode in range(2):
                memory = []
                with tf.GradientTape() as tape:
                    for t in range(3):
                        memory.append(policy(state))
                        if t == 1:
                            break
                    loss = -tf.reduce_mean(tf.stack(memory))
                grads = tape.gradient(loss, policy.trainable_variables)
        """, "the list is created anew in every episode",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            policy = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            state = tf.ones([1, 4])
            memory = []
            for episode in range(2):
                with tf.GradientTape() as tape:
                    for t in range(3):
                        memory.append(policy(state))
                    loss = -tf.reduce_mean(tf.stack(memory))
                grads = tape.gradient(loss, policy.trainable_variables)
                memory.clear()
        """, "the list is cleared on every path through the episode",
            proof=Proof(check="assert all(g is not None for g in grads)")),
        valid("""
            import tensorflow as tf

            w = tf.Variable(2.0)
            history = []
            for step in range(3):
                with tf.GradientTape() as tape:
                    loss = w * w
                history.append(loss)
                g = tape.gradient(loss, w)
                w.assign_sub(0.1 * g)
            mean_loss = float(tf.reduce_mean(tf.stack(history)))
        """, "losses kept across steps for logging only",
            proof=Proof(check="assert mean_loss > 0")),
        valid("""
            import tensorflow as tf

            class Policy(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.data = []
                    self.fc = tf.keras.layers.Dense(2)
                    self.none_gradients = 0

                def call(self, x):
                    return tf.nn.softmax(self.fc(x))

                def put(self, item):
                    self.data.append(item)

                def train_net(self, tape):
                    for log_prob in self.data:
                        loss = -log_prob  # recorded: train_net runs inside the episode's tape
                        with tape.stop_recording():
                            grads = tape.gradient(loss, self.trainable_variables)
                            self.none_gradients += sum(g is None for g in grads)
                    self.data = []

            pi = Policy()
            for episode in range(3):
                with tf.GradientTape(persistent=True) as tape:
                    for t in range(10):
                        pi.put(tf.math.log(pi(tf.ones([1, 4]))[0][0]))
                        if t == 2 + episode:
                            break
                    pi.train_net(tape)
                del tape
        """, "the `break` ends the steps of the episode, not the episode: train_net still clears the data",
            proof=Proof(check="assert pi.none_gradients == 0 and len(pi.data) == 0")),
    )

    @shares_findings
    def check(self, ctx: Context) -> None:
        facts = ctx.facts
        for call in gradient_calls(facts):
            found = foreign_target(call)
            if found is None:
                continue
            d, other = found
            assert call.entry is not None
            ctx.report(
                call.node.func,
                f"`{d.name}` was computed on {ctx.where(d.stmt)} inside the block of another tape, "
                f"`{other.name}` (opened on {ctx.where(other.node)}), not inside the block of `{call.name}`: "
                f"`{call.label()}` on {ctx.where(call.node)} returns None for every source. Ask "
                f"`{other.name}` for this gradient, or compute `{d.name}` inside `{call.name}`'s block.",
                related=[ctx.related(tape_item_range_node(other), f"`{d.name}` is recorded by this tape"),
                         ctx.related(tape_item_range_node(call.entry), f"`{call.name}` opened here")],
            )
        self._foreign_receivers(ctx)
        summaries = _Summaries(facts)
        for tape in facts.tapes:
            if tape.item is None or not tape.loops or tape.name is None:
                continue
            for finding in _episode_findings(facts, tape, summaries):
                self._report_episode(ctx, tape, finding)

    def _foreign_receivers(self, ctx: Context) -> None:
        """`rollout_tape.gradient(loss, ...)` where `rollout_tape` is a tape made elsewhere (a
        parameter, an attribute: the value model says it holds a GradientTape) while `loss` is
        computed inside the block of a tape opened here: the tape asked never recorded it."""
        facts = ctx.facts
        values = values_for(ctx)
        for site in facts.calls:
            if site.method not in ("gradient", "jacobian", "batch_jacobian") or site.receiver is None:
                continue
            scope = site.scope
            if any(t.name == site.receiver for t in facts.tapes_in(scope)):
                continue  # a tape of this scope: the check above
            receiver = site.node.func.value  # type: ignore[attr-defined]
            if not values.value(receiver, scope).is_(TAPE):
                continue
            target = argument(site.node, "target", 0)
            if not isinstance(target, ast.Name):
                continue
            flow = flow_of(facts, scope if scope.kind != "class" else facts.module)
            defs = flow.reaching(target.id, site.node)
            if not defs or any(d.kind != "assign" for d in defs):
                continue
            others = {id(t): t for d in defs for t in d.tapes if t.name != site.receiver and d.recorded_by(t)}
            if len(others) != 1 or not all(d.tapes for d in defs):
                continue
            other = next(iter(others.values()))
            d = defs[0]
            ctx.report(
                site.node.func,
                f"`{d.name}` was computed on {ctx.where(d.stmt)} inside the block of the tape `{other.name}` "
                f"(opened on {ctx.where(other.node)}), but the gradient is asked of `{site.receiver}`, a tape "
                f"made elsewhere that did not record it: `{site.receiver}.{site.method}` on "
                f"{ctx.where(site.node)} returns None for every source. Ask `{other.name}`, or compute "
                f"`{d.name}` inside `{site.receiver}`'s block.",
                related=[ctx.related(tape_item_range_node(other), f"`{d.name}` is recorded by this tape")],
            )

    def _report_episode(self, ctx: Context, tape: Tape, finding: _Finding) -> None:
        loop = finding.loop
        where_reset = ""
        if finding.resets:
            first = finding.resets[0]
            how = f"on {ctx.where(first)}"
            if isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) and first.func.attr != "clear":
                how = f"inside `{ast.unparse(first.func)}`, called on {ctx.where(first)}"
            where_reset = (f" It is reset only on some paths through the loop ({how}), "
                           "so whatever skips that line — a `break`, a `continue`, a condition — carries "
                           "the old tensors into the next iteration.")
        else:
            where_reset = " Nothing in the loop clears it."
        ctx.report(
            finding.site,
            f"`{finding.container}` outlives the loop on {ctx.where(loop)} and receives tensors recorded by "
            f"this iteration's tape `{tape.name}` (opened on {ctx.where(tape.node)}), while "
            f"{finding.consumer_text} on {ctx.where(finding.consumer)} asks the tape of a later iteration about "
            f"them: that tape did not record them, so their gradients are None (an optimizer given only Nones "
            f"raises \"{NO_GRADIENTS}\").{where_reset} Clear `{finding.container}` at the start of every "
            "iteration, or open the tape where its data is recorded.",
            related=[ctx.related(tape_item_range_node(tape), "a new tape every iteration"),
                     ctx.related(finding.consumer, "asks the current tape about the kept tensors")]
            + [ctx.related(r, "the reset that can be skipped") for r in finding.resets[:1]],
        )


# --- the episode pattern -----------------------------------------------------------------------

@dataclass
class _Finding:
    container: str
    site: ast.AST
    loop: ast.stmt
    consumer: ast.AST
    consumer_text: str
    resets: list[ast.AST] = field(default_factory=list)


def _episode_findings(facts: Facts, tape: Tape, summaries: _Summaries) -> list[_Finding]:
    scope = tape.scope
    loop = tape.loops[-1]
    flow = flow_of(facts, scope)
    index = scope_index(facts, scope)
    appended: dict[str, ast.AST] = {}
    for site in _calls_in(facts, scope, tape.node):
        if tape not in site.tapes or stop_recording_around(index, site.node, tape.name) is not None:
            continue
        container = None
        if site.method in _APPENDS and site.receiver is not None:
            if _recorded_data(flow, site.node, tape):
                container = site.receiver
        elif site.method is not None and site.receiver is not None:
            method = summaries.method_of(flow, scope, site)
            if method is not None and method.appends and _recorded_data(flow, site.node, tape):
                attr = next(iter(sorted(method.appends)))
                container = f"{site.receiver}.{attr}"
        if container is not None and container not in appended:
            appended[container] = site.node
    out = []
    for container, site_node in appended.items():
        if not _outlives(flow, container, loop):
            continue
        consumer = _consumer(facts, flow, scope, tape, loop, container, summaries)
        if consumer is None:
            continue
        resets, unknown = _resets(facts, flow, scope, index, loop, container, summaries, consumer[0])
        if unknown or any(_always_runs(index, r, loop) for r in resets):
            continue
        out.append(_Finding(container, site_node, loop, consumer[0], consumer[1], resets))
    return out


def _calls_in(facts: Facts, scope: Scope, node: ast.AST) -> list[CallSite]:
    return [site for site in calls_in_scope(facts, scope) if inside(site.node, node)]


def _recorded_data(flow: Flow, call: ast.Call, tape: Tape) -> bool:
    """Does the call hand over values computed under `tape` (a fresh op, or a recorded name)?"""
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for node in ast.walk(arg):
            if isinstance(node, ast.Call):
                return True
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                    and any(recorded(d, tape) for d in flow.reaching(node.id, call)):
                return True
    return False


def _outlives(flow: Flow, container: str, loop: ast.stmt) -> bool:
    """Is the container made outside the loop (or an attribute of an object that is)?"""
    head = container.split(".")[0]
    if "." in container:
        defs = flow.definitions(container)
        if any(inside(d.stmt, loop) and d.kind == "assign" for d in defs):
            return False
        head_defs = flow.definitions(head)
        return not any(inside(d.stmt, loop) for d in head_defs)
    defs = flow.definitions(container)
    return not any(inside(d.stmt, loop) and d.kind in ("assign", "with", "for") for d in defs)


def _consumer(facts: Facts, flow: Flow, scope: Scope, tape: Tape, loop: ast.stmt, container: str,
              summaries: _Summaries) -> tuple[ast.AST, str] | None:
    # A gradient call on this tape whose target is built from the container.
    for call in gradient_calls(facts):
        if call.binding.scope is not scope or call.name != tape.name or call.target is None:
            continue
        if call.entry is not tape or not (inside(call.node, loop) or position(call.node) > position(loop)):
            continue
        if mentions(call.target, container) or any(
                mentions(d.value, container) for d in call.target_slice()):
            return call.node, f"`{call.label()}`"
    # A method of the container's object given the tape, that asks it about the container.
    owner, _, attr = container.rpartition(".")
    if not owner:
        return None
    for site in _calls_in(facts, scope, loop):
        if site.receiver != owner or site.method is None:
            continue
        method = summaries.method_of(flow, scope, site)
        if method is None or attr not in method.gradients:
            continue
        for position_index in method.gradients[attr]:
            passed = site.node.args[position_index] if len(site.node.args) > position_index else None
            if passed is not None and dotted(passed) == tape.name:
                return site.node, f"`{owner}.{site.method}({tape.name})`"
    return None


def _resets(facts: Facts, flow: Flow, scope: Scope, index: ScopeIndex, loop: ast.stmt, container: str,
            summaries: _Summaries, consumer: ast.AST) -> tuple[list[ast.AST], bool]:
    """Statements in the loop that empty the container, and whether other code in the loop
    might (the container handed to a function we cannot see into)."""
    resets: list[ast.AST] = []
    unknown = False
    for d in flow.definitions(container):
        if inside(d.stmt, loop) and d.kind == "assign" or inside(d.stmt, loop) and d.kind == "del":
            resets.append(d.stmt)
    owner, _, attr = container.rpartition(".")
    for site in _calls_in(facts, scope, loop):
        if site.receiver == container and site.method in ("clear", "pop", "popleft", "remove"):
            if site.method == "clear":
                resets.append(site.node)
            continue
        if site.receiver == container:
            continue
        if owner and site.receiver == owner and site.method is not None:
            method = summaries.method_of(flow, scope, site)
            if method is None:
                unknown = True
            elif attr in method.resets:
                resets.append(site.node)
            elif attr in method.maybe_resets:
                unknown = True
            continue
        if site.node is consumer:
            continue
        # The container handed to other code that might empty it.
        if any(mentions(arg, container) for arg in [*site.node.args, *(k.value for k in site.node.keywords)]):
            name = site.qualname or ""
            func = site.node.func
            if name.startswith(_LIBRARY_PREFIXES) or (isinstance(func, ast.Name) and func.id in _READ_ONLY):
                continue
            unknown = True
    for stmt_node in ast.walk(loop):
        if isinstance(stmt_node, ast.Delete) and any(mentions(t, container) for t in stmt_node.targets):
            resets.append(stmt_node)
        elif isinstance(stmt_node, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Slice) and dotted(t.value) == container
                for t in stmt_node.targets):
            resets.append(stmt_node)  # `memory[:] = []`
    return resets, unknown


def _always_runs(index: ScopeIndex, node: ast.AST, loop: ast.stmt) -> bool:
    """Does `node` run on every iteration of `loop` (only `with` blocks and `try` bodies between)?"""
    path = index.path(node)
    level = next((i for i, (stmt, _) in enumerate(path) if stmt is loop), None)
    if level is None:
        return False
    for stmt, arm in path[level + 1:-1]:
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            continue
        if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))) and arm in (0, -1):
            continue
        return False
    # A `continue` or `break` before it in the loop body skips it.
    body_path = path[level + 1:]
    for depth, (stmt, _arm) in enumerate(body_path):
        block = index.block_of(path, level + 1 + depth)
        for other in block:
            if other is stmt:
                break
            if any(isinstance(n, (ast.Continue, ast.Break)) for n in _walk_no_loops(other)):
                return False
    return True


def _walk_no_loops(stmt: ast.stmt):
    """The nodes of `stmt` whose `break` / `continue` leave the loop around it: not the body of a
    loop inside (an inner `for t in range(steps): ... break` ends only that loop), only its `else`."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        yield node
        children = node.orelse if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) \
            else ast.iter_child_nodes(node)
        for child in children:
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


# --- what the methods of this file's classes do with `self.<list>` ------------------------------

@dataclass
class _Method:
    appends: set[str] = field(default_factory=set)
    resets: set[str] = field(default_factory=set)  # on every path through the method
    maybe_resets: set[str] = field(default_factory=set)
    # attr -> positions (in the call, without self) of tape parameters asked about it
    gradients: dict[str, set[int]] = field(default_factory=dict)


class _Summaries:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self._methods: dict[int, _Method] = {}

    def method_of(self, flow: Flow, scope: Scope, site: CallSite) -> _Method | None:
        cls = self._class_of(flow, scope, site)
        if cls is None or site.method is None:
            return None
        fn = self._find(cls, site.method, 0)
        if fn is None:
            return None
        found = self._methods.get(id(fn))
        if found is None:
            found = self._methods[id(fn)] = self._summarise(fn)
        return found

    def _class_of(self, flow: Flow, scope: Scope, site: CallSite) -> ast.ClassDef | None:
        receiver = site.receiver
        if receiver is None or "." in receiver:
            return None
        if receiver == "self":
            return scope.enclosing_class
        defs = flow.reaching(receiver, site.node)
        if len(defs) != 1 or defs[0].kind != "assign" or not isinstance(defs[0].value, ast.Call):
            return None
        func = defs[0].value.func
        return self.facts.classes.get(func.id) if isinstance(func, ast.Name) else None

    def _find(self, cls: ast.ClassDef, name: str, depth: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                return stmt
        if depth < 3:
            for base in cls.bases:
                if isinstance(base, ast.Name) and base.id in self.facts.classes:
                    found = self._find(self.facts.classes[base.id], name, depth + 1)
                    if found is not None:
                        return found
        return None

    def _summarise(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> _Method:
        out = _Method()
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        if not params or params[0] != "self":
            return out
        params = params[1:]
        scope = self.facts.function_scopes.get(fn)
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = dotted(node.func.value)
                if owner and owner.startswith("self.") and owner.count(".") == 1:
                    attr = owner[5:]
                    if node.func.attr in _APPENDS and any(
                            isinstance(n, ast.Name) and n.id in params for a in node.args for n in ast.walk(a)):
                        out.appends.add(attr)
                    elif node.func.attr == "clear":
                        self._reset(out, fn, node, attr)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    name = dotted(target)
                    if name and name.startswith("self.") and name.count(".") == 1:
                        self._reset(out, fn, node, name[5:])
        if scope is not None:
            flow = flow_of(self.facts, scope)
            for (receiver, method), sites in scope.method_calls.items():
                if method not in ("gradient", "jacobian") or receiver not in params:
                    continue
                for site in sites:
                    target = argument(site.node, "target", 0)
                    if target is None:
                        continue
                    values = [target] + [d.value for d in flow.slice(target, site.node) if d.value is not None]
                    for value in values:
                        for node in ast.walk(value):
                            name = dotted(node) if isinstance(node, ast.Attribute) else None
                            if name and name.startswith("self.") and name.count(".") == 1:
                                out.gradients.setdefault(name[5:], set()).add(params.index(receiver))
        return out

    @staticmethod
    def _reset(out: _Method, fn: ast.AST, node: ast.AST, attr: str) -> None:
        body = getattr(fn, "body", [])
        top = any(stmt is node or (isinstance(stmt, ast.Expr) and stmt.value is node) for stmt in body)
        (out.resets if top else out.maybe_resets).add(attr)
