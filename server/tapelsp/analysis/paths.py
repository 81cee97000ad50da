"""Which values carry a gradient from a tape's sources to its target.

Shared by the GradientTape rules that explain a `None` gradient by what lies on the
path between `tape.gradient(target, sources)`'s sources and its target: a value that
leaves TensorFlow (`.numpy()`, `np.*`, `float()`), `model.predict`, `tf.numpy_function`,
an op without a gradient (`tf.argmax`, a cast to int, `tf.stop_gradient`), or a
stateful `assign`. The evaluation is three-valued:

- LIVE: the value certainly depends, differentiably, on the sources;
- MAYBE: we cannot tell (a call of an unknown function, an attribute of `self`...);
- DEAD: the value certainly does not (a constant, data, a NumPy array).

Every operation that turns a LIVE input into a DEAD output is recorded as a `Cut`.
A rule reports a cut only when the target as a whole comes out DEAD for a source
root, that is: every route from that source to the target is cut, so TensorFlow
returns `None`. A partial cut (a straight-through estimator, a NumPy-computed weight
treated as a constant) leaves the target LIVE and stays silent.

Two modes:
- "recorded": what the tape sees. Definitions that the tape does not record
  (before the block, after it, under `tape.stop_recording()`) are constants.
- "touch": is the source used at all, anywhere in the computation of the target,
  recorded or not? (TAPE015: the target is not connected to the sources.) In this
  mode unknown names and calls are MAYBE unless they can be resolved.

Everything is computed on demand, only for scopes with a gradient call, and cached on
the Facts object.
"""

from __future__ import annotations

import ast
import builtins
import os
from dataclasses import dataclass, field
from typing import Any, Callable

from ..facts.dataflow import Def, Flow, flow_of, inside, position
from ..facts.model import CallSite, Facts, Scope, Tape
from ..facts.names import dotted
from ..facts.walk import statements_breadth_first
from . import library

DEAD, MAYBE, LIVE = 0, 1, 2

GRADIENT_METHODS = ("gradient", "jacobian", "batch_jacobian")
VARIABLE_LISTS = frozenset({"trainable_variables", "trainable_weights", "variables", "weights"})
# Attributes of a tensor that are Python metadata, never differentiable.
NON_DIFF_ATTRS = frozenset({"shape", "dtype", "ndim", "name", "device", "graph", "op", "rank"})

# Kinds of cut; each rule reports its own.
NUMPY = "numpy"                # TAPE007
PREDICT = "predict"            # TAPE008
NONDIFF = "nondiff"            # TAPE009
ASSIGN = "assign"              # TAPE013
NUMPY_FUNCTION = "numpy_function"  # TAPE014

_INT_DTYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
               "string", "qint8", "quint8", "qint32"}
_PYTHON_SCALARS = {"float", "int", "bool", "complex"}
_PYTHON_DEAD = {"len", "range", "isinstance", "issubclass", "print", "str", "repr", "type", "hasattr",
                "id", "hash", "format", "callable", "super", "object", "open", "input", "vars", "dir"}
_PYTHON_PASS = {"abs", "min", "max", "sum", "list", "tuple", "zip", "enumerate", "sorted", "reversed",
                "dict", "set", "iter", "next", "map", "filter", "frozenset", "any", "all", "round", "pow",
                "divmod"}
_BUILTINS = frozenset(dir(builtins))
_ASSIGN_METHODS = ("assign", "assign_add", "assign_sub")
# Optimizer steps: each assigns the variables it is given.
_STEP_METHODS = ("apply_gradients", "apply", "minimize")
# Methods that put a value into a container (the def-use layer sees only assignments).
_MUTATORS = ("append", "extend", "insert", "add", "update", "appendleft", "extendleft", "setdefault",
             "write")
_MAX_DEPTH = 3
_SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})
_INPUT_LAYERS = frozenset({"keras.Input", "keras.layers.Input", "keras.layers.InputLayer"})
# Library calls that keep a summand a summand (sums, means, adds); user functions are looked into.
_LINEAR_CALLS = frozenset({"tensorflow.reduce_sum", "tensorflow.reduce_mean", "tensorflow.add", "tensorflow.add_n",
                           "tensorflow.subtract", "tensorflow.multiply", "tensorflow.math.reduce_sum",
                           "tensorflow.math.reduce_mean", "tensorflow.math.add", "tensorflow.math.add_n",
                           "tensorflow.identity", "keras.ops.sum", "keras.ops.mean", "keras.ops.add"})


def _mutated(flow: Flow, name: str) -> bool:
    """Does the scope assign into an attribute (or item) of `name` (`net.layers[0].kernel = w`)?"""
    found = flow.__dict__.get("_mutated_objects")
    if found is None:
        found = set()
        # Every assignment of the scope's code: a store into an attribute of a subscript
        # (`net.layers[0].kernel = w`) defines no name, so the flow's definitions miss it.
        for stmt in ast.walk(flow.scope.node):
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if not isinstance(target, (ast.Attribute, ast.Subscript)):
                        continue
                    owner = target.value
                    while isinstance(owner, ast.Subscript):
                        owner = owner.value
                    while dotted(owner) is None and isinstance(owner, (ast.Attribute, ast.Subscript)):
                        owner = owner.value
                    text = dotted(owner)
                    if text is not None:
                        found.add(text)
        flow.__dict__["_mutated_objects"] = found
    return any(m == name or m.startswith(name + ".") for m in found)


def _store_owner(target: ast.expr) -> str | None:
    """The object a store into an attribute or item changes: `net.layers` for `net.layers[0].kernel = w`."""
    owner = target.value  # type: ignore[attr-defined]
    while isinstance(owner, ast.Subscript):
        owner = owner.value
    while dotted(owner) is None and isinstance(owner, (ast.Attribute, ast.Subscript)):
        owner = owner.value
    return dotted(owner)


def _library_name(qualname: str | None) -> bool:
    return qualname is not None and qualname.split(".")[0] in ("tensorflow", "keras", "numpy", "tensorflow_probability",
                                                               "math", "scipy")
# Kinds of values a tape can never differentiate (the value model's kinds).
_PLAIN_KINDS = frozenset({"number", "str", "none", "ndarray", "np_scalar", "dtype", "shape"})


@dataclass(frozen=True)
class Root:
    """One thing gradients are asked for: a variable (`w`, `self.w`) or the variables
    of an object (`model` in `model.trainable_variables`)."""

    name: str
    owner: bool
    node: ast.expr

    @property
    def label(self) -> str:
        return ast.unparse(self.node)


@dataclass(eq=False)
class Cut:
    kind: str
    node: ast.AST          # the root-cause expression (in another module: the call that reaches it)
    what: str              # how messages name it: "`.numpy()`", "`np.square`"
    value: ast.AST | None  # the differentiable input that is cut
    # Where the cut really is when that is in another module of the project ("losses.py line 7").
    remote: str | None = None
    # An op that stops the gradient on purpose (`tf.stop_gradient`), not one that has none.
    deliberate: bool = False
    # For a cut in another module (`remote`): where it is there and what it is, (absolute path,
    # line, column, `what` as that module names it).
    origin: tuple[str, int, int, str] | None = None


@dataclass(eq=False)
class GradientUse:
    site: CallSite
    tape: Tape
    target: ast.expr
    sources: ast.expr
    roots: tuple[Root, ...] | None  # None when the sources cannot be read
    flow: Flow
    recorded: bool  # does the tape record the gradient call itself?

    @property
    def call(self) -> ast.Call:
        return self.site.node

    @property
    def method(self) -> str:
        return self.site.method or "gradient"

    def describe(self) -> str:
        return f"`{self.site.receiver}.{self.method}({ast.unparse(self.target)}, {ast.unparse(self.sources)})`"


@dataclass(eq=False)
class PathResult:
    use: GradientUse
    root: Root
    status: int
    cuts: list[Cut] = field(default_factory=list)
    # Cuts that make a whole summand of a live target constant (`loss + lam * w.numpy()`).
    lost: list[Cut] = field(default_factory=list)

    @property
    def cut_everywhere(self) -> bool:
        """The target is DEAD for this root and at least one cut had a LIVE input."""
        return self.status == DEAD and bool(self.cuts)

    def none_for(self) -> str:
        """What gets None, for messages."""
        if len(self.use.roots or ()) > 1:
            return f"None for `{self.root.label}`"
        if self.root.owner:
            return f"None for every variable of `{self.root.name}`"
        return "None"


# --- finding gradient calls ------------------------------------------------------------

def _tape_for(facts: Facts, site: CallSite) -> Tape | None:
    here = position(site.node)
    best: Tape | None = None
    for tape in facts.tapes_in(site.scope):
        if tape.name == site.receiver and position(tape.node) < here:
            if best is None or position(tape.node) >= position(best.node):
                best = tape
    return best


def _argument(call: ast.Call, index: int, *names: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg in names:
            return keyword.value
    if len(call.args) > index and not isinstance(call.args[index], ast.Starred):
        return call.args[index]
    return None


def gradient_uses(facts: Facts) -> list[GradientUse]:
    """Every `tape.gradient / jacobian / batch_jacobian` call whose tape is known."""
    cache = facts.__dict__.get("_tape_gradient_uses")
    if cache is not None:
        return cache
    uses: list[GradientUse] = []
    named = {(t.scope, t.name) for t in facts.tapes if t.name is not None}
    for scope, name in named:
        for method in GRADIENT_METHODS:
            for site in scope.method_calls.get((name, method), ()):
                tape = _tape_for(facts, site)
                if tape is None:
                    continue
                target = _argument(site.node, 0, "target")
                sources = _argument(site.node, 1, "sources", "source")
                if target is None or sources is None:
                    continue
                flow = flow_of(facts, _flow_scope(scope))
                recorded = tape in site.tapes and not _paused_at(tape, site.node)
                for one_target, one_sources in _unrolled(site, target, sources):
                    use = GradientUse(site, tape, one_target, one_sources, None, flow, recorded)
                    use.roots = _roots(facts, flow, one_sources, site.node, 0)
                    uses.append(use)
    uses.sort(key=lambda u: position(u.call))
    facts.__dict__["_tape_gradient_uses"] = uses
    return uses


def gradient_uses_of(facts: Facts, call: ast.Call) -> list[GradientUse]:
    """The gradient uses of one gradient call (several when a loop over a literal unrolls it)."""
    index = facts.__dict__.get("_tape_gradient_uses_by_call")
    if index is None:
        index = {}
        for use in gradient_uses(facts):
            index.setdefault(id(use.call), []).append(use)
        facts.__dict__["_tape_gradient_uses_by_call"] = index
    return index.get(id(call), [])


def _unrolled(site: CallSite, target: ast.expr, sources: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """`for name, loss, net in (("policy", pg_loss, self.policy), ("value", v_loss, self.value)):
    tape.gradient(loss, net.trainable_variables)`: one (target, sources) per element of a literal
    tuple of tuples the loop unpacks, its names replaced by that element's expressions; else the
    call's own."""
    used = {n.id for part in (target, sources) for n in ast.walk(part) if isinstance(n, ast.Name)}
    for loop in reversed(site.loops):
        if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Tuple) \
                or not isinstance(loop.iter, (ast.Tuple, ast.List)) or not loop.iter.elts:
            continue
        names = loop.target.elts
        if not all(isinstance(n, ast.Name) for n in names) or not used & {n.id for n in names}:
            continue
        rows = loop.iter.elts
        if len(rows) > 8 or not all(isinstance(r, (ast.Tuple, ast.List)) and len(r.elts) == len(names)
                                    and not any(isinstance(e, ast.Starred) for e in r.elts) for r in rows):
            return [(target, sources)]
        if any(isinstance(n, ast.Name) and n.id in {m.id for m in names} and isinstance(n.ctx, ast.Store)
               for stmt in loop.body for n in ast.walk(stmt)):
            return [(target, sources)]  # a loop variable rebound in the body
        if any(isinstance(n, (ast.Continue, ast.Break)) for stmt in loop.body for n in ast.walk(stmt)) \
                or any(inside(guard, loop) for guard in site.guards):
            return [(target, sources)]  # an element may skip the call: which ones run is not known
        out = []
        for row in rows:
            bound = {n.id: e for n, e in zip(names, row.elts)}  # type: ignore[union-attr]
            out.append((_substitute(target, bound), _substitute(sources, bound)))
        return out
    return [(target, sources)]


def _substitute(expr: ast.expr, bound: dict[str, ast.expr]) -> ast.expr:
    if isinstance(expr, ast.Name) and expr.id in bound:
        return bound[expr.id]
    if not any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(expr)):
        return expr
    if isinstance(expr, ast.Attribute):
        return ast.copy_location(ast.Attribute(value=_substitute(expr.value, bound), attr=expr.attr, ctx=expr.ctx), expr)
    if isinstance(expr, (ast.List, ast.Tuple)):
        return ast.copy_location(type(expr)(elts=[_substitute(e, bound) for e in expr.elts], ctx=expr.ctx), expr)
    return expr  # anything else is evaluated as written


def _flow_scope(scope: Scope) -> Scope:
    while scope.kind == "class" and scope.parent is not None:
        scope = scope.parent
    return scope


def _stop_recording_blocks(tape: Tape, facts: Facts | None = None) -> list[ast.AST]:
    cached = tape.__dict__.get("_stop_recording_blocks")
    if cached is not None:
        return cached
    found: list[ast.AST] = []
    if facts is not None and not _any_stop_recording(facts):
        tape.__dict__["_stop_recording_blocks"] = found
        return found
    for node in ast.walk(tape.node):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                expr = item.context_expr
                if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                        and expr.func.attr == "stop_recording" and dotted(expr.func.value) == tape.name:
                    found.append(node)
    tape.__dict__["_stop_recording_blocks"] = found
    return found


def _any_stop_recording(facts: Facts) -> bool:
    """Is there a `x.stop_recording()` call anywhere in the file? (Every `with` item's call is a
    recorded call site.) Without one no tape has a paused block, and no tape body is walked."""
    found = facts.__dict__.get("_any_stop_recording")
    if found is None:
        found = facts.__dict__["_any_stop_recording"] = any(site.method == "stop_recording" for site in facts.calls)
    return found


def _paused_at(tape: Tape, node: ast.AST) -> bool:
    return any(inside(node, block) for block in _stop_recording_blocks(tape))


def paused_at(tape: Tape, node: ast.AST) -> bool:
    """Is `node` in a `with tape.stop_recording():` block of `tape`?"""
    return _paused_at(tape, node)


def store_owner(target: ast.expr) -> str | None:
    """The object a store into an attribute or item changes (see `_store_owner`)."""
    return _store_owner(target)


MUTATORS = _MUTATORS


def recorded_at(tape: Tape, site: CallSite) -> bool:
    return tape in site.tapes and not _paused_at(tape, site.node)


# --- the sources ---------------------------------------------------------------------

def _roots(facts: Facts, flow: Flow, expr: ast.expr, at: ast.AST, depth: int) -> tuple[Root, ...] | None:
    if depth > 4:
        return None
    if isinstance(expr, (ast.List, ast.Tuple)):
        out: list[Root] = []
        for element in expr.elts:
            found = _roots(facts, flow, element.value if isinstance(element, ast.Starred) else element,
                           at, depth + 1)
            if found is None:
                return None
            out.extend(found)
        return _unique(out)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left = _roots(facts, flow, expr.left, at, depth + 1)
        right = _roots(facts, flow, expr.right, at, depth + 1)
        return None if left is None or right is None else _unique([*left, *right])
    if isinstance(expr, ast.Subscript):
        return _roots(facts, flow, expr.value, at, depth + 1)
    if isinstance(expr, ast.Call) and not expr.args and not expr.keywords and isinstance(expr.func, ast.Attribute) \
            and expr.func.attr == "values" and isinstance(expr.func.value, ast.Name):
        # `list(params.values())`: the values of a dict of variables.
        found = _roots(facts, flow, expr.func.value, at, depth + 1)
        return found if found is not None and all(not r.owner for r in found) else None
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords:
        qualname = facts.imports.resolve(expr.func)
        if (isinstance(expr.func, ast.Name) and expr.func.id in ("list", "tuple")
                and not flow.definitions(expr.func.id)) or qualname == "tensorflow.nest.flatten":
            return _roots(facts, flow, expr.args[0], at, depth + 1)
        return None
    if isinstance(expr, ast.Attribute):
        owner = dotted(expr.value)
        if expr.attr in VARIABLE_LISTS:
            return (Root(owner, True, expr),) if owner is not None else None
        name = dotted(expr)
        if name is None:
            return None
        defs = flow.reaching(name, at)
        if defs:
            return _roots_from_defs(facts, flow, name, expr, defs, depth)
        given = _constructor_argument(facts, flow, expr, at)
        if given is not None:
            return _roots(facts, flow, given[0], given[1], depth + 1)
        return (Root(name, False, expr),)
    if isinstance(expr, ast.Name):
        defs = flow.reaching(expr.id, at)
        if not defs:
            return (Root(expr.id, False, expr),)
        return _roots_from_defs(facts, flow, expr.id, expr, defs, depth)
    return None


def _roots_from_defs(facts: Facts, flow: Flow, name: str, expr: ast.expr, defs: list[Def],
                     depth: int) -> tuple[Root, ...] | None:
    out: list[Root] = []
    for d in defs:
        value = d.value
        if d.kind == "param" or value is None:
            out.append(Root(name, False, expr))
            continue
        if d.kind != "assign":
            return None
        if isinstance(value, ast.Call):
            qualname = facts.imports.resolve(value.func)
            if qualname == "tensorflow.Variable" or qualname == "tensorflow.constant" \
                    or qualname == "tensorflow.convert_to_tensor" or _makes_one_tensor(qualname):
                out.append(Root(name, False, expr))
                continue
        if isinstance(value, ast.BinOp) and not isinstance(value.op, ast.Add) \
                and not any(isinstance(side, (ast.List, ast.Tuple, ast.ListComp)) for side in (value.left, value.right)):
            # `images = tf.cast(raw, tf.float32) / 255.0`: arithmetic makes one new tensor.
            out.append(Root(name, False, expr))
            continue
        if isinstance(value, (ast.List, ast.Tuple, ast.Dict)):
            elements = value.values if isinstance(value, ast.Dict) else value.elts
            if elements and all(isinstance(e, ast.Call) and _creates_variable(facts.imports.resolve(e.func))
                                for e in elements):
                # `params = {"w": tf.Variable(1.0)}`: variables made right in the container, named
                # nowhere else; reading the container is the only way to them.
                out.append(Root(name, False, expr))
                continue
        if isinstance(value, (ast.List, ast.Tuple, ast.BinOp, ast.Attribute, ast.Subscript, ast.Call)):
            found = _roots(facts, flow, value, d.stmt, depth + 1)
            if found is None:
                return None
            out.extend(found)
            continue
        if isinstance(value, ast.Name):
            found = _roots(facts, flow, value, d.stmt, depth + 1)
            if found is None:
                return None
            out.extend(found)
            continue
        return None
    return _unique(out)


def _constructor_argument(facts: Facts, flow: Flow, expr: ast.Attribute, at: ast.AST) -> tuple[ast.expr, ast.stmt] | None:
    """`opt.params` where `opt = MomentumSGD(model.trainable_variables)` (the one definition of
    `opt` here) and the class of this file assigns `self.params` once, from a parameter of its
    `__init__`: the argument the construction passes for it, and the construction's statement
    (None when the object, the names of the argument or the attribute may have changed since)."""
    if not isinstance(expr.value, ast.Name) or expr.attr.startswith("__"):
        return None
    defs = flow.reaching(expr.value.id, at)
    if len(defs) != 1 or defs[0].kind != "assign" or not isinstance(defs[0].value, ast.Call) \
            or _mutated(flow, expr.value.id):
        return None
    call, stmt = defs[0].value, defs[0].stmt
    if not isinstance(call.func, ast.Name) or flow.definitions(call.func.id):
        return None
    cls = facts.classes.get(call.func.id)
    if cls is None or cls.bases or cls.decorator_list:
        return None  # a subclass may get the attribute from a base this file does not show
    assigned = self_assignments(facts, cls, expr.attr)
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if len(assigned) != 1 or not isinstance(assigned[0], ast.Name) or init is None:
        return None
    if not any(isinstance(n, ast.Assign) and n.value is assigned[0] for n in ast.walk(init)):
        return None
    positional = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
    param = assigned[0].id
    if param not in positional and param not in [a.arg for a in init.args.kwonlyargs]:
        return None
    if any(isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Store) for n in ast.walk(init)):
        return None
    argument = None
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        if keyword.arg == param:
            argument = keyword.value
    if argument is None and param in positional:
        index = positional.index(param)
        if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            return None
        argument = call.args[index] if index < len(call.args) else None
    if argument is None:
        return None
    # The names the argument reads must hold at `at` what they held at the construction.
    for node in ast.walk(argument):
        if isinstance(node, ast.Name) and flow.reaching(node.id, at) != flow.reaching(node.id, stmt):
            return None
    return argument, stmt


def _makes_one_tensor(qualname: str | None) -> bool:
    """A library call that returns one new tensor or variable (`tf.range`, `tf.cast`,
    `tf.compat.v1.get_variable`): as a source it is its name's value alone."""
    api = library.api(qualname) if _library_name(qualname) else None
    return api is not None and api.kind in ("tensor", "variable") and "composite" not in api.flags


def _creates_variable(qualname: str | None) -> bool:
    api = library.api(qualname) if _library_name(qualname) else None
    return api is not None and api.kind == "variable" and api.has("creates")


def _unique(roots: list[Root]) -> tuple[Root, ...]:
    seen: dict[tuple[str, bool], Root] = {}
    for root in roots:
        seen.setdefault((root.name, root.owner), root)
    return tuple(seen.values())


# --- the evaluator -----------------------------------------------------------------------

Resolver = Callable[[ast.expr], Any]


class Evaluator:
    """Three-valued: does a value depend on one source root?"""

    def __init__(self, facts: Facts, flow: Flow, tape: Tape, root: Root, mode: str,
                 *, all_recorded: bool = False, params: dict[str, int] | None = None, depth: int = 0,
                 active_functions: frozenset = frozenset(), distinct: Callable[[str, Root, ast.AST], bool] | None = None,
                 resolve_function: Callable[[ast.expr], Any] | None = None, values: Any = None,
                 home: Any = None, outer: Callable[[str], int] | None = None) -> None:
        self.facts = facts
        # The value model of this file (analysis/values.py), and the file's own model when the
        # evaluator runs in a function of another module of the project.
        self.values = values
        self.home = home
        self.flow = flow
        self.tape = tape
        self.root = root
        self.mode = mode
        self.all_recorded = all_recorded
        self.params = params or {}
        self.depth = depth
        self.active_functions = active_functions
        self.distinct = distinct
        self.resolve_function = resolve_function
        # In a closure run from the scope that defines it: what a name the closure does not bind
        # holds there, at the call.
        self.outer = outer
        self.memo: dict[int, int] = {}
        self.previous: dict[int, int] = {}
        self.read_previous = False  # did this round read `previous` (a definition on a cycle)?
        self.active: set[int] = set()
        self.cuts: dict[int, Cut] = {}
        # Each cut met, in order, and met again when a memoised definition that holds it is read
        # again: which cuts lie under an operand even when another operand met them first.
        self.touched: list[int] = []
        self.def_cuts: dict[int, tuple[int, ...]] = {}
        self.maybe_cuts = 0  # cuts whose input was only MAYBE
        self.env: list[dict[str, int]] = []
        self._paused = _stop_recording_blocks(tape, facts)
        self.calls_seen: list[ast.Call] = []  # model calls met (touch mode, for messages)
        # Cuts of a value leaving TensorFlow whose result is a whole summand of the target:
        # that term adds nothing to the gradient even when the rest of the target is live.
        self.lost_terms: dict[int, Cut] = {}
        # Whether the value being evaluated is a summand of the target (see `value`); a
        # function's return is one only when its call is (`interprocedural` says).
        self.top_additive = True
        self.additive = True

    # -- entry points --

    def target(self, expr: ast.expr, at: ast.AST, recorded: bool) -> int:
        """Evaluate the target, iterating until loop-carried values settle."""
        result = DEAD
        for _ in range(4):
            self.memo.clear()
            self.cuts.clear()
            self.touched.clear()
            self.def_cuts.clear()
            self.maybe_cuts = 0
            self.calls_seen.clear()
            self.lost_terms.clear()
            self.read_previous = False
            self.additive = self.top_additive
            if recorded or self.mode == "touch" or _passthrough(expr) or handed_back(expr, self.facts) is not None:
                result = self.value(expr, at)
            else:
                result = DEAD
            if self.memo == self.previous:
                break
            self.previous = dict(self.memo)
            if not self.read_previous:
                # `previous` is the only thing one round passes to the next: a round that never
                # read it would be followed by the very same round, ending the loop as this.
                break
        return result

    # -- names and definitions --

    def root_value(self, name: str) -> int | None:
        root = self.root
        if root.owner:
            if name == root.name or root.name.startswith(name + "."):
                return MAYBE  # the object holding the variables, passed around as a value
            if name.startswith(root.name + "."):
                attr = name[len(root.name) + 1:]
                if attr.split(".")[-1] in VARIABLE_LISTS or self._is_variable(name):
                    return LIVE
                return MAYBE
            return None
        if name == root.name:
            return LIVE
        if root.name.startswith(name + "."):
            return MAYBE
        return None

    def _is_variable(self, name: str) -> bool:
        return name in _index(self.facts).variables

    def name(self, name: str, node: ast.AST, at: ast.AST) -> int:
        for env in reversed(self.env):
            if name in env:
                return env[name]
        found = self.root_value(name)
        if found is not None:
            return found
        defs = self.flow.reaching(name, at)
        if len(defs) > 1:
            defs = self._feasible(defs)
        if not defs and self.outer is not None and not self.flow.definitions(name):
            result = self.outer(name)
        else:
            result = DEAD if defs else self.unbound(name)
        for d in defs:
            result = max(result, self.define(d, name))
            if result == LIVE:
                return result
        self.assigned_read(name, at)
        self.stepped_read(name, at)
        self.weights_set_read(name, at)
        return max(result, self.mutations(name, at))

    def _feasible(self, defs: list[Def]) -> list[Def]:
        """Leave out the definitions an assignment overwrites on every way when it sits under
        `if` tests the value model knows are true (`if self.activation is not None:` with
        `self.activation` a function, `if self.use_bias:` with the default True): the reaching
        definitions of the flow assume either arm may run."""
        model = self.home or self.values
        if model is None:
            return defs
        killed: set[int] = set()
        for later in defs:
            if later.kind != "assign" or not later.branches:
                continue
            branches = list(later.branches)
            inner: ast.stmt = later.stmt
            while branches:
                stmt, arm = branches[-1]
                if not isinstance(stmt, ast.If) or arm != 0 or not _runs_to(stmt.body, inner) \
                        or model.truth(stmt.test, self.flow.scope) is not True:
                    break
                branches.pop()
                inner = stmt
            if inner is later.stmt:
                continue
            prefix = tuple(branches)
            for earlier in defs:
                if earlier is not later and earlier.position < later.position \
                        and earlier.branches[:len(prefix)] == prefix:
                    killed.add(id(earlier))
        return [d for d in defs if id(d) not in killed] if killed else defs

    def assigned_read(self, name: str, at: ast.AST) -> None:
        """Reading a variable that recorded code assigned a live value to (`h.assign(f(w))`, then
        `h @ v`): the read has no gradient back through the assign. The assign is the cut."""
        root = self.root
        if name == root.name or name.startswith(root.name + ".") or root.name.startswith(name + "."):
            return  # assigning to a source itself is another story
        method_calls = self.flow.scope.method_calls
        where = position(at)
        sliced = _index(self.facts).sliced_assigns.get((id(self.flow.scope), name), ())
        for method in _ASSIGN_METHODS:
            for site in (*method_calls.get((name, method), ()), *(s for s in sliced if s.method == method)):
                if not site.node.args or site.node is at or inside(at, site.node):
                    continue
                if position(site.node) >= where and not any(inside(at, loop) for loop in site.loops):
                    continue
                if not (self.mode == "touch" or self.all_recorded or self._site_recorded(site)):
                    continue
                key = ("assign", id(site.node))
                if key in self.active:
                    continue
                self.active.add(key)
                try:
                    status = self.value(site.node.args[0], site.node)
                finally:
                    self.active.discard(key)
                if status == LIVE:
                    self.cut(ASSIGN, site.node, f"`{ast.unparse(site.node.func)}(...)`", site.node.args[0], LIVE)
                    # Whatever else connects the target, the part read back from `name` is a
                    # constant for the tape: its contribution to the gradient is lost.
                    self.lost_terms.setdefault(id(site.node), self.cuts[id(site.node)])

    def stepped_read(self, name: str, at: ast.AST) -> None:
        """Reading a variable that a recorded optimizer step updated earlier
        (`opt.apply_gradients(zip(grads, [w]))`, then `w` in the target): the update is an
        assignment, so nothing of the step (the gradients, the optimizer's learning rate) reaches
        the target through it. The step is the cut when what it writes depends on the root."""
        root = self.root
        if name == root.name or name.startswith(root.name + ".") or root.name.startswith(name + "."):
            return
        where = position(at)
        for (receiver, method), sites in self.flow.scope.method_calls.items():
            if method not in _STEP_METHODS or receiver is None:
                continue
            for site in sites:
                node = site.node
                if node is at or inside(at, node) or position(node) >= where:
                    continue
                if not (self.mode == "touch" or self.all_recorded or self._site_recorded(site)):
                    continue
                written, inputs = _step_operands(node, method)
                if written is None or not any(dotted(n) == name for n in ast.walk(written)):
                    continue
                key = ("step", id(node))
                if key in self.active:
                    continue
                self.active.add(key)
                try:
                    status = max(self.join(inputs, node), self._learning_rate(node.func.value))
                finally:
                    self.active.discard(key)
                if status == LIVE:
                    self.cut(ASSIGN, node, f"`{receiver}.{method}(...)`", inputs[0] if inputs else None, LIVE)
                    self.lost_terms.setdefault(id(node), self.cuts[id(node)])

    def weights_set_read(self, name: str, at: ast.AST) -> None:
        """Reading an object after a recorded `name.set_weights(other.get_weights())`: the
        weights are copied as NumPy arrays and assigned, so nothing connects them to `other`."""
        root = self.root
        if name == root.name or name.startswith(root.name + "."):
            return
        where = position(at)
        for site in self.flow.scope.method_calls.get((name, "set_weights"), ()):
            node = site.node
            if not node.args or node is at or inside(at, node) or position(node) >= where:
                continue
            if not (self.mode == "touch" or self.all_recorded or self._site_recorded(site)):
                continue
            weights = node.args[0]
            if isinstance(weights, ast.Call) and isinstance(weights.func, ast.Attribute) \
                    and weights.func.attr == "get_weights" and not weights.args:
                source = dotted(weights.func.value)
                status = LIVE if source is not None and (source == root.name or root.name.startswith(source + ".")) \
                    else self.value(weights.func.value, node)
            else:
                status = self.value(weights, node)
            if status == LIVE:
                self.cut(ASSIGN, node, f"`{name}.set_weights(...)`", weights, LIVE)
                self.lost_terms.setdefault(id(node), self.cuts[id(node)])

    def _learning_rate(self, optimizer: ast.expr) -> int:
        """LIVE when the optimizer's learning rate is a callable that reads the root: it runs at
        each step, under the tape (`SGD(learning_rate=lambda: tf.exp(log_lr))`)."""
        model = self.home or self.values
        if model is None:
            return DEAD
        made = model.value(optimizer, self.flow.scope).origin
        if not isinstance(made, ast.Call):
            return DEAD
        rate = _argument(made, 0, "learning_rate", "lr")
        if isinstance(rate, ast.Name):
            return self.function_mentions_root(rate) if self._module_function(rate.id) is not None else DEAD
        if isinstance(rate, ast.Lambda):
            root_base = self.root.name.split(".")[0]
            return LIVE if any(isinstance(n, ast.Name) and n.id == root_base for n in ast.walk(rate.body)) else DEAD
        return DEAD

    def mutations(self, name: str, at: ast.AST) -> int:
        """`losses.append(loss)`: what went into a container before `at` (or earlier in a loop)."""
        result = DEAD
        method_calls = self.flow.scope.method_calls
        for method in _MUTATORS:
            for site in method_calls.get((name, method), ()):
                if site.node is at or inside(at, site.node):
                    continue
                if position(site.node) >= position(at) and not any(inside(at, loop) for loop in site.loops):
                    continue
                key = id(site.node)
                if key in self.active:
                    continue
                self.active.add(key)
                try:
                    recorded = self.mode == "touch" or self.all_recorded or self._site_recorded(site)
                    for arg in [*site.node.args, *(k.value for k in site.node.keywords)]:
                        if recorded or _passthrough(arg):
                            result = max(result, self.value(arg, site.node))
                finally:
                    self.active.discard(key)
                if result == LIVE:
                    return result
        return result

    def _site_recorded(self, site: CallSite) -> bool:
        return self.tape in site.tapes and not any(inside(site.node, b) for b in self._paused)

    def unbound(self, name: str) -> int:
        if self.mode == "recorded":
            return DEAD
        if name in self.facts.imports.names or (name in _BUILTINS and "." not in name):
            return DEAD
        return MAYBE

    def define(self, d: Def, name: str) -> int:
        key = id(d)
        if key in self.memo:
            self.touched.extend(self.def_cuts.get(key, ()))
            return self.memo[key]
        if key in self.active:
            self.read_previous = True
            return self.previous.get(key, DEAD)
        self.active.add(key)
        start = len(self.touched)
        try:
            result = self._define(d, name)
        finally:
            self.active.discard(key)
        self.memo[key] = result
        self.def_cuts[key] = tuple(dict.fromkeys(self.touched[start:]))
        return result

    def _define(self, d: Def, name: str) -> int:
        if d.kind == "param":
            return self.params.get(name, DEAD)
        if d.kind == "def" and isinstance(d.stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A function as a value (`JointDistributionCoroutine(model)`): whatever it reads of
            # the root when it runs, unknown here.
            head = self.root.name.split(".")[0]
            if any(isinstance(n, ast.Name) and n.id == head for n in ast.walk(d.stmt)):
                return MAYBE
            return DEAD
        if d.kind in ("import", "def", "del", "handler", "with") or d.value is None:
            return DEAD
        value = _element_for(d, name)
        if self.mode == "recorded" and not self.all_recorded and not d.recorded_by(self.tape):
            # A constant to the tape, unless it merely aliases a variable, or is an object that
            # keeps the variable and reads it when used in the block (a TFP distribution made
            # from it, a linear operator, a TransformedVariable).
            if _alias(value):
                return self.value(value, d.stmt)
            if self._keeps_variables(value):
                # Only what it was given as it is: a tensor computed for it then is a constant.
                kept = [a for a in (*value.args, *(k.value for k in value.keywords)) if _alias(a)]  # type: ignore[union-attr]
                return self.join(kept, d.stmt)
            return DEAD
        result = self.value(value, d.stmt)
        if d.kind == "augassign" and result != LIVE:
            for old in self.flow.reaching(name, d.stmt):
                result = max(result, self.define(old, name))
        return result

    # -- expressions --

    def value(self, node: ast.AST | None, at: ast.AST) -> int:
        if node is None:
            return DEAD
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            return MAYBE
        # Is this node a summand of the target (reached through +, -, scaling and sums only)?
        # Only there does a term made constant add nothing to the gradient by mistake.
        outer = self.additive
        self.additive = outer and self._linear(node)
        try:
            return method(node, at)
        finally:
            self.additive = outer

    def _linear(self, node: ast.AST) -> bool:
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div))
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, (ast.USub, ast.UAdd))
        if isinstance(node, (ast.Name, ast.Attribute)):
            return True  # a name passes its context to its definition
        if isinstance(node, ast.Call):
            qualname = self.facts.imports.resolve(node.func)
            return qualname in _LINEAR_CALLS or not _library_name(qualname)
        return False

    def join(self, nodes, at: ast.AST) -> int:
        result = DEAD
        for node in nodes:
            result = max(result, self.value(node, at))
        return result

    def _Constant(self, node, at):
        return DEAD

    def _JoinedStr(self, node, at):
        return DEAD

    def _Slice(self, node, at):
        return DEAD

    def _Name(self, node, at):
        return self.name(node.id, node, at)

    def _Starred(self, node, at):
        return self.value(node.value, at)

    def _NamedExpr(self, node, at):
        return self.value(node.value, at)

    def _Tuple(self, node, at):
        return self.join(node.elts, at)

    _List = _Tuple
    _Set = _Tuple

    def _Dict(self, node, at):
        return self.join([v for v in node.values if v is not None], at)

    def _BinOp(self, node, at):
        if isinstance(node.op, (ast.Add, ast.Sub)):
            # The cuts under each operand, also those the other operand met first (`adv` read by
            # both `actor_loss` and `critic_loss`): a summand that is constant loses them all.
            before = len(self.touched)
            left = self.value(node.left, at)
            middle = len(self.touched)
            right = self.value(node.right, at)
            touched = self.touched
            for status, other, added in ((left, right, touched[before:middle]), (right, left, touched[middle:])):
                if status == DEAD and other == LIVE and self.additive:
                    for key in dict.fromkeys(added):
                        cut = self.cuts.get(key)
                        if cut is not None and cut.kind == NUMPY:
                            self.lost_terms.setdefault(key, cut)
            return max(left, right)
        result = self.join((node.left, node.right), at)
        if isinstance(node.op, ast.FloorDiv) and result != DEAD:
            self.cut(NONDIFF, node, "floor division `//`", node, result)
            return DEAD
        return result

    def _UnaryOp(self, node, at):
        result = self.value(node.operand, at)
        if isinstance(node.op, ast.Not):
            return DEAD
        return result

    def _BoolOp(self, node, at):
        return self.join(node.values, at)

    def _IfExp(self, node, at):
        return self.join((node.body, node.orelse), at)

    def _Await(self, node, at):
        return MAYBE

    def _Compare(self, node, at):
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return DEAD
        result = self.join((node.left, *node.comparators), at)
        self.cut(NONDIFF, node, "a comparison", node, result)
        return DEAD

    def _Subscript(self, node, at):
        name = dotted(node.value)
        if name == "self" or (name or "").startswith("self."):
            base = self.value(node.value, at)
            return base if base == LIVE else MAYBE
        return self.value(node.value, at)

    def _Attribute(self, node, at):
        if node.attr in NON_DIFF_ATTRS:
            return DEAD
        if self.facts.imports.resolve(node) is not None:
            return DEAD
        name = dotted(node)
        if name is not None:
            found = self.root_value(name)
            if found is not None:
                if found == MAYBE and self._plain_attribute(node):
                    return DEAD  # `self.temperature`, a number, of the model whose variables are asked for
                return found
            if self.flow.definitions(name):
                return self.name(name, node, at)
            self.assigned_read(name, at)
            self.stepped_read(name, at)
            self.weights_set_read(name, at)
            if name.startswith("self."):
                return self.self_attribute(name, node)
        base = self.value(node.value, at)
        return base

    def _plain_attribute(self, node: ast.Attribute) -> bool:
        """Does the value model know the attribute for certain as plain data (a number, a string,
        a NumPy array)? Such a value holds no variable."""
        if self.values is None or self.home is not None:
            return False
        value = self.values.value(node, self.flow.scope)
        return value.certain and value.kind in _PLAIN_KINDS

    def self_attribute(self, name: str, node: ast.AST | None = None) -> int:
        """`self.gamma` read as a value: DEAD when every assignment to it in the class is plain
        data (constants, parameters, library constructors; a Python number, NumPy data or a
        tensor made from data for the value model), else MAYBE."""
        cls = self.flow.scope.enclosing_class
        if cls is None or name.count(".") != 1:
            return MAYBE
        model = self.home or self.values
        if model is not None and node is not None:
            value = model.value(node, self.flow.scope)
            if value.certain and (value.kind in _PLAIN_KINDS or (value.kind == "tensor" and value.data)):
                return DEAD
            if value.is_("variable") and isinstance(value.origin, ast.Call):
                if self.root.owner or ("." not in self.root.name and self.root.name != "self"):
                    # A variable this class creates itself is not one of another object's, nor a
                    # value passed in (`model(x)`, the root `x`).
                    return DEAD
                # Another variable than the root (`self.bias` when the root is `self.kernel`).
                root_value = model.name(self.root.name, self.flow.scope, node) if "." in self.root.name else None
                if root_value is not None and root_value.is_("variable") and isinstance(root_value.origin, ast.Call) \
                        and root_value.origin is not value.origin:
                    return DEAD
            from .values import fresh_construction

            if model is self.values and fresh_construction(model, value):
                return DEAD
        values = self_assignments(self.facts, cls, name.split(".", 1)[1])
        if not values:
            return MAYBE
        for value in values:
            if not _plain_data(value, self.facts):
                return MAYBE
        return DEAD

    def _Lambda(self, node, at):
        params = {a.arg: DEAD for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
        self.env.append(params)
        try:
            return self.value(node.body, at)
        finally:
            self.env.pop()

    def _comprehension(self, node, elements, at):
        scope: dict[str, int] = {}
        self.env.append(scope)
        try:
            for generator in node.generators:
                value = self.value(generator.iter, at)
                for target in ast.walk(generator.target):
                    if isinstance(target, ast.Name):
                        scope[target.id] = value
            return self.join(elements, at)
        finally:
            self.env.pop()

    def _ListComp(self, node, at):
        return self._comprehension(node, (node.elt,), at)

    _SetComp = _ListComp
    _GeneratorExp = _ListComp

    def _DictComp(self, node, at):
        return self._comprehension(node, (node.value,), at)

    # -- calls --

    def cut(self, kind: str, node: ast.AST, what: str, value: ast.AST | None, status: int,
            deliberate: bool = False) -> None:
        if status == LIVE:
            self.cuts.setdefault(id(node), Cut(kind, node, what, value, deliberate=deliberate))
            self.touched.append(id(node))
        elif status == MAYBE:
            self.maybe_cuts += 1

    def _Call(self, node: ast.Call, at):
        func = node.func
        args = [*node.args, *(k.value for k in node.keywords)]
        qualname = self.facts.imports.resolve(func)
        if qualname is not None and self.facts.imports.is_tracked_module(qualname):
            return self.library(qualname, node, args, at)
        if isinstance(func, ast.Name) and func.id in _BUILTINS and not self.flow.definitions(func.id) \
                and func.id not in self.facts.imports.names and not self._env_has(func.id):
            return self.builtin(func.id, node, args, at)
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method == "numpy" and not node.args:
                status = self.value(func.value, at)
                self.cut(NUMPY, node, "`.numpy()`", func.value, status)
                return DEAD
            if method in ("item", "tolist") and not node.args:
                status = self.value(func.value, at)
                self.cut(NUMPY, node, f"`.{method}()`", func.value, status)
                return DEAD
            if method in ("predict", "predict_on_batch") and not self._own_predict(func):
                status = max(self.callee(func.value, at), self.join(args, at))
                self.cut(PREDICT, node, f"`{ast.unparse(func)}`", func.value, status)
                return DEAD
            if method in _ASSIGN_METHODS:
                self.join(args, at)
                return DEAD
            if method in GRADIENT_METHODS and isinstance(func.value, ast.Name) \
                    and any(t.name == func.value.id for t in self.facts.tapes_in(self.flow.scope)):
                # An inner tape's gradient (`jac_tape.batch_jacobian(code, x)`): computed from the
                # recorded ops of its target and from its sources only; the tape holds no variable.
                return self.join(args, at)
        return self.call_user(node, args, at)

    def _keeps_variables(self, value: ast.AST | None) -> bool:
        model = self.home or self.values
        if model is None or not isinstance(value, ast.Call):
            return False
        found = model.value(value, self.flow.scope)
        return found.kind in ("distribution", "bijector", "linear_operator", "tfp_variable")

    def _own_predict(self, func: ast.Attribute) -> bool:
        """`model.predict(x)` on an object whose class is not a Keras model (or defines its own
        `predict`): a method like any other, not Keras's NumPy-returning predict."""
        model = self.home or self.values
        if model is None:
            return False
        receiver = model.value(func.value, self.flow.scope)
        cls = receiver.user_class
        if cls is not None:
            from .values import class_method

            owner = receiver.home or model
            return receiver.kind not in ("model", "layer") or class_method(owner.facts, cls, func.attr) is not None
        return receiver.certain and receiver.kind not in ("model", "layer", "unknown")

    def _env_has(self, name: str) -> bool:
        return any(name in env for env in self.env)

    def builtin(self, name: str, node: ast.Call, args, at) -> int:
        if name in _PYTHON_SCALARS:
            status = self.join(args, at)
            self.cut(NUMPY, node, f"`{name}()`", node.args[0] if node.args else None, status)
            return DEAD
        if name in _PYTHON_DEAD:
            return DEAD
        if name in _PYTHON_PASS:
            return self.join(args, at)
        return max(MAYBE, self.join(args, at))

    def library(self, qualname: str, node: ast.Call, args, at) -> int:
        """A library call, as the library table says it treats the gradient (analysis/library.tsv:
        `leave` -> NumPy, `no` and `stop` -> no gradient, `const` -> not from its arguments)."""
        short = _short(node.func)
        first = node.args[0] if node.args else None
        api = library.api(qualname)
        if api is not None and api.kind in ("variable", "tfp_variable") and api.has("creates"):
            # `tf.Variable(t)`, `tfp.util.TransformedVariable(t, bijector)`: a new variable that
            # starts from the value of `t`, with no history.
            initial = _argument(node, 0, "initial_value")
            status = self.value(initial, at) if initial is not None else DEAD
            self.cut(NUMPY, node, f"re-wrapping in `{short}(...)`", initial, status)
            return DEAD
        if api is None:
            if qualname.startswith("scipy."):
                status = self.join(args, at)
                self.cut(NUMPY, node, f"`{short}`", first, status)
                return DEAD
            if qualname.startswith(("tensorflow.", "keras.", "tensorflow_probability.", "tf_keras.")):
                return self.join(args, at)
            return max(MAYBE, self.join(args, at))
        grad = api.grad
        if grad == "leave":
            if api.py_callback:
                status = self.join(args, at)
                func = node.args[api.py_callback[0]] if len(node.args) > api.py_callback[0] else None
                if isinstance(func, ast.Name):
                    status = max(status, self.function_mentions_root(func))
                elif isinstance(func, ast.Attribute) and self.method_mentions_root(func, at):
                    status = LIVE  # `tf.numpy_function(self.rollout, ...)`, a method that runs `self.model`
                self.cut(NUMPY_FUNCTION, node, f"`{short}`", node.args[1] if len(node.args) > 1 else None, status)
                return DEAD
            status = self.join(args, at)
            self.cut(PREDICT if api.has("predict") else NUMPY, node, f"`{short}`", first, status)
            return DEAD
        if grad == "stop":
            status = self.join(args[:1], at)
            self.cut(NONDIFF, node, f"`{short}`", first, status, deliberate=True)
            return DEAD
        if grad == "no":
            status = self.join(args, at)
            self.cut(NONDIFF, node, f"`{short}`", first, status)
            return DEAD
        if grad == "const":
            if api.has("hands_back"):
                return self.join(args[:1], at)
            return DEAD
        if api.kind == "tensor" and grad == "yes" and api.dtype and api.dtype[0].startswith("kw=dtype"):
            # A cast: to an integer dtype it has no gradient.
            dtype = _argument(node, 1, "dtype")
            status = self.join(node.args[:1], at)
            if dtype is not None and _integer_dtype(dtype, self.facts):
                self.cut(NONDIFF, node, f"`{short}` to `{ast.unparse(dtype)}`", first, status)
                return DEAD
            return status
        if api.traced_fn and grad == "yes":
            traced = self.traced_functions(node, api.traced_fn, at)
            if traced is not None:
                return traced
        if grad == "yes" or qualname.startswith(("tensorflow.", "keras.", "tensorflow_probability.", "tf_keras.")):
            return self.join(args, at)
        return max(MAYBE, self.join(args, at))

    def traced_functions(self, node: ast.Call, positions: tuple[int, ...], at) -> int | None:
        """`tf.map_fn(fn, elems)`, `tf.while_loop(cond, body, loop_vars)`, `tf.cond(pred, f, g)`: what
        the functions return when run on the data given (each of their parameters gets what the
        data carries), joined with the data itself (the loop_vars of a loop that runs no step).
        None when a function is neither a lambda nor a def this scope resolves."""
        functions = [node.args[i] for i in positions if i < len(node.args)]
        if len(functions) != len(positions):
            return None
        definitions = []
        for fn in functions:
            definition = None if isinstance(fn, ast.Lambda) else self._local_function(fn, at)
            if definition is None and not isinstance(fn, ast.Lambda):
                return None
            definitions.append(definition)
        data = [a for i, a in enumerate(node.args)
                if i not in positions and not isinstance(a, ast.Lambda) and self._local_function(a, at) is None]
        data += [k.value for k in node.keywords if not isinstance(k.value, ast.Lambda)]
        status = self.join(data, at)
        result = status
        for fn, definition in zip(functions, definitions):
            if definition is None:
                params = {a.arg: status for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
                for extra in (fn.args.vararg, fn.args.kwarg):
                    if extra is not None:
                        params[extra.arg] = status
                self.env.append(params)
                try:
                    result = max(result, self.value(fn.body, at))
                finally:
                    self.env.pop()
                continue
            returned = self.interprocedural(definition, node, at, root=self._root_in(definition, node, False, passed=False),
                                            bound_self=False, every_param=status)
            if returned is None:
                return None
            result = max(result, returned)
        return result

    def callee(self, func: ast.expr, at: ast.AST) -> int:
        """What calling `func` contributes by itself (the variables it holds)."""
        name = dotted(func)
        if isinstance(func, ast.Subscript):
            return self.callee(func.value, at)
        if isinstance(func, ast.Attribute) and name is None:
            return self.value(func.value, at)
        if isinstance(func, (ast.Call, ast.Lambda)):
            return self.value(func, at)
        if name is None:
            return MAYBE
        root = self.root
        if self._library_loss(func):
            # `self.huber(y, pred)`, `self.huber = keras.losses.Huber()`: a loss object of the library
            # holds no variables, even when it is an attribute of the model whose variables are asked for.
            return DEAD
        if name == root.name or name.startswith(root.name + ".") or root.name.startswith(name + "."):
            return LIVE
        if _mutated(self.flow, name):
            # `main_network.layers[0].kernel = w0` in this scope: the object holds what the code
            # stored in it (a hypernetwork's output), whatever it was made from; LIVE when the tape
            # recorded the store of a live value.
            return max(MAYBE, self._stored(name, at))
        if self._env_has(name):
            return DEAD
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.params \
                and root.name.startswith("\0"):
            # `model.forward(x)` on a parameter, the root out of this function's reach: the
            # object passed in is all the method can get the root from.
            return self.params[func.value.id]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            # `arr.mean()`, `h.reshape(...)`: a method of a local value is as live as the value.
            defs = self.flow.reaching(func.value.id, at)
            if defs and all(d.kind in ("assign", "augassign", "for") for d in defs):
                return self.value(func.value, at)
        bound = self._bound_library_object(name, at)
        if bound is not None:
            return bound
        if isinstance(func, ast.Name):
            # `adapted = clone(model)`, then `adapted(x)`: the object is what the function made of
            # its arguments (a copy whose weights were set from the root's holder, say).
            defs = self.flow.reaching(func.id, at)
            if defs and all(d.kind == "assign" and isinstance(d.value, ast.Call)
                            and self._local_function(d.value.func, d.stmt) is not None for d in defs):
                return self.value(func, at)
        if self.mode == "touch" and self.distinct is not None and not _mutated(self.flow, name) \
                and self.distinct(name, root, at):
            return DEAD
        if self._fresh_object_apart_from_root(func, at):
            return DEAD
        if self._class_apart_from_root(func):
            return DEAD
        return MAYBE

    def _stored(self, name: str, at: ast.AST) -> int:
        """The most live value that recorded code stored, before `at`, into an attribute (or item)
        of `name` (`main_network.layers[0].kernel = tf.reshape(hyper(x), (3, 1))`)."""
        result = DEAD
        where = position(at)
        for stmt in ast.walk(self.flow.scope.node):
            if not isinstance(stmt, ast.Assign) or position(stmt) >= where or id(stmt) in self.active:
                continue
            if not any(_store_owner(target) in (name,) or (_store_owner(target) or "").startswith(name + ".")
                       for target in stmt.targets if isinstance(target, (ast.Attribute, ast.Subscript))):
                continue
            if not (self.mode == "touch" or self.all_recorded or (
                    inside(stmt, self.tape.node) and not any(inside(stmt, b) for b in self._paused))):
                continue
            self.active.add(id(stmt))
            try:
                result = max(result, self.value(stmt.value, stmt))
            finally:
                self.active.discard(id(stmt))
        return result

    def _library_loss(self, func: ast.expr) -> bool:
        """Is `func` certainly a loss object a library constructor made in this file from plain
        arguments (`keras.losses.Huber(delta=1.0)`)?"""
        values = self.values
        if values is None or self.home is not None or not isinstance(func, ast.Attribute):
            return False
        from .values import LOSS, fresh_construction

        called = values.value(func, self._scope_of_flow())
        return called.kind == LOSS and fresh_construction(values, called)

    def _class_apart_from_root(self, func: ast.expr) -> bool:
        """`MetaModel()`: constructing a class of this file whose code never names the root (nor
        reaches another module's names) makes an object holding only what it is given (its
        arguments count on their own)."""
        if not isinstance(func, ast.Name) or self.home is not None:
            return False
        cls = self.facts.classes.get(func.id)
        if cls is None or self.flow.definitions(func.id) or func.id in self.params:
            return False
        head = self.root.name.split(".")[0]
        if head == "self":
            return False
        for node in ast.walk(cls):
            if isinstance(node, ast.Name) and (node.id == head or node.id == "globals"):
                return False
            if isinstance(node, ast.Global):
                return False
        return True

    def _scope_of_flow(self):
        scope = self.flow.scope
        return scope

    def _fresh_object_apart_from_root(self, func: ast.expr, at: ast.AST) -> bool:
        """`self.expert_a(x)` where `self.expert_a = Dense(1)` and the root is a variable of
        another object: a layer a library constructor made from plain arguments holds only its
        own variables, so calling it adds nothing of the root's."""
        values = self.values
        if values is None or self.home is not None:
            return False
        from .values import fresh_construction, same_construction

        scope = self._scope_of_flow()
        called = values.value(func, scope)
        if not fresh_construction(values, called):
            return False
        name = dotted(func)
        if name is not None and _mutated(self.flow, name):
            return False  # `main_network.layers[0].kernel = w`: what it holds is set here
        root = self.root
        holder = root.name if root.owner else root.name.rpartition(".")[0]
        if not holder:
            # A variable of its own (`w`): no layer made here from plain arguments holds it.
            return True
        held = values.name(holder, scope, at) if "." in holder else values.value(
            ast.Name(id=holder, ctx=ast.Load(), lineno=getattr(at, "lineno", 1),
                     col_offset=getattr(at, "col_offset", 0)), scope)
        if held.kind == "unknown":
            return False
        return not same_construction(called, held)

    def remote_function(self, node: ast.Call, at: ast.AST) -> int | None:
        """A function imported from another module of the project: evaluated there."""
        values = self.values
        if values is None or not isinstance(node.func, ast.Name):
            return None
        model = self.home or values
        called = model.value(node.func, self._scope_of_flow())
        if called.kind != "function" or called.home is None or not called.certain:
            return None
        if not isinstance(called.ref, ast.FunctionDef):
            return None
        return self.interprocedural(called.ref, node, at, owner=called.home, bound_self=False)

    def method_of_instance(self, node: ast.Call, at: ast.AST) -> int | None:
        """`layer(x)`, `moe(x)`, `model.neg_elbo(x, y)` on an instance of a class of this file
        (or of the project) that holds the root: evaluate the method with `self` standing for
        the instance, the root renamed to the same attribute of `self`."""
        values = self.values
        if values is None or self.depth >= _MAX_DEPTH:
            return None
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver, names = func.value, (func.attr,)
        else:
            receiver, names = func, ("call", "__call__")
        receiver_name = dotted(receiver)
        root = self.root
        if receiver_name is None or receiver_name == "self":
            return None
        if root.name == receiver_name:
            mapped = Root("self", root.owner, root.node)
        elif root.name.startswith(receiver_name + "."):
            mapped = Root("self" + root.name[len(receiver_name):], root.owner, root.node)
        elif any(dotted(a) == root.name for a in (*node.args, *(k.value for k in node.keywords))):
            mapped = None  # `model(x)` with the root `x` passed in: the parameter stands for it
        else:
            return None
        model = self.home or values
        instance = model.value(receiver, self._scope_of_flow())
        cls = instance.user_class
        if cls is None or not instance.certain:
            return None
        owner = instance.home or model
        from .values import class_method

        definition = None
        for name in names:
            definition = class_method(owner.facts, cls, name)
            if definition is not None:
                break
        if definition is None or not isinstance(definition, ast.FunctionDef):
            return None
        return self.interprocedural(definition, node, at, root=mapped, owner=owner, bound_self=True)

    def sequential_call(self, node: ast.Call, args, at: ast.AST) -> int | None:
        """`model(x)` on a `keras.Sequential([...])` whose variables are the root: its layers run
        one after the other on `x`. A layer of a class of this file (or of the project) runs its
        `call` with `self` standing for it (its variables are the model's); a library layer
        may hold some of them, so what comes out of it is connected again."""
        values = self.values
        func = node.func
        root = self.root
        if values is None or self.depth >= _MAX_DEPTH or not root.owner or dotted(func) != root.name:
            return None
        model = self.home or values
        held = model.value(func, self._scope_of_flow())
        made = held.origin
        if not held.is_("model") or held.home is not None or not isinstance(made, ast.Call) \
                or self.facts.imports.resolve(made.func) not in _SEQUENTIAL:
            return None
        layers = made.args[0] if made.args else next((k.value for k in made.keywords if k.arg == "layers"), None)
        if not isinstance(layers, (ast.List, ast.Tuple)) or any(
                site.method in ("add", "pop") and isinstance(site.node.func, ast.Attribute)
                and dotted(site.node.func.value) == root.name for site in self.facts.calls):
            return None
        from .values import class_method

        made_scope = model.scope_at(made)
        status = self.join(args, at)
        for element in layers.elts:
            if isinstance(element, ast.Call) and self.facts.imports.resolve(element.func) in _INPUT_LAYERS:
                continue
            layer = model.value(element, made_scope)
            cls = layer.user_class
            if cls is None:
                if not layer.is_("layer", "model"):
                    return None
                status = LIVE  # a library layer: its weights are among the model's
                continue
            if not layer.certain:
                return None
            owner = layer.home or model
            definition = class_method(owner.facts, cls, "call")
            if not isinstance(definition, ast.FunctionDef):
                return None
            result = self.interprocedural(definition, node, at, root=Root("self", True, root.node), owner=owner,
                                          bound_self=True, every_param=status)
            if result is None:
                return None
            status = result
        return status

    def _bound_library_object(self, name: str, at: ast.AST) -> int | None:
        """`loss_fn = tf.keras.losses.MSE()`: calling it adds nothing of its own."""
        defs = self.flow.reaching(name, at)
        if not defs and self.flow.scope.kind != "module" and "." not in name:
            defs = flow_of(self.facts, self.facts.module).definitions(name)
        if not defs:
            return None
        for d in defs:
            value = d.value
            if d.kind != "assign" or not isinstance(value, ast.Call):
                return None
            qualname = self.facts.imports.resolve(value.func)
            if qualname is None or not qualname.startswith(("keras.losses.", "keras.metrics.", "keras.activations.",
                                                             "tensorflow.losses.", "tensorflow.keras.losses.",
                                                             "tensorflow.nn.")):
                return None
        return DEAD

    def call_user(self, node: ast.Call, args, at) -> int:
        func = node.func
        definition = self._local_function(func, at)
        if definition is not None:
            result = self.interprocedural(definition, node, at)
            if result is not None:
                return result
        dispatched = self.method_of_instance(node, at)
        if dispatched is not None:
            return dispatched
        composed = self.sequential_call(node, args, at)
        if composed is not None:
            return composed
        remote = self.remote_function(node, at)
        if remote is not None:
            return remote
        if self.resolve_function is not None and isinstance(func, ast.Name):
            resolved = self.resolve_function(func)
            if resolved is not None:
                return max(resolved, self.join(args, at))
        held = self._held_library_function(func)
        if held is not None:
            return self.library(held, node, args, at)
        callee = self.callee(func, at)
        status = max(callee, self.join(args, at))
        if self.mode == "touch" and callee == DEAD and isinstance(func, (ast.Name, ast.Attribute)):
            self.calls_seen.append(node)
        return status

    def _held_library_function(self, func: ast.expr) -> str | None:
        """The library function a name or attribute certainly holds (`self.activation`, set to
        `keras.activations.get("tanh")`): calling it is that library call."""
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return None
        model = self.home or self.values
        if model is None:
            return None
        held = model.value(func, self.flow.scope)
        if held.kind != "library" or not held.certain or held.home is not None or not isinstance(held.ref, str):
            return None
        return held.ref if library.api(held.ref) is not None else None

    def function_mentions_root(self, func: ast.Name) -> int:
        definition = self._module_function(func.id)
        if definition is None:
            return MAYBE
        root_base = self.root.name.split(".")[0]
        for node in ast.walk(definition):
            if isinstance(node, ast.Name) and node.id == root_base:
                return LIVE
        return DEAD

    def method_mentions_root(self, func: ast.Attribute, at: ast.AST) -> bool:
        """`self.rollout` is a method of this class whose body names the root (`self.model`, or a
        module-level `model`)."""
        definition = self._local_function(func, at)
        if definition is None:
            return False
        name = self.root.name
        for node in ast.walk(definition):
            if isinstance(node, (ast.Name, ast.Attribute)):
                text = dotted(node)
                if text is not None and (text == name or text.startswith(name + ".")):
                    return True
        return False

    def _module_function(self, name: str) -> ast.FunctionDef | None:
        found = _index(self.facts).module_functions.get(name, [])
        return found[0] if len(found) == 1 else None  # type: ignore[return-value]

    def _local_function(self, func: ast.expr, at: ast.AST) -> ast.FunctionDef | None:
        if isinstance(func, ast.Name):
            if self._env_has(func.id):
                return None
            defs = self.flow.reaching(func.id, at)
            if defs:
                if len(defs) == 1 and defs[0].kind == "def" and isinstance(defs[0].stmt, ast.FunctionDef):
                    return defs[0].stmt
                return None
            if self.flow.scope.kind != "module" and not self.flow.definitions(func.id):
                return self._module_function(func.id)
            return None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = _enclosing_class(self.facts, self.flow.scope)
            if cls is None:
                return None
            found = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == func.attr]
            return found[0] if len(found) == 1 else None
        return None

    def interprocedural(self, definition: ast.FunctionDef, node: ast.Call, at, *, root: Root | None = None,
                        owner: Any = None, bound_self: bool | None = None,
                        every_param: int | None = None) -> int | None:
        if self.depth >= _MAX_DEPTH or definition in self.active_functions:
            return None
        if definition.decorator_list or _is_generator(definition):
            return None
        home = owner if owner is not None and owner is not (self.home or self.values) else self.home
        facts = home.facts if home is not None else self.facts
        scope = facts.function_scopes.get(definition)
        if scope is None:
            return None
        if every_param is not None:
            # Called by the library (`tf.map_fn(fn, elems)`): every parameter gets the data.
            args = definition.args
            positional = [*args.posonlyargs, *args.args][1 if bound_self else 0:]
            params = {a.arg: every_param for a in (*positional, *args.kwonlyargs,
                                                     *(p for p in (args.vararg, args.kwarg) if p is not None))}
        else:
            params = _bind_params(definition, node, lambda e: self.value(e, at), bound_self)
        if params is None:
            return None
        if root is None:
            root = self._root_in(definition, node, bound_self)
        closure = home is None and self._closure(definition)
        additive = self.additive
        sub = Evaluator(facts, flow_of(facts, scope), self.tape, root, self.mode,
                        all_recorded=self.mode == "recorded" and (self.all_recorded or self._recorded(node)),
                        params=params, depth=self.depth + 1,
                        active_functions=self.active_functions | {definition},
                        distinct=self.distinct, resolve_function=self.resolve_function, values=self.values,
                        home=home, outer=(lambda name: self.name(name, node, at)) if closure else None)
        sub.top_additive = additive
        result = DEAD
        elsewhere = home is not self.home and home is not None
        for ret in _returns(definition):
            if ret.value is None:
                continue
            result = max(result, sub.target(ret.value, ret, True))
            self.maybe_cuts += sub.maybe_cuts
            for key, found in sub.cuts.items():
                self.cuts.setdefault(key, self._here(found, node, home) if elsewhere else found)
                self.touched.append(key)
            for key, found in sub.lost_terms.items():
                self.lost_terms.setdefault(key, self._here(found, node, home) if elsewhere else found)
            if not elsewhere:
                self.calls_seen.extend(sub.calls_seen)
        return result

    def _here(self, found: Cut, call: ast.Call, home: Any) -> Cut:
        """A cut inside a function of another module, as this file reports it: on the call that
        runs that function, naming where the cut is."""
        if found.remote is not None:
            return Cut(found.kind, call, found.what, None, found.remote, origin=found.origin)
        from .modules import label

        where = f"{label(home.path)} line {getattr(found.node, 'lineno', '?')}" if home.path else "another module"
        origin = (os.path.abspath(home.path), found.node.lineno, found.node.col_offset, found.what) \
            if home.path and hasattr(found.node, "lineno") else None
        return Cut(found.kind, call, f"{found.what} (in {where}, run by this call)", None, where,
                   found.deliberate, origin)

    def _closure(self, definition: ast.FunctionDef) -> bool:
        """Is `definition` nested in the function this evaluator runs (a closure of its names)?"""
        scope = self.facts.function_scopes.get(definition)
        outer = scope.parent if scope is not None else None
        if outer is not None and outer.kind == "class":
            return False  # a method: `self`, not the names around its class
        while outer is not None:
            if outer is self.flow.scope:
                return self.flow.scope.kind != "module"
            outer = outer.parent
        return False

    def _root_in(self, definition: ast.FunctionDef, node: ast.Call, bound_self: bool | None, *,
                 passed: bool = True) -> Root:
        """The root as the called function sees it: the parameter it is passed as (`f(model)` ->
        `net` in `def f(net)`, `f(self.actor)` -> `actor`), its own name when it is a global
        the function can read, else nothing the function can name (its arguments' statuses
        still carry it)."""
        root = self.root
        positional = [a.arg for a in (*definition.args.posonlyargs, *definition.args.args)]
        if (isinstance(node.func, ast.Attribute) if bound_self is None else bound_self) and positional \
                and positional[0] in ("self", "cls"):
            positional = positional[1:]
        given: list[tuple[str, ast.expr]] = list(zip(positional, node.args)) if passed else []
        given += [(k.arg, k.value) for k in node.keywords if k.arg is not None] if passed else []
        for param, arg in given:
            if isinstance(arg, ast.Starred):
                break
            name = dotted(arg)
            if name is None:
                continue
            if root.name == name:
                return Root(param, root.owner, root.node)
            if root.name.startswith(name + "."):
                return Root(param + root.name[len(name):], root.owner, root.node)
        head = root.name.split(".")[0]
        if head == "self" and isinstance(node.func, ast.Attribute) and dotted(node.func.value) == "self":
            return root  # `self.loss(...)`: the same instance on both sides
        if self._closure(definition):
            scope = self.facts.function_scopes.get(definition)
            if scope is not None and not flow_of(self.facts, scope).definitions(head):
                return root  # a closure reading the root of the scope that defines it
        if head == "self" or (self.flow.scope.kind != "module" and (
                self.flow.definitions(head) or head in self.params)):
            return Root("\0unreachable", root.owner, root.node)
        return root

    def _recorded(self, node: ast.AST) -> bool:
        site = _index(self.facts).sites.get(id(node))
        return site is not None and self._site_recorded(site)


def _step_operands(node: ast.Call, method: str) -> tuple[ast.expr | None, list[ast.expr]]:
    """An optimizer step's variables and what their update is computed from:
    `apply_gradients(zip(grads, variables))` and `apply_gradients(pairs)`; `apply(grads, variables)`;
    `minimize(loss, var_list)`."""
    def arg(index: int, *names: str) -> ast.expr | None:
        return _argument(node, index, *names)

    if method == "apply_gradients":
        pairs = arg(0, "grads_and_vars")
        if isinstance(pairs, ast.Call) and isinstance(pairs.func, ast.Name) and pairs.func.id == "zip" \
                and len(pairs.args) == 2:
            return pairs.args[1], [pairs.args[0]]
        return pairs, [pairs] if pairs is not None else []
    if method == "apply":
        grads, variables = arg(0, "grads"), arg(1, "trainable_variables")
        return variables, [grads] if grads is not None else []
    loss, variables = arg(0, "loss"), arg(1, "var_list")
    return variables, [loss] if loss is not None else []


def optimizer_step(node: ast.AST) -> str | None:
    """The variables an optimizer step call updates, as written (`[w]`), or None for another node."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) \
            or node.func.attr not in _STEP_METHODS:
        return None
    written, _ = _step_operands(node, node.func.attr)
    return ast.unparse(written) if written is not None else None


def _short(func: ast.expr) -> str:
    text = ast.unparse(func)
    return text


def _integer_dtype(expr: ast.expr, facts: Facts) -> bool:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value in _INT_DTYPES
    qualname = facts.imports.resolve(expr)
    if qualname is None:
        return False
    last = qualname.rsplit(".", 1)[-1]
    return last in _INT_DTYPES


def _alias(expr: ast.AST | None) -> bool:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return isinstance(expr, ast.Name)


def _passthrough(expr: ast.AST) -> bool:
    """An expression that only names values (no computation the tape would have to record)."""
    if isinstance(expr, (ast.Name, ast.Constant)):
        return True
    if isinstance(expr, ast.Attribute):
        return _passthrough(expr.value)
    if isinstance(expr, ast.Subscript):
        return isinstance(expr.value, (ast.Name, ast.Attribute)) and _passthrough(expr.value)
    if isinstance(expr, (ast.List, ast.Tuple)):
        return all(_passthrough(e.value if isinstance(e, ast.Starred) else e) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return all(v is not None and _passthrough(v) for v in expr.values)
    return False


def no_gradient_op(expr: ast.AST, facts: Facts) -> str | None:
    """How messages name `expr` when it is an op whose result has no gradient at all (the library
    table's `no`: `tf.argmax`, `tf.round`; a cast to an integer dtype; a comparison), else None."""
    if isinstance(expr, ast.Compare):
        return f"the comparison `{ast.unparse(expr)}`"
    if not isinstance(expr, ast.Call):
        return None
    qualname = facts.imports.resolve(expr.func)
    api = library.api(qualname) if _library_name(qualname) else None
    if api is None:
        return None
    short = _short(expr.func)
    if api.grad == "no":
        return f"`{short}`"
    if api.kind == "tensor" and api.grad == "yes" and api.dtype and api.dtype[0].startswith("kw=dtype"):
        dtype = _argument(expr, 1, "dtype")
        if dtype is not None and _integer_dtype(dtype, facts):
            return f"`{short}` to `{ast.unparse(dtype)}`"
    return None


def handed_back(expr: ast.AST, facts: Facts) -> ast.expr | None:
    """`tf.convert_to_tensor(loss)` or `tf.constant(loss)` of a name (or attribute): the argument,
    which these hand back unchanged when it holds a tensor, so the call adds no op a tape would
    have to record (the library table's `hands_back`; not `tf.identity`, which makes a new tensor)."""
    if not isinstance(expr, ast.Call) or not expr.args or len(expr.args) > 2:
        return None
    first = expr.args[0]
    if not (isinstance(first, (ast.Name, ast.Attribute)) and _passthrough(first)):
        return None
    qualname = facts.imports.resolve(expr.func)
    api = library.api(qualname) if _library_name(qualname) else None
    if api is None or not api.has("hands_back") or api.has("elementwise"):
        return None
    return first


def _element_for(d: Def, name: str) -> ast.expr | None:
    """For `a, b = x, y` the part of the value that `name` gets."""
    stmt = d.stmt
    value = d.value
    if isinstance(stmt, ast.Assign) and isinstance(value, (ast.Tuple, ast.List)):
        for target in stmt.targets:
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts) \
                    and not any(isinstance(e, ast.Starred) for e in target.elts):
                for element, part in zip(target.elts, value.elts):
                    if dotted(element) == name:
                        return part
    return value


def _bind_params(definition: ast.FunctionDef, call: ast.Call, value, bound_self: bool | None = None) -> dict[str, int] | None:
    args = definition.args
    positional = [*args.posonlyargs, *args.args]
    is_method = isinstance(call.func, ast.Attribute) if bound_self is None else bound_self
    if is_method and positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    params: dict[str, int] = {a.arg: DEAD for a in [*positional, *args.kwonlyargs]}
    extra = DEAD
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            # `f(*batch)`: every parameter from here on gets what the sequence holds.
            status = value(arg.value)
            for param in positional[index:]:
                params[param.arg] = max(params.get(param.arg, DEAD), status) if param.arg in params else status
            extra = max(extra, status)
            break
        status = value(arg)
        if index < len(positional):
            params[positional[index].arg] = status
        else:
            extra = max(extra, status)
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        status = value(keyword.value)
        if keyword.arg in params:
            params[keyword.arg] = status
        else:
            extra = max(extra, status)
    if args.vararg is not None:
        params[args.vararg.arg] = extra
    if args.kwarg is not None:
        params[args.kwarg.arg] = extra
    if is_method:
        params.setdefault("self", DEAD)
    return params


def _returns(definition: ast.FunctionDef) -> list[ast.Return]:
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(definition.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _is_generator(definition: ast.FunctionDef) -> bool:
    stack: list[ast.AST] = list(definition.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _enclosing_class(facts: Facts, scope: Scope) -> ast.ClassDef | None:
    return scope.enclosing_class


def self_assignments(facts: Facts, cls: ast.ClassDef, attr: str) -> list[ast.expr]:
    """Values assigned to `self.attr` in the methods of `cls`; `_UNKNOWN` (a lambda, never plain data,
    never a construction) stands for an assignment we cannot follow (augmented, unpacked...)."""
    cache = facts.__dict__.setdefault("_tape_self_assignments", {})
    table = cache.get(id(cls))
    if table is None:
        table = {}
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in statements_breadth_first(method):
                if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for part in ast.walk(target):
                        if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) \
                                and part.value.id == "self" and isinstance(part.ctx, ast.Store):
                            plain = node.value is not None and not isinstance(node, ast.AugAssign) \
                                and part is target
                            table.setdefault(part.attr, []).append(node.value if plain else _UNKNOWN)
        cache[id(cls)] = table
    return table.get(attr, [])


_UNKNOWN = ast.parse("lambda: None", mode="eval").body


_WEIGHT_MAKERS = frozenset({"add_weight", "add_variable"})


@dataclass
class _Index:
    variables: set[str]
    module_functions: dict[str, list[ast.FunctionDef]]
    sites: dict[int, CallSite]
    # (id of the scope, variable) -> `v[i, j].assign(x)` calls there: an assign to a slice of `v`
    sliced_assigns: dict[tuple[int, str], list[CallSite]]


def _index(facts: Facts) -> _Index:
    cached = facts.__dict__.get("_tape_index")
    if cached is None:
        functions: dict[str, list[ast.FunctionDef]] = {}
        for node in facts.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.setdefault(node.name, []).append(node)  # type: ignore[arg-type]
        variables = {b.name for b in facts.bindings if b.kind == "variable"}
        if any(site.method in _WEIGHT_MAKERS and site.receiver == "self" for site in facts.calls):
            # `self.w = self.add_weight(...)` in a Keras layer: a variable of the object too
            from ..facts.walk import statements_breadth_first

            for stmt in statements_breadth_first(facts.tree):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Call) \
                        and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in _WEIGHT_MAKERS \
                        and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == "self":
                    target = dotted(stmt.targets[0])
                    if target is not None and target.startswith("self."):
                        variables.add(target)
        sliced: dict[tuple[int, str], list[CallSite]] = {}
        for site in facts.calls:
            if site.method in _ASSIGN_METHODS and isinstance(site.node.func, ast.Attribute) \
                    and isinstance(site.node.func.value, ast.Subscript):
                sliced_name = dotted(site.node.func.value.value)
                if sliced_name is not None:
                    sliced.setdefault((id(site.scope), sliced_name), []).append(site)
        cached = _Index(variables, functions, {id(site.node): site for site in facts.calls}, sliced)
        facts.__dict__["_tape_index"] = cached
    return cached


def _plain_data(value: ast.expr, facts: Facts) -> bool:
    """Constants, arithmetic of them, and TensorFlow constructors of data (`tf.Variable(0.0)`).
    A name makes it unknown: it may be a parameter holding a source variable."""
    for node in ast.walk(value):
        if isinstance(node, ast.Name) and node.id not in facts.imports.names:
            return False
        if isinstance(node, ast.Call):
            qualname = facts.imports.resolve(node.func)
            if qualname is None or qualname.startswith(("keras.Model", "keras.Sequential", "keras.models.",
                                                        "keras.layers.", "keras.applications.")):
                return False
        elif isinstance(node, (ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return False
    return True


# --- stateful assigns (TAPE013) -----------------------------------------------------------

def assign_cuts(facts: Facts, use: GradientUse, root: Root, evaluator: Evaluator) -> list[Cut]:
    """`acc.assign_add(x)` recorded by the tape, `acc` then read on the way to the target."""
    tape = use.tape
    flow = use.flow
    found: list[Cut] = []
    for (receiver, method), sites in tape.scope.method_calls.items():
        if method not in _ASSIGN_METHODS or receiver is None:
            continue
        if root.name == receiver or receiver.startswith(root.name + "."):
            continue  # assigning to a source itself is another story
        for site in sites:
            if not recorded_at(tape, site) or not site.node.args:
                continue
            if position(site.node) > position(use.call):
                continue
            status = evaluator.value(site.node.args[0], site.node)
            if status != LIVE:
                continue
            if _read_after(facts, flow, use, receiver, site.node, evaluator):
                found.append(Cut(ASSIGN, site.node, f"`{receiver}.{method}(...)`", site.node.args[0]))
    return found


def _read_after(facts: Facts, flow: Flow, use: GradientUse, receiver: str, assign: ast.Call,
                evaluator: Evaluator) -> bool:
    """Is `receiver` read, after `assign`, by a definition on the target's slice (or the target)?"""
    reads = [n for n in ast.walk(use.target) if dotted(n) == receiver]
    if reads:
        return True
    for d in flow.slice(use.target, use.call):
        if d.value is None or position(d.stmt) <= position(assign):
            continue
        if not d.recorded_by(use.tape):
            continue
        if any(dotted(n) == receiver and isinstance(getattr(n, "ctx", None), ast.Load)
               for n in ast.walk(d.value)):
            return True
    return False


# --- the analysis, cached ------------------------------------------------------------------

def function_resolver(facts: Facts, project: Any, path: str | None) -> Callable[[ast.expr], int | None]:
    """For a call of a name imported from another module of the project: DEAD when the function
    only computes from its arguments (then the call is as live as they are), else None."""
    from . import remote

    def resolve(func: ast.expr) -> int | None:
        if project is None or not isinstance(func, ast.Name):
            return None
        view = remote.local_view(facts, path)
        if func.id not in view.imported:
            return None
        found = remote.definition(view, func.id, project)
        if found is None:
            return None
        where, node = found
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and remote.pure_function(where, node):
            return DEAD
        return None

    return resolve


def analyse(facts: Facts, project: Any = None, path: str | None = None, targets: Any = None) -> list[PathResult]:
    """Recorded-mode results for every gradient call and every source root."""
    cached = facts.__dict__.get("_tape_paths")
    if cached is not None:
        return cached
    results: list[PathResult] = []
    if project is not None:
        from .remote import reset_budget
        reset_budget()
    resolver = function_resolver(facts, project, path)
    from .values import values_of

    values = values_of(facts, targets, project, path)
    for use in gradient_uses(facts):
        if not use.roots:
            continue
        for root in use.roots:
            evaluator = Evaluator(facts, use.flow, use.tape, root, "recorded", resolve_function=resolver,
                                  values=values)
            status = evaluator.target(use.target, use.call, use.recorded)
            cuts = list(evaluator.cuts.values())
            lost = list(evaluator.lost_terms.values()) if status == LIVE else []
            if status == DEAD and evaluator.maybe_cuts == 0:
                cuts.extend(assign_cuts(facts, use, root, evaluator))
            results.append(PathResult(use, root, status, cuts, lost))
    facts.__dict__["_tape_paths"] = results
    return results


def _runs_to(body: list[ast.stmt], stmt: ast.stmt) -> bool:
    """Is `stmt` a statement of `body` that runs whenever `body` does (no jump before it)?"""
    for current in body:
        if current is stmt:
            return True
        for node in ast.walk(current):
            if isinstance(node, (ast.Return, ast.Break, ast.Continue, ast.Raise)):
                return False
    return False


def cuts_of(ctx, kind: str, keep: Callable[[PathResult], bool] | None = None) -> list[tuple[PathResult, Cut]]:
    """(result, cut) pairs of one kind, for results where every route is cut, and for cuts
    that make a whole term of a live target constant (`lost_term`); one per cut node; only
    results `keep` accepts, when given."""
    out: list[tuple[PathResult, Cut]] = []
    seen: set[int] = set()
    for result in analyse(ctx.facts, ctx.project, ctx.path, ctx.targets):
        if keep is not None and not keep(result):
            continue
        found_cuts = result.cuts if result.cut_everywhere else result.lost
        for found in found_cuts:
            if found.kind == kind and id(found.node) not in seen:
                seen.add(id(found.node))
                out.append((result, found))
    out.sort(key=lambda pair: position(pair[1].node))
    return out


def applied_to(use: GradientUse) -> ast.Attribute | None:
    """The variable list (`disc.trainable_weights`) the gradients of `use` are applied to:
    `grads = tape.gradient(...)`, then `opt.apply_gradients(zip(grads, disc.trainable_weights))`
    (or `opt.apply(grads, disc.trainable_variables)`) in the same scope, reading those grads."""
    found = next((d for d in use.flow.ordered if d.value is use.call and d.kind == "assign"
                  and isinstance(d.stmt, ast.Assign) and len(d.stmt.targets) == 1
                  and isinstance(d.stmt.targets[0], ast.Name)), None)
    if found is None:
        return None
    for (receiver, method), sites in use.site.scope.method_calls.items():
        if method not in ("apply_gradients", "apply"):
            continue
        for site in sites:
            args = site.node.args
            if method == "apply_gradients":
                pair = args[0] if args else None
                if isinstance(pair, ast.Call) and isinstance(pair.func, ast.Name) and pair.func.id == "list" \
                        and pair.args:
                    pair = pair.args[0]
                if not (isinstance(pair, ast.Call) and isinstance(pair.func, ast.Name) and pair.func.id == "zip"
                        and len(pair.args) == 2):
                    continue
                grads, variables = pair.args
            elif len(args) == 2:
                grads, variables = args
            else:
                continue
            if isinstance(grads, ast.Name) and grads.id == found.name and isinstance(variables, ast.Attribute) \
                    and variables.attr in VARIABLE_LISTS and found in use.flow.reaching(found.name, grads):
                return variables
    return None


def misapplied(ctx, use: GradientUse, root: Root) -> ast.Attribute | None:
    """The other object's variable list the gradients are applied to, when the target is
    certainly DEAD for `root` (a whole object's variables, with no cut on the way: not computed
    from them while the tape records) and LIVE for that other object: `tape.gradient(d_loss,
    gen.trainable_weights)` applied with `zip(grads, disc.trainable_weights)`, `d_loss` computed
    with `disc` in the tape. The variable list is then the slip, not where `gen` ran."""
    if not root.owner:
        return None
    applied = applied_to(use)
    owner = dotted(applied.value) if applied is not None else None
    if applied is None or owner is None or owner == root.name:
        return None
    result = next((r for r in analyse(ctx.facts, ctx.project, ctx.path, ctx.targets)
                   if r.use is use and r.root == root), None)
    if result is None or result.status != DEAD or result.cuts:
        return None
    from .values import values_of

    evaluator = Evaluator(ctx.facts, use.flow, use.tape, Root(owner, True, applied), "recorded",
                          resolve_function=function_resolver(ctx.facts, ctx.project, ctx.path),
                          values=values_of(ctx.facts, ctx.targets, ctx.project, ctx.path))
    if evaluator.target(use.target, use.call, use.recorded) != LIVE or evaluator.cuts:
        return None
    return applied


def calls_object(value: ast.expr | None, name: str) -> bool:
    """Does `value` call the object named `name` (`model(x)`, `model.call(x)`) anywhere in it?"""
    if value is None:
        return False
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            called = dotted(node.func)
            if called is not None and called in (name, f"{name}.call", f"{name}.__call__"):
                return True
    return False


def forward_handed_in(ctx, use: GradientUse, root: Root) -> tuple[Def, ast.FunctionDef] | None:
    """`logits = model(images)` in the caller, then `train_step(logits, labels)`, whose tape
    computes the loss from `logits` and asks for `model.trainable_variables`: the forward pass ran
    before any tape, in the code that calls the function (TAPE006). (That statement, the function)
    when the root is a whole object that is a global of the module (the same one in both
    functions), the target is certainly dead for it as the tape recorded, and every call of the
    function in this file hands in an output of it computed outside a tape."""
    function = use.flow.scope.node
    if not root.owner or "." in root.name or use.flow.definitions(root.name) \
            or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [d for d in use.flow.slice(use.target, use.call) if d.kind == "param"]
    if not params:
        return None
    result = next((r for r in analyse(ctx.facts, ctx.project, ctx.path, ctx.targets)
                   if r.use is use and r.root == root), None)
    if result is None or result.status != DEAD or result.cuts:
        return None
    from .values import values_of

    values = values_of(ctx.facts, ctx.targets, ctx.project, ctx.path)
    callers = values.callers(function)
    positional = values.positional_parameters(function)
    keyword_only = {a.arg for a in function.args.kwonlyargs}
    first: Def | None = None
    for caller, scope, _bound in callers:
        flow = flow_of(ctx.facts, scope)
        if flow.definitions(root.name):
            return None  # another object of that name there
        forward = None
        for param in params:
            arg = _passed(caller, positional, param.name, keyword_only)
            if isinstance(arg, ast.Name):
                forward = next((d for d in flow.reaching(arg.id, caller)
                                if not d.tapes and calls_object(d.value, root.name)), None)
            if forward is not None:
                break
        if forward is None:
            return None  # a caller that hands in something else
        first = first or forward
    return (first, function) if first is not None else None


def _passed(call: ast.Call, positional: list[str], name: str, keyword_only: set[str]) -> ast.expr | None:
    """The argument `call` passes for parameter `name` (None when it passes none, or unpacks)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if name in positional and name not in keyword_only:
        index = positional.index(name)
        if index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            return call.args[index]
    return None


def detached_on_purpose(result: PathResult) -> bool:
    """Does a whole object's variables (`critic.trainable_variables`) reach the target only
    through `tf.stop_gradient`? The program then detaches that network from this target on
    purpose (a critic's value, a target network's), and asking the target's gradient for its
    variables is the slip, a wrong variable list (TAPE015), not the cut (TAPE009)."""
    return result.cut_everywhere and result.root.owner and all(cut.deliberate for cut in result.cuts)


# Words one of which a function's text must hold for `cuts_from_importers` to look for cuts in
# it: NumPy ones (TAPE007's; its triggers hold them, so a file without them is not checked).
IMPORTED_CUT_WORDS = (".numpy(", ".item(", ".tolist(", "np.", "numpy")


def cuts_from_importers(ctx) -> list[tuple[PathResult, Cut, str]]:
    """Cuts in this file's module-level functions that a gradient call of another module of the
    project runs into (`loss = soft_dice(masks, model(images))` in main.py's tape, `.numpy()` in
    losses.py): (that module's result, the cut as it sees it, the module's path). That module
    reports the call; this one is where the cut is written. Only for functions at most two
    modules import, and only those modules that ask a tape for gradients are analysed."""
    facts = ctx.facts
    found = facts.__dict__.get("_importer_cuts")
    if found is not None:
        return found
    found = []
    facts.__dict__["_importer_cuts"] = found
    project, path = ctx.project, ctx.path
    if project is None or path is None:
        return found
    here = os.path.abspath(path)
    from .values import values_of

    values = None
    analysed: set[str] = set()
    for node in facts.tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = "\n".join(facts.source.lines[node.lineno - 1:node.end_lineno or node.lineno])
        if not any(word in body for word in IMPORTED_CUT_WORDS):
            continue
        try:
            importers = project.importers(path, node.name)
        except (OSError, AttributeError, TypeError, ValueError):
            continue
        if not importers or len(importers) > 2:
            continue
        for other in importers:
            if other in analysed:
                continue
            analysed.add(other)
            if not _asks_a_tape(other):
                continue
            if values is None:
                values = values_of(facts, ctx.targets, project, path)
            model = values._remote_model(other)
            if model is None:
                continue
            for result in analyse(model.facts, project, other, ctx.targets):
                if not result.cut_everywhere:
                    continue
                found.extend((result, cut, other) for cut in result.cuts
                             if cut.origin is not None and cut.origin[0] == here)
    return found


def _asks_a_tape(path: str) -> bool:
    """Does the file mention `GradientTape` (read as bytes, before any parse)? The answer depends
    on the file, so the read is noted like every read of another module (project.note_read)."""
    from ..project import note_read

    try:
        with open(path, "rb") as handle:
            data = handle.read()
            note_read(path, os.fstat(handle.fileno()))
    except OSError:
        return False
    return b"GradientTape" in data


def node_at(facts: Facts, line: int, column: int) -> ast.AST | None:
    """The call of this file that starts at (line, column)."""
    return next((site.node for site in facts.calls
                 if site.node.lineno == line and site.node.col_offset == column), None)


def lost_term(result: PathResult, cut: Cut) -> bool:
    return not result.cut_everywhere and cut in result.lost


def gradient_phrase(ctx, result: PathResult, cut: Cut | None = None) -> str:
    """"`tape.gradient(loss, model.trainable_variables)` on line 9 returns None for ...", or,
    for a cut that makes one term of the target constant, what that term then adds."""
    use = result.use
    if cut is not None and lost_term(result, cut):
        return (f"the term it is part of adds nothing to {use.describe()} on {ctx.where(use.call)}: the gradient "
                "comes from the rest of the target only, as if that term were a constant")
    return f"{use.describe()} on {ctx.where(use.call)} returns {result.none_for()}"
