"""The facts one pass over a file collects, for every rule to read.

These are plain records pointing at `ast` nodes. They are built by `facts.build`
and never change afterwards except through the fix-ups that `build` itself does
once the walk has seen the whole file.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable

from ..text import SourceText
from .names import ImportTable

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@dataclass(eq=False)
class TfFunction:
    """A function that TensorFlow traces into a graph."""

    # The def or lambda that is traced, when it is known in this file.
    node: FunctionNode | None
    # The decorator expression or the `tf.function(...)` call that makes it one.
    origin: ast.expr
    kind: str  # "decorator" or "call"
    input_signature: ast.expr | None = None
    reduce_retracing: ast.expr | None = None
    autograph: ast.expr | None = None
    jit_compile: ast.expr | None = None
    # The expression passed to `tf.function(...)` (call form only).
    target: ast.expr | None = None

    def flag(self, name: str) -> bool | None:
        """The literal value of a boolean option, None when absent or not literal."""
        expr = getattr(self, name)
        if isinstance(expr, ast.Constant) and isinstance(expr.value, bool):
            return expr.value
        return None


@dataclass(eq=False)
class Scope:
    node: ast.AST
    kind: str  # "module", "class", "function", "lambda"
    parent: Scope | None
    tf_function: TfFunction | None = None
    # Name loads (`x`) and attribute loads on a name (`self.x`) in this scope, in order.
    loads: dict[str, list[ast.expr]] = field(default_factory=dict)
    # Calls like `tape.gradient(...)`: (receiver, method) -> calls, in order.
    method_calls: dict[tuple[str, str], list["CallSite"]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    # A def or lambda given to tf.numpy_function / tf.py_function: TensorFlow calls it as
    # Python on every run of the op, so its body is not traced with the function around it.
    eager_callback: bool = False

    @property
    def function(self) -> "Scope | None":
        """The innermost function or lambda scope at or above this one."""
        scope: Scope | None = self
        while scope is not None and scope.kind not in ("function", "lambda"):
            scope = scope.parent
        return scope

    @property
    def traced_by(self) -> TfFunction | None:
        """The tf.function whose trace runs this scope's code, if any."""
        scope: Scope | None = self
        while scope is not None and scope.kind in ("function", "lambda"):
            if scope.tf_function is not None:
                return scope.tf_function
            if scope.eager_callback:
                return None
            scope = scope.parent
        return None

    @property
    def enclosing_class(self) -> ast.ClassDef | None:
        scope = self.function
        if scope is not None and scope.parent is not None and scope.parent.kind == "class":
            return scope.parent.node  # type: ignore[return-value]
        return None


@dataclass(eq=False)
class Tape:
    """A `tf.GradientTape` context (or a tape object bound to a name)."""

    node: ast.With | ast.AsyncWith | ast.Assign | ast.AnnAssign
    call: ast.Call | None
    name: str | None
    scope: Scope
    parent: Tape | None  # the tape whose block lexically encloses this one, same scope
    item: ast.withitem | None = None
    persistent: ast.expr | None = None
    watch_accessed_variables: ast.expr | None = None
    loops: tuple[ast.stmt, ...] = ()

    @property
    def body(self) -> list[ast.stmt]:
        return self.node.body if isinstance(self.node, (ast.With, ast.AsyncWith)) else []

    def option(self, name: str) -> bool | None:
        expr = getattr(self, name)
        if expr is None:
            return False if name == "persistent" else True
        if isinstance(expr, ast.Constant) and isinstance(expr.value, bool):
            return expr.value
        return None

    def uses(self, *methods: str) -> list["CallSite"]:
        """Calls `name.method(...)` in this tape's scope, in source order."""
        if self.name is None:
            return []
        found: list[CallSite] = []
        for method in methods:
            found.extend(self.scope.method_calls.get((self.name, method), ()))
        found.sort(key=lambda c: (c.node.lineno, c.node.col_offset))
        return found


@dataclass(eq=False, slots=True)
class CallSite:
    node: ast.Call
    qualname: str | None  # canonical, when the callee is a tracked library object
    scope: Scope
    tapes: tuple[Tape, ...]  # tape blocks around the call in its scope, innermost last
    guards: tuple[ast.If, ...]  # `if` statements around the call, up to its function
    loops: tuple[ast.stmt, ...]  # for / while loops around the call, up to its function
    receiver: str | None = None  # `tape` in `tape.gradient(...)`
    method: str | None = None


@dataclass(eq=False)
class Binding:
    """A name (or `self.attr`) bound to a TensorFlow object."""

    name: str
    kind: str  # "variable", "model", "layer", "optimizer", "metric", "tape", "tf_function", "module"
    node: ast.stmt
    value: ast.expr
    scope: Scope


# Mode markers that make a whole file TF1 graph code (see Facts.graph_mode).
GRAPH_MODE_KINDS = ("disable_eager_execution", "disable_v2_behavior", "session", "placeholder", "compat_v1_import")


@dataclass(eq=False)
class ModeMarker:
    kind: str  # "disable_eager_execution", "disable_v2_behavior", "disable_control_flow_v2",
    #            "enable_eager_execution", "enable_control_flow_v2", "session", "placeholder", "compat_v1_import"
    node: ast.AST


@dataclass(eq=False)
class Facts:
    source: SourceText
    tree: ast.Module
    imports: ImportTable
    module: Scope
    scopes: list[Scope] = field(default_factory=list)
    tapes: list[Tape] = field(default_factory=list)
    tf_functions: list[TfFunction] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    calls_by_name: dict[str, list[CallSite]] = field(default_factory=dict)
    bindings: list[Binding] = field(default_factory=list)
    # Classes by name, and the library base each one derives from ("model", "layer", "module").
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    class_kinds: dict[str, str] = field(default_factory=dict)
    # Every def and lambda with its scope (the scope of its body).
    function_scopes: dict[ast.AST, Scope] = field(default_factory=dict)
    modes: list[ModeMarker] = field(default_factory=list)
    # TF1 graph code that is local: `with tf.Graph().as_default():` blocks (and `g.as_default()`
    # of a name bound to tf.Graph()), and the functions an Estimator calls to build its graph
    # (passed as `model_fn=`, or returning an EstimatorSpec).
    graph_blocks: list[ast.With | ast.AsyncWith] = field(default_factory=list)
    graph_functions: set[ast.AST] = field(default_factory=set)
    # Names a 1-based line for messages; notebooks name the cell too.
    line_label: Callable[[int], str] = field(default=lambda line: f"line {line}")

    def calls_to(self, *qualnames: str) -> list[CallSite]:
        out: list[CallSite] = []
        for name in qualnames:
            out.extend(self.calls_by_name.get(name, ()))
        return out

    def calls_by_last_name(self, name: str) -> list[CallSite]:
        """The calls whose callee's last name is `name` (`f` in `f(...)`, `m` in `x.m(...)`),
        in the order of `calls` (indexed on first use, after the build)."""
        index: dict[str, list[CallSite]] | None = self.__dict__.get("_calls_by_last_name")
        if index is None:
            index = {}
            for site in self.calls:
                func = site.node.func
                last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
                if last is not None:
                    index.setdefault(last, []).append(site)
            self.__dict__["_calls_by_last_name"] = index
        return index.get(name, [])

    def tapes_in(self, scope: Scope) -> list[Tape]:
        """The tapes of `scope`, in the order of `tapes` (indexed on first use, after the build)."""
        index: dict[int, list[Tape]] | None = self.__dict__.get("_tapes_by_scope")
        if index is None:
            index = {}
            for tape in self.tapes:
                index.setdefault(id(tape.scope), []).append(tape)
            self.__dict__["_tapes_by_scope"] = index
        return index.get(id(scope), [])

    def has_mode(self, *kinds: str) -> bool:
        return any(marker.kind in kinds for marker in self.modes)

    def graph_mode(self, node: ast.AST | None = None, scope: Scope | None = None) -> bool:
        """Is the code at `node` (in `scope`) TF1 graph code: ops build a graph that a Session runs?

        The whole file is when it disables eager execution or v2 behaviour, uses placeholders or
        a Session, or imports `tensorflow.compat.v1`; a part of it is inside a
        `with tf.Graph().as_default():` block or in an Estimator's model_fn."""
        if self.has_mode(*GRAPH_MODE_KINDS) or self.imports.v1_imported:
            return True
        if node is not None and self.graph_blocks:
            where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
            for block in self.graph_blocks:
                if (block.lineno, block.col_offset) <= where <= (block.end_lineno or 0, block.end_col_offset or 0):
                    return True
        while scope is not None and self.graph_functions:
            if scope.node in self.graph_functions:
                return True
            scope = scope.parent
        return False

    def release(self) -> None:
        """Break the reference cycles of facts that will not be read again, so that they and
        the syntax tree are freed by reference counting as soon as the last reference goes.

        Without this, each scope's `method_calls` (holding call sites that point back at the
        scope) and the rules' caches kept in `__dict__` (objects that point back at these
        facts, memoised findings whose fixes close over them) are cycles: the whole tree then
        waits for the cyclic collector, which has to trace all of it (a fifth of `--check`'s
        time on tensorflow_probability). Only for facts whose findings and fixes are final:
        nothing of them may be read afterwards."""
        for scope in self.scopes:
            scope.method_calls = {}
        for key in [key for key in self.__dict__ if key not in _FACTS_FIELDS]:
            del self.__dict__[key]


_FACTS_FIELDS = frozenset(Facts.__dataclass_fields__)
