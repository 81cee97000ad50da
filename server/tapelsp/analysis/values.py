"""The value model: what a name or expression holds at a point of the code.

Every rule asks the same questions: is this a Python number, NumPy data, a tf.Tensor (of
which dtype, eager or symbolic), a trainable tf.Variable, a Keras model, a tape, a
tf.function, a dataset? Where was it made? `ValueModel.value(expr, scope)` answers them
for all rules, from the facts of one file and what the library table
(`library.tsv`, read through `library.py`) says functions return.

A `Value` has a `kind` and a confidence: `certain` when every way the code can reach the
expression gives that kind, else maybe (`certain=False`); the kind `unknown` means the
code does not say, and rules stay silent on it. Values also carry, where the code makes
them plain, the dtype, whether a tensor is symbolic (made while a tf.function traces),
whether a variable is trainable, whether a tensor was made from plain data (Python
numbers, NumPy arrays) rather than computed from other tensors, the elements of a
container, and the expression that made the value (`origin`), for messages.

How it works:
- names are looked up through the def-use layer (`facts.dataflow`): the definitions that
  reach the use, joined; names of enclosing functions and of the module are joined over
  all their definitions (their value when the function runs is not known better);
- a parameter's value is what every call of its function in this file passes (joined),
  unless the code says more: `self`, an `input_signature`, an annotation, a function
  traced by `tf.map_fn` / `Dataset.map` (tensors), Keras `call` / `train_step` (tensors);
- calls of user functions give the join of their `return`s; instances of user classes
  carry their class, and `self.attr` is the join of the class's assignments to it;
- library calls and methods of library values follow their row in the table.

Everything is computed on demand and memoised per file: `values_of(facts, targets)`.
"""

from __future__ import annotations

import ast
import builtins
import os
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from ..facts.dataflow import Def, Flow, flow_of
from ..facts.model import Facts, Scope
from ..facts.names import dotted
from ..facts.walk import body_nodes
from ..versions import Version
from . import library
from .library import Api

# --- kinds -----------------------------------------------------------------------------------

UNKNOWN = "unknown"
NUMBER, STR, NONE = "number", "str", "none"
LIST, TUPLE, DICT = "list", "tuple", "dict"
NDARRAY, NP_SCALAR = "ndarray", "np_scalar"
TENSOR, VARIABLE, TFP_VARIABLE = "tensor", "variable", "tfp_variable"
MODEL, LAYER, OPTIMIZER, LOSS, METRIC, MODULE = "model", "layer", "optimizer", "loss", "metric", "module"
TAPE, TF_FUNCTION, DATASET, ITERATOR = "tape", "tf_function", "dataset", "iterator"
DISTRIBUTION, BIJECTOR, LINEAR_OPERATOR = "distribution", "bijector", "linear_operator"
SHAPE, DTYPE, GENERATOR, SCHEDULE, INITIALIZER, OBJECT = "shape", "dtype", "generator", "schedule", "initializer", "object"
# Plain user objects, and what the code refers to rather than computes:
INSTANCE = "instance"      # an instance of a class defined in this file (ref: the ClassDef)
FUNCTION = "function"      # a def or lambda of this file (ref: the node)
CLASS = "class"            # a class of this file (ref: the ClassDef)
LIBRARY = "library"        # a library module, function or class (ref: its canonical name)
METHOD = "method"          # a method bound to a value (ref: the receiver Value; attr: the name)
BUILTIN = "builtin"        # a Python builtin function (ref: its name)

TF_VALUES = frozenset({TENSOR, VARIABLE, TFP_VARIABLE})
NUMPY_VALUES = frozenset({NDARRAY, NP_SCALAR})
KERAS_OBJECTS = frozenset({MODEL, LAYER, OPTIMIZER, LOSS, METRIC})
CONTAINERS = frozenset({LIST, TUPLE, DICT})
# Kinds whose `ref` may be a user ClassDef (an instance of a user subclass).
_OBJECT_KINDS = frozenset({INSTANCE, MODEL, LAYER, MODULE})

INT_DTYPES = frozenset(f"{p}int{b}" for p in ("", "u") for b in (8, 16, 32, 64))
FLOAT_DTYPES = frozenset({"float16", "float32", "float64", "bfloat16"})
COMPLEX_DTYPES = frozenset({"complex64", "complex128"})
_DTYPE_ALIASES = {"half": "float16", "double": "float64", "float_": "float64", "bool_": "bool",
                  "int_": "int64", "intc": "int32", "single": "float32"}


def is_integer_dtype(dtype: str | None) -> bool:
    return dtype in INT_DTYPES


def is_float_dtype(dtype: str | None) -> bool:
    return dtype in FLOAT_DTYPES or dtype in COMPLEX_DTYPES


@dataclass(frozen=True, eq=False)
class Value:
    kind: str = UNKNOWN
    certain: bool = False
    dtype: str | None = None
    symbolic: bool | None = None     # tensors: made while a tf.function traces
    trainable: bool | None = None    # variables
    data: bool = False               # tensors: made from plain data, not computed from tensors
    origin: ast.AST | None = None    # the expression that made it
    ref: Any = None                  # see the kinds above
    attr: str | None = None          # methods: the method's name
    items: tuple["Value", ...] | None = None  # tuples and lists written out: their elements
    item: "Value | None" = None      # containers, iterators, datasets: what one element holds
    remote: str | None = None        # where `origin` is when it is in another file
    detail: ast.AST | None = None    # the keyword that decided (`trainable=False`, `dtype=...`)
    home: Any = None                 # the ValueModel of the file `ref` is in, when not this one
    # A maybe only because some ways give None (`self.opt = None`, later `self.opt = Adam()`).
    or_none: bool = False

    @property
    def known(self) -> bool:
        return self.kind != UNKNOWN

    @property
    def confidence(self) -> str:
        if self.kind == UNKNOWN:
            return "unknown"
        return "certain" if self.certain else "maybe"

    def is_(self, *kinds: str) -> bool:
        """Certainly one of `kinds`."""
        return self.certain and self.kind in kinds

    def may_be(self, *kinds: str) -> bool:
        return self.kind in kinds

    def is_or_none(self, *kinds: str) -> bool:
        """Certainly one of `kinds`, or None (an object created lazily)."""
        return self.kind in kinds and (self.certain or self.or_none)

    @property
    def tf_value(self) -> bool:
        return self.certain and self.kind in TF_VALUES

    @property
    def user_class(self) -> ast.ClassDef | None:
        return self.ref if self.kind in _OBJECT_KINDS and isinstance(self.ref, ast.ClassDef) else None

    def maybe(self) -> "Value":
        return replace(self, certain=False, or_none=False) if self.certain or self.or_none else self


UNKNOWN_VALUE = Value()
# One element of a tf.data dataset: tensors (or a structure of them), eager or symbolic as the
# code that iterates the dataset (`_iterated`); a dataset function's parameters are symbolic.
_DATASET_ELEMENT = Value(TENSOR, False, ref="dataset element")
# What a computation sees of its own result while it is still running (`x = x + 1` in a loop,
# `self.total = self.total + t`): nothing yet. Joins ignore it, arithmetic with a number keeps it,
# and nothing computed over it is kept before the computation it belongs to ends.
_CYCLE = Value()


def _model_output(value: Value, symbolic: bool | None, call: ast.AST | None) -> Value:
    """One output of a functional model given `outputs` written out, as calling it gives it: a
    tensor for a tensor, a dict of tensors for a dict of tensors; else unknown."""
    if value.is_(TENSOR):
        return Value(TENSOR, True, symbolic=symbolic, origin=call)
    if value.is_(DICT) and value.item is not None and value.item.is_(TENSOR):
        return Value(DICT, True, origin=call, item=Value(TENSOR, True, symbolic=symbolic))
    return UNKNOWN_VALUE


def _not_none(value: Value) -> Value:
    """A tensor or variable that may be None, where None would raise (an operand of arithmetic)."""
    return replace(value, certain=True, or_none=False) if value.or_none and value.kind in TF_VALUES else value


def _kept(value: Value) -> Value:
    """What a memo keeps: a cycle (seen inside a computation still running) as unknown."""
    return UNKNOWN_VALUE if value is _CYCLE else value


def _certain(kind: str, **fields) -> Value:
    return Value(kind, True, **fields)


def join(values: Iterable[Value]) -> Value:
    """One value for several ways of reaching an expression: the common kind (certain when
    every way is certain), a maybe when some ways are unknown or None, else unknown."""
    given = list(values)
    found = [v for v in given if v is not _CYCLE]
    if not found:
        return _CYCLE if given else UNKNOWN_VALUE
    known = [v for v in found if v.kind != UNKNOWN]
    if not known:
        return UNKNOWN_VALUE
    kinds = {v.kind for v in known}
    partial = len(known) < len(found)
    every_way_known = not partial
    nones = False
    if len(kinds) > 1:
        if NONE in kinds and len(kinds) == 2:
            known = [v for v in known if v.kind != NONE]
            partial = nones = True
        elif kinds <= {TENSOR, VARIABLE}:
            # A tensor or a variable: both are TensorFlow values of this dtype.
            known = [replace(v, kind=TENSOR, trainable=None) for v in known]
            partial, every_way_known = True, False
        else:
            return UNKNOWN_VALUE
    first = known[0]
    if len(known) == 1 and not partial:
        return first
    same = lambda name: all(getattr(v, name) == getattr(first, name) for v in known)  # noqa: E731
    refs_same = all(v.ref is first.ref or v.ref == first.ref for v in known)
    certain = not partial and all(v.certain for v in known)
    return Value(
        kind=first.kind,
        certain=certain,
        or_none=not certain and every_way_known and (nones or any(v.or_none for v in known))
        and all(v.certain or v.or_none for v in known),
        dtype=first.dtype if same("dtype") else None,
        symbolic=first.symbolic if same("symbolic") else None,
        trainable=first.trainable if same("trainable") else None,
        data=all(v.data for v in known),
        origin=first.origin if all(v.origin is first.origin for v in known) else (
            first.origin if len({id(v.origin) for v in known}) == 1 else None),
        ref=first.ref if refs_same else None,
        attr=first.attr if same("attr") else None,
        items=first.items if all(v.items is first.items for v in known) else None,
        item=join([v.item for v in known if v.item is not None]) if any(v.item is not None for v in known) else None,
        remote=first.remote if same("remote") else None,
        home=first.home if same("home") else None,
    )


# --- dtypes --------------------------------------------------------------------------------------

def dtype_name(text: str | None) -> str | None:
    if text is None:
        return None
    text = _DTYPE_ALIASES.get(text, text)
    if text in INT_DTYPES or text in FLOAT_DTYPES or text in COMPLEX_DTYPES or text in ("bool", "string"):
        return text
    return None


def _python_dtype(value: Value, numpy: bool) -> str | None:
    """The dtype TensorFlow (or NumPy) gives a Python number of this value."""
    if value.kind != NUMBER:
        return None
    return {"float": "float64" if numpy else "float32", "int": "int64" if numpy else "int32",
            "bool": "bool", "complex": "complex128" if numpy else "complex128"}.get(value.dtype or "")


def _promote_numpy(a: str | None, b: str | None) -> str | None:
    """NumPy's promotion of two array dtypes (enough of it for the common cases)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    order = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
             "float16", "float32", "float64", "complex64", "complex128"]
    if a not in order or b not in order:
        return None
    if is_float_dtype(a) != is_float_dtype(b):
        # an integer array with a float array: the float, widened to hold the integers
        floating = a if is_float_dtype(a) else b
        integer = b if floating == a else a
        if floating == "float16" and integer not in ("bool", "uint8", "int8"):
            return "float32" if integer in ("int16", "uint16") else "float64"
        if floating == "float32" and integer in ("int32", "uint32", "int64", "uint64"):
            return "float64"
        return floating
    return order[max(order.index(a), order.index(b))]


def _float_result(dtype: str, numpy: bool, ufunc: bool = False) -> str | None:
    """The dtype of a float result computed from `dtype` (`float@` and `ufunc@` rules)."""
    if is_float_dtype(dtype):
        return dtype
    if dtype not in INT_DTYPES and dtype != "bool":
        return None
    if ufunc and numpy:
        # NumPy's float ufuncs on integers: the smallest float that holds them.
        if dtype in ("bool", "int8", "uint8"):
            return "float16"
        if dtype in ("int16", "uint16"):
            return "float32"
    return "float64" if numpy else "float32"


_PLAIN_SCALARS = frozenset({NUMBER, STR, NONE, NDARRAY, NP_SCALAR, SHAPE, DTYPE})


def _plain_value(value: Value) -> bool:
    """Python or NumPy data, nothing TensorFlow could have recorded (lists written out of it)."""
    if not value.certain:
        return False
    if value.kind in _PLAIN_SCALARS:
        return True
    return value.kind in (LIST, TUPLE) and value.items is not None and all(_plain_value(v) for v in value.items)


# --- the model -------------------------------------------------------------------------------

_BUILTIN_NAMES = frozenset(dir(builtins))
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Keras methods whose tensor parameters TensorFlow traces (Keras wraps them in a tf.function).
_KERAS_STEP_METHODS = frozenset({"train_step", "test_step", "predict_step"})
_KERAS_CALL_METHODS = frozenset({"call"})
_BASE_KINDS = {
    "keras.Model": MODEL, "keras.models.Model": MODEL, "keras.Sequential": MODEL,
    "keras.models.Sequential": MODEL, "keras.layers.Layer": LAYER, "keras.Layer": LAYER,
    "tensorflow.Module": MODULE, "keras.optimizers.Optimizer": OPTIMIZER,
    "keras.losses.Loss": LOSS, "keras.metrics.Metric": METRIC,
}
# tf.keras is Keras 3 from TensorFlow 2.16 on (unless TF_USE_LEGACY_KERAS is set).
_TF_WITH_KERAS_3 = Version.parse("2.16")
_KERAS_3 = Version.parse("3")
_MAX_CALL_DEPTH = 24
# Calls of this file's functions in other modules: asked for at most this many functions per
# check, reading at most this many importing files each.
MAX_REMOTE_CALLER_QUESTIONS = 8
MAX_IMPORTERS_READ = 2
# A chain deeper than that (`x = layer(x)` fifty times) is followed in steps: this many at most.
_MAX_RESUMES = 64
# Functions that hand back a tensor given one, and make a tensor from plain data.
# Keyword arguments of an op that are not its operands.
_NOT_OPERANDS = frozenset({"name", "dtype", "out_type", "output_type"})


class ValueModel:
    """Values of one file's expressions. Build with `values_of(facts, targets)`."""

    def __init__(self, facts: Facts, targets: Any = None, *, project: Any = None, path: str | None = None,
                 reads: Any = None) -> None:
        self.facts = facts
        self.targets = targets
        self.project = project
        self.path = path
        self.reads = reads
        self._memo: dict[tuple[ast.AST, int], Value] = {}
        self._definitions: dict[tuple, Value] = {}
        self._remote_questions = 0
        # Models made to evaluate one call's return with that call's arguments are one level
        # deep (`_returns_for_this_call`).
        self._context_depth = 0
        # Calls in other modules are looked for only in files that ask a tape for gradients,
        # where what a parameter holds decides a finding (reading importers costs a whole check
        # each; library code would look for every public function's callers).
        self._reverse_callers = "GradientTape" in facts.source.text
        self._active: set[tuple] = set()
        self._params: dict[tuple[int, str], Value] = {}
        self._returns: dict[int, Value] = {}
        self._attrs: dict[tuple[int, str], Value] = {}
        self._callers: dict[int, list[tuple[ast.Call, Scope, bool]]] = {}
        self._combinators: dict[int, ast.Call | bool] = {}
        self._passing: dict[Any, list] | None = None  # calls by the names and lambdas passed to them
        self._scope_starts: list[tuple[int, int]] | None = None
        self._scope_list: list[Scope] = []
        self._traced: dict[int, bool | None] | None = None
        self._depth = 0
        # Where evaluation stopped at the depth limit, and how often: a value computed over a
        # cut is not kept, and the top-level call resumes from the cuts (see `_resume`).
        self._cuts: list[tuple[ast.AST, Scope]] = []
        self._cut_count = 0
        # Memo entries computed over a cut: kept (a file evaluates them again and again), and
        # dropped when the top-level call resumes from the cuts.
        self._tainted: list[tuple[dict, Any]] = []
        self._resuming = False
        self._cycles: list[tuple] = []  # the keys whose own computation asked for them (see _CYCLE)
        self._provisional: list[tuple[dict, Any]] = []  # memo entries computed while a cycle was open (see value)
        self._graph_mode = facts.has_mode("disable_eager_execution", "disable_v2_behavior", "session",
                                          "placeholder") or facts.imports.v1_imported
        self._module_defs: dict[str, list[Def]] | None = None

    # --- scopes --------------------------------------------------------------------------

    def scope_at(self, node: ast.AST) -> Scope:
        """The innermost scope (module, class, def, lambda) whose code holds `node`."""
        if self._scope_starts is None:
            scopes = [s for s in self.facts.scopes if s.kind != "module" and hasattr(s.node, "lineno")]
            scopes.sort(key=lambda s: (s.node.lineno, s.node.col_offset))
            self._scope_list = scopes
            self._scope_starts = [(s.node.lineno, s.node.col_offset) for s in scopes]
        where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        index = bisect_right(self._scope_starts, where) - 1
        scope: Scope | None = self._scope_list[index] if index >= 0 else None
        while scope is not None and scope.kind != "module":
            if scope.node is not node and _contains(scope.node, node):
                return _body_scope(scope, node)
            scope = scope.parent
        return self.facts.module

    # --- entry points ------------------------------------------------------------------------

    def truth(self, test: ast.expr, scope: Scope | None = None) -> bool | None:
        """Is the condition `test` certainly true (True) or certainly false (False) wherever it is
        evaluated? `x is not None` for an `x` that certainly holds a value, a flag that is a
        literal on every way (`self.use_bias`, a parameter whose default nobody overrides), a
        function. None when the value model cannot say."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.truth(test.operand, scope)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            found = [self.truth(v, scope) for v in test.values]
            decisive = isinstance(test.op, ast.Or)  # `or`: any True decides; `and`: any False
            if decisive in found:
                return decisive
            return (not decisive) if all(f is not None for f in found) else None
        if isinstance(test, ast.Compare):
            if len(test.ops) != 1 or not isinstance(test.ops[0], (ast.Is, ast.IsNot)):
                return None
            other = test.comparators[0]
            if not (isinstance(other, ast.Constant) and other.value is None):
                return None
            value = self.value(test.left, scope)
            if not value.certain or value.or_none or value.kind == UNKNOWN:
                return None
            is_none = value.kind == NONE
            return is_none if isinstance(test.ops[0], ast.Is) else not is_none
        value = self.value(test, scope)
        if not value.certain:
            return None
        if value.kind in (NUMBER, STR, NONE) and isinstance(value.origin, ast.Constant):
            return bool(value.origin.value)
        if value.kind == NONE:
            return False
        if value.kind in (LIBRARY, FUNCTION, CLASS):
            return True
        return None

    def value(self, expr: ast.AST | None, scope: Scope | None = None) -> Value:
        """What `expr` holds where it is written (its scope found when not given)."""
        if expr is None:
            return UNKNOWN_VALUE
        if scope is None:
            scope = self.scope_at(expr)
        # The node itself, not its id, in the key: a node a rule builds to ask a question
        # (`ast.Name(...)`) is freed after it, and a later node could be given its id.
        key = (expr, id(scope))
        found = self._memo.get(key)
        if found is not None:
            return found
        if key in self._active:
            return self._cycle(key)
        if self._depth > _MAX_CALL_DEPTH:
            self._cuts.append((expr, scope))
            self._cut_count += 1
            return UNKNOWN_VALUE
        cuts, cycles = self._cut_count, len(self._cycles)
        self._active.add(key)
        self._depth += 1
        try:
            result = self._eval(expr, scope)
        except RecursionError:
            result = UNKNOWN_VALUE
        finally:
            self._depth -= 1
            self._active.discard(key)
        result = self._settle(key, cycles, result)
        self._memo[key] = _kept(result)
        if len(self._cycles) != cycles:
            # Worked out inside another's cycle (a caller's call evaluated while the callee's
            # parameter is): it may differ once that cycle is over, so it is kept only until
            # every open cycle has settled (the computation that is open reuses it meanwhile).
            self._provisional.append((self._memo, key))
        if self._cut_count != cuts:
            self._tainted.append((self._memo, key))
            if self._depth == 0 and not self._resuming:
                result = self._resume(expr, scope)
        return result

    def _cycle(self, key: tuple) -> Value:
        self._cycles.append(key)
        return _CYCLE

    def _settle(self, key: tuple, before: int, result: Value) -> Value:
        """After computing `key`: its own cycles are over, so a result that was only its own
        cycle is unknown (one that waits for a computation still running stays a cycle)."""
        pending = [k for k in self._cycles[before:] if k != key]
        del self._cycles[before:]
        self._cycles.extend(pending)
        if not self._cycles and self._provisional:
            for memo, kept in self._provisional:
                memo.pop(kept, None)
            self._provisional = []
        return UNKNOWN_VALUE if result is _CYCLE and not pending else result

    def _resume(self, expr: ast.AST, scope: Scope) -> Value:
        """`expr` was cut at the depth limit: evaluate the cut points first, deepest first, each
        from the top (so that it is kept), then `expr` again over them."""
        self._resuming = True
        try:
            pending, self._cuts = self._cuts, []
            for _ in range(_MAX_RESUMES):
                if not pending:
                    break
                self._drop_tainted()
                before = self._cut_count
                self.value(*pending[-1])
                if self._cut_count == before:
                    pending.pop()
                else:
                    pending.extend(self._cuts)
                self._cuts = []
            self._drop_tainted()
            return self.value(expr, scope)
        finally:
            self._cuts = []
            self._resuming = False

    def _drop_tainted(self) -> None:
        for memo, key in self._tainted:
            memo.pop(key, None)
        self._tainted = []

    def name(self, name: str, scope: Scope, at: ast.AST) -> Value:
        """What the name (or dotted `self.attr`) holds at `at` in `scope`."""
        key = ("name", name, id(scope), id(at))
        if key in self._active:
            return self._cycle(key)
        self._active.add(key)
        cycles = len(self._cycles)
        try:
            result = self._name(name, scope, at)
        finally:
            self._active.discard(key)
        return self._settle(key, cycles, result)

    def definition(self, d: Def, name: str, scope: Scope) -> Value:
        """The value one definition gives `name` (kept once it depends on nothing still being
        computed: names of enclosing scopes and modules are looked up again and again)."""
        key = ("def", id(d), name)
        found = self._definitions.get(key)
        if found is not None:
            return found
        if key in self._active:
            return self._cycle(key)
        self._active.add(key)
        cycles, cuts = len(self._cycles), self._cut_count
        try:
            result = self._definition(d, name, scope)
        finally:
            self._active.discard(key)
        result = self._settle(key, cycles, result)
        if self._cut_count == cuts and result is not _CYCLE:
            self._definitions[key] = result
            if len(self._cycles) != cycles:
                self._provisional.append((self._definitions, key))
        return result

    # --- expressions ----------------------------------------------------------------------------

    def _eval(self, node: ast.AST, scope: Scope) -> Value:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            return UNKNOWN_VALUE
        return method(node, scope)

    def _Constant(self, node: ast.Constant, scope: Scope) -> Value:
        value = node.value
        if isinstance(value, bool):
            return _certain(NUMBER, dtype="bool", origin=node)
        if isinstance(value, int):
            return _certain(NUMBER, dtype="int", origin=node)
        if isinstance(value, float):
            return _certain(NUMBER, dtype="float", origin=node)
        if isinstance(value, complex):
            return _certain(NUMBER, dtype="complex", origin=node)
        if isinstance(value, (str, bytes)):
            return _certain(STR, origin=node)
        if value is None:
            return _certain(NONE, origin=node)
        return _certain(OBJECT, origin=node)

    def _JoinedStr(self, node, scope):
        return _certain(STR, origin=node)

    def _Name(self, node: ast.Name, scope: Scope) -> Value:
        return self.name(node.id, scope, node)

    def _NamedExpr(self, node, scope):
        return self.value(node.value, scope)

    def _Starred(self, node, scope):
        return self.value(node.value, scope)

    def _Await(self, node, scope):
        return UNKNOWN_VALUE

    def _Lambda(self, node, scope):
        return _certain(FUNCTION, ref=node, origin=node)

    def _Tuple(self, node, scope):
        items = tuple(self.value(e, scope) for e in node.elts)
        kind = TUPLE if isinstance(node, ast.Tuple) else LIST
        starred = any(isinstance(e, ast.Starred) for e in node.elts)
        return _certain(kind, origin=node, items=None if starred else items,
                        item=join(items) if items else None)

    _List = _Tuple

    def _Set(self, node, scope):
        return _certain(OBJECT, origin=node)

    def _Dict(self, node, scope):
        values = [self.value(v, scope) for v in node.values if v is not None]
        return _certain(DICT, origin=node, item=join(values) if values else None)

    def _ListComp(self, node, scope):
        element = self._comprehension_element(node, node.elt, scope)
        kind = {ast.ListComp: LIST, ast.SetComp: OBJECT, ast.GeneratorExp: ITERATOR}[type(node)]
        return _certain(kind, origin=node, item=element)

    _SetComp = _ListComp
    _GeneratorExp = _ListComp

    def _DictComp(self, node, scope):
        return _certain(DICT, origin=node, item=self._comprehension_element(node, node.value, scope))

    def _comprehension_element(self, node, element: ast.expr, scope: Scope) -> Value:
        # The comprehension's own variables are unknown (not followed); others resolve as usual.
        own = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        if any(isinstance(n, ast.Name) and n.id in own for n in ast.walk(element)):
            if isinstance(element, ast.Name) and len(node.generators) == 1:
                return self.element_of(self.value(node.generators[0].iter, scope))
            return self._shallow_kind(element, scope)
        return self.value(element, scope)

    def _shallow_kind(self, expr: ast.expr, scope: Scope) -> Value:
        """The kind of an expression over names we do not follow, when its outermost call says."""
        if isinstance(expr, ast.Call):
            func = self.value(expr.func, scope)
            if func.kind == LIBRARY:
                api = library.api(func.ref)
                if api is not None and api.kind in (TENSOR, NDARRAY, NUMBER, VARIABLE):
                    return Value(api.kind, True, origin=expr)
            if func.is_(LAYER, MODEL) and func.user_class is None and func.home is None:
                return Value(TENSOR, True, origin=expr)  # `{k: Dense(2)(x) for k, x in ...}`: Keras's call
        return UNKNOWN_VALUE

    def _IfExp(self, node, scope):
        return join([self.value(node.body, scope), self.value(node.orelse, scope)])

    def _BoolOp(self, node, scope):
        return join([self.value(v, scope) for v in node.values])

    def _UnaryOp(self, node, scope):
        operand = self.value(node.operand, scope)
        if operand is _CYCLE:
            return _CYCLE
        if isinstance(node.op, ast.Not):
            return _certain(NUMBER, dtype="bool", origin=node) if operand.kind not in TF_VALUES | NUMPY_VALUES \
                else Value(NUMBER, False, dtype="bool", origin=node)
        if operand.kind == VARIABLE:
            return replace(operand, kind=TENSOR, trainable=None, origin=node, data=False)
        if operand.kind in (NUMBER, TENSOR, NDARRAY, NP_SCALAR):
            dtype = operand.dtype
            if operand.kind == NUMBER and dtype == "bool":
                dtype = "int"
            return replace(operand, origin=node, dtype=dtype)
        return UNKNOWN_VALUE

    def _BinOp(self, node, scope):
        return self.binary(node.op, self.value(node.left, scope), self.value(node.right, scope), node, scope)

    def binary(self, op: ast.operator, left: Value, right: Value, node: ast.AST, scope: Scope) -> Value:
        # An operand that is a tensor or None (a gradient): arithmetic on None raises TypeError, so
        # what the operation gives is computed from the tensor.
        left, right = _not_none(left), _not_none(right)
        if left is _CYCLE or right is _CYCLE:
            other = right if left is _CYCLE else left
            if other is _CYCLE or other.kind == NUMBER:
                return _CYCLE  # `x = x * 0.9`: whatever x is, a number keeps it (dtype aside)
        kinds = {left.kind, right.kind}
        certain = left.certain and right.certain
        if kinds & TF_VALUES:
            tf_side = [v for v in (left, right) if v.kind in TF_VALUES]
            other = [v for v in (left, right) if v.kind not in TF_VALUES]
            if other and other[0].kind == UNKNOWN:
                # TensorFlow converts whatever the other operand is (or raises): still a tensor.
                certain = all(v.certain for v in tf_side)
            elif not other and any(v.certain for v in tf_side):
                # A tensor with what may be a tensor (or anything else TensorFlow converts): a tensor.
                certain = True
            elif other and other[0].kind not in (NUMBER, NDARRAY, NP_SCALAR, LIST, TUPLE, TENSOR):
                return UNKNOWN_VALUE
            dtypes = {v.dtype for v in tf_side}
            dtype = dtypes.pop() if len(dtypes) == 1 else None
            if is_integer_dtype(dtype) and other and other[0].kind == NUMBER and other[0].dtype == "float":
                return UNKNOWN_VALUE  # `tf.range(3) * 2.5`: TensorFlow cannot convert 2.5 to int32, it raises
            if isinstance(op, ast.Div) and is_integer_dtype(dtype):
                dtype = "float64"
            symbolic = True if any(v.symbolic for v in tf_side) else (
                False if all(v.symbolic is False for v in tf_side) else None)
            return Value(TENSOR, certain, dtype=dtype, symbolic=symbolic, origin=node,
                         data=all(v.data for v in tf_side) and all(v.kind != VARIABLE for v in (left, right))
                         and all(v.data or v.kind in (NUMBER, NDARRAY, NP_SCALAR) for v in (left, right)))
        if kinds & NUMPY_VALUES:
            if not kinds <= (NUMPY_VALUES | {NUMBER}):
                return UNKNOWN_VALUE
            kind = NDARRAY if NDARRAY in kinds else NP_SCALAR
            arrays = [v for v in (left, right) if v.kind in NUMPY_VALUES]
            numbers = [v for v in (left, right) if v.kind == NUMBER]
            dtype = arrays[0].dtype if len(arrays) == 1 else _promote_numpy(arrays[0].dtype, arrays[1].dtype)
            if numbers and dtype is not None and numbers[0].dtype == "float" and is_integer_dtype(dtype):
                dtype = "float64"
            if isinstance(op, ast.Div) and (is_integer_dtype(dtype) or dtype == "bool"):
                dtype = "float64"
            return Value(kind, certain, dtype=dtype, origin=node)
        if kinds == {NUMBER}:
            dtypes = {left.dtype, right.dtype}
            if None in dtypes:
                dtype = None
            elif "complex" in dtypes:
                dtype = "complex"
            elif "float" in dtypes or isinstance(op, ast.Div):
                dtype = "float"
            else:
                dtype = "int"
            return Value(NUMBER, certain, dtype=dtype, origin=node)
        if kinds == {STR} or (STR in kinds and isinstance(op, ast.Mod)):
            return Value(STR, certain, origin=node)
        if left.kind in (LIST, TUPLE) and (right.kind == left.kind or right.kind == NUMBER):
            return Value(left.kind, certain, origin=node, item=join([left.item or UNKNOWN_VALUE,
                                                                    right.item or UNKNOWN_VALUE])
                         if right.kind == left.kind else left.item)
        return UNKNOWN_VALUE

    def _Compare(self, node, scope):
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return _certain(NUMBER, dtype="bool", origin=node)
        operands = [self.value(e, scope) for e in (node.left, *node.comparators)]
        if len(node.ops) == 1 and any(v.kind in TF_VALUES for v in operands):
            symbolic = True if any(v.symbolic for v in operands) else None
            return Value(TENSOR, all(v.certain for v in operands), dtype="bool", symbolic=symbolic, origin=node)
        if len(node.ops) == 1 and any(v.kind == NDARRAY for v in operands):
            return Value(NDARRAY, all(v.certain for v in operands), dtype="bool", origin=node)
        if all(v.kind in (NUMBER, STR, NONE) for v in operands):
            return _certain(NUMBER, dtype="bool", origin=node)
        return UNKNOWN_VALUE

    def _Subscript(self, node, scope):
        base = self.value(node.value, scope)
        if base.kind in (TENSOR, VARIABLE, TFP_VARIABLE):
            return replace(base, kind=TENSOR, trainable=None, origin=node, items=None, item=None,
                           data=base.data and base.kind == TENSOR)
        if base.kind in NUMPY_VALUES:
            return replace(base, kind=NDARRAY, origin=node)
        if base.kind in (LIST, TUPLE):
            index = node.slice
            if isinstance(index, ast.Slice):
                return Value(base.kind, base.certain, origin=node, item=base.item)
            if base.items is not None and isinstance(index, ast.Constant) and isinstance(index.value, int) \
                    and -len(base.items) <= index.value < len(base.items):
                return base.items[index.value]
            return base.item if base.item is not None else UNKNOWN_VALUE
        if base.kind == DICT:
            entry = self._written_entry(node, base)
            if entry is not None:
                return entry
            if base.item is not None and base.item.certain and self._model_dict(node, base):
                return replace(base.item, origin=node)
            return base.item.maybe() if base.item is not None else UNKNOWN_VALUE
        if base.kind == SHAPE:
            return Value(NUMBER, False, dtype="int", origin=node)
        if base.kind == STR:
            return _certain(STR, origin=node)
        if base.kind == NONE:
            return UNKNOWN_VALUE
        return UNKNOWN_VALUE

    def _written_entry(self, node: ast.Subscript, base: Value) -> Value | None:
        """`params["w"]` of a dict written out (`params = {"w": tf.Variable(...), ...}`) that the
        file only reads: the value of that entry as written, as certain as it is. None when the
        key is not a constant written once in it, or when the file may change the dict: a store
        or `del` of an entry, a method other than a read, or the name handed to anything (a call,
        another name, a container) that could."""
        key = node.slice
        if not isinstance(node.value, ast.Name) or not isinstance(key, ast.Constant) \
                or base.home is not None or base.remote is not None:
            return None
        literal = base.origin
        if not isinstance(literal, ast.Dict) or any(k is None for k in literal.keys):
            return None
        entries = [v for k, v in zip(literal.keys, literal.values)
                   if isinstance(k, ast.Constant) and type(k.value) is type(key.value) and k.value == key.value]
        if len(entries) != 1 or not self._only_read(node.value.id):
            return None
        return self.value(entries[0], self.scope_at(entries[0]))

    def _model_dict(self, node: ast.Subscript, base: Value) -> bool:
        """`outputs[key]` of a dict of tensors a Keras model gives (an output of its structure),
        that the file only reads."""
        return isinstance(node.value, ast.Name) and base.home is None and isinstance(base.origin, ast.Call) \
            and self.value(base.origin.func, self.scope_at(base.origin)).kind == MODEL \
            and self._only_read(node.value.id)

    def _only_read(self, name: str) -> bool:
        """Is every use of `name` in the file a read of what it holds: `name[k]`, `name.get(k)`,
        `.keys()` / `.values()` / `.items()` / `.copy()`, `len(name)`, `for k in name`, `k in
        name`, or (re)binding it?"""
        verdicts = self.__dict__.get("_read_only_names")
        if verdicts is None:
            verdicts = {}
            parents: dict[int, ast.AST] = {}
            for parent in ast.walk(self.facts.tree):
                for child in ast.iter_child_nodes(parent):
                    parents[id(child)] = parent
            for node in ast.walk(self.facts.tree):
                if isinstance(node, ast.Name) and verdicts.get(node.id, True):
                    verdicts[node.id] = isinstance(node.ctx, ast.Store) or _read_use(node, parents)
            self.__dict__["_read_only_names"] = verdicts
        return verdicts.get(name, True)

    def _Attribute(self, node: ast.Attribute, scope: Scope) -> Value:
        qualname = self.facts.imports.resolve(node)
        if qualname is not None and self._refers_to_library(node, scope):
            api = library.api(qualname)
            if api is not None and api.attribute:
                return self.apply(api, None, scope, node, None)
            return _certain(LIBRARY, ref=qualname, origin=node)
        name = dotted(node)
        if name is not None and "." in name:
            flow = self._flow(scope)
            if flow is not None and flow.reaching(name, node):
                return self.name(name, scope, node)
        base = self.value(node.value, scope)
        return self.attribute(base, node.attr, node, scope)

    def _refers_to_library(self, node: ast.Attribute, scope: Scope) -> bool:
        """`tf.reduce_sum` names the library when `tf` is not rebound locally."""
        head = node
        while isinstance(head, ast.Attribute):
            head = head.value  # type: ignore[assignment]
        if not isinstance(head, ast.Name):
            return False
        flow = self._flow(scope)
        if flow is not None and flow.definitions(head.id) and not all(
                d.kind == "import" for d in flow.definitions(head.id)):
            return False
        return True

    def attribute(self, base: Value, attr: str, node: ast.AST, scope: Scope) -> Value:
        """`base.attr`: an attribute of a value, or a method bound to it."""
        if base.kind == LIBRARY and base.home is not None:
            return _adopt(base.home.module_value(attr), base.home, self)
        if base.kind == LIBRARY:
            qualname = f"{base.ref}.{attr}"
            api = library.api(qualname)
            if api is not None and api.attribute:
                return self.apply(api, None, scope, node, None)
            return _certain(LIBRARY, ref=qualname, origin=node)
        cls = base.user_class
        if cls is not None:
            owner = base.home or self
            found = _adopt(owner.instance_attribute(cls, attr), owner, self)
            if found.known or found is _CYCLE:
                return found
        if base.kind == UNKNOWN:
            return UNKNOWN_VALUE
        kind = base.kind
        api = library.method(kind, attr) or (library.method(LAYER, attr) if kind == MODEL else None) \
            or (library.method(TENSOR, attr) if kind == VARIABLE else None)
        if api is not None:
            if api.attribute:
                return self.apply(api, None, scope, node, base)
            return Value(METHOD, base.certain, ref=base, attr=attr, origin=node)
        if cls is not None or kind in (TENSOR, VARIABLE, NDARRAY, NP_SCALAR, DATASET, TAPE, OPTIMIZER):
            return Value(METHOD, False, ref=base, attr=attr, origin=node) if cls is not None \
                else UNKNOWN_VALUE
        return UNKNOWN_VALUE

    # --- calls -----------------------------------------------------------------------------------

    def _Call(self, node: ast.Call, scope: Scope) -> Value:
        func = self.value(node.func, scope)
        return self.call(func, node, scope)

    def call(self, func: Value, node: ast.Call, scope: Scope) -> Value:
        kind = func.kind
        owner = func.home or self
        if kind == LIBRARY:
            if func.home is not None or not isinstance(func.ref, str):
                return UNKNOWN_VALUE  # calling a module, or an import the table cannot name
            return self._library_call(func.ref, node, scope)
        if kind == BUILTIN:
            return self._builtin_call(func.ref, node, scope)
        if kind == METHOD:
            return self._method_call(func, node, scope)
        if kind == FUNCTION:
            result = owner.returns(func.ref)
            if not result.certain:
                result = self._returns_for_this_call(owner, func.ref, node, scope) or result
            return _adopt(owner._made_per_call(result, func.ref, node, owner is self), owner, self)
        if kind == CLASS:
            if not isinstance(func.ref, ast.ClassDef):
                return UNKNOWN_VALUE  # one of several classes
            return _adopt(owner.instance(func.ref, node), owner, self)
        if kind == TF_FUNCTION:
            target = func.ref
            if isinstance(target, Value) and target.kind == FUNCTION:
                home = target.home or owner
                result = _adopt(home.returns(target.ref), home, self)
                if result.kind in TF_VALUES:
                    return replace(result, symbolic=self.traced(scope), origin=node, remote=None, home=None)
                if result.kind in (TUPLE, LIST, DICT):
                    return _function_output(home, result, self.traced(scope), node)
                return result if result.kind in (NUMBER, STR, NONE) else UNKNOWN_VALUE
            return UNKNOWN_VALUE
        if kind in (MODEL, LAYER, MODULE, INSTANCE):
            cls = func.user_class
            if cls is not None:
                for method_name in (("call", "__call__") if kind in (MODEL, LAYER) else ("__call__",)):
                    method = _class_method(owner.facts, cls, method_name)
                    if method is not None:
                        if method.decorator_list and unseen_decorators(owner.facts, method):
                            return UNKNOWN_VALUE
                        result = _adopt(owner.returns(method), owner, self)
                        if kind in (MODEL, LAYER) and result.kind in TF_VALUES:
                            return Value(TENSOR, result.certain, dtype=result.dtype, symbolic=self.traced(scope),
                                         origin=node)
                        return result
            if kind in (MODEL, LAYER):
                symbolic = self._layer_call_symbolic(node, scope)
                # A model with several outputs gives them as a structure: what unpacking it gives is
                # one output, a tensor or itself a structure (a dict of tensors).
                output = Value(TENSOR, func.item is not None and func.item.is_(TENSOR), symbolic=symbolic) \
                    if kind == MODEL else None
                # Outputs written out (`outputs=(heads, extra)`, `heads` a dict of tensors): each one.
                outputs = tuple(_model_output(v, symbolic, node) for v in func.items) \
                    if kind == MODEL and func.items is not None else None
                return Value(TENSOR, True, symbolic=symbolic, origin=node, item=output, items=outputs)
            return UNKNOWN_VALUE
        if kind == LOSS:
            return Value(TENSOR, True, dtype="float32", symbolic=self.traced(scope), origin=node)
        if kind == METRIC:
            return Value(TENSOR, True, dtype="float32", origin=node)
        if kind == SCHEDULE:
            return Value(TENSOR, False, dtype="float32", origin=node)
        if kind == INITIALIZER:
            return Value(TENSOR, True, dtype=_dtype_keyword(self, node, "dtype", 1, scope) or "float32",
                         symbolic=self.traced(scope), origin=node, data=True)
        return UNKNOWN_VALUE

    def _returns_for_this_call(self, owner: "ValueModel", function: ast.AST, call: ast.Call,
                               scope: Scope) -> Value | None:
        """What `function` returns given this call's arguments (`linear_warmup(step, 8)` with
        `step` a Python int here), when its return does not follow from its code alone: the
        body is evaluated once more, in a model of its own file whose parameters are these
        arguments. One level deep; None when that says nothing more."""
        if self._context_depth >= 1 or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or function.decorator_list or len(_positional(function)) > 8:
            return None
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        context = ValueModel(owner.facts, owner.targets, project=owner.project, path=owner.path, reads=self.reads)
        context._context_depth = self._context_depth + 1
        params = _positional(function)
        keyword_only = {a.arg for a in function.args.kwonlyargs}
        for name in params + sorted(keyword_only):
            arg = _argument_for(call, params, name, keyword_only)
            if arg is _STARRED:
                continue
            if arg is None:
                # Not given: this call runs with the default (evaluated where the def is).
                default = _default(function, name)
                if default is not None:
                    context._params[(id(function), name)] = context.value(default, context.scope_at(function))
                continue
            context._params[(id(function), name)] = _adopt(self.value(arg, scope), self, context)
        result = context.returns(function)
        return _adopt(result, context, self) if result.known else None

    def _made_per_call(self, result: Value, function: ast.AST, call: ast.Call, here: bool) -> Value:
        """A factory (`def build_q(): return keras.Sequential([...])`) makes a new object on every
        call: the value is made by that call, not by the constructor inside the function."""
        if not here or not fresh_construction(self, result):
            return result
        origin = result.origin
        if origin is None or not _contains(function, origin) or function is origin:
            return result
        return replace(result, origin=call)

    def _layer_call_symbolic(self, node: ast.Call, scope: Scope) -> bool | None:
        """A layer called on a symbolic input (a Keras functional model) gives a symbolic tensor."""
        for arg in node.args[:1]:
            value = self.value(arg, scope)
            if value.symbolic or (value.items is not None and any(v.symbolic for v in value.items)):
                return True
        return self.traced(scope)

    def _library_call(self, qualname: str, node: ast.Call, scope: Scope) -> Value:
        if qualname == "tensorflow.function":
            return self._tf_function_call(node, scope)
        api = library.api(qualname)
        if api is None:
            if qualname.startswith("builtins."):
                return self._builtin_call(qualname[len("builtins."):], node, scope)
            return UNKNOWN_VALUE
        return self.apply(api, node, scope, node, None)

    def _tf_function_call(self, node: ast.Call, scope: Scope) -> Value:
        target = self.value(node.args[0], scope) if node.args else None
        if target is None:
            keyword = _keyword(node, "func")
            target = self.value(keyword, scope) if keyword is not None else None
        if target is None:
            return _certain(LIBRARY, ref="tensorflow.function", origin=node)  # `tf.function(...)` decorator factory
        return _certain(TF_FUNCTION, ref=target, origin=node)

    def _method_call(self, func: Value, node: ast.Call, scope: Scope) -> Value:
        receiver: Value = func.ref
        if not isinstance(receiver, Value):
            return UNKNOWN_VALUE  # a method of one of several values
        attr = func.attr or ""
        cls = receiver.user_class
        if cls is not None:
            owner = receiver.home or self
            method = _class_method(owner.facts, cls, attr)
            if method is not None:
                if method.decorator_list and unseen_decorators(owner.facts, method):
                    return UNKNOWN_VALUE
                result = _adopt(owner.returns(method), owner, self)
                body = owner.facts.function_scopes.get(method)
                if body is not None and body.tf_function is not None and result.kind in TF_VALUES:
                    # a tf.function method: what it returns is made where it is called
                    return replace(result, kind=TENSOR, trainable=None, symbolic=self.traced(scope), origin=node,
                                   remote=None, home=None)
                return result
        api = library.method(receiver.kind, attr)
        if api is None and receiver.kind == MODEL:
            api = library.method(LAYER, attr)
        if api is None and receiver.kind == VARIABLE:
            api = library.method(TENSOR, attr)
        if api is None:
            return UNKNOWN_VALUE
        result = self.apply(api, node, scope, node, receiver)
        return result if receiver.certain else result.maybe()

    def _builtin_call(self, name: str, node: ast.Call, scope: Scope) -> Value:
        args = node.args
        first = self.value(args[0], scope) if args else UNKNOWN_VALUE
        if name in ("list", "tuple", "sorted"):
            kind = TUPLE if name == "tuple" else LIST
            if not args:
                return _certain(kind, origin=node, items=())
            element = self.element_of(first)
            return _certain(kind, origin=node, item=element if element.known else None)
        if name in ("iter", "reversed"):
            element = self.element_of(first)
            return _certain(ITERATOR, origin=node, item=element if element.known else None)
        if name == "next":
            return self._iterated(self.element_of(first), scope)
        if name == "zip":
            items = tuple(self.element_of(self.value(a, scope)) for a in args)
            return _certain(ITERATOR, origin=node, item=_certain(TUPLE, items=items))
        if name == "enumerate":
            return _certain(ITERATOR, origin=node,
                            item=_certain(TUPLE, items=(_certain(NUMBER, dtype="int"), self.element_of(first))))
        if name == "range":
            return _certain(OBJECT, origin=node, ref="range", item=_certain(NUMBER, dtype="int"))
        if name in ("abs",):
            return replace(first, origin=node) if first.kind in (NUMBER, TENSOR, NDARRAY, NP_SCALAR) \
                else UNKNOWN_VALUE
        if name in ("min", "max"):
            if len(args) == 1:
                return self.element_of(first)
            return join([self.value(a, scope) for a in args])
        if name == "sum":
            element = self.element_of(first)
            return element if element.kind in (NUMBER, TENSOR) else UNKNOWN_VALUE
        if name == "round":
            return _certain(NUMBER, dtype="int" if len(args) < 2 else None, origin=node)
        if name == "super":
            return UNKNOWN_VALUE
        api = library.api(f"builtins.{name}")
        if api is None:
            return UNKNOWN_VALUE
        return self.apply(api, node, scope, node, None)

    def instance(self, cls: ast.ClassDef, node: ast.AST) -> Value:
        kind = self.class_kind(cls)
        return _certain(kind, ref=cls, origin=node)

    def class_kind(self, cls: ast.ClassDef) -> str:
        """model / layer / module / optimizer / loss / metric for subclasses of those, else instance."""
        seen: set[int] = set()
        current: ast.ClassDef | None = cls
        pending = [cls]
        while pending:
            current = pending.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            for base in current.bases:
                qualname = self.facts.imports.resolve(base)
                if qualname in _BASE_KINDS:
                    return _BASE_KINDS[qualname]
                if qualname is not None:
                    api = library.api(qualname)
                    if api is not None and api.kind in (MODEL, LAYER, MODULE, OPTIMIZER, LOSS, METRIC):
                        return api.kind
                if isinstance(base, ast.Name) and base.id in self.facts.classes:
                    pending.append(self.facts.classes[base.id])
        return INSTANCE

    # --- the library table, applied ----------------------------------------------------------------

    def apply(self, api: Api, call: ast.Call | None, scope: Scope, node: ast.AST, receiver: Value | None) -> Value:
        kind = api.kind
        if kind == "same":
            if call is None or not call.args:
                return UNKNOWN_VALUE
            return replace(self.value(call.args[0], scope), origin=node)
        if kind == "element":
            if call is None or not call.args:
                return UNKNOWN_VALUE
            return self.element_of(self.value(call.args[0], scope))
        if kind == "gradient":
            return self._gradients(call, scope, node)
        if kind == "lookup":
            return self._lookup(api, call, scope, node)
        if kind == UNKNOWN:
            return UNKNOWN_VALUE
        numpy = kind in NUMPY_VALUES
        dtype = self._dtype_rule(api, call, scope, receiver, numpy) if api.dtype else None
        if kind == TENSOR:
            data = api.grad == "const"
            if api.has("hands_back") and call is not None and call.args:
                data = self._plain_data(call, scope)
                inner = self.value(call.args[0], scope)
                if not data and inner.kind == TENSOR and dtype in (None, inner.dtype):
                    # An existing tensor handed back as it is (`tf.constant` of an eager tensor too).
                    return replace(inner, origin=node)
            elif not data and api.grad in ("yes", "no", "stop") and call is not None and api.name.startswith(
                    ("tensorflow.", "keras.ops.")):
                # An op of plain data (`tf.reshape(tf.range(24), ...)`) is plain data too, and so is
                # one of Python or NumPy data alone (`tf.fill([2], 1.0)`, `tf.linspace(0.0, 1.0, 5)`).
                operands = [self.value(a, scope) for a in call.args if not isinstance(a, ast.Starred)] + [
                    self.value(k.value, scope) for k in call.keywords
                    if k.arg is not None and k.arg not in _NOT_OPERANDS]
                tensors = [v for v in operands if v.kind in TF_VALUES]
                if tensors:
                    data = all(v.data and v.kind == TENSOR for v in tensors) and all(
                        v.kind in TF_VALUES | NUMPY_VALUES | {NUMBER, STR, NONE, LIST, TUPLE, SHAPE, DTYPE}
                        for v in operands)
                else:
                    data = bool(operands) and not any(isinstance(a, ast.Starred) for a in call.args) and all(
                        _plain_value(v) for v in operands)
            symbolic = True if api.name in ("keras.Input", "keras.layers.Input", "tensorflow.placeholder") \
                else self.traced(scope)
            return Value(TENSOR, True, dtype=dtype, symbolic=symbolic, origin=node, data=data)
        if kind == VARIABLE:
            trainable: bool | None = True
            detail = None
            if call is not None:
                keyword = _keyword(call, "trainable")
                if keyword is not None:
                    detail = keyword
                    trainable = keyword.value if isinstance(keyword, ast.Constant) and \
                        isinstance(keyword.value, bool) else None
            if receiver is not None and receiver.kind == VARIABLE and api.has("stateful"):
                return replace(receiver, origin=node)
            return Value(VARIABLE, True, dtype=dtype, trainable=trainable, origin=node, detail=detail)
        if kind in (LIST, TUPLE):
            element = None
            if api.dtype and api.dtype[0] == "variable":
                element = _certain(VARIABLE, trainable=True)
            elif dtype in ("int", "float", "bool", "complex"):
                element = _certain(NUMBER, dtype=dtype)  # `a.shape`, `np.shape(a)`: Python numbers
            elif dtype is not None and (api.grad == "leave" or api.name.startswith(("numpy.", "@ndarray."))):
                element = _certain(NDARRAY, dtype=dtype)  # `np.meshgrid`, `np.split`: NumPy arrays
            elif dtype is not None:
                element = Value(TENSOR, True, dtype=dtype, symbolic=self.traced(scope))
            return _certain(kind, origin=node, item=element)
        if kind == NUMBER:
            return _certain(NUMBER, dtype=dtype or (api.dtype[0] if api.dtype else None), origin=node)
        if kind == MODEL and api.name in ("keras.Model", "keras.models.Model") and call is not None:
            # A functional model: its `item` is one of the outputs calling it gives, certainly a
            # tensor when `outputs` is one tensor or a list/tuple of tensors written out.
            outputs = _argument_for(call, ["inputs", "outputs"], "outputs", set())
            given = self.value(outputs, scope) if isinstance(outputs, ast.expr) else UNKNOWN_VALUE
            tensors = given.is_(TENSOR) or (given.is_(LIST, TUPLE) and bool(given.items)
                                            and all(v.is_(TENSOR) for v in given.items))
            outputs = given.items if given.is_(LIST, TUPLE) and given.items \
                and any(_model_output(v, None, None).known for v in given.items) else None
            return _certain(kind, ref=api.name, origin=node, item=_certain(TENSOR) if tensors else None,
                            items=outputs)
        if kind in (MODEL, LAYER, OPTIMIZER, LOSS, METRIC, MODULE, DISTRIBUTION, BIJECTOR, TFP_VARIABLE):
            return _certain(kind, ref=api.name, origin=node)
        if kind == DATASET:
            return _certain(DATASET, origin=node, item=_DATASET_ELEMENT)
        return Value(kind, True, dtype=dtype, origin=node)

    def _lookup(self, api: Api, call: ast.Call | None, scope: Scope, node: ast.AST) -> Value:
        """`keras.activations.get(x)`: the library function a string names, the one for None, or
        `x` itself when it is already a function."""
        if call is None or not call.args or not api.dtype:
            return UNKNOWN_VALUE
        namespace = api.dtype[0]
        given = self.value(call.args[0], scope)
        if not given.certain:
            return UNKNOWN_VALUE
        if given.kind == STR and isinstance(given.origin, ast.Constant) and isinstance(given.origin.value, str) \
                and given.origin.value.isidentifier():
            return _certain(LIBRARY, ref=f"{namespace}.{given.origin.value}", origin=node)
        if given.kind == NONE and len(api.dtype) > 1:
            return _certain(LIBRARY, ref=f"{namespace}.{api.dtype[1]}", origin=node)
        if given.kind in (LIBRARY, FUNCTION):
            return given
        return UNKNOWN_VALUE

    def _gradients(self, call: ast.Call | None, scope: Scope, node: ast.AST) -> Value:
        """`tape.gradient(target, source)` of one tensor or variable: a tf.Tensor, or None when
        the target does not depend on it. (A list of sources is not said: a list of gradients
        would make a helper's parameters, `sgd_step(params, grads)`, known where rules read them
        as the first call's variables.)"""
        if call is None:
            return UNKNOWN_VALUE
        given = call.args[1] if len(call.args) > 1 and not isinstance(call.args[1], ast.Starred) \
            else _keyword(call, "sources")
        if given is None:
            return UNKNOWN_VALUE
        sources = self.value(given, scope)
        symbolic = self.traced(scope)

        def gradient(source: Value) -> Value:
            dtype = source.dtype if is_float_dtype(source.dtype) else None
            return Value(TENSOR, False, or_none=True, dtype=dtype, symbolic=symbolic, origin=node)

        if sources.is_(TENSOR, VARIABLE):
            return gradient(sources)
        return UNKNOWN_VALUE

    def _dtype_rule(self, api: Api, call: ast.Call | None, scope: Scope, receiver: Value | None,
                    numpy: bool) -> str | None:
        for rule in api.dtype:
            if rule.startswith("kw="):
                name, _, position = rule[3:].partition("@")
                if call is None:
                    continue
                expr = _keyword(call, name)
                if expr is None and position and position.lstrip("-").isdigit():
                    index = int(position)
                    if 0 <= index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                        expr = call.args[index]
                if expr is None:
                    continue
                if name in ("logits",):
                    return self._dtype_of(self.value(expr, scope), numpy)
                return self.dtype_of_expr(expr, scope, numpy)
            if rule.startswith(("float@", "ufunc@")):
                # A float result of argument POS: its dtype when it is a float, else (integers, bools)
                # the default float, or for NumPy's float ufuncs (np.exp) the float that holds it.
                position = rule.split("@", 1)[1]
                if position == "receiver":  # `a.mean()`
                    if receiver is not None and receiver.dtype is not None:
                        return _float_result(receiver.dtype, numpy, ufunc=rule.startswith("ufunc@"))
                    continue
                if call is None:
                    continue
                index = int(position)
                if index >= len(call.args) or any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                    continue
                value = self.value(call.args[index], scope)
                found = self._dtype_of(value, numpy) or self._data_dtype(call.args[index], scope, numpy)
                if found is not None:
                    return _float_result(found, numpy, ufunc=rule.startswith("ufunc@"))
                if value.known:
                    return None
                continue
            if rule.startswith("arg@") or rule.startswith("data@") or rule.startswith("items@"):
                if call is None:
                    continue
                index = int(rule.split("@", 1)[1])
                if index >= len(call.args) or any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                    continue
                value = self.value(call.args[index], scope)
                if rule.startswith("items@"):
                    value = self.element_of(value)
                found = self._dtype_of(value, numpy)
                if found is None and rule.startswith("data@"):
                    found = self._data_dtype(call.args[index], scope, numpy)
                if found is not None or value.known:
                    return found
                continue
            if rule == "args":
                if call is None:
                    continue
                for arg in call.args:
                    value = self.value(arg, scope)
                    if value.kind in TF_VALUES | NUMPY_VALUES:
                        return value.dtype
                continue
            if rule == "receiver":
                if receiver is not None and receiver.dtype is not None:
                    return receiver.dtype
                continue
            if rule in ("range", "arange"):
                if call is None or not call.args:
                    return None
                values = [self.value(a, scope) for a in call.args[:3]]
                if any(v.kind == NUMBER and v.dtype == "float" or is_float_dtype(v.dtype) for v in values):
                    return "float64" if rule == "arange" else "float32"
                if all(v.kind in (NUMBER,) and v.dtype in ("int", "bool") for v in values):
                    return "int64" if rule == "arange" else "int32"
                if all(v.kind in (NUMBER, TENSOR, NP_SCALAR) and (v.dtype in ("int",) or is_integer_dtype(v.dtype))
                       for v in values):
                    tf_ints = [v.dtype for v in values if v.kind == TENSOR]
                    return tf_ints[0] if tf_ints else ("int64" if rule == "arange" else "int32")
                return None
            if rule == "variable":
                continue
            named = dtype_name(rule)
            if named is not None:
                return named
            if rule in ("float", "int", "bool", "complex"):
                return rule
        return None

    def _dtype_of(self, value: Value, numpy: bool) -> str | None:
        if value.kind in TF_VALUES | NUMPY_VALUES:
            return value.dtype
        if value.kind == NUMBER:
            return _python_dtype(value, numpy)
        return None

    def _data_dtype(self, expr: ast.expr, scope: Scope, numpy: bool) -> str | None:
        """The dtype of Python data written out: nested lists of numbers."""
        value = self.value(expr, scope)
        if value.kind in (LIST, TUPLE):
            element = value.item if value.item is not None else UNKNOWN_VALUE
            while element.kind in (LIST, TUPLE) and element.item is not None:
                element = element.item
            if value.items is not None and isinstance(expr, (ast.List, ast.Tuple)):
                leaves = _leaf_values(self, expr, scope)
                if leaves and all(v.kind == NUMBER for v in leaves):
                    kinds = {v.dtype for v in leaves}
                    if "float" in kinds:
                        return "float64" if numpy else "float32"
                    if kinds == {"bool"}:
                        return "bool"
                    if kinds <= {"int", "bool"}:
                        return "int64" if numpy else "int32"
                    return None
                if leaves and all(v.kind in TF_VALUES | NUMPY_VALUES | {NUMBER} for v in leaves):
                    arrays = [v.dtype for v in leaves if v.kind != NUMBER]
                    return arrays[0] if arrays and len(set(arrays)) == 1 else None
            return self._dtype_of(element, numpy)
        return None

    def dtype_of_expr(self, expr: ast.expr, scope: Scope, numpy: bool = False) -> str | None:
        """The dtype a `dtype=` argument names: `tf.float32`, `np.uint8`, `"int32"`, `x.dtype`."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            text = expr.value
            if text in ("float", "int"):
                return ("float64" if numpy else "float32") if text == "float" else ("int64" if numpy else "int32")
            return dtype_name(text)
        if isinstance(expr, ast.Name) and expr.id in ("float", "int", "bool") and expr.id in _BUILTIN_NAMES:
            return {"float": "float64" if numpy else "float32", "int": "int64" if numpy else "int32",
                    "bool": "bool"}[expr.id]
        qualname = self.facts.imports.resolve(expr)
        if qualname is not None and qualname.startswith(("tensorflow.", "numpy.", "keras.")):
            return dtype_name(qualname.rsplit(".", 1)[-1])
        if isinstance(expr, ast.Attribute) and expr.attr == "dtype":
            return self.value(expr.value, scope).dtype
        value = self.value(expr, scope)
        if value.kind == DTYPE:
            return value.dtype
        return None

    def _plain_data(self, call: ast.Call, scope: Scope) -> bool:
        """Is the first argument plain data (Python numbers, NumPy arrays), not a tensor?"""
        if not call.args:
            return False
        value = self.value(call.args[0], scope)
        if value.kind in (NUMBER, NDARRAY, NP_SCALAR) and value.certain:
            return True
        if value.kind in (LIST, TUPLE) and value.certain:
            leaves = _leaf_values(self, call.args[0], scope) if isinstance(call.args[0], (ast.List, ast.Tuple)) \
                else ([value.item] if value.item is not None else [])
            return bool(leaves) and all(v.certain and v.kind in (NUMBER, NDARRAY, NP_SCALAR) for v in leaves)
        return False

    # --- names ------------------------------------------------------------------------------------

    def _flow(self, scope: Scope) -> Flow | None:
        if scope.kind == "class":
            return flow_of(self.facts, scope)
        return flow_of(self.facts, scope)

    def definitions(self, name: str, scope: Scope, at: ast.AST) -> tuple[list[Def], Scope | None]:
        """The definitions of `name` (or dotted `self.attr`) that a read at `at` in `scope` may
        see, and the scope that makes them: those reaching `at` in `scope`; else, for a plain
        name not bound in `scope`, every definition of the nearest enclosing function or of the
        module (class bodies skipped, `global` honoured). ([], scope) when `scope` binds the name
        but not before `at`; ([], None) when no scope of this file does."""
        flow = self._flow(scope)
        defs = flow.reaching(name, at)
        if defs:
            return defs, scope
        if flow.definitions(name) and scope.kind != "class" and name not in scope.globals:
            return [], scope
        if "." in name:
            return [], None
        current = self.facts.module if name in scope.globals else scope.parent
        while current is not None:
            if current.kind != "class":
                defs = flow_of(self.facts, current).definitions(name)
                if defs:
                    return defs, current
            current = current.parent
        return [], None

    def _name(self, name: str, scope: Scope, at: ast.AST) -> Value:
        defs, owner = self.definitions(name, scope, at)
        if defs:
            return join(self.definition(d, name, owner) for d in defs)  # type: ignore[arg-type]
        if owner is scope and "." not in name:
            return UNKNOWN_VALUE
        if "." in name:
            head, _, attr = name.rpartition(".")
            base = self.name(head, scope, at)
            return self.attribute(base, attr, at, scope)
        if name in self.facts.imports.names:
            return _certain(LIBRARY, ref=self.facts.imports.resolve(ast.Name(id=name, ctx=ast.Load())))
        if name in _BUILTIN_NAMES:
            return _certain(BUILTIN, ref=name)
        return UNKNOWN_VALUE

    def _definition(self, d: Def, name: str, scope: Scope) -> Value:
        kind = d.kind
        stmt = d.stmt
        if kind == "param":
            return self.parameter(stmt, name)
        if kind == "def":
            if isinstance(stmt, ast.ClassDef):
                return _certain(CLASS, ref=stmt, origin=stmt)
            if stmt.decorator_list and unseen_decorators(self.facts, stmt):
                return UNKNOWN_VALUE  # bound to what the decorator returns
            tf_function = self.facts.function_scopes.get(stmt)
            function = _certain(FUNCTION, ref=stmt, origin=stmt)
            if tf_function is not None and tf_function.tf_function is not None \
                    and tf_function.tf_function.kind == "decorator":
                return _certain(TF_FUNCTION, ref=function, origin=stmt)
            return function
        if kind == "import":
            return self._imported(stmt, name)
        if kind == "for":
            element = self._iterated(self.element_of(self.value(d.value, scope)), scope)
            for index in _target_path(stmt, name) or []:  # `for i, (x, y) in enumerate(pairs)`
                element = self._unpack(element, index)
            return element
        if kind == "with":
            context = self.value(d.value, scope)
            if context.kind in (TAPE, OBJECT) or context.kind == UNKNOWN:
                return context if context.kind == TAPE else UNKNOWN_VALUE
            return context
        if kind == "augassign":
            if isinstance(stmt, ast.AugAssign):
                old = join(self.definition(o, name, scope) for o in self._flow(scope).reaching(name, stmt)) \
                    if self._flow(scope) is not None else UNKNOWN_VALUE
                return self.binary(stmt.op, old, self.value(stmt.value, scope), stmt, scope)
            # `x[i] = v`: x keeps its kind
            flow = self._flow(scope)
            if flow is None:
                return UNKNOWN_VALUE
            earlier = [o for o in flow.reaching(name, stmt) if o is not d]
            return join(self.definition(o, name, scope) for o in earlier) if earlier else UNKNOWN_VALUE
        if kind == "assign":
            value = d.value
            if value is None:
                return UNKNOWN_VALUE
            path = _target_path(stmt, name)
            result = self.value(value, scope)
            if path is None:
                return UNKNOWN_VALUE
            for index in path:
                result = self._unpack(result, index)
            return result
        return UNKNOWN_VALUE

    def _iterated(self, element: Value, scope: Scope) -> Value:
        """An element of a tf.data dataset, taken where the code iterates it: eager tensors in
        eager code, symbolic ones while a tf.function traces."""
        if element.ref == _DATASET_ELEMENT.ref and element.kind == TENSOR and element.symbolic is None:
            return replace(element, symbolic=self.traced(scope), ref=None)
        return element

    def _unpack(self, value: Value, index: int | None) -> Value:
        if index is None:  # a starred target
            return _certain(LIST, item=self.element_of(value)) if value.known else UNKNOWN_VALUE
        if value.kind in (TUPLE, LIST):
            if value.items is not None and 0 <= index < len(value.items):
                return value.items[index]
            return value.item if value.item is not None else UNKNOWN_VALUE
        if value.kind == TENSOR and value.items is not None and 0 <= index < len(value.items):
            return value.items[index]  # one output of a model's structure of outputs
        return self.element_of(value)

    def element_of(self, value: Value) -> Value:
        """What iterating over (or unpacking) `value` gives one element of."""
        kind = value.kind
        if kind == DICT:
            return UNKNOWN_VALUE  # its keys (`item` is what its entries hold)
        if kind in (LIST, TUPLE, ITERATOR, OBJECT, DATASET):
            if value.item is not None:
                return value.item if value.certain else value.item.maybe()
            if value.items:
                return join(value.items)
            return UNKNOWN_VALUE
        if kind in (TENSOR, VARIABLE):
            if value.item is not None:
                return value.item
            return Value(TENSOR, value.certain, dtype=value.dtype, symbolic=value.symbolic, data=value.data)
        if kind == NDARRAY:
            return Value(NDARRAY, False, dtype=value.dtype)
        if kind == STR:
            return value
        if kind == SHAPE:
            return Value(NUMBER, False, dtype="int")
        return UNKNOWN_VALUE

    # --- imports and other modules -----------------------------------------------------------

    def _imported(self, stmt: ast.stmt, name: str) -> Value:
        """What `import ...` / `from ... import ...` binds `name` to."""
        from ..facts.names import canonical

        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if (alias.asname or alias.name.split(".")[0]) == name:
                    return self._module(alias.name if alias.asname else alias.name.split(".")[0], 0)
        elif isinstance(stmt, ast.ImportFrom):
            module = stmt.module or ""
            for alias in stmt.names:
                if (alias.asname or alias.name) != name:
                    continue
                if not stmt.level and _library_module(module):
                    return _certain(LIBRARY, ref=canonical(f"{module}.{alias.name}"))
                return self._remote_name(module, alias.name, stmt.level)
        return UNKNOWN_VALUE

    def _module(self, qualname: str, level: int) -> Value:
        from ..facts.names import canonical
        from . import modules

        if level == 0 and _library_module(qualname):
            return _certain(LIBRARY, ref=canonical(qualname))
        path = modules.module_path(self.project, self.path, qualname, level)
        model = self._remote_model(path)
        if model is None:
            return _certain(LIBRARY, ref=qualname) if level == 0 else UNKNOWN_VALUE
        return _certain(LIBRARY, ref=qualname, home=model, remote=modules.label(path))

    def _remote_name(self, module: str, name: str, level: int) -> Value:
        """`name` as module `module` of the project defines it (or the submodule `module.name`)."""
        from . import modules

        path = modules.module_path(self.project, self.path, module, level) if module or level else None
        model = self._remote_model(path)
        if model is not None:
            found = model.module_value(name)
            if found.known:
                return _adopt(found, model, self)
        submodule = f"{module}.{name}" if module else name
        sub_path = modules.module_path(self.project, self.path, submodule, level)
        sub_model = self._remote_model(sub_path)
        if sub_model is not None:
            return _certain(LIBRARY, ref=submodule, home=sub_model, remote=modules.label(sub_path))
        return UNKNOWN_VALUE

    def _remote_model(self, path: str | None) -> "ValueModel | None":
        from . import modules

        if path is None or self.project is None:
            return None
        if self.path is not None and os.path.abspath(path) == os.path.abspath(self.path):
            return None
        if self.reads is None:
            self.reads = modules.Reads()
        model = modules.model_for(path, self.project, self.targets, self.reads)
        if model is not None:
            model.reads = self.reads
        return model

    def module_value(self, name: str) -> Value:
        """The join of the module-level definitions of `name` in this file."""
        module = self.facts.module
        defs = flow_of(self.facts, module).definitions(name)
        if not defs:
            return UNKNOWN_VALUE
        return join(self.definition(d, name, module) for d in defs)

    # --- functions ------------------------------------------------------------------------------

    def returns(self, function: ast.AST) -> Value:
        """The join of what a def (or lambda) of this file returns."""
        key = id(function)
        if key in self._returns:
            return self._returns[key]
        guard = ("returns", key)
        if guard in self._active:
            return self._cycle(guard)
        self._active.add(guard)
        cuts, cycles = self._cut_count, len(self._cycles)
        try:
            result = self._returns_uncached(function)
        finally:
            self._active.discard(guard)
        result = self._settle(guard, cycles, result)
        self._returns[key] = _kept(result)
        if self._cut_count != cuts:
            self._tainted.append((self._returns, key))
        return result

    def _returns_uncached(self, function: ast.AST) -> Value:
        scope = self.facts.function_scopes.get(function)
        if scope is None:
            return UNKNOWN_VALUE
        if isinstance(function, ast.Lambda):
            return self.value(function.body, scope)
        found: list[Value] = []
        generator = False
        for node in body_nodes(self.facts, function, _RETURNS):
            if isinstance(node, ast.Return):
                found.append(self.value(node.value, scope) if node.value is not None else _certain(NONE))
            elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                generator = True
        if generator:
            return _certain(ITERATOR, origin=function)
        if not found or _may_fall_off(function):
            found.append(_certain(NONE))
        return join(found)

    def parameter(self, function: ast.AST, name: str) -> Value:
        key = (id(function), name)
        if key in self._params:
            return self._params[key]
        guard = ("param", key)
        if guard in self._active:
            return self._cycle(guard)
        self._active.add(guard)
        cuts, cycles = self._cut_count, len(self._cycles)
        try:
            result = self._parameter(function, name)
        finally:
            self._active.discard(guard)
        result = self._settle(guard, cycles, result)
        self._params[key] = _kept(result)
        if self._cut_count != cuts:
            self._tainted.append((self._params, key))
        return result

    def _parameter(self, function: ast.AST, name: str) -> Value:
        scope = self.facts.function_scopes.get(function)
        if scope is None or not isinstance(function, _FUNCTION_NODES):
            return UNKNOWN_VALUE
        params = _positional(function)
        cls = _method_class(scope)
        decorators = [dotted(d) for d in getattr(function, "decorator_list", [])]
        if cls is not None and params and params[0] == name and "staticmethod" not in decorators:
            if "classmethod" in decorators:
                return _certain(CLASS, ref=cls)
            return self.instance(cls, function)
        if getattr(function, "decorator_list", None) and unseen_decorators(self.facts, function):
            return UNKNOWN_VALUE  # the decorator's wrapper passes what it likes
        traced = scope.tf_function
        if traced is not None:
            signature = traced.input_signature
            if isinstance(signature, (ast.List, ast.Tuple)):
                offset = 1 if cls is not None else 0
                index = params.index(name) - offset if name in params else -1
                if 0 <= index < len(signature.elts):
                    spec = signature.elts[index]
                    if isinstance(spec, ast.Call) and self.facts.imports.resolve(spec.func) in (
                            "tensorflow.TensorSpec", "tensorflow.RaggedTensorSpec", "tensorflow.SparseTensorSpec"):
                        dtype_expr = _keyword(spec, "dtype") or (spec.args[1] if len(spec.args) > 1 else None)
                        dtype = self.dtype_of_expr(dtype_expr, scope) if dtype_expr is not None else "float32"
                        return _certain(TENSOR, dtype=dtype, symbolic=True, origin=spec)
                return UNKNOWN_VALUE
        annotation = _annotation(function, name)
        if annotation is not None and self.facts.imports.resolve(annotation) == "tensorflow.Tensor":
            return Value(TENSOR, True, symbolic=self.traced(scope), origin=annotation)
        if self._traced_by_combinator(function):
            # A component of the element (`ds.map(f)`): a tensor, unless the body shows a structure
            # of them (`*samples`: a tuple; `sample["image"]`: a dict of features).
            args = function.args  # type: ignore[attr-defined]
            if args.vararg is not None and args.vararg.arg == name:
                return Value(TUPLE, True, symbolic=True, item=Value(TENSOR, False, symbolic=True))
            if args.kwarg is not None and args.kwarg.arg == name:
                return Value(DICT, True, item=Value(TENSOR, False, symbolic=True))
            if _used_as_dict(function, name):
                return Value(DICT, True, item=Value(TENSOR, False, symbolic=True))
            return Value(TENSOR, True, symbolic=True)
        if cls is not None and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and self.class_kind(cls) in (MODEL, LAYER):
            if function.name in _KERAS_STEP_METHODS and len(params) > 1 and params[1] == name:
                return Value(TUPLE, False, symbolic=True, item=Value(TENSOR, True, symbolic=True))
            if function.name in _KERAS_CALL_METHODS and len(params) > 1 and params[1] == name:
                return Value(TENSOR, True, symbolic=None)
        passed = self._passed_values(function, name)
        if traced is not None:
            passed = [_traced_argument(v) for v in passed]
        return join(passed)

    def _passed_values(self, function: ast.AST, name: str) -> list[Value]:
        callers: list[tuple[ast.Call, Scope, bool, ValueModel]] = [
            (call, scope, bound, self) for call, scope, bound in self.callers(function)]
        if not callers:
            callers = self.remote_callers(function)
        default = _default(function, name)
        if not callers:
            # Nobody here calls it: the default, as a maybe (another module may pass anything).
            if default is None:
                return []
            scope = self.facts.function_scopes[function].parent or self.facts.module
            return [self.value(default, scope).maybe()]
        found: list[Value] = []
        params = _positional(function)
        keyword_only = {a.arg for a in function.args.kwonlyargs}  # type: ignore[union-attr]
        for call, scope, bound_self, model in callers:
            offset = 1 if bound_self else 0
            arg = _argument_for(call, params[offset:], name, keyword_only)
            if arg is _STARRED:
                found.append(UNKNOWN_VALUE)
            elif arg is None:
                found.append(self.value(default, self.facts.function_scopes[function].parent or self.facts.module)
                             if default is not None else UNKNOWN_VALUE)
            else:
                found.append(_adopt(model.value(arg, scope), model, self))
        return found

    def passed_arguments(self, function: ast.AST, name: str) -> list[tuple[ast.expr, "ValueModel"]] | None:
        """What each call of `function` (in this file, else in the project's modules that import
        it) passes for its parameter `name`, with the value model of the call's file; None when
        nobody calls it, or a call leaves it to the default or may pass it through `*args`."""
        callers: list[tuple[ast.Call, Scope, bool, ValueModel]] = [
            (call, scope, bound, self) for call, scope, bound in self.callers(function)]
        if not callers:
            callers = self.remote_callers(function)
        if not callers or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        params = _positional(function)
        keyword_only = {a.arg for a in function.args.kwonlyargs}
        out: list[tuple[ast.expr, ValueModel]] = []
        for call, _scope, bound_self, model in callers:
            arg = _argument_for(call, params[1 if bound_self else 0:], name, keyword_only)
            if arg is None or arg is _STARRED:
                return None
            out.append((arg, model))
        return out

    def remote_callers(self, function: ast.AST) -> list[tuple[ast.Call, Scope, bool, "ValueModel"]]:
        """Calls of `function` in the other modules of the project that import it (for a
        function this file never calls itself): (call, scope, receiver fills the first
        parameter, that module's model)."""
        if self.project is None or self.path is None:
            return []
        scope = self.facts.function_scopes.get(function)
        if scope is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        cls = _method_class(scope)
        owner = cls if cls is not None else function
        if owner not in self.facts.tree.body:
            return []  # only what a module-level name makes importable
        if self._remote_questions >= MAX_REMOTE_CALLER_QUESTIONS or not self._reverse_callers:
            return []  # within one check's limit (library code asks about every public function)
        self._remote_questions += 1
        try:
            candidates = self.project.importers(self.path, owner.name)
        except (OSError, AttributeError, TypeError, ValueError):
            return []
        found: list[tuple[ast.Call, Scope, bool, ValueModel]] = []
        for path in candidates[:MAX_IMPORTERS_READ]:
            model = self._remote_model(path)
            if model is None:
                continue
            for site in model.facts.calls:
                func = site.node.func
                last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
                wanted = {function.name} | ({cls.name} if cls is not None and function.name == "__init__" else set())
                if last not in wanted and not (cls is not None and function.name in ("__call__", "call")):
                    continue
                value = model.value(func, site.scope)
                bound = self._runs_here(value, function, cls)
                if bound is not None:
                    found.append((site.node, site.scope, bound, model))
        return found

    def _runs_here(self, value: Value, function: ast.FunctionDef, cls: ast.ClassDef | None) -> bool | None:
        """Does a value another module's model found run `function` of this file? Its nodes are
        that model's parse of this file: matched by name and line. Whether the receiver fills
        the first parameter, or None."""
        def mine(node: Any, kind: str) -> bool:
            home = value.home if kind == "value" else getattr(node, "_home", None)
            return home is not None and home.path is not None and self.path is not None \
                and os.path.abspath(home.path) == os.path.abspath(self.path)

        def same(node: ast.AST | None, target: ast.AST) -> bool:
            return isinstance(node, type(target)) and getattr(node, "name", None) == getattr(target, "name", None) \
                and getattr(node, "lineno", None) == getattr(target, "lineno", None)

        if value.kind == FUNCTION and cls is None:
            return False if mine(value, "value") and same(value.ref, function) else None
        if value.kind == TF_FUNCTION and cls is None and isinstance(value.ref, Value):
            target = value.ref
            home = target.home or value.home
            if home is not None and home.path and os.path.abspath(home.path) == os.path.abspath(self.path or "") \
                    and same(target.ref, function):
                return False
            return None
        if cls is None:
            return None
        receiver = value.ref if value.kind == METHOD else value
        # A value adopted from another model carries its home; what it holds inherits it.
        home = (receiver.home if isinstance(receiver, Value) else None) or value.home
        if not isinstance(receiver, Value) or receiver.user_class is None or home is None:
            if value.kind == CLASS and isinstance(value.ref, ast.ClassDef) and value.home is not None \
                    and function.name == "__init__" and same(value.ref, cls):
                return True
            return None
        if home.path is None or os.path.abspath(home.path) != os.path.abspath(self.path or ""):
            return None
        remote_cls = receiver.user_class
        if not same(remote_cls, cls):
            return None
        if value.kind == METHOD:
            method = _class_method(home.facts, remote_cls, value.attr or "")
            return True if method is not None and same(method, function) else None
        if value.kind in (MODEL, LAYER, INSTANCE, MODULE) and function.name in ("call", "__call__"):
            return True
        return None

    def argument(self, call: ast.Call, function: ast.AST, name: str, bound_self: bool) -> ast.expr | None:
        """The expression `call` (one of `callers(function)`) passes for parameter `name`; None
        when it passes none (the default applies) or may pass it through `*args` / `**kwargs`."""
        found = _argument_for(call, _positional(function)[1 if bound_self else 0:], name, set())
        return None if found is _STARRED else found

    def positional_parameters(self, function: ast.AST) -> list[str]:
        """The positional parameters of a def or lambda, without the `self` / `cls` of a method."""
        if not isinstance(function, _FUNCTION_NODES):
            return []
        params = _positional(function)
        scope = self.facts.function_scopes.get(function)
        decorators = [dotted(d) for d in getattr(function, "decorator_list", [])]
        if scope is not None and _method_class(scope) is not None and "staticmethod" not in decorators:
            return params[1:]
        return params

    def callers(self, function: ast.AST) -> list[tuple[ast.Call, Scope, bool]]:
        """The calls in this file that run `function`: (call, its scope, whether the
        receiver fills the first parameter)."""
        key = id(function)
        found = self._callers.get(key)
        if found is not None:
            return found  # type: ignore[return-value]
        self._callers[key] = []  # while computing: no callers (recursion)
        result: list[tuple[ast.Call, Scope, bool]] = []
        scope = self.facts.function_scopes.get(function)
        if scope is None or (getattr(function, "decorator_list", None) and unseen_decorators(self.facts, function)):
            return result  # calls of the name run the decorator's result, not this body
        names = set()
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(function.name)
        cls = _method_class(scope)
        for binding in self._tf_function_bindings():
            if binding.value.args:
                target = binding.value.args[0]
                if (isinstance(target, ast.Name) and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and target.id == function.name) or target is function:
                    names.add(binding.name.rsplit(".", 1)[-1])
        instance_call = cls is not None and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            and function.name in ("__call__", "call")
        if cls is not None and getattr(function, "name", "") == "__init__":
            names.add(cls.name)  # `Agent(...)` runs `Agent.__init__`
            names.update(sub.name for sub in self._subclasses(cls)
                         if _class_method(self.facts, sub, "__init__") is function)
        by_name = self.facts.calls_by_last_name
        sites = self.facts.calls if instance_call else [site for name in names for site in by_name(name)]
        for site in sites:
            func = site.node.func
            if instance_call and (site.qualname is not None or not isinstance(func, (ast.Name, ast.Attribute))):
                continue  # a library's function (resolved through the imports) is no object of this file
            value = self.value(func, site.scope)
            if self._runs(value, function, cls):
                result.append((site.node, site.scope, cls is not None and value.kind in (METHOD, CLASS) or (
                    cls is not None and value.kind in _OBJECT_KINDS)))
        if cls is None and not instance_call:
            result.extend((site.node, site.scope, False) for site in self._calls_through_containers()
                          if self._may_run_entry(site, function))
        self._callers[key] = result
        return result

    def _subclasses(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        """The classes of this file that derive from `cls` (through classes of this file), in
        the order of `facts.classes`; every class's chain is read once per file."""
        index = self.__dict__.get("_subclasses_of")
        if index is None:
            index = {}
            for sub in self.facts.classes.values():
                for base in _class_chain(self.facts, sub)[1:]:
                    index.setdefault(id(base), []).append(sub)
            self.__dict__["_subclasses_of"] = index
        return index.get(id(cls), [])

    def _tf_function_bindings(self) -> list:
        """The file's names bound to `tf.function(...)` calls (looked at for every function whose
        callers are asked)."""
        found = self.__dict__.get("_tf_function_bound")
        if found is None:
            found = [b for b in self.facts.bindings if b.kind == "tf_function" and isinstance(b.value, ast.Call)]
            self.__dict__["_tf_function_bound"] = found
        return found

    def _calls_through_containers(self) -> list:
        """The file's calls of an entry of a container (`LOSSES["mse"](pred, y)`, `steps[i](x)`)."""
        found = self.__dict__.get("_entry_calls")
        if found is None:
            found = [site for site in self.facts.calls if isinstance(site.node.func, ast.Subscript)]
            self.__dict__["_entry_calls"] = found
        return found

    def _may_run_entry(self, site, function: ast.AST) -> bool:
        """Does `table[key](...)` call `function`: is it an entry of the dict, list or tuple
        written out that `table` holds (the entry the constant key names, else any)?"""
        func = site.node.func
        container = self.value(func.value, site.scope)
        literal = container.origin
        if container.kind not in (DICT, LIST, TUPLE) or not isinstance(literal, (ast.Dict, ast.List, ast.Tuple)):
            return False
        if isinstance(literal, ast.Dict):
            if any(k is None for k in literal.keys):
                entries = list(literal.values)  # `**other` in it: any entry
            else:
                entries = [v for k, v in zip(literal.keys, literal.values) if isinstance(k, ast.Constant)
                           and k.value == func.slice.value] if isinstance(func.slice, ast.Constant) \
                    else list(literal.values)
        else:
            entries = list(literal.elts)
        owner = self.scope_at(literal)
        for entry in entries:
            value = self.value(entry, owner)
            if value.kind == FUNCTION and value.ref is function:
                return True
        return False

    def _runs(self, value: Value, function: ast.AST, cls: ast.ClassDef | None) -> bool:
        if value.kind == FUNCTION:
            return value.ref is function
        if value.kind == CLASS and cls is not None and value.home is None:
            return isinstance(value.ref, ast.ClassDef) and getattr(function, "name", "") == "__init__" \
                and _class_method(self.facts, value.ref, "__init__") is function
        if value.kind == TF_FUNCTION:
            target = value.ref
            return isinstance(target, Value) and target.kind == FUNCTION and target.ref is function
        if value.kind == METHOD and cls is not None:
            receiver = value.ref
            owner = receiver.user_class if isinstance(receiver, Value) else None
            return owner is not None and _class_method(self.facts, owner, value.attr or "") is function
        if cls is not None and value.kind in _OBJECT_KINDS and value.user_class is not None:
            name = getattr(function, "name", "")
            methods = ("call", "__call__") if value.kind in (MODEL, LAYER) else ("__call__",)
            for method_name in methods:
                found = _class_method(self.facts, value.user_class, method_name)
                if found is not None:
                    return found is function and name == method_name
        return False

    def _traced_by_combinator(self, function: ast.AST) -> bool:
        return self.tracing_call(function) is not None

    def tracing_call(self, function: ast.AST) -> ast.Call | None:
        """The call that traces `function` because the table says its parameters are traced
        there: `tf.map_fn(fn, ...)`, `dataset.map(fn)`, `tf.while_loop(cond, body, ...)`."""
        key = id(function)
        found = self._combinators.get(key)
        if found is None:
            self._combinators[key] = False  # while computing
            if self._passing is None:
                self._passing = {}
                for site in self.facts.calls:
                    for arg in (*site.node.args, *(k.value for k in site.node.keywords)):
                        if isinstance(arg, ast.Name):
                            self._passing.setdefault(arg.id, []).append(site)
                        elif isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) \
                                and arg.value.id in ("self", "cls"):
                            # `ds.map(self._parse)`: a method of the class the call is in, by its name
                            self._passing.setdefault(arg.attr, []).append(site)
                        elif isinstance(arg, ast.Lambda):
                            self._passing.setdefault(id(arg), []).append(site)
            passing = self._passing.get(function.name if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                                        else id(function), ())
            found = self._combinators[key] = next(
                (site.node for site in passing if self._traces_argument(site.node, site.scope, function)), False)
        return found or None

    def _traces_argument(self, call: ast.Call, scope: Scope, function: ast.AST) -> bool:
        func = self.value(call.func, scope)
        api = None
        if func.kind == LIBRARY:
            api = library.api(func.ref)
        elif func.kind == METHOD and isinstance(func.ref, Value):
            api = library.method(func.ref.kind, func.attr or "")
        if api is None or not api.traced_fn:
            return False
        if any(self._passes_function(k.value, scope, function) for k in call.keywords):
            return True
        return any(i < len(call.args) and self._passes_function(call.args[i], scope, function) for i in api.traced_fn)

    def _passes_function(self, expr: ast.expr, scope: Scope, function: ast.AST) -> bool:
        """`expr`, an argument of a call in `scope`, is `function`: the def or lambda itself, its
        name, or `self.name` / `cls.name` in a method of a class whose method `name` is `function`
        (a bound method given to `ds.map`)."""
        if _names_function(expr, function):
            return True
        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
                and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and expr.attr == function.name):
            return False
        receiver = expr.value.id
        method: Scope | None = scope.function
        while method is not None and method.kind in ("function", "lambda") and _method_class(method) is None:
            if receiver in _positional(method.node):
                return False  # a closure's own parameter of that name
            method = method.parent  # a closure in the method sees its `self`
        if method is None or method.kind != "function":
            return False
        cls = _method_class(method)
        params = _positional(method.node)
        decorators = [dotted(d) for d in getattr(method.node, "decorator_list", [])]
        if cls is None or not params or params[0] != receiver or "staticmethod" in decorators:
            return False
        return _class_method(self.facts, cls, expr.attr) is function

    # --- classes -----------------------------------------------------------------------------

    def instance_attribute(self, cls: ast.ClassDef, attr: str) -> Value:
        """`self.attr` of an instance of `cls`: the join of the class's assignments to it,
        a method of the class, or a class-level attribute."""
        key = (id(cls), attr)
        if key in self._attrs:
            return self._attrs[key]
        guard = ("attr", key)
        if guard in self._active:
            return self._cycle(guard)
        self._active.add(guard)
        cuts, cycles = self._cut_count, len(self._cycles)
        try:
            result = self._instance_attribute(cls, attr)
        finally:
            self._active.discard(guard)
        result = self._settle(guard, cycles, result)
        self._attrs[key] = _kept(result)
        if self._cut_count != cuts:
            self._tainted.append((self._attrs, key))
        return result

    def _instance_attribute(self, cls: ast.ClassDef, attr: str) -> Value:
        assigned: list[Value] = []
        for owner in _class_chain(self.facts, cls):
            for method in owner.body:
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if method.name == attr:
                        decorators = [dotted(d) for d in method.decorator_list]
                        if "property" in decorators:
                            return self.returns(method)
                        return Value(METHOD, True, ref=self.instance(cls, method), attr=attr, origin=method)
                    scope = self.facts.function_scopes.get(method)
                    if scope is None:
                        continue
                    flow = flow_of(self.facts, scope)
                    for d in flow.definitions(f"self.{attr}"):
                        assigned.append(self.definition(d, f"self.{attr}", scope))
                elif isinstance(method, (ast.Assign, ast.AnnAssign)):
                    targets = method.targets if isinstance(method, ast.Assign) else [method.target]
                    if any(isinstance(t, ast.Name) and t.id == attr for t in targets) and method.value is not None:
                        class_scope = next((s for s in self.facts.scopes if s.node is owner), None)
                        assigned.append(self.value(method.value, class_scope) if class_scope else UNKNOWN_VALUE)
            if assigned:
                break
        if not assigned:
            return UNKNOWN_VALUE
        return join(assigned)

    # --- which Keras ---------------------------------------------------------------------------

    def keras_major(self, origin: ast.AST | None = None) -> int:
        """2 for Keras 2 (tf_keras; `keras` itself when the target is a Keras 2; `tf.keras`
        before TensorFlow 2.16), else 3: from the name the call `origin` was made through,
        else from what the file imports."""
        imports = self.facts.imports
        targets = self.targets
        if isinstance(origin, ast.Call):
            raw = imports.raw(origin.func) or ""
            if raw.startswith("tf_keras") or (raw.startswith("tensorflow") and self._legacy_keras()):
                return 2
            if raw.startswith("keras") and targets is not None and targets.keras is not None:
                return 2 if targets.keras < _KERAS_3 else 3
            if raw.startswith(("tensorflow", "keras")):
                return self._tf_keras_major()
        raws = set(imports.names.values())
        if any(r.startswith("tf_keras") for r in raws) and not any(r == "keras" or r.startswith("keras.") for r in raws):
            return 2
        return 2 if self._legacy_keras() else self._tf_keras_major()

    def _legacy_keras(self) -> bool:
        """Does the module set TF_USE_LEGACY_KERAS (`os.environ["TF_USE_LEGACY_KERAS"] = "1"`,
        or through `setdefault`) before it uses TensorFlow? Then `tf.keras` is tf_keras."""
        found = self.__dict__.get("_legacy_keras_set")
        if found is None:
            found = self.__dict__["_legacy_keras_set"] = self._sets_legacy_keras()
        return found

    def _sets_legacy_keras(self) -> bool:
        for stmt in self.facts.tree.body:
            target = value = None
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
                target, value = stmt.targets[0], stmt.value
                key = target.slice
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "setdefault" \
                    and len(stmt.value.args) == 2:
                target, (key, value) = stmt.value.func, stmt.value.args
            if target is None or self.facts.imports.resolve(target.value) != "os.environ":
                continue
            if isinstance(key, ast.Constant) and key.value == "TF_USE_LEGACY_KERAS" \
                    and isinstance(value, ast.Constant) and str(value.value).lower() in ("1", "true", "yes"):
                return True
        return False

    def _tf_keras_major(self) -> int:
        targets = self.targets
        if targets is None:
            return 3
        if targets.tensorflow < _TF_WITH_KERAS_3 or (targets.keras is not None and targets.keras < _KERAS_3):
            return 2
        return 3

    # --- tracing ------------------------------------------------------------------------------

    def traced(self, scope: Scope) -> bool | None:
        """Does code in `scope` run while a tf.function traces (True), never (False), or
        both or unknown (None)?"""
        if self._graph_mode:
            return True
        function = scope.function
        if function is None:
            return False
        if function.traced_by is not None:
            return True
        if self._traced is None:
            from .traced import traced_functions

            self._traced = {}
            for tf_function in self.facts.tf_functions:
                for node in traced_functions(self.facts, tf_function):
                    self._traced[id(node)] = True
        if self._traced.get(id(function.node)):
            return None  # a helper a trace calls: maybe called eagerly too
        cls = _method_class(function)
        if cls is not None and isinstance(function.node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and function.node.name in _KERAS_STEP_METHODS and self.class_kind(cls) in (MODEL,):
            return True
        return False

    # --- descriptions ---------------------------------------------------------------------------

    def describe(self, value: Value, line_label=None) -> str:
        """"tf.Tensor float32, eager, made on line 4 from NumPy data"."""
        return describe(value, line_label or self.facts.line_label)


def describe(value: Value, line_label=lambda line: f"line {line}") -> str:
    kind = value.kind
    if kind == UNKNOWN:
        return "unknown"
    names = {
        NUMBER: "a Python {dtype}", STR: "a str", NONE: "None", LIST: "a list", TUPLE: "a tuple", DICT: "a dict",
        NDARRAY: "a NumPy array", NP_SCALAR: "a NumPy scalar", TENSOR: "tf.Tensor", VARIABLE: "tf.Variable",
        TFP_VARIABLE: "a TFP TransformedVariable", MODEL: "a Keras model", LAYER: "a Keras layer",
        OPTIMIZER: "an optimizer", LOSS: "a Keras loss", METRIC: "a Keras metric", MODULE: "a tf.Module",
        TAPE: "a GradientTape", TF_FUNCTION: "a tf.function", DATASET: "a tf.data.Dataset",
        LINEAR_OPERATOR: "a tf.linalg.LinearOperator",
        ITERATOR: "a Python iterator", DISTRIBUTION: "a TFP distribution", BIJECTOR: "a TFP bijector",
        INSTANCE: "an instance of `{cls}`", FUNCTION: "a function", CLASS: "the class `{cls}`",
        LIBRARY: "`{ref}`", METHOD: "a method", BUILTIN: "the builtin `{ref}`", SHAPE: "a shape",
        DTYPE: "a dtype", GENERATOR: "a NumPy random generator", SCHEDULE: "a learning-rate schedule",
        INITIALIZER: "an initializer", OBJECT: "an object",
    }
    cls = value.user_class
    text = names.get(kind, kind).format(dtype=value.dtype or "number", cls=getattr(cls or value.ref, "name", ""),
                                        ref=value.ref if isinstance(value.ref, str) else "")
    parts: list[str] = []
    if kind in (TENSOR, VARIABLE, NDARRAY, NP_SCALAR) and value.dtype:
        text += f" {value.dtype}"
    if kind == TENSOR and value.symbolic is not None:
        parts.append("symbolic" if value.symbolic else "eager")
    if kind == VARIABLE and value.trainable is False:
        parts.append("not trainable")
    if cls is not None and kind in (MODEL, LAYER, MODULE):
        text += f" (`{cls.name}`)"
    if not value.certain:
        text = f"maybe {text}"
    made = ""
    if value.origin is not None and hasattr(value.origin, "lineno") and kind not in (LIBRARY, BUILTIN):
        made = f"made {'in ' + value.remote + ' ' if value.remote else 'on '}{line_label(value.origin.lineno)}" \
            if not value.remote else f"made in {value.remote}"
    if made:
        if kind == TENSOR and value.data:
            made += " from plain data"
        parts.append(made)
    return ", ".join([text, *parts])


# --- helpers --------------------------------------------------------------------------------

def class_method(facts: Facts, cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    """The def of method `name` of `cls` or of a base class defined in the same file."""
    return _class_method(facts, cls, name)


def fresh_construction(model: "ValueModel", value: Value) -> bool:
    """A Keras object a library constructor made in this file from plain arguments (numbers,
    strings, other fresh constructions): it holds only variables of its own."""
    if not value.certain or value.kind not in (LAYER, MODEL, LOSS, METRIC, DISTRIBUTION, BIJECTOR) \
            or not isinstance(value.ref, str):
        return False
    call = value.origin
    if not isinstance(call, ast.Call) or value.home is not None:
        return False
    scope = model.scope_at(call)
    for arg in (*call.args, *(k.value for k in call.keywords)):
        if not _plain_argument(model, arg, scope, 0):
            return False
    return True


def _plain_argument(model: "ValueModel", expr: ast.expr, scope: Scope, depth: int) -> bool:
    if depth > 16:
        return False
    if isinstance(expr, (ast.List, ast.Tuple)):
        return all(_plain_argument(model, e, scope, depth + 1) for e in expr.elts)
    value = model.value(expr, scope)
    if value.certain and value.kind in (NUMBER, STR, NONE, INITIALIZER, OBJECT, SHAPE, DTYPE):
        return True
    if value.certain and value.kind == LIBRARY:
        return True  # `activation=tf.nn.relu`
    if value.kind in (LAYER, MODEL):
        # Made right here (`Sequential([Dense(2)])`); an existing layer or model passed in is
        # shared with whoever else holds it.
        return value.origin is expr and fresh_construction(model, value)
    if value.kind in (DISTRIBUTION, BIJECTOR):
        return fresh_construction(model, value)
    if value.certain and value.kind in (NDARRAY, NP_SCALAR) or (value.is_(TENSOR) and value.data):
        return True
    if value.is_(TENSOR) and value.symbolic:
        return _fresh_keras_tensor(model, value.origin, scope, depth + 1)
    return False


def _fresh_keras_tensor(model: "ValueModel", origin: ast.AST | None, scope: Scope, depth: int) -> bool:
    """A Keras functional tensor built only from `keras.Input`s and layers made here from plain
    arguments (`Dense(1)(Concatenate()([s, a]))`), so a model made from it has fresh variables."""
    if depth > 16 or not isinstance(origin, ast.Call):
        return False
    func = origin.func
    layer = model.value(func, scope)
    if isinstance(func, ast.Call):
        made_here = True
    else:
        made_here = isinstance(layer.origin, ast.Call) and _contains_node(scope.node, layer.origin)
    if layer.kind in (LAYER, MODEL) and made_here and fresh_construction(model, layer):
        return all(_plain_argument(model, a, scope, depth + 1) for a in origin.args)
    called = model.value(origin, scope)
    return called.is_(TENSOR) and called.data


def _contains_node(container: ast.AST, node: ast.AST) -> bool:
    return hasattr(container, "lineno") and _contains(container, node)


def same_construction(a: Value, b: Value) -> bool:
    """Might `a` and `b` be the same object? False only when both were made by different
    constructor calls of this file."""
    if a.origin is None or b.origin is None or a.home is not None or b.home is not None:
        return True
    if not isinstance(a.origin, ast.Call) or not isinstance(b.origin, ast.Call):
        return True
    return a.origin is b.origin


def _adopt(value: Value, owner: "ValueModel", here: "ValueModel") -> Value:
    """A value found by another file's model, as this file sees it: its references stay with
    that model, and its origin is named by that file."""
    if owner is here or not value.known:
        return value
    from .modules import label

    return replace(value, home=value.home or owner, remote=value.remote or (label(owner.path) if owner.path else "another module"))


def _library_module(qualname: str) -> bool:
    from .modules import LIBRARIES

    return qualname.split(".")[0] in LIBRARIES


class _Starred:
    pass


_STARRED = _Starred()


def _contains(container: ast.AST, node: ast.AST) -> bool:
    start = (container.lineno, container.col_offset)  # type: ignore[attr-defined]
    end = (container.end_lineno or container.lineno, container.end_col_offset or 0)  # type: ignore[attr-defined]
    where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    return start <= where <= end


def _body_scope(scope: Scope, node: ast.AST) -> Scope:
    """Decorators, defaults and annotations of a def belong to the scope around it."""
    owner = scope.node
    if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)):
        body_start = (owner.body[0].lineno, owner.body[0].col_offset) if owner.body else (0, 0)
        where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if where < body_start and not _in_args_only(owner, node):
            return scope.parent or scope
        if where < body_start:
            return scope.parent or scope
    if isinstance(owner, ast.Lambda):
        if not _contains(owner.body, node):
            return scope.parent or scope
    if isinstance(owner, ast.ClassDef):
        body_start = (owner.body[0].lineno, owner.body[0].col_offset) if owner.body else (0, 0)
        if (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) < body_start:
            return scope.parent or scope
    return scope


def _in_args_only(owner: ast.AST, node: ast.AST) -> bool:
    return False


def _positional(function: ast.AST) -> list[str]:
    args = function.args  # type: ignore[attr-defined]
    return [a.arg for a in (*args.posonlyargs, *args.args)]


def _annotation(function: ast.AST, name: str) -> ast.expr | None:
    args = function.args  # type: ignore[attr-defined]
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            return arg.annotation
    return None


def _default(function: ast.AST, name: str) -> ast.expr | None:
    args = function.args  # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    defaults = args.defaults
    offset = len(positional) - len(defaults)
    for index, arg in enumerate(positional):
        if arg.arg == name and index >= offset:
            return defaults[index - offset]
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if arg.arg == name:
            return default
    return None


def _argument_for(call: ast.Call, params: list[str], name: str, keyword_only: set[str]):
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
        if keyword.arg is None:
            return _STARRED
    if name in params:
        index = params.index(name)
        for position, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                return _STARRED if position <= index else None
            if position == index:
                return arg
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _dtype_keyword(model: ValueModel, call: ast.Call, name: str, position: int, scope: Scope) -> str | None:
    expr = _keyword(call, name)
    if expr is None and len(call.args) > position:
        expr = call.args[position]
    return model.dtype_of_expr(expr, scope) if expr is not None else None


def _method_class(scope: Scope) -> ast.ClassDef | None:
    if scope.kind in ("function", "lambda") and scope.parent is not None and scope.parent.kind == "class":
        return scope.parent.node  # type: ignore[return-value]
    return None


def _class_chain(facts: Facts, cls: ast.ClassDef) -> list[ast.ClassDef]:
    """The class and its bases defined in this file, nearest first."""
    chain = [cls]
    index = 0
    while index < len(chain) and len(chain) < 16:
        for base in chain[index].bases:
            if isinstance(base, ast.Name) and base.id in facts.classes and facts.classes[base.id] not in chain:
                chain.append(facts.classes[base.id])
        index += 1
    return chain


# Decorators whose result is called like the def they decorate (the same arguments reach its
# parameters, its return is what the call gives), or that only register or mark it.
_SEE_THROUGH_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "abc.abstractmethod", "functools.wraps", "functools.lru_cache",
    "functools.cache", "typing.overload", "typing.final", "typing_extensions.override",
    "tensorflow.function", "tensorflow.autograph.experimental.do_not_convert",
    "keras.utils.register_keras_serializable", "keras.saving.register_keras_serializable",
})


def unseen_decorators(facts: Facts, function: ast.AST) -> list[ast.expr]:
    """The decorators of a def that the value model cannot see through: anything but
    `tf.function`, the builtins and the registering decorators above, a property's
    `.setter`, and a def of this file that returns the function it is given. The def's
    name is bound to what such a decorator returns, which may call the body later, with
    other arguments, in graph mode, or never (`tff.tf_computation` traces it once, in a
    graph; tf_agents' `future_in_eager_mode` returns a callable in eager mode)."""
    found = []
    for decorator in getattr(function, "decorator_list", ()):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = dotted(target) or ""
        qualname = facts.imports.resolve(target) or ("" if name in facts.imports.names else name)
        if qualname in _SEE_THROUGH_DECORATORS or (isinstance(target, ast.Attribute)
                                                  and target.attr in ("setter", "getter", "deleter")):
            continue
        if isinstance(target, ast.Name) and not isinstance(decorator, ast.Call) and any(
                isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == target.id
                and _returns_its_argument(stmt) for stmt in facts.tree.body):
            continue
        found.append(decorator)
    return found


def _returns_its_argument(decorator: ast.AST) -> bool:
    """`def register(fn): REGISTRY.append(fn); return fn`: the decorated def stays itself."""
    if not isinstance(decorator, (ast.FunctionDef, ast.AsyncFunctionDef)) or not decorator.args.args:
        return False
    param = decorator.args.args[0].arg
    returns = [n for n in ast.walk(decorator) if isinstance(n, ast.Return)]
    return bool(returns) and all(isinstance(r.value, ast.Name) and r.value.id == param for r in returns)


def wrapped_unseen(facts: Facts, function: ast.AST) -> bool:
    """Is a tf.function def handed to a decorator the value model cannot see through
    (`@tff.tf_computation(...)` above `@tf.function`)? How that decorator calls it (how
    often, eagerly or in a graph) is not known."""
    decorators = list(getattr(function, "decorator_list", ()))
    unseen = unseen_decorators(facts, function)
    for index, decorator in enumerate(decorators):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if facts.imports.resolve(target) == "tensorflow.function":
            return any(decorators.index(u) < index for u in unseen)
    return False


def _class_method(facts: Facts, cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for owner in _class_chain(facts, cls):
        for stmt in owner.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                return stmt  # type: ignore[return-value]
    return None


def _names_function(expr: ast.expr, function: ast.AST) -> bool:
    if expr is function:
        return True
    return isinstance(expr, ast.Name) and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and expr.id == function.name


_DICT_ONLY_METHODS = frozenset({"keys", "items", "values", "get", "update", "setdefault", "popitem"})


_DICT_READS = frozenset({"get", "keys", "values", "items", "copy"})


def _read_use(node: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """A use of a name that reads the dict it holds and cannot change it (see `_only_read`)."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = parents.get(id(parent))
        return parent.attr in _DICT_READS and isinstance(call, ast.Call) and call.func is parent
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" \
            and parent.args == [node]:
        return True
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return True
    if isinstance(parent, ast.Compare) and node in parent.comparators and all(
            isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops):
        return True
    return False


def _used_as_dict(function: ast.AST, name: str) -> bool:
    """Does the body of `function` use its parameter `name` as a dict: index it with a string
    (`sample["image"]`), call a method only a dict has, or test a string's membership in it?"""
    for node in ast.walk(function):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name \
                and node.attr in _DICT_ONLY_METHODS:
            return True
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) \
                and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == name:
            return True
    return False


def _function_output(home: "ValueModel", value: Value, symbolic: bool | None, call: ast.Call,
                     depth: int = 0) -> Value:
    """A structure a tf.function returns, as its caller gets it: the same lists, tuples and dicts,
    and every leaf a tensor of the caller (eager when it runs eagerly), also a variable, an array
    or a Python number or string the trace returned (TensorFlow converts them; anything else but
    None is an error or an extension type). A literal written in the function's body is read
    element by element: `{"boxes": boxes, "count": 4}` holds only tensors once returned."""
    if value.kind in CONTAINERS and depth < 4:
        items = None if value.items is None else tuple(
            _function_output(home, v, symbolic, call, depth + 1) for v in value.items)
        literal = value.origin
        elements = None
        if isinstance(literal, ast.Dict) and all(k is not None for k in literal.keys):
            elements = literal.values
        elif isinstance(literal, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in literal.elts):
            elements = literal.elts
        if elements and value.origin is not None and home.scope_at(literal) is not None:
            where = home.scope_at(literal)
            item = join(_function_output(home, home.value(e, where), symbolic, call, depth + 1) for e in elements)
        else:
            item = None if value.item is None else _function_output(home, value.item, symbolic, call, depth + 1)
        return replace(value, items=items, item=item, origin=call, remote=None, home=None)
    if value.kind in TF_VALUES or value.kind in NUMPY_VALUES or value.kind in (NUMBER, STR):
        return Value(TENSOR, value.certain, dtype=value.dtype if value.kind in TF_VALUES else None,
                     symbolic=symbolic, origin=call)
    if value.kind == NONE:
        return value
    return UNKNOWN_VALUE


def _traced_argument(value: Value) -> Value:
    """What a tf.function's trace sees for an argument: tensors and NumPy arrays become
    symbolic tensors; Python values stay what they are."""
    if value.kind in (TENSOR, NDARRAY, NP_SCALAR):
        return Value(TENSOR, value.certain, dtype=value.dtype, symbolic=True, origin=value.origin,
                     data=False)
    return value


def _target_path(stmt: ast.stmt, name: str) -> list[int | None] | None:
    """Where `name` sits in the assignment's target: [] for `name = ...`, [1] for
    `a, name = ...`, [0, 1] for `(a, name), b = ...`; None when it is not a plain target."""
    targets: list[ast.expr]
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign):
        targets = [stmt.target]
    elif isinstance(stmt, (ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [stmt.target]
    else:
        return [] if isinstance(stmt, (ast.Expr,)) else ([] if hasattr(stmt, "value") else None)

    def find(target: ast.expr) -> list[int | None] | None:
        if dotted(target) == name:
            return []
        if isinstance(target, (ast.Tuple, ast.List)):
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    inner = find(element.value)
                    if inner is not None:
                        return [None, *inner]
                    continue
                inner = find(element)
                if inner is not None:
                    return [index, *inner]
        return None

    for target in targets:
        found = find(target)
        if found is not None:
            return found
    # walrus and other definitions whose value is the whole expression
    return [] if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else None


def _leaf_values(model: ValueModel, expr: ast.expr, scope: Scope) -> list[Value]:
    if isinstance(expr, (ast.List, ast.Tuple)):
        out: list[Value] = []
        for element in expr.elts:
            out.extend(_leaf_values(model, element, scope))
        return out
    return [model.value(expr, scope)]


_RETURNS = (ast.Return, ast.Yield, ast.YieldFrom)


def _may_fall_off(function: ast.AST) -> bool:
    """Can the body end without a return (then the function returns None)?"""
    body = getattr(function, "body", [])
    return not _ends(body)


def _ends(body: list[ast.stmt]) -> bool:
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _ends(last.body)
    if isinstance(last, ast.Try):
        return _ends(last.body + last.orelse) and all(_ends(h.body) for h in last.handlers)
    if isinstance(last, ast.While) and isinstance(last.test, ast.Constant) and last.test.value is True:
        return True
    return False


# --- one model per file -------------------------------------------------------------------

def values_of(facts: Facts, targets: Any = None, project: Any = None, path: str | None = None) -> ValueModel:
    """The value model of the file whose facts these are (kept while the same tree is checked).
    `project` (a tapelsp.project.Project) lets it read the other modules of the user's project."""
    cached = facts.__dict__.get("_value_model")
    if cached is not None and cached.targets == targets and cached.project is project and cached.path == path:
        return cached
    model = ValueModel(facts, targets, project=project, path=path)
    facts.__dict__["_value_model"] = model
    return model


def values_for(ctx) -> ValueModel:
    """`values_of` for a rule's context."""
    return values_of(ctx.facts, ctx.targets, ctx.project, ctx.path)
