"""One walk over the tree that fills `Facts` for every rule.

The walk keeps a small context (scope, open tape blocks, enclosing `if`s and
loops) and records calls, tapes, tf.functions, bindings and mode markers as it
goes. Names are resolved through the import table; imports at module level are
read first so that uses above a late import still resolve.
"""

from __future__ import annotations

import ast
from typing import Callable

from ..text import SourceText
from .model import Binding, CallSite, Facts, ModeMarker, Scope, Tape, TfFunction
from .names import ImportTable, canonical, dotted
from .walk import REVERSED_FIELDS, inner_children, reversed_fields

GRADIENT_TAPE = "tensorflow.GradientTape"
GRAPH_CONSTRUCTORS = ("tensorflow.Graph", "tensorflow.compat.v1.Graph")
# Ops that call a Python function on every run (its body is not traced).
EAGER_CALLBACK_OPS = frozenset({"tensorflow.numpy_function", "tensorflow.py_function", "tensorflow.py_func",
                                "tensorflow.compat.v1.py_func", "tensorflow.compat.v1.numpy_function"})
TF_FUNCTION = "tensorflow.function"

_MODE_CALLS = {
    "tensorflow.disable_eager_execution": "disable_eager_execution",
    "tensorflow.disable_v2_behavior": "disable_v2_behavior",
    "tensorflow.disable_control_flow_v2": "disable_control_flow_v2",
    "tensorflow.enable_eager_execution": "enable_eager_execution",
    "tensorflow.enable_v2_behavior": "enable_v2_behavior",
    "tensorflow.enable_control_flow_v2": "enable_control_flow_v2",
    "tensorflow.Session": "session",
    "tensorflow.InteractiveSession": "session",
    "tensorflow.placeholder": "placeholder",
}

_BASE_KINDS = {
    "keras.Model": "model", "keras.models.Model": "model", "keras.Sequential": "model",
    "keras.models.Sequential": "model", "keras.layers.Layer": "layer", "keras.Layer": "layer",
    "tensorflow.Module": "module",
}


def binding_kind(qualname: str | None) -> str | None:
    """What kind of TensorFlow object a call to `qualname` makes."""
    if qualname is None:
        return None
    if qualname in ("tensorflow.Variable", "tensorflow.compat.v1.Variable"):
        return "variable"
    if qualname == GRADIENT_TAPE:
        return "tape"
    if qualname == TF_FUNCTION:
        return "tf_function"
    if qualname in ("keras.Sequential", "keras.Model", "keras.models.Sequential",
                    "keras.models.Model", "keras.models.load_model", "keras.saving.load_model",
                    "keras.models.clone_model") or qualname.startswith("keras.applications."):
        return "model"
    if qualname.startswith("keras.layers."):
        return "layer"
    if qualname.startswith("keras.optimizers."):
        return None if qualname.startswith("keras.optimizers.schedules.") else "optimizer"
    if qualname.startswith("keras.metrics."):
        return "metric"
    return None


_Name, _Constant, _Lambda, _Call, _Attribute, _Load = \
    ast.Name, ast.Constant, ast.Lambda, ast.Call, ast.Attribute, ast.Load
_keyword, _Subscript, _BinOp, _Tuple, _List = ast.keyword, ast.Subscript, ast.BinOp, ast.Tuple, ast.List


class _Walker:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.imports = facts.imports
        self.scope = facts.module
        # The open tape blocks, enclosing `if`s and loops: tuples, shared by the records made
        # under them (a new tuple when one opens, the saved one back when it closes).
        self.tapes: tuple[Tape, ...] = ()
        self.guards: tuple[ast.If, ...] = ()
        self.loops: tuple[ast.stmt, ...] = ()
        self.pending_call_functions: list[tuple[TfFunction, Scope]] = []
        self.graph_names: set[str] = set()  # names bound to tf.Graph()
        self.pending_model_fns: list[tuple[str, Scope]] = []  # `model_fn=name` given to a call
        self.pending_callbacks: list[tuple[ast.expr, Scope]] = []  # given to tf.numpy_function & co.

    # --- traversal ---------------------------------------------------------------

    def visit(self, node: ast.AST) -> None:
        method = _DISPATCH.get(type(node))
        if method is not None:
            method(self, node)
        elif isinstance(node, ast.expr):
            self.visit_expr(node)
        else:
            self.generic(node)

    def visit_expr(self, root: ast.AST) -> None:
        """Expressions with an explicit stack: long operator chains nest thousands deep.

        The context (scope, tapes, guards, loops) only changes inside a lambda, which
        is visited through `visit_lambda`.
        """
        stack = [root]
        pop, push, extend = stack.pop, stack.append, stack.extend
        loads = self.scope.loads
        fields_of = REVERSED_FIELDS.get
        while stack:
            node = pop()
            kind = type(node)
            if kind is _Name:
                if type(node.ctx) is _Load:  # type: ignore[attr-defined]
                    same = loads.get(node.id)  # type: ignore[attr-defined]
                    if same is None:
                        loads[node.id] = [node]  # type: ignore[attr-defined]
                    else:
                        same.append(node)
                continue
            if kind is _Constant:
                continue
            if kind is _Lambda:
                self.visit_lambda(node)  # type: ignore[arg-type]
                continue
            # The commonest kinds push their children here (last first, as the loop below would).
            if kind is _Attribute:
                value = node.value  # type: ignore[attr-defined]
                if type(value) is _Name and type(node.ctx) is _Load:  # type: ignore[attr-defined]
                    key = f"{value.id}.{node.attr}"  # type: ignore[attr-defined]
                    same = loads.get(key)
                    if same is None:
                        loads[key] = [node]
                    else:
                        same.append(node)
                push(value)
                continue
            if kind is _Call:
                self.record_call(node)  # type: ignore[arg-type]
                extend(reversed(node.keywords))  # type: ignore[attr-defined]
                extend(reversed(node.args))  # type: ignore[attr-defined]
                push(node.func)  # type: ignore[attr-defined]
                continue
            if kind is _keyword:
                push(node.value)  # type: ignore[attr-defined]
                continue
            if kind is _Subscript:
                push(node.slice)  # type: ignore[attr-defined]
                push(node.value)  # type: ignore[attr-defined]
                continue
            if kind is _BinOp:
                push(node.right)  # type: ignore[attr-defined]
                push(node.left)  # type: ignore[attr-defined]
                continue
            if kind is _Tuple or kind is _List:
                extend(reversed(node.elts))  # type: ignore[attr-defined]
                continue
            # The children, pushed last first so that they come off the stack in order;
            # a None or a non-node pushed from a list has no fields and is passed over.
            fields = fields_of(kind)
            if fields is None:
                fields = reversed_fields(kind)
            for name in fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    extend(reversed(value))
                elif value is not None:
                    push(value)

    def generic(self, node: ast.AST) -> None:
        for child in inner_children(node):
            self.visit(child)

    def visit_all(self, nodes) -> None:
        for node in nodes:
            self.visit(node)

    # --- scopes ------------------------------------------------------------------

    def _enter(self, node: ast.AST, kind: str) -> tuple:
        scope = Scope(node=node, kind=kind, parent=self.scope)
        self.facts.scopes.append(scope)
        saved = (self.scope, self.tapes, self.guards, self.loops)
        self.scope, self.tapes, self.guards, self.loops = scope, (), (), ()
        return saved

    def _leave(self, saved: tuple) -> None:
        self.scope, self.tapes, self.guards, self.loops = saved

    def visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        tf_function = None
        for decorator in node.decorator_list:
            self.visit(decorator)
            found = self._tf_function_from(decorator, node)
            if found is not None:
                tf_function = found
        self.visit(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        saved = self._enter(node, "function")
        self.scope.tf_function = tf_function
        self.facts.function_scopes[node] = self.scope
        self.visit_all(node.body)
        self._leave(saved)

    def visit_lambda(self, node: ast.Lambda) -> None:
        self.visit(node.args)
        saved = self._enter(node, "lambda")
        self.facts.function_scopes[node] = self.scope
        self.visit(node.body)
        self._leave(saved)

    def visit_class(self, node: ast.ClassDef) -> None:
        self.visit_all(node.decorator_list)
        self.visit_all(node.bases)
        self.visit_all(node.keywords)
        self.facts.classes.setdefault(node.name, node)
        for base in node.bases:
            kind = _BASE_KINDS.get(self.imports.resolve(base) or "")
            if kind is None and isinstance(base, ast.Name):
                kind = self.facts.class_kinds.get(base.id)
            if kind is not None:
                self.facts.class_kinds[node.name] = kind
                break
        saved = self._enter(node, "class")
        self.visit_all(node.body)
        self._leave(saved)

    def visit_comprehension_scope(self, node: ast.AST) -> None:
        self.generic(node)

    # --- statements --------------------------------------------------------------

    def visit_import(self, node: ast.Import | ast.ImportFrom) -> None:
        self.imports.add_import(node)
        names = [a.name for a in node.names]
        module = getattr(node, "module", None) or ""
        if any(n.startswith("tensorflow.compat.v1") for n in names) or module.startswith("tensorflow.compat.v1") \
                or (module == "tensorflow.compat" and "v1" in names):
            self.facts.modes.append(ModeMarker("compat_v1_import", node))

    def visit_with(self, node: ast.With | ast.AsyncWith) -> None:
        opened: list[Tape] = []
        for item in node.items:
            if self._makes_graph_default(item.context_expr):
                self.facts.graph_blocks.append(node)
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.visit(item.optional_vars)
            tape = self._tape_from_item(node, item)
            if tape is not None:
                opened.append(tape)
        outer = self.tapes
        if opened:
            self.tapes = outer + tuple(opened)
        self.visit_all(node.body)
        self.tapes = outer

    def _makes_graph_default(self, expr: ast.expr) -> bool:
        """`tf.Graph().as_default()`, or `g.as_default()` of a name bound to `tf.Graph()`."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "as_default"):
            return False
        receiver = expr.func.value
        if isinstance(receiver, ast.Call):
            return self.imports.resolve(receiver.func) in GRAPH_CONSTRUCTORS
        return dotted(receiver) in self.graph_names

    def _tape_from_item(self, node: ast.With | ast.AsyncWith, item: ast.withitem) -> Tape | None:
        expr = item.context_expr
        name = dotted(item.optional_vars) if item.optional_vars is not None else None
        if isinstance(expr, ast.Call) and self.imports.resolve(expr.func) == GRADIENT_TAPE:
            tape = Tape(node=node, call=expr, name=name, scope=self.scope,
                        parent=self.tapes[-1] if self.tapes else None, item=item,
                        persistent=_keyword(expr, "persistent", 0),
                        watch_accessed_variables=_keyword(expr, "watch_accessed_variables", 1),
                        loops=self.loops)
            self.facts.tapes.append(tape)
            return tape
        bound = dotted(expr)
        if bound is not None:
            for earlier in reversed(self.facts.tapes):
                if earlier.scope is self.scope and earlier.name == bound and earlier.item is None:
                    tape = Tape(node=node, call=earlier.call, name=bound, scope=self.scope,
                                parent=self.tapes[-1] if self.tapes else None, item=item,
                                persistent=earlier.persistent,
                                watch_accessed_variables=earlier.watch_accessed_variables,
                                loops=self.loops)
                    self.facts.tapes.append(tape)
                    return tape
        return None

    def visit_loop(self, node: ast.For | ast.AsyncFor | ast.While) -> None:
        if isinstance(node, ast.While):
            self.visit(node.test)
        else:
            self.visit(node.iter)
            self.visit(node.target)
        outer = self.loops
        self.loops = outer + (node,)
        self.visit_all(node.body)
        self.loops = outer
        self.visit_all(node.orelse)

    def visit_if(self, node: ast.If) -> None:
        self.visit(node.test)
        outer = self.guards
        self.guards = outer + (node,)
        self.visit_all(node.body)
        self.visit_all(node.orelse)
        self.guards = outer

    def visit_assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        value = node.value
        if value is not None:
            self.visit(value)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            self.visit(target)
        if value is None:
            return
        if self.scope.kind == "module" and len(targets) == 1 and isinstance(targets[0], ast.Name) \
                and isinstance(value, (ast.Attribute, ast.Name)):
            raw = self.imports.raw(value)
            if raw is not None and self.imports.is_tracked_module(raw):
                self.imports.add_alias(targets[0].id, value)
        if not isinstance(value, ast.Call):
            return
        qualname = self.imports.resolve(value.func)
        if qualname in GRAPH_CONSTRUCTORS:
            self.graph_names.update(n for n in map(dotted, targets) if n is not None)
        kind = binding_kind(qualname)
        if kind is None and isinstance(value.func, ast.Name):
            kind = self.facts.class_kinds.get(value.func.id)
        if kind is None:
            return
        for target in targets:
            name = dotted(target)
            if name is None:
                continue
            self.facts.bindings.append(Binding(name, kind, node, value, self.scope))
            if kind == "tape":
                self.facts.tapes.append(Tape(node=node, call=value, name=name, scope=self.scope,
                                             parent=self.tapes[-1] if self.tapes else None,
                                             persistent=_keyword(value, "persistent", 0),
                                             watch_accessed_variables=_keyword(value, "watch_accessed_variables", 1),
                                             loops=self.loops))

    def visit_global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.scope.globals.update(node.names)

    # --- expressions ---------------------------------------------------------------

    def record_call(self, node: ast.Call) -> None:
        func = node.func
        receiver = method = None
        # `self.imports.resolve(func)`, reading the chain of names once for it and the receiver.
        if isinstance(func, ast.Attribute):
            receiver, method = dotted(func.value), func.attr
            base = self.imports.names.get(receiver.partition(".")[0]) if receiver is not None else None
            qualname = canonical(f"{base}{receiver[receiver.find('.'):] if '.' in receiver else ''}.{method}") \
                if base is not None else None  # type: ignore[union-attr]
        elif isinstance(func, ast.Name):
            base = self.imports.names.get(func.id)
            qualname = canonical(base) if base is not None else None
        else:
            qualname = None
        site = CallSite(node=node, qualname=qualname, scope=self.scope, tapes=self.tapes,
                        guards=self.guards, loops=self.loops,
                        receiver=receiver, method=method)
        callee = method if method is not None else func.id if isinstance(func, ast.Name) else None
        if callee is not None and callee.endswith("EstimatorSpec"):
            function = self.scope.function
            if function is not None:
                self.facts.graph_functions.add(function.node)
        for keyword in node.keywords:
            if keyword.arg == "model_fn" and isinstance(keyword.value, ast.Name):
                self.pending_model_fns.append((keyword.value.id, self.scope))
        if qualname in EAGER_CALLBACK_OPS:
            callback = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "func"), None)
            if isinstance(callback, (ast.Name, ast.Lambda)):
                self.pending_callbacks.append((callback, self.scope))
        self.facts.calls.append(site)
        if qualname is not None:
            same_name = self.facts.calls_by_name.get(qualname)
            if same_name is None:
                self.facts.calls_by_name[qualname] = [site]
            else:
                same_name.append(site)
            mode = _MODE_CALLS.get(qualname)
            if mode is not None:
                self.facts.modes.append(ModeMarker(mode, node))
            if qualname == TF_FUNCTION and node.args:
                self._tf_function_call(node)
        if receiver is not None:
            same_method = self.scope.method_calls.get((receiver, method))  # type: ignore[arg-type]
            if same_method is None:
                self.scope.method_calls[(receiver, method)] = [site]  # type: ignore[index]
            else:
                same_method.append(site)

    # --- tf.function -------------------------------------------------------------

    def _tf_function_from(self, decorator: ast.expr, node: ast.AST) -> TfFunction | None:
        call = decorator if isinstance(decorator, ast.Call) else None
        qualname = self.imports.resolve(call.func if call else decorator)
        if qualname != TF_FUNCTION:
            return None
        tf_function = TfFunction(node=node, origin=decorator, kind="decorator")  # type: ignore[arg-type]
        if call is not None:
            _read_options(tf_function, call)
        self.facts.tf_functions.append(tf_function)
        return tf_function

    def _tf_function_call(self, call: ast.Call) -> None:
        target = call.args[0]
        tf_function = TfFunction(node=None, origin=call, kind="call", target=target)
        _read_options(tf_function, call)
        self.facts.tf_functions.append(tf_function)
        self.pending_call_functions.append((tf_function, self.scope))

    def resolve_call_functions(self) -> None:
        """Attach `tf.function(f)` to the def of `f` once the whole file is known, and find the
        defs given to an Estimator as `model_fn=`."""
        if not self.pending_call_functions and not self.pending_model_fns and not self.pending_callbacks:
            return
        defs_by_scope: dict[int, dict[str, ast.AST]] = {}
        for node, scope in self.facts.function_scopes.items():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and scope.parent is not None:
                defs_by_scope.setdefault(id(scope.parent.node), {})[node.name] = node
        for name, scope in self.pending_model_fns:
            found = _nearest_def(defs_by_scope, scope, name)
            if found is not None:
                self.facts.graph_functions.add(found)
        for callback, scope in self.pending_callbacks:
            found = callback if isinstance(callback, ast.Lambda) else _nearest_def(defs_by_scope, scope, callback.id)
            body = self.facts.function_scopes.get(found) if found is not None else None
            if body is not None:
                body.eager_callback = True
        for tf_function, scope in self.pending_call_functions:
            target = tf_function.target
            node: ast.AST | None = None
            if isinstance(target, ast.Lambda):
                node = target
            elif isinstance(target, ast.Name):
                here: Scope | None = scope
                while here is not None and node is None:
                    node = defs_by_scope.get(id(here.node), {}).get(target.id)
                    here = here.parent
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                    and target.value.id in ("self", "cls"):
                owner = scope.enclosing_class
                if owner is not None:
                    node = defs_by_scope.get(id(owner), {}).get(target.attr)
            elif isinstance(target, ast.Attribute):
                # `tf.function(policy.action)`: a method of an instance of a class of this file;
                # `tf.function(agent.collect_policy.action)`: through attributes its classes set
                cls = _receiver_class(self.facts, scope, target.value)
                if cls is not None:
                    node = _method_of(defs_by_scope, self.facts, cls, target.attr)
            if node is not None:
                tf_function.node = node  # type: ignore[assignment]
                body_scope = self.facts.function_scopes.get(node)
                if body_scope is not None and body_scope.tf_function is None:
                    body_scope.tf_function = tf_function


def _instance_class(facts: Facts, scope: Scope | None, name: str) -> ast.ClassDef | None:
    """The class of this file that `name` holds an instance of, seen from `scope`: every
    assignment to `name` in the nearest scope that assigns it is `name = C(...)`, with the same
    `C` a class defined at the top of the module."""
    from .walk import body_statements

    while scope is not None:
        if scope.kind != "class":
            made = [stmt.value for stmt in body_statements(scope.node)
                    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                    and any(isinstance(t, ast.Name) and t.id == name
                            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]))]
            if made:
                names = {call.func.id for call in made if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)}
                if len(names) != 1 or not all(isinstance(call, ast.Call) for call in made):
                    return None
                return _module_class(facts, names.pop())
            if name in scope.globals or isinstance(scope.node, ast.Module):
                return None
        scope = scope.parent
    return None


def _receiver_class(facts: Facts, scope: Scope | None, receiver: ast.expr, depth: int = 0) -> ast.ClassDef | None:
    """The class of this file whose instance `receiver` holds: a name bound to `C(...)`, or an
    attribute of such an instance that its class's methods set to `D(...)` only."""
    if isinstance(receiver, ast.Name):
        return _instance_class(facts, scope, receiver.id)
    if isinstance(receiver, ast.Attribute) and depth < 4:
        owner = _receiver_class(facts, scope, receiver.value, depth + 1)
        return _attribute_class(facts, owner, receiver.attr) if owner is not None else None
    return None


def _attribute_class(facts: Facts, cls: ast.ClassDef, attr: str) -> ast.ClassDef | None:
    """The class of this file every `self.attr = ...` in the methods of `cls` constructs."""
    made: list[ast.expr] = []
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(method):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    made.append(node.value if node.value is not None else target)
    names = {call.func.id for call in made if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)}
    if len(names) != 1 or not all(isinstance(call, ast.Call) for call in made):
        return None
    return _module_class(facts, names.pop())


def _module_class(facts: Facts, name: str) -> ast.ClassDef | None:
    found = [stmt for stmt in facts.tree.body if isinstance(stmt, ast.ClassDef) and stmt.name == name]
    return found[0] if len(found) == 1 else None


def _method_of(defs_by_scope: dict[int, dict[str, ast.AST]], facts: Facts, cls: ast.ClassDef, name: str,
               depth: int = 0) -> ast.AST | None:
    """The def of method `name` of `cls`, or of a base class of this file (the first found)."""
    found = defs_by_scope.get(id(cls), {}).get(name)
    if found is not None or depth > 4:
        return found
    for base in cls.bases:
        base_class = _module_class(facts, base.id) if isinstance(base, ast.Name) else None
        if base_class is not None:
            found = _method_of(defs_by_scope, facts, base_class, name, depth + 1)
            if found is not None:
                return found
    return None


def _nearest_def(defs_by_scope: dict[int, dict[str, ast.AST]], scope: Scope | None, name: str) -> ast.AST | None:
    """The def of `name` seen from `scope`: in it, or in the scopes around it."""
    while scope is not None:
        found = defs_by_scope.get(id(scope.node), {}).get(name)
        if found is not None:
            return found
        scope = scope.parent
    return None


def _keyword(call: ast.Call, name: str, position: int | None) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is not None and len(call.args) > position:
        return call.args[position]
    return None


def _read_options(tf_function: TfFunction, call: ast.Call) -> None:
    # tf.function(func=None, input_signature=None, autograph=True, jit_compile=None,
    #             reduce_retracing=False, ...): the same positions for `@tf.function(...)`
    # and `tf.function(f, ...)`.
    tf_function.input_signature = _keyword(call, "input_signature", 1)
    tf_function.autograph = _keyword(call, "autograph", 2)
    tf_function.jit_compile = _keyword(call, "jit_compile", 3)
    tf_function.reduce_retracing = _keyword(call, "reduce_retracing", 4) \
        or _keyword(call, "experimental_relax_shapes", None)


_DISPATCH = {
    ast.FunctionDef: _Walker.visit_function,
    ast.AsyncFunctionDef: _Walker.visit_function,
    ast.ClassDef: _Walker.visit_class,
    ast.Import: _Walker.visit_import,
    ast.ImportFrom: _Walker.visit_import,
    ast.With: _Walker.visit_with,
    ast.AsyncWith: _Walker.visit_with,
    ast.For: _Walker.visit_loop,
    ast.AsyncFor: _Walker.visit_loop,
    ast.While: _Walker.visit_loop,
    ast.If: _Walker.visit_if,
    ast.Assign: _Walker.visit_assign,
    ast.AnnAssign: _Walker.visit_assign,
    ast.Global: _Walker.visit_global,
    ast.Nonlocal: _Walker.visit_global,
}


def _prescan_imports(body: list[ast.stmt], imports: ImportTable) -> None:
    """Module-level imports (also inside top-level if/try) before the walk."""
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.add_import(stmt)
        elif isinstance(stmt, (ast.If, ast.Try)):
            _prescan_imports(stmt.body, imports)
            _prescan_imports(stmt.orelse, imports)
            for handler in getattr(stmt, "handlers", ()):
                _prescan_imports(handler.body, imports)
            _prescan_imports(getattr(stmt, "finalbody", []), imports)


def build(tree: ast.Module, source: SourceText, line_label: Callable[[int], str] | None = None) -> Facts:
    imports = ImportTable()
    _prescan_imports(tree.body, imports)
    # Snippets and notebook cells often use the conventional aliases without importing them.
    imports.assume("tf", "tensorflow")
    imports.assume("np", "numpy")
    module = Scope(node=tree, kind="module", parent=None)
    facts = Facts(source=source, tree=tree, imports=imports, module=module, scopes=[module])
    if line_label is not None:
        facts.line_label = line_label
    walker = _Walker(facts)
    walker.visit_all(tree.body)
    walker.resolve_call_functions()
    return facts
