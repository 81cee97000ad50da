"""What Keras runs on the differentiable path, and what it traces.

Keras calls user code in two ways a GradientTape rule cannot see from the tape alone:

- a model built in this file from layers (a functional `keras.Model(inputs, outputs)` whose
  outputs come from calling layers on `keras.Input` tensors, or a `Sequential` model: a list
  of layers, or `model.add(layer)` calls) runs its layers in order, so a gradient reaches a
  layer only through the layers after it. A `Lambda(fn)` layer runs `fn`, a custom layer its
  `call`, a model used as a layer its own graph; the gradient crosses them when their code
  is differentiable from the input (`paths.Evaluator` answers, with the input as the source);
- `model.compile(loss=fn, metrics=[...])` hands functions to `model.fit`, which traces them into
  its train function (`fn(y_true, y_pred)`, `y_pred` the model's output) and differentiates
  the loss with respect to the model's trainable variables.

From these, `keras_findings` lists the cuts (ops without a gradient, `tf.numpy_function`) that
keep every gradient from some trainable layers (or from a tape's source fed to a model, or from
a whole loss), when the code trains them: `model.fit` / `train_on_batch` of the model, or a tape
asked for the gradient of a target computed by calling the model. `keras_trace_of` says whether
a function body runs while `model.fit` traces the loss or a metric given to `compile`.

Only what the file states counts: a layer the file cannot explain, a name that cannot be
followed, a layer frozen through a name the file cannot resolve, a regularizer or `add_loss`
(another source of gradient) keep the analysis silent. Everything is computed on demand and
cached on the Facts object.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ..facts.dataflow import flow_of, inside, position
from ..facts.model import CallSite, Facts, Scope, Tape
from ..facts.names import dotted
from ..facts.walk import statements_breadth_first
from . import library
from .paths import (DEAD, LIVE, MAYBE, NONDIFF, NUMPY, NUMPY_FUNCTION, Cut, Evaluator, GradientUse, PathResult,
                    Root, function_resolver, gradient_uses)
from .values import (FUNCTION, INSTANCE, LAYER, LIBRARY, MODEL, TENSOR, TFP_VARIABLE, UNKNOWN, VARIABLE, Value, ValueModel,
                     class_method, values_of)

_FUNCTIONAL = frozenset({"keras.Model", "keras.models.Model"})
_SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})
_INPUTS = frozenset({"keras.Input", "keras.layers.Input"})
_INPUT_LAYERS = frozenset({"keras.layers.InputLayer"})
_LAMBDA = "keras.layers.Lambda"
# Methods that train a model through its compiled loss.
TRAIN_METHODS = ("fit", "fit_generator", "train_on_batch")
# Methods that run the compiled loss and metrics in Keras's traced functions.
_TRACING_METHODS = frozenset({"fit", "fit_generator", "train_on_batch", "evaluate", "evaluate_generator",
                              "test_on_batch"})
# Keywords of a layer call that carry no gradient to the layer's inputs.
_CALL_OPTIONS = frozenset({"training", "mask"})
_MAX_NODES = 400
_MAX_DEPTH = 3
_INTEGER_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"})
# Root name that no code can name: the evaluator's source is a parameter bound to LIVE.
_NOBODY = "\0keras-input"


# --- the graph ----------------------------------------------------------------------------

@dataclass(eq=False)
class Node:
    """A tensor of a model's graph and what computes it from its inputs."""

    expr: ast.AST            # the layer call `Dense(3)(x)`, an op `x * 2`, a Sequential element, an Input
    kind: str                # "input", "layer", "op", "join", "unknown"
    scope: Scope
    inputs: list["Node"] = field(default_factory=list)
    layer: Value | None = None   # the layer or model applied ("layer" nodes)
    key: int | None = None       # which layer object: id of its construction
    label: str = ""              # how messages name the layer: "`Dense`", "`encoder_dense`"
    trainable: bool | None = False
    # What crossing this node does to the gradient from its inputs: LIVE (passes), MAYBE (cannot
    # tell), DEAD (stops it: with `cuts`, an op without a gradient; without, a constant).
    through: int = LIVE
    cuts: list["KerasCut"] = field(default_factory=list)
    submodel: "KerasModel | None" = None


@dataclass(eq=False)
class KerasCut:
    """An op without a gradient met while crossing a layer, and the layer call that runs it."""

    cut: Cut
    node: Node               # the layer (or op) node of the graph
    where: str               # "" or " (in `FloorSampling`, which the Lambda layer on line 23 runs)"


@dataclass(eq=False)
class KerasModel:
    construction: ast.Call
    scope: Scope
    kind: str                # "functional" or "sequential"
    name: str                # how messages name it: "`model`"
    nodes: list[Node] = field(default_factory=list)
    inputs: list[Node] = field(default_factory=list)
    outputs: list[Node] = field(default_factory=list)
    known: bool = True       # False: part of the graph could not be followed
    regularized: bool = False  # a layer has a regularizer, or the model gets add_loss
    _consumers: dict[int, list[Node]] | None = None
    _reach: dict[int, tuple[int, list[KerasCut]]] | None = None

    def consumers(self, node: Node) -> list[Node]:
        if self._consumers is None:
            self._consumers = {}
            for n in self.nodes:
                for i in n.inputs:
                    self._consumers.setdefault(id(i), []).append(n)
        return self._consumers.get(id(node), [])

    def reach(self, node: Node) -> tuple[int, list[KerasCut]]:
        """Does a gradient from the outputs reach `node`'s tensor? LIVE, MAYBE, or DEAD with the
        first cuts on each route from it (none: the tensor does not reach an output)."""
        if self._reach is None:
            self._reach = {}
        return _reach(self, node, self._reach, set())

    def through(self) -> tuple[int, list[KerasCut]]:
        """Does a gradient cross the model from its inputs to its outputs?"""
        return _join_reach([self.reach(n) for n in self.inputs]) if self.inputs else (MAYBE, [])

    def trainables(self) -> dict[int, list[Node]]:
        """Trainable (or maybe trainable) layers by layer object, with the nodes that apply them."""
        found: dict[int, list[Node]] = {}
        for node in self.nodes:
            if node.kind == "layer" and node.trainable is not False and node.key is not None:
                found.setdefault(node.key, []).append(node)
        return found

    def layer_status(self, key: int) -> tuple[int, list[KerasCut]]:
        """The gradient that reaches a layer object over all its applications in the graph."""
        nodes = self.trainables().get(key)
        if not nodes:
            return MAYBE, []
        return _join_reach([self.reach(n) for n in nodes])

    def starved(self) -> list[tuple[Node, list[KerasCut]]]:
        """Trainable layers that every route from them to the outputs cuts (known graphs only)."""
        if not self.known:
            return []
        found = []
        for key, nodes in self.trainables().items():
            status, cuts = self.layer_status(key)
            if status == DEAD and cuts and all(n.trainable for n in nodes):
                found.append((nodes[0], cuts))
        return found

    def any_trainable_live(self) -> int:
        """LIVE when some trainable layer gets a gradient, DEAD when none can, else MAYBE."""
        statuses = [self.layer_status(key)[0] for key in self.trainables()]
        if not statuses or not self.known:
            return MAYBE
        return max(statuses)


def _join_reach(found: list[tuple[int, list[KerasCut]]]) -> tuple[int, list[KerasCut]]:
    status = max((s for s, _ in found), default=DEAD)
    cuts: list[KerasCut] = []
    if status == DEAD:
        for _, more in found:
            for cut in more:
                if all(cut.cut.node is not c.cut.node for c in cuts):
                    cuts.append(cut)
    return status, cuts


def _reach(model: KerasModel, node: Node, memo: dict, active: set[int]) -> tuple[int, list[KerasCut]]:
    key = id(node)
    if key in memo:
        return memo[key]
    if any(node is out for out in model.outputs):
        memo[key] = (LIVE, [])
        return memo[key]
    if key in active:
        return DEAD, []
    active.add(key)
    found: list[tuple[int, list[KerasCut]]] = []
    for consumer in model.consumers(node):
        after = _reach(model, consumer, memo, active)
        if after == (DEAD, []):
            continue  # the consumer's tensor reaches no output
        if consumer.through == DEAD:
            found.append((DEAD, list(consumer.cuts)))
        elif consumer.through == MAYBE:
            found.append((min(MAYBE, after[0]), after[1]))
        else:
            found.append(after)
    active.discard(key)
    result = _join_reach(found) if found else (DEAD, [])
    memo[key] = result
    return result


# --- building graphs ------------------------------------------------------------------------

class _Graphs:
    """The models built in one file, by construction call."""

    def __init__(self, values: ValueModel, project: Any = None, path: str | None = None) -> None:
        self.values = values
        self.facts = values.facts
        self.resolver = function_resolver(self.facts, project, path)
        self.models: dict[int, KerasModel | None] = {}
        self.building: set[int] = set()
        self.frozen, self.frozen_unknown = _frozen(values)
        self._function_cuts: dict[tuple[int, int], tuple[int, list[Cut]]] = {}

    # -- which model a value is --

    def construction(self, value: Value, depth: int = 0) -> ast.Call | None:
        """The `keras.Model(...)` / `Sequential(...)` call that made a model value."""
        if depth > 3 or value.home is not None or not value.certain or value.kind != MODEL:
            return None
        origin = value.origin
        if not isinstance(origin, ast.Call):
            return None
        qualname = self.facts.imports.resolve(origin.func)
        if qualname in _FUNCTIONAL or qualname in _SEQUENTIAL:
            return origin
        called = self.values.value(origin.func, self.values.scope_at(origin))
        if called.kind == FUNCTION and called.certain and called.home is None \
                and isinstance(called.ref, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self.construction(self.values.returns(called.ref), depth + 1)
        return None

    def model_of(self, value: Value) -> KerasModel | None:
        call = self.construction(value)
        return self.model(call) if call is not None else None

    def key_of(self, value: Value) -> int | None:
        """Which layer or model object a value is (its construction), None when unknown."""
        if not value.certain or value.kind not in (LAYER, MODEL) or value.home is not None:
            return None
        call = self.construction(value) if value.kind == MODEL else None
        origin = call if call is not None else value.origin
        return id(origin) if isinstance(origin, ast.Call) else None

    def model(self, call: ast.Call) -> KerasModel | None:
        key = id(call)
        if key in self.models:
            return self.models[key]
        if key in self.building:
            return None
        self.building.add(key)
        try:
            built = self._build(call)
        finally:
            self.building.discard(key)
        self.models[key] = built
        return built

    def _build(self, call: ast.Call) -> KerasModel | None:
        facts = self.facts
        qualname = facts.imports.resolve(call.func)
        scope = self.values.scope_at(call)
        name = _bound_name(call, facts)
        label = f"`{name}`" if name else "the model"
        if qualname in _SEQUENTIAL:
            model = KerasModel(call, scope, "sequential", label)
            self._sequential(model, call, scope, name)
        else:
            model = KerasModel(call, scope, "functional", label)
            inputs = _argument(call, 0, "inputs")
            outputs = _argument(call, 1, "outputs")
            if inputs is None or outputs is None:
                return None
            builder = _Tracer(self, model)
            model.outputs = [n for n in builder.tensors(outputs, scope, _NO_ENV) if n is not None]
            model.inputs = [n for n in builder.tensors(inputs, scope, _NO_ENV) if n is not None]
            if not model.outputs or not model.inputs or builder.overflow:
                return None
            if not all(n.kind == "input" for n in model.inputs):
                model.known = False
        self._finish(model)
        return model

    def _sequential(self, model: KerasModel, call: ast.Call, scope: Scope, name: str | None) -> None:
        elements: list[ast.expr] = []
        layers = _argument(call, 0, "layers")
        if layers is not None:
            if not isinstance(layers, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred) for e in layers.elts):
                model.known = False
                return
            elements.extend(layers.elts)
        adds = _added_layers(self.facts, call, scope, name)
        if adds is None:
            model.known = False
            return
        elements.extend(adds)
        previous = Node(call, "input", scope)
        model.nodes.append(previous)
        model.inputs = [previous]
        for element in elements:
            if isinstance(element, ast.Call) and self.facts.imports.resolve(element.func) in _INPUTS | _INPUT_LAYERS:
                continue
            node = self.layer_node(model, element, element, scope, [previous])
            model.nodes.append(node)
            previous = node
        model.outputs = [previous]

    def _finish(self, model: KerasModel) -> None:
        for node in model.nodes:
            if node.kind == "unknown":
                # Something we could not follow that a gradient from the outputs reaches: it may
                # feed any layer by another route (a captured tensor, a layer's own attribute).
                if model.reach(node)[0] != DEAD:
                    model.known = False
            if node.kind == "layer" and node.layer is not None and isinstance(node.layer.origin, ast.Call):
                if any(k.arg is not None and k.arg.endswith("_regularizer") for k in node.layer.origin.keywords):
                    model.regularized = True
            if node.submodel is not None and node.submodel.regularized:
                model.regularized = True
        name = _bound_name(model.construction, self.facts)
        if name is not None and any(site.method == "add_loss" and site.receiver == name for site in self.facts.calls):
            model.regularized = True

    # -- layers --

    def layer_node(self, model: KerasModel, expr: ast.AST, layer_expr: ast.expr, scope: Scope,
                   inputs: list[Node]) -> Node:
        """A node applying the layer (or model) `layer_expr` to `inputs`."""
        values = self.values
        layer = values.value(layer_expr, scope)
        node = Node(expr, "layer", scope, inputs, layer=layer)
        if not layer.certain or layer.kind not in (LAYER, MODEL) or layer.home is not None:
            node.kind, node.through, node.trainable = "unknown", MAYBE, None
            return node
        node.key = self.key_of(layer)
        text = dotted(layer_expr)
        construction = layer.origin if isinstance(layer.origin, ast.Call) else None
        if layer.kind == MODEL:
            sub = self.model_of(layer)
            node.submodel = sub
            node.label = f"`{text}`" if text else "a model"
            node.trainable = node.key not in self.frozen
            if sub is None:
                node.through = MAYBE
            else:
                status, cuts = sub.through()
                node.through = status if status != DEAD or cuts else MAYBE
                node.cuts = [KerasCut(c.cut, node, c.where) for c in cuts]
            return node
        cls = layer.user_class
        qualname = self.facts.imports.resolve(construction.func) if construction is not None else None
        if qualname is None and isinstance(layer.ref, str) and "{" not in layer.ref:
            qualname = layer.ref
        short = qualname.rsplit(".", 1)[-1] if qualname else (cls.name if cls is not None else "layer")
        node.label = f"`{text}`" if text else f"`{short}`"
        frozen = node.key in self.frozen or (construction is not None and _false_keyword(construction, "trainable"))
        if cls is not None:
            node.trainable = False if frozen else (True if _holds_weights(self.facts, cls) else None)
            method = class_method(self.facts, cls, "call")
            if method is None:
                node.through = MAYBE
                return node
            status, cuts = self.function_cut(method, 1, None)
            self._set_through(node, status, cuts, f"`{cls.name}.call`", construction or expr)
            return node
        api = library.api(qualname) if qualname else None
        if api is None:
            node.kind, node.through, node.trainable = "unknown", MAYBE, None
            return node
        if api.has("creates"):
            node.trainable = not frozen
        elif api.has("wraps"):
            inner = [library.api(self.facts.imports.resolve(a.func)) for a in (construction.args[:1] if construction else [])
                     if isinstance(a, ast.Call)]
            node.trainable = False if frozen else (True if any(i is not None and i.has("creates") for i in inner) else None)
        if qualname == _LAMBDA and construction is not None:
            status, cuts, where = self.lambda_cut(construction, scope)
            self._set_through(node, status, cuts, where, construction)
        return node

    def _set_through(self, node: Node, status: int, cuts: list[Cut], where: str, layer_call: ast.AST) -> None:
        if status == DEAD and cuts:
            node.through = DEAD
            line = self.facts.line_label(layer_call.lineno)
            node.cuts = [KerasCut(c, node, "" if _contains(layer_call, c.node) else f" (in {where}, which the layer "
                                                                                       f"on {line} runs)")
                         for c in cuts]
        elif status == DEAD:
            node.through = DEAD  # a constant: no cut to report
        else:
            node.through = status

    def lambda_cut(self, construction: ast.Call, scope: Scope) -> tuple[int, list[Cut], str]:
        fn = _argument(construction, 0, "function")
        if fn is None:
            return MAYBE, [], ""
        if isinstance(fn, ast.Lambda):
            status, cuts = self.function_cut(fn, 0, None)
            return status, cuts, "the lambda"
        value = self.values.value(fn, scope)
        if value.kind == FUNCTION and value.certain and value.home is None \
                and isinstance(value.ref, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            status, cuts = self.function_cut(value.ref, 0, None)
            name = f"`{value.ref.name}`" if isinstance(value.ref, (ast.FunctionDef, ast.AsyncFunctionDef)) else "the lambda"
            return status, cuts, name
        if value.kind == LIBRARY and value.certain and isinstance(value.ref, str):
            api = library.api(value.ref)
            if api is None:
                return MAYBE, [], ""
            short = ast.unparse(fn)
            if api.grad in ("no", "stop"):
                return DEAD, [Cut(NONDIFF, fn, f"`{short}`", fn)], ""
            if api.kind == "tensor" and api.grad == "yes" and api.dtype and api.dtype[0].startswith("kw=dtype"):
                dtype = _lambda_argument(construction, "dtype")
                if dtype is not None and _integer_dtype(dtype, self.facts):
                    return DEAD, [Cut(NONDIFF, fn, f"`{short}` to `{ast.unparse(dtype)}`", fn)], ""
            if api.grad == "const":
                return DEAD, [], ""
            if api.grad == "yes" or value.ref.startswith(("tensorflow.", "keras.")):
                return LIVE, [], ""
        return MAYBE, [], ""

    def function_cut(self, function: ast.AST, live: int, names: dict[str, int] | None) -> tuple[int, list[Cut]]:
        """Is what `function` returns differentiable from its parameter number `live` (self
        excluded for methods... counted: `call(self, x)` is 1)? DEAD with the cuts when every
        route is cut."""
        key = (id(function), live)
        if key in self._function_cuts:
            return self._function_cuts[key]
        self._function_cuts[key] = (MAYBE, [])  # while computing
        result = evaluate_function(self.values, function, self._params(function, live, names), self.resolver)
        self._function_cuts[key] = result
        return result

    @staticmethod
    def _params(function: ast.AST, live: int, names: dict[str, int] | None) -> dict[str, int]:
        args = function.args  # type: ignore[attr-defined]
        positional = [a.arg for a in (*args.posonlyargs, *args.args)]
        params = {name: DEAD for name in (*positional, *(a.arg for a in args.kwonlyargs))}
        if args.vararg is not None:
            params[args.vararg.arg] = LIVE if live >= len(positional) else DEAD
        if args.kwarg is not None:
            params[args.kwarg.arg] = DEAD
        if live < len(positional):
            params[positional[live]] = LIVE
        if names:
            params.update(names)
        return params


def evaluate_function(values: ValueModel, function: ast.AST, params: dict[str, int],
                      resolver: Any = None) -> tuple[int, list[Cut]]:
    """What a def or lambda returns, given the gradient status of its parameters: LIVE, MAYBE,
    or DEAD with the cuts on every route (`paths.Evaluator`, every statement recorded)."""
    facts = values.facts
    scope = facts.function_scopes.get(function)
    if scope is None:
        return MAYBE, []
    tape = Tape(node=function, call=None, name=_NOBODY, scope=scope, parent=None)  # type: ignore[arg-type]
    evaluator = Evaluator(facts, flow_of(facts, scope), tape, Root(_NOBODY, False, function), "recorded",
                          all_recorded=True, params=params, resolve_function=resolver, values=values)
    if isinstance(function, ast.Lambda):
        evaluator.env.append(dict(params))
        status = evaluator.target(function.body, function.body, True)
        return status, list(evaluator.cuts.values()) if status == DEAD else []
    status = DEAD
    cuts: dict[int, Cut] = {}
    returns = _returns(function)
    if not returns or _is_generator(function):
        return MAYBE, []
    for ret in returns:
        if ret.value is None:
            continue
        status = max(status, evaluator.target(ret.value, ret, True))
        for key, found in evaluator.cuts.items():
            cuts.setdefault(key, found)
    return status, list(cuts.values()) if status == DEAD else []


class _Tracer:
    """Follows a functional model's outputs back to its inputs through layer calls."""

    def __init__(self, graphs: _Graphs, model: KerasModel) -> None:
        self.graphs = graphs
        self.model = model
        self.memo: dict[tuple, Node | None] = {}
        self.active: set[tuple] = set()
        self.overflow = False

    def tensors(self, expr: ast.expr, scope: Scope, env: _Env, depth: int = 0) -> list[Node | None]:
        if isinstance(expr, (ast.List, ast.Tuple)):
            found: list[Node | None] = []
            for element in expr.elts:
                found.extend(self.tensors(element.value if isinstance(element, ast.Starred) else element,
                                          scope, env, depth))
            return found
        if isinstance(expr, ast.Dict):
            found = []
            for element in expr.values:
                found.extend(self.tensors(element, scope, env, depth))
            return found
        return [self.tensor(expr, scope, env, depth)]

    def _new(self, expr: ast.AST, kind: str, scope: Scope, inputs: list[Node], **fields) -> Node:
        node = Node(expr, kind, scope, inputs, **fields)
        self.model.nodes.append(node)
        if len(self.model.nodes) > _MAX_NODES:
            self.overflow = True
        return node

    def tensor(self, expr: ast.expr, scope: Scope, env: _Env, depth: int = 0) -> Node | None:
        """The node for a tensor expression; None for what is no tensor (a constant, a shape)."""
        key = (id(expr), id(env))
        if key in self.memo:
            return self.memo[key]
        if key in self.active or self.overflow:
            return None
        self.active.add(key)
        try:
            node = self._tensor(expr, scope, env, depth)
        finally:
            self.active.discard(key)
        self.memo[key] = node
        return node

    def _inputs(self, exprs, scope, env, depth) -> list[Node]:
        found: list[Node] = []
        for expr in exprs:
            found.extend(n for n in self.tensors(expr, scope, env, depth) if n is not None)
        return found

    def _tensor(self, expr: ast.expr, scope: Scope, env: _Env, depth: int) -> Node | None:
        graphs = self.graphs
        facts = graphs.facts
        if isinstance(expr, ast.Constant):
            return None
        if isinstance(expr, ast.Name):
            if expr.id in env:
                nodes = env[expr.id]
                return nodes[0] if len(nodes) == 1 else self._new(expr, "join", scope, list(nodes))
            if expr.id in env.empty or _plain(graphs.values.value(expr, scope)):
                return None
            defs, owner = graphs.values.definitions(expr.id, scope, expr)
            if not defs or owner is None:
                return self._new(expr, "unknown", scope, [], through=MAYBE)
            found: list[Node] = []
            for d in defs:
                value = _element_for(d)
                if d.kind != "assign" or value is None:
                    return self._new(expr, "unknown", scope, [], through=MAYBE)
                node = self.tensor(value, owner, env if owner is scope else _NO_ENV, depth)
                if node is None:
                    continue
                found.append(node)
            if not found:
                return None
            return found[0] if len(found) == 1 else self._new(expr, "join", scope, found)
        if isinstance(expr, ast.Call):
            qualname = facts.imports.resolve(expr.func)
            if qualname in _INPUTS:
                node = self._new(expr, "input", scope, [])
                return node
            if qualname is not None and facts.imports.is_tracked_module(qualname):
                return self._op(expr, qualname, scope, env, depth)
            called = graphs.values.value(expr.func, scope)
            if called.certain and called.kind in (LAYER, MODEL):
                inputs = self._inputs([*expr.args, *(k.value for k in expr.keywords if k.arg not in _CALL_OPTIONS)],
                                      scope, env, depth)
                node = graphs.layer_node(self.model, expr, expr.func, scope, inputs)
                self.model.nodes.append(node)
                return node
            if called.kind == FUNCTION and called.certain and called.home is None and depth < _MAX_DEPTH \
                    and isinstance(called.ref, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and not called.ref.decorator_list:
                inner = self._helper(called.ref, expr, scope, env, depth)
                if inner is not None:
                    return inner
            inputs = self._inputs([*expr.args, *(k.value for k in expr.keywords)], scope, env, depth)
            return self._new(expr, "unknown", scope, inputs, through=MAYBE)
        if isinstance(expr, ast.BinOp):
            inputs = self._inputs([expr.left, expr.right], scope, env, depth)
            if not inputs:
                return None
            if isinstance(expr.op, ast.FloorDiv):
                node = self._new(expr, "op", scope, inputs, through=DEAD)
                node.cuts = [KerasCut(Cut(NONDIFF, expr, "floor division `//`", expr), node, "")]
                return node
            return self._new(expr, "op", scope, inputs)
        if isinstance(expr, ast.UnaryOp):
            inputs = self._inputs([expr.operand], scope, env, depth)
            return self._new(expr, "op", scope, inputs) if inputs else None
        if isinstance(expr, ast.Compare):
            inputs = self._inputs([expr.left, *expr.comparators], scope, env, depth)
            if not inputs:
                return None
            node = self._new(expr, "op", scope, inputs, through=DEAD)
            node.cuts = [KerasCut(Cut(NONDIFF, expr, f"the comparison `{ast.unparse(expr)}`", expr), node, "")]
            return node
        if isinstance(expr, ast.Subscript):
            inputs = self._inputs([expr.value], scope, env, depth)
            return self._new(expr, "op", scope, inputs) if inputs else None
        if isinstance(expr, ast.IfExp):
            inputs = self._inputs([expr.body, expr.orelse], scope, env, depth)
            return self._new(expr, "join", scope, inputs) if inputs else None
        if isinstance(expr, ast.Starred):
            return self.tensor(expr.value, scope, env, depth)
        if isinstance(expr, ast.Attribute) and expr.attr in ("shape", "dtype", "ndim", "name"):
            return None
        return self._new(expr, "unknown", scope, [], through=MAYBE)

    def _op(self, call: ast.Call, qualname: str, scope: Scope, env, depth: int) -> Node | None:
        api = library.api(qualname)
        inputs = self._inputs([*call.args, *(k.value for k in call.keywords)], scope, env, depth)
        if api is None:
            return self._new(call, "unknown", scope, inputs, through=MAYBE)
        if api.kind not in ("tensor", "unknown"):
            return None
        short = ast.unparse(call.func)
        node = self._new(call, "op", scope, inputs)
        if api.grad in ("no", "stop"):
            node.through = DEAD
            node.cuts = [KerasCut(Cut(NONDIFF, call, f"`{short}`", call.args[0] if call.args else None), node, "")]
        elif api.grad == "leave":
            kind = NUMPY_FUNCTION if api.py_callback else NUMPY
            node.through = DEAD
            node.cuts = [KerasCut(Cut(kind, call, f"`{short}`", None), node, "")]
        elif api.grad == "const":
            node.through = DEAD
        elif api.kind == "tensor" and api.grad == "yes" and api.dtype and api.dtype[0].startswith("kw=dtype"):
            dtype = _argument(call, 1, "dtype")
            if dtype is not None and _integer_dtype(dtype, self.graphs.facts):
                node.through = DEAD
                node.cuts = [KerasCut(Cut(NONDIFF, call, f"`{short}` to `{ast.unparse(dtype)}`",
                                          call.args[0] if call.args else None), node, "")]
        elif api.grad != "yes" and not qualname.startswith(("tensorflow.", "keras.")):
            node.through = MAYBE
        return node

    def _helper(self, function: ast.FunctionDef, call: ast.Call, scope: Scope, env, depth: int) -> Node | None:
        """A function that builds part of the graph (`def block(x): return Dense(8)(x)`): its
        returns, with its parameters standing for the call's tensors."""
        inner_scope = self.graphs.facts.function_scopes.get(function)
        if inner_scope is None or any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return None
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        bound: dict[str, list[Node]] = {}
        passed = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg in params]
        for name, arg in passed:
            bound[name] = [n for n in self.tensors(arg, scope, env, depth) if n is not None]
        for name in params:
            bound.setdefault(name, [])
        returns = [r for r in _returns(function) if r.value is not None]
        if len(returns) != 1:
            return None
        # Parameters bound to no tensor are plain values: the names resolve to nothing.
        inner_env = {name: nodes for name, nodes in bound.items() if nodes}
        empty = {name for name, nodes in bound.items() if not nodes}
        flow = flow_of(self.graphs.facts, inner_scope)
        if any(flow.definitions(name) and d.kind != "param" for name in inner_env for d in flow.definitions(name)):
            return None  # a parameter rebound inside (`x = Dense(8)(x)`): not followed
        node = self.tensor(returns[0].value, inner_scope, _Env(inner_env, empty), depth + 1)
        return node


class _Env(dict):
    """Parameters of a helper bound to the graph's nodes; the others hold no tensor."""

    def __init__(self, bound: dict[str, list[Node]], empty: set[str]) -> None:
        super().__init__(bound)
        self.empty = empty


_NO_ENV = _Env({}, set())
_PLAIN_KINDS = frozenset({"number", "str", "none", "ndarray", "np_scalar", "dtype", "shape", "list", "tuple", "dict"})


def _plain(value: Value) -> bool:
    """A value that is no tensor of the graph (a Python number, NumPy data, a shape)."""
    if not value.certain:
        return False
    if value.kind in ("list", "tuple", "dict"):
        return value.items is not None and all(_plain(v) for v in value.items)
    return value.kind in _PLAIN_KINDS or (value.kind == TENSOR and value.data and not value.symbolic)


# --- frozen layers ------------------------------------------------------------------------

def _frozen(values: ValueModel) -> tuple[set[int], bool]:
    """Layers and models made non-trainable (`layer.trainable = False`), by construction; and
    whether some such assignment names an object the file cannot resolve."""
    found: set[int] = set()
    unknown = False
    facts = values.facts
    if "trainable" not in facts.source.text:
        return found, unknown  # no `x.trainable = ...`: no walk of the tree

    for node in statements_breadth_first(facts.tree):  # assignments are statements: ast.walk's order
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if not (isinstance(target, ast.Attribute) and target.attr == "trainable"):
                continue
            if isinstance(node.value, ast.Constant) and node.value.value is True:
                continue
            scope = values.scope_at(node)
            owner = values.value(target.value, scope)
            origin = owner.origin if owner.certain and owner.kind in (LAYER, MODEL) else None
            if isinstance(origin, ast.Call):
                found.add(id(origin))
                graphs_key = None
                if owner.kind == MODEL:
                    qual = facts.imports.resolve(origin.func)
                    if qual not in _FUNCTIONAL and qual not in _SEQUENTIAL:
                        graphs_key = _construction_through_factory(values, owner)
                if graphs_key is not None:
                    found.add(id(graphs_key))
            else:
                unknown = True
    return found, unknown


def _construction_through_factory(values: ValueModel, value: Value) -> ast.Call | None:
    origin = value.origin
    if not isinstance(origin, ast.Call):
        return None
    called = values.value(origin.func, values.scope_at(origin))
    if called.kind == FUNCTION and called.certain and isinstance(called.ref, (ast.FunctionDef, ast.AsyncFunctionDef)):
        inner = values.returns(called.ref)
        if isinstance(inner.origin, ast.Call):
            return inner.origin
    return None


# --- what the code trains -------------------------------------------------------------------

@dataclass(eq=False)
class KerasFinding:
    """A cut on the way from trainable code to what Keras or a tape differentiates."""

    kind: str                  # the Cut's kind: NONDIFF, NUMPY_FUNCTION, NUMPY
    cut: Cut
    where: str                 # " (in `f`, which the layer on line 23 runs)" or ""
    how: str                   # "tape", "tape-partial", "fit", "loss"
    model: KerasModel | None
    layer: Node | None = None
    starved: list[Node] = field(default_factory=list)
    result: PathResult | None = None  # the tape's gradient call (how == "tape" / "tape-partial")
    train: ast.Call | None = None     # `model.fit(...)` (how == "fit" / "loss")
    loss: ast.AST | None = None       # the loss function (how == "loss")
    every: bool = False               # no trainable layer of the model gets a gradient


def _graphs(values: ValueModel, project: Any, path: str | None) -> _Graphs:
    facts = values.facts
    cached = facts.__dict__.get("_keras_graphs")
    if cached is None or cached.values is not values:
        cached = _Graphs(values, project, path)
        facts.__dict__["_keras_graphs"] = cached
    return cached


def functional_model_of(ctx, value: Value) -> KerasModel | None:
    """The functional model built in this file that `value` is, when its whole graph is known
    and nothing but its outputs feeds a loss (no regularizer, no add_loss)."""
    values = values_of(ctx.facts, ctx.targets, ctx.project, ctx.path)
    graphs = _graphs(values, ctx.project, ctx.path)
    model = graphs.model_of(value)
    if model is None or model.kind != "functional" or not model.known or model.regularized \
            or graphs.frozen_unknown:
        return None
    return model


def layers_feeding_only(model: KerasModel, unused: set[int]) -> list[Node]:
    """Trainable layers whose every application feeds only the outputs at the positions in
    `unused`: the gradient of a target computed from the other outputs never reaches them."""
    used_roots = [node for i, node in enumerate(model.outputs) if i not in unused]
    ancestors: set[int] = set()
    stack = list(used_roots)
    while stack:
        node = stack.pop()
        if id(node) in ancestors:
            continue
        ancestors.add(id(node))
        if node.kind == "unknown":
            return []
        stack.extend(node.inputs)
    found = []
    for nodes in model.trainables().values():
        if all(n.trainable and id(n) not in ancestors for n in nodes):
            found.append(nodes[0])
    return found


def _has_models(facts: Facts) -> bool:
    return bool(facts.calls_to(*_FUNCTIONAL, *_SEQUENTIAL))


def keras_findings(ctx) -> list[KerasFinding]:
    """Every cut that keeps Keras or a tape from differentiating trainable code (see the module
    docstring); one per cut node and kind of evidence."""
    facts = ctx.facts
    cached = facts.__dict__.get("_keras_findings")
    if cached is not None:
        return cached
    found: list[KerasFinding] = []
    if _has_models(facts) or any(site.method == "compile" for site in facts.calls):
        values = values_of(facts, ctx.targets, ctx.project, ctx.path)
        graphs = _graphs(values, ctx.project, ctx.path)
        if not graphs.frozen_unknown:
            found.extend(_tape_findings(graphs))
            found.extend(_fit_findings(graphs))
        found.extend(_loss_findings(graphs))
    seen: set[tuple[int, str]] = set()
    unique: list[KerasFinding] = []
    for finding in found:
        key = (id(finding.cut.node), finding.kind)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    unique.sort(key=lambda f: position(f.cut.node))
    facts.__dict__["_keras_findings"] = unique
    return unique


def _model_calls(graphs: _Graphs, nodes: list[ast.stmt], scope: Scope) -> list[tuple[ast.Call, KerasModel]]:
    found = []
    for stmt in nodes:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                value = graphs.values.value(node.func, scope)
                if value.kind == MODEL:
                    model = graphs.model_of(value)
                    if model is not None:
                        found.append((node, model))
    return found


def _cutting(model: KerasModel) -> bool:
    return any(n.through == DEAD and n.cuts for n in model.nodes)


class _KerasEvaluator(Evaluator):
    """The gradient-path evaluator, knowing what a call of a model of this file passes on."""

    graphs: _Graphs
    keras_cuts: dict[int, tuple[KerasCut, KerasModel]]
    partial: list[tuple[ast.Call, KerasModel, list[tuple[Node, list[KerasCut]]]]]

    def call_user(self, node: ast.Call, args, at):
        if self.home is not None or self.depth > 0:
            return super().call_user(node, args, at)
        scope = self.flow.scope
        called = self.graphs.values.value(node.func, scope)
        model = self.graphs.model_of(called) if called.kind == MODEL else None
        if model is None or not model.known:
            return super().call_user(node, args, at)
        passed = self.join(args, at)
        through, cuts = model.through()
        if through == DEAD:
            if cuts:
                for cut in cuts:
                    self._keras_cut(cut, model, passed)
            passed = DEAD
        elif through == MAYBE:
            passed = min(passed, MAYBE)
        return max(passed, self._own(node, model, scope))

    def _keras_cut(self, cut: KerasCut, model: KerasModel, status: int) -> None:
        if status == LIVE:
            self.keras_cuts.setdefault(id(cut.cut.node), (cut, model))
        self.cut(cut.cut.kind, cut.cut.node, cut.cut.what, cut.cut.value, status)

    def _own(self, call: ast.Call, model: KerasModel, scope: Scope) -> int:
        """What the model's own variables give for the root."""
        root = self.root
        holder = self.graphs.values.value(_root_holder(root), scope) if _root_holder(root) is not None else None
        if root.owner and holder is not None and holder.kind in (LAYER, MODEL):
            key = self.graphs.key_of(holder)
            if key is not None and key == id(model.construction):
                live = model.any_trainable_live()
                starved = model.starved()
                if live == LIVE and starved:
                    self.partial.append((call, model, starved))
                if live == DEAD:
                    for _node, cuts in starved:
                        for cut in cuts:
                            self._keras_cut(cut, model, LIVE)
                return live if live != DEAD or starved else MAYBE
            if key is not None and key in model.trainables():
                status, cuts = model.layer_status(key)
                if status == DEAD:
                    if not cuts:
                        return super().callee(call.func, call)
                    for cut in cuts:
                        self._keras_cut(cut, model, LIVE)
                return status
        if not root.owner and holder is not None and holder.is_(TENSOR):
            return DEAD  # a tensor fed to the model: the model's variables are not it
        return self.callee(call.func, call)


def _root_holder(root: Root) -> ast.expr | None:
    node = root.node
    if root.owner and isinstance(node, ast.Attribute):
        return node.value
    if not root.owner and isinstance(node, (ast.Name, ast.Attribute)):
        return node
    return None


def _tape_findings(graphs: _Graphs) -> list[KerasFinding]:
    facts = graphs.facts
    found: list[KerasFinding] = []
    for use in gradient_uses(facts):
        if not use.roots:
            continue
        body = use.tape.body
        called = _model_calls(graphs, body, use.tape.scope)
        if not any(_cutting(model) for _call, model in called):
            continue
        for root in use.roots:
            evaluator = _KerasEvaluator(facts, use.flow, use.tape, root, "recorded", resolve_function=graphs.resolver,
                                        values=graphs.values)
            evaluator.graphs = graphs
            evaluator.keras_cuts = {}
            evaluator.partial = []
            status = evaluator.target(use.target, use.call, use.recorded)
            cuts = list(evaluator.cuts.values())
            result = PathResult(use, root, status, cuts, [])
            if status == DEAD and evaluator.keras_cuts:
                for cut, model in evaluator.keras_cuts.values():
                    if any(cut.cut.node is c.node for c in cuts):
                        found.append(KerasFinding(cut.cut.kind, cut.cut, cut.where, "tape", model, cut.node,
                                                  result=result))
            elif status == LIVE:
                for call, model, starved in evaluator.partial:
                    starved = _not_used_elsewhere(graphs, body, use.tape.scope, call, model, starved)
                    for cut, nodes in _by_cut(starved).items():
                        found.append(KerasFinding(cut.cut.kind, cut.cut, cut.where, "tape-partial", model, cut.node,
                                                  starved=nodes, result=result))
    return found


def _not_used_elsewhere(graphs: _Graphs, body: list[ast.stmt], scope: Scope, call: ast.Call, model: KerasModel,
                        starved: list[tuple[Node, list[KerasCut]]]) -> list[tuple[Node, list[KerasCut]]]:
    """Starved layers that the tape's block does not also call some other way."""
    used: set[int] = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and node is not call:
                value = graphs.values.value(node.func, scope)
                key = graphs.key_of(value)
                if key is not None:
                    used.add(key)
                    other = graphs.model_of(value) if value.kind == MODEL else None
                    if other is not None and other is not model:
                        used.update(other.trainables())
                elif value.kind not in (LIBRARY,) and not isinstance(node.func, ast.Name):
                    pass
    return [(n, cuts) for n, cuts in starved if n.key not in used]


def _by_cut(starved: list[tuple[Node, list[KerasCut]]]) -> dict[KerasCut, list[Node]]:
    found: dict[int, tuple[KerasCut, list[Node]]] = {}
    for node, cuts in starved:
        for cut in cuts:
            entry = found.setdefault(id(cut.cut.node), (cut, []))
            entry[1].append(node)
    return {cut: nodes for cut, nodes in found.values()}


def _trained(graphs: _Graphs, methods=TRAIN_METHODS) -> list[tuple[CallSite, Value]]:
    found = []
    for site in graphs.facts.calls:
        if site.method in methods and isinstance(site.node.func, ast.Attribute):
            value = graphs.values.value(site.node.func.value, site.scope)
            if value.is_(MODEL):
                found.append((site, value))
    return found


def _fit_findings(graphs: _Graphs) -> list[KerasFinding]:
    found: list[KerasFinding] = []
    for site, value in _trained(graphs):
        model = graphs.model_of(value)
        if model is None or not model.known or model.regularized:
            continue
        starved = model.starved()
        if not starved:
            continue
        every = model.any_trainable_live() == DEAD
        for cut, nodes in _by_cut(starved).items():
            found.append(KerasFinding(cut.cut.kind, cut.cut, cut.where, "fit", model, cut.node, starved=nodes,
                                      train=site.node, every=every))
    return found


def _loss_findings(graphs: _Graphs) -> list[KerasFinding]:
    """`model.compile(loss=fn)` with a loss whose value no route from `y_pred` reaches without
    a cut, and `model.fit` of that model: fit raises "No gradients provided for any variable"."""
    found: list[KerasFinding] = []
    for model, function, fit in _compiled_losses(graphs):
        status, cuts = graphs.function_cut(function, 1, None)
        if status != DEAD or not cuts:
            continue
        for cut in cuts:
            found.append(KerasFinding(cut.kind, cut, "", "loss", model, train=fit, loss=function))
    return found


def _compiled_losses(graphs: _Graphs):
    """(the model, the def given as its loss, its first fit call) for each `model.compile(loss=fn)`
    of a model of the file that is fit, with no regularizer or added loss and Keras's own train_step."""
    trained = _trained(graphs)
    if not trained:
        return
    for site in graphs.facts.calls:
        if site.method != "compile" or not isinstance(site.node.func, ast.Attribute):
            continue
        receiver = graphs.values.value(site.node.func.value, site.scope)
        if not receiver.is_(MODEL):
            continue
        model = graphs.model_of(receiver)
        if model is None or model.regularized or _custom_steps(receiver):
            continue
        fits = [s.node for s, v in trained if graphs.model_of(v) is model]
        loss = _argument(site.node, 1, "loss")
        if not fits or loss is None:
            continue
        function = _function_given(graphs.values, loss, site.scope)
        if function is not None:
            yield model, function, fits[0]


def losses_ignoring_prediction(ctx) -> list[tuple[ast.FunctionDef, str, ast.Call]]:
    """`model.compile(loss=fn)` with a def of this file that never reads its `y_pred` parameter,
    and `model.fit` of that model (a model of the file, no regularizer or added loss, Keras's own
    train_step): nothing Keras differentiates depends on a variable, so fit raises "No gradients
    provided for any variable". (the def, the parameter's name, the fit call) each."""
    facts = ctx.facts
    if not any(site.method == "compile" for site in facts.calls):
        return []
    values = values_of(facts, ctx.targets, ctx.project, ctx.path)
    graphs = _graphs(values, ctx.project, ctx.path)
    found: list[tuple[ast.FunctionDef, str, ast.Call]] = []
    for _model, function, fit in _compiled_losses(graphs):
        if not isinstance(function, ast.FunctionDef) or function.args.vararg is not None \
                or function.args.kwarg is not None:
            continue
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        if len(params) != 2:
            continue
        predicted = params[1]
        if any(isinstance(n, ast.Name) and n.id in (predicted, "locals", "vars") for n in ast.walk(function)):
            continue
        if _reads_state(values, function, set()):
            continue  # `model(model.input)` in the loss: variables reached another way
        found.append((function, predicted, fit))
    return found


def _reads_state(values: ValueModel, function: ast.AST, seen: set[int]) -> bool:
    """Does `function` (or a def of this file it calls) read a name that may hold variables: a
    model, a layer, a variable, an object of a class of the file, or a value the model cannot name?"""
    if id(function) in seen:
        return False
    seen.add(id(function))
    scope = values.facts.function_scopes.get(function)
    if scope is None:
        return True
    local = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or node.id in local:
            continue  # (a local is computed from what the walk meets anyway)
        held = values.value(node, scope)
        if held.kind == FUNCTION and isinstance(held.ref, (ast.FunctionDef, ast.Lambda)):
            if _reads_state(values, held.ref, seen):
                return True
            continue
        if held.kind in (MODEL, LAYER, VARIABLE, TFP_VARIABLE, INSTANCE) or (
                held.kind == UNKNOWN and node.id not in values.facts.imports.names
                and not _made_outside_tensorflow(values.facts, node.id)):
            return True
    return False


def _made_outside_tensorflow(facts, name: str) -> bool:
    """A module-level name bound only by calls of other libraries (`os.path.join(...)`) or to
    constants: it holds no TensorFlow state."""
    from ..facts.dataflow import flow_of

    defs = flow_of(facts, facts.module).definitions(name)
    if not defs:
        return False
    for d in defs:
        if d.kind != "assign" or d.value is None:
            return False
        for node in ast.walk(d.value):
            if isinstance(node, ast.Call):
                qualname = facts.imports.resolve(node.func)
                if qualname is None or qualname.split(".")[0] in ("tensorflow", "keras", "tf_keras",
                                                                  "tensorflow_probability"):
                    return False
            elif isinstance(node, (ast.Lambda, ast.NamedExpr)):
                return False
    return True


def _custom_steps(value: Value) -> bool:
    cls = value.user_class
    return cls is not None


def _function_given(values: ValueModel, expr: ast.expr, scope: Scope) -> ast.AST | None:
    """The def or lambda of this file an argument names (`fn`, `lambda yt, yp: ...`, or a call of a
    factory that returns one: `custom_loss(3)`)."""
    if isinstance(expr, ast.Lambda):
        return expr
    value = values.value(expr, scope)
    if value.kind == FUNCTION and value.certain and value.home is None \
            and isinstance(value.ref, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return value.ref
    return None


# --- what Keras traces ------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class KerasTrace:
    """A body that `model.fit` (or evaluate) traces into a graph: the loss or a metric given to
    `compile`, or a helper it calls. Shaped like `traced.Trace` for the rules that read both."""

    node: ast.AST            # the function given to compile
    origin: ast.Call         # the compile call
    runner: ast.Call         # `model.fit(...)` / evaluate / train_on_batch
    role: str                # "loss" or "metric"
    line: str = ""           # how messages name the runner's line ("line 31")
    tf_function: None = None
    caller: None = None

    @property
    def keras(self) -> bool:
        return True

    @property
    def how(self) -> str:
        name = f"`{self.node.name}`" if isinstance(self.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else "the lambda"
        method = ast.unparse(self.runner.func)
        return f"the {self.role} {name} (traced by `{method}` on {self.line or f'line {self.runner.lineno}'})"

    def related(self, ctx):
        return ctx.related(self.origin, f"the {self.role} is given to Keras here")


def keras_traces(values: ValueModel) -> dict[int, KerasTrace]:
    """Defs and lambdas of this file that Keras traces as losses or metrics (and what they call),
    by id, when the model they are compiled into is fit or evaluated and nothing makes Keras
    run eagerly (`compile(run_eagerly=True)`, `model.run_eagerly = True`,
    `tf.config.run_functions_eagerly(True)`)."""
    facts = values.facts
    cached = facts.__dict__.get("_keras_traces")
    if cached is not None and cached[0] is values:
        return cached[1]
    found: dict[int, KerasTrace] = {}
    facts.__dict__["_keras_traces"] = (values, found)
    compiles = [site for site in facts.calls if site.method == "compile" and isinstance(site.node.func, ast.Attribute)]
    if not compiles or _eager_keras(facts):
        return found
    graphs = _graphs(values, None, None)
    runs = [(site, value) for site, value in _trained(graphs, _TRACING_METHODS)]
    if not runs:
        return found
    for site in compiles:
        if any(k.arg == "run_eagerly" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
               for k in site.node.keywords):
            continue
        receiver = values.value(site.node.func.value, site.scope)
        if not receiver.is_(MODEL) or _custom_steps(receiver):
            continue
        key = graphs.key_of(receiver)
        runner = next((s.node for s, v in runs if key is not None and graphs.key_of(v) == key), None)
        if runner is None:
            continue
        for role, expr in _compiled_functions(site.node):
            for element in _elements(expr):
                function = _function_given(values, element, site.scope)
                if function is None:
                    continue
                trace = KerasTrace(function, site.node, runner, role, facts.line_label(runner.lineno))
                for node in _called_closure(values, function):
                    found.setdefault(id(node), trace)
    return found


def keras_trace_of(values: ValueModel, scope: Scope) -> KerasTrace | None:
    function = scope.function
    while function is not None:
        trace = keras_traces(values).get(id(function.node))
        if trace is not None:
            return trace
        if function.eager_callback:
            return None
        parent = function.parent
        function = parent.function if parent is not None else None
    return None


def _eager_keras(facts: Facts) -> bool:
    from .guards import runs_functions_eagerly

    if runs_functions_eagerly(facts):
        return True
    if "run_eagerly" not in facts.source.text:
        return False  # no `x.run_eagerly = ...`: no walk of the tree

    for node in statements_breadth_first(facts.tree):  # assignments are statements
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "run_eagerly"
                                                for t in node.targets):
            if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                return True
    return False


def _compiled_functions(call: ast.Call) -> list[tuple[str, ast.expr]]:
    found = []
    loss = _argument(call, 1, "loss")
    if loss is not None:
        found.append(("loss", loss))
    metrics = _argument(call, 3, "metrics")
    if metrics is not None:
        found.append(("metric", metrics))
    for keyword in call.keywords:
        if keyword.arg == "weighted_metrics":
            found.append(("metric", keyword.value))
    return found


def _elements(expr: ast.expr) -> list[ast.expr]:
    if isinstance(expr, (ast.List, ast.Tuple)):
        return [e for element in expr.elts for e in _elements(element)]
    if isinstance(expr, ast.Dict):
        return [e for element in expr.values for e in _elements(element)]
    return [expr]


def _called_closure(values: ValueModel, function: ast.AST) -> list[ast.AST]:
    """The function, the defs nested in it, and the defs of this file it calls (transitively)."""
    facts = values.facts
    found: list[ast.AST] = []
    pending = [function]
    seen: set[int] = set()
    while pending and len(found) < 64:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        for inner in ast.walk(node):
            if inner is not node and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                    and inner in facts.function_scopes:
                scope = facts.function_scopes[inner]
                if not scope.eager_callback:
                    pending.append(inner)
            elif isinstance(inner, ast.Call):
                scope = values.scope_at(inner)
                called = values.value(inner.func, scope)
                if called.kind == FUNCTION and called.certain and called.home is None \
                        and isinstance(called.ref, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and facts.function_scopes.get(called.ref) is not None \
                        and facts.function_scopes[called.ref].tf_function is None:
                    pending.append(called.ref)
    return found


# --- small helpers --------------------------------------------------------------------------

def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if len(call.args) > index and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return call.args[index]
    return None


def _lambda_argument(construction: ast.Call, name: str) -> ast.expr | None:
    arguments = _argument(construction, 3, "arguments")
    if isinstance(arguments, ast.Dict):
        for key, value in zip(arguments.keys, arguments.values):
            if isinstance(key, ast.Constant) and key.value == name:
                return value
    return None


def _integer_dtype(expr: ast.expr, facts: Facts) -> bool:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value in _INTEGER_DTYPES
    qualname = facts.imports.resolve(expr)
    return qualname is not None and qualname.rsplit(".", 1)[-1] in _INTEGER_DTYPES


def _false_keyword(call: ast.Call, name: str) -> bool:
    return any(k.arg == name and not (isinstance(k.value, ast.Constant) and k.value.value is True)
               for k in call.keywords)


def _bound_name(call: ast.Call, facts: Facts) -> str | None:
    """`model` in `model = keras.Sequential(...)` (or `self.model = ...`), else None."""
    index: dict[int, ast.Assign] | None = facts.__dict__.get("_assigned_calls")
    if index is None:  # the assignments of a call, by the call, found once per file
        index = facts.__dict__["_assigned_calls"] = {}
        for node in statements_breadth_first(facts.tree):  # an assignment is a statement
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1:
                index.setdefault(id(node.value), node)
    node = index.get(id(call))
    return dotted(node.targets[0]) if node is not None else None


def _added_layers(facts: Facts, call: ast.Call, scope: Scope, name: str | None) -> list[ast.expr] | None:
    """The layers of `model.add(layer)` calls on the model `call` makes, in order; None when some
    are added where the order or count is not plain (in a loop, under an `if`, elsewhere)."""
    if name is None:
        return []
    flow = flow_of(facts, scope)
    sites = [s for s in facts.calls if s.receiver == name and s.method in ("add", "pop", "insert")]
    found: list[ast.expr] = []
    statement = next((d for d in flow.definitions(name) if d.value is call), None)
    if statement is None:
        return None if sites else []
    for site in sorted(sites, key=lambda s: position(s.node)):
        if site.scope is not scope:
            return None
        reaching = flow.reaching(name, site.node)
        if reaching != [statement]:
            if any(d is statement for d in reaching):
                return None
            continue
        if site.method != "add" or site.loops != statement.loops or site.guards or not site.node.args:
            return None
        found.append(site.node.args[0])
    return found


def _holds_weights(facts: Facts, cls: ast.ClassDef) -> bool:
    """Does a custom layer make weights (`self.add_weight`, a layer or variable in `self`)?"""
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("add_weight", "add_variable"):
            return True
        if isinstance(node, ast.Call):
            qualname = facts.imports.resolve(node.func)
            if qualname == "tensorflow.Variable":
                return True
            api = library.api(qualname) if qualname else None
            if api is not None and api.kind in (LAYER, MODEL) and api.has("creates"):
                return True
    return False


def _element_for(d) -> ast.expr | None:
    """For `a, b = x, y` the part of the value that `d`'s name gets; the whole value otherwise."""
    stmt = d.stmt
    value = d.value
    if isinstance(stmt, ast.Assign) and isinstance(value, (ast.Tuple, ast.List)):
        for target in stmt.targets:
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
                for element, part in zip(target.elts, value.elts):
                    if dotted(element) == d.name:
                        return part
    return value


def _returns(function: ast.AST) -> list[ast.Return]:
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(getattr(function, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _is_generator(function: ast.AST) -> bool:
    stack: list[ast.AST] = list(getattr(function, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _contains(container: ast.AST, node: ast.AST) -> bool:
    return hasattr(container, "lineno") and hasattr(node, "lineno") and inside(node, container)
