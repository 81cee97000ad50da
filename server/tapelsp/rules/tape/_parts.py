"""TAPE009's cuts that starve a part of a model's variables: the gradient is asked for all the
variables of a model (`self.trainable_variables`, `model.trainable_variables`), some route reaches
some of them, but every route from one of its layers goes through an op without a gradient.

Two kinds of parts are followed, both only when the file says everything about them:

- a layer a Keras model subclass keeps as an attribute (`self.cls = Dense(3)` in `__init__`), a
  fresh library construction that creates variables; the path evaluator runs again with that
  attribute as the source (what calls the other layers adds nothing of its variables);
- a layer of a functional model with several outputs, built in this file (analysis/keras_graph.py),
  when the tape unpacks the outputs (`reg, cls = model(x)`) or indexes them (`model(x)[0]`): an
  output that the layer does not feed carries none of its gradient.

A part that some route reaches, or that the evaluator cannot follow (MAYBE), stays silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ...analysis import library
from ...analysis.keras_graph import KerasModel, functional_model_of
from ...analysis.paths import DEAD, LIVE, NONDIFF, Cut, Evaluator, PathResult, Root, analyse, function_resolver
from ...analysis.values import LAYER, MODEL, ValueModel, fresh_construction, values_for
from ...facts.names import dotted

_KERAS_BASES = frozenset({"keras.Model", "keras.models.Model", "keras.layers.Layer", "keras.Layer"})


@dataclass
class PartCut:
    result: PathResult   # the gradient call, for the whole root
    cut: Cut
    part: str            # how messages name the part: "`self.cls`", "the layer `reg` of `model`"


def part_cuts(ctx) -> list[PartCut]:
    found: list[PartCut] = []
    results = [r for r in analyse(ctx.facts, ctx.project, ctx.path, ctx.targets)
               if r.root.owner and r.status == LIVE and any(c.kind == NONDIFF for c in r.cuts)]
    if not results:
        return found
    values = values_for(ctx)
    resolver = function_resolver(ctx.facts, ctx.project, ctx.path)
    for result in results:
        use = result.use
        for label, evaluator in [*_attribute_parts(ctx, values, resolver, result),
                                 *_output_parts(ctx, values, resolver, result)]:
            status = evaluator.target(use.target, use.call, use.recorded)
            if status != DEAD:
                continue
            for cut in evaluator.cuts.values():
                if cut.kind == NONDIFF:
                    found.append(PartCut(result, cut, label))
    return found


# --- layers kept by a model subclass ---------------------------------------------------------

def _attribute_parts(ctx, values: ValueModel, resolver, result: PathResult):
    root = result.root
    use = result.use
    if root.name != "self":
        return
    cls = use.flow.scope.enclosing_class
    if cls is None or not any(ctx.facts.imports.resolve(base) in _KERAS_BASES for base in cls.bases):
        return
    stores = _stores(cls)
    for attr, count in stores.items():
        if count != 1 or any(other.startswith(attr + ".") for other in stores):
            continue  # assigned twice, or something of it is set (`self.cls.trainable = False`)
        name = f"self.{attr}"
        value = values.name(name, use.flow.scope, use.call)
        if value.kind not in (LAYER, MODEL) or not fresh_construction(values, value) \
                or not _creates_variables(ctx, value.origin):
            continue
        evaluator = Evaluator(ctx.facts, use.flow, use.tape, Root(name, True, root.node), "recorded",
                              resolve_function=resolver, values=values)
        yield f"`{name}`", evaluator


def _stores(cls: ast.ClassDef) -> dict[str, int]:
    """`self.x...` targets stored anywhere in the class, dotted after `self.`, with how often."""
    found: dict[str, int] = {}
    for node in ast.walk(cls):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, (ast.Attribute, ast.Subscript)) and isinstance(getattr(part, "ctx", None), ast.Store):
                    base = part
                    while isinstance(base, ast.Subscript):
                        base = base.value
                    text = dotted(base)
                    if text is not None and text.startswith("self."):
                        key = text[len("self."):]
                        found[key] = found.get(key, 0) + 1
                        if isinstance(part, ast.Subscript) or isinstance(node, ast.AugAssign):
                            found[key] += 1  # stored into, not assigned once
    return found


def _creates_variables(ctx, construction: Any) -> bool:
    if not isinstance(construction, ast.Call):
        return False
    api = library.api(ctx.facts.imports.resolve(construction.func))
    return api is not None and api.has("creates")


# --- layers of a functional model with several outputs --------------------------------------

class _OutputsEvaluator(Evaluator):
    """The evaluator for one layer of a functional model: an output of the model that the layer
    does not feed is as dead as the model's inputs."""

    model: KerasModel
    feeds: list[bool]   # per output: does the layer feed it?

    def _model_call(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call) or self.values is None:
            return False
        called = self.values.value(node.func, self.flow.scope)
        return called.kind == MODEL and functional_model_of(self.ctx, called) is self.model

    def _output(self, index: int, call: ast.Call, at: ast.AST) -> int:
        inputs = self.join([*call.args, *(k.value for k in call.keywords)], at)
        return max(inputs, LIVE if self.feeds[index] else DEAD)

    def _define(self, d, name):
        stmt = d.stmt
        if d.kind == "assign" and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], (ast.Tuple, ast.List)) and self._model_call(stmt.value) \
                and (self.all_recorded or d.recorded_by(self.tape)):
            elements = stmt.targets[0].elts
            if len(elements) == len(self.feeds) and all(isinstance(e, ast.Name) for e in elements):
                for index, element in enumerate(elements):
                    if element.id == name:
                        return self._output(index, stmt.value, stmt)
        return super()._define(d, name)

    def _Subscript(self, node, at):
        index = node.slice
        if self._model_call(node.value) and isinstance(index, ast.Constant) and type(index.value) is int \
                and -len(self.feeds) <= index.value < len(self.feeds):
            return self._output(index.value, node.value, at)
        return super()._Subscript(node, at)


def _output_parts(ctx, values: ValueModel, resolver, result: PathResult):
    root = result.root
    use = result.use
    if not isinstance(root.node, ast.Attribute):
        return
    holder = values.value(root.node.value, use.flow.scope)
    if holder.kind != MODEL:
        return
    model = functional_model_of(ctx, holder)
    if model is None or len(model.outputs) < 2:
        return
    feeds = _feeds(model)
    if feeds is None:
        return
    for key, nodes in model.trainables().items():
        mask = feeds.get(key)
        if mask is None or all(mask) or not all(n.trainable for n in nodes):
            continue
        evaluator = _OutputsEvaluator(ctx.facts, use.flow, use.tape, root, "recorded",
                                      resolve_function=resolver, values=values)
        evaluator.ctx = ctx
        evaluator.model = model
        evaluator.feeds = mask
        yield f"the {nodes[0].label} layer on {ctx.where(nodes[0].expr)} of `{root.name}`", evaluator


def _feeds(model: KerasModel) -> dict[int, list[bool]] | None:
    """For each layer object of the graph: which outputs it feeds. None when part of the graph
    is unknown."""
    found: dict[int, list[bool]] = {}
    count = len(model.outputs)
    for index, output in enumerate(model.outputs):
        seen: set[int] = set()
        stack = [output]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if node.kind == "unknown":
                return None
            if node.kind == "layer" and node.key is not None:
                found.setdefault(node.key, [False] * count)[index] = True
            stack.extend(node.inputs)
    return found
