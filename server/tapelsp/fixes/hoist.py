"""Hoist an object created inside a tf.function out of it, so it is created once.

Used by FUNC001 for `tf.Variable`; written for any creation call (a Keras layer, an
optimizer, a metric) so other rules can offer the same fix.

Where the object goes:

- a method of a class: into `__init__` (extended at its end, after `super().__init__(...)`,
  or created, passing its arguments on to the base class), as `self.<name>`;
- a function at module level (or nested in another function): just before the function,
  as `<name>`;
- when the initializer needs the function's arguments or locals: behind a first-call
  guard where it was, `if self._v is None: self._v = ...` with `self._v = None` in
  `__init__`, or a `_v = None` before the function and `global _v` (`nonlocal`) inside.

The function then uses the hoisted object: a local `v = tf.Variable(...)` disappears and
the reads of `v` use the new name. Names are chosen so they clash with nothing in the file.

Applicability: safe when the creation sits directly in the function body and its
initializer depends on nothing of the call (arguments, locals, attributes only set
elsewhere); unsafe otherwise (the guard, or a creation inside a loop, an `if`, a `with`).

The decision is made on the stdlib `ast` (what the rules have); the rewrite is done with
libcst so comments and formatting survive.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

import libcst as cst

from ..model import Applicability, Fix
from . import cst as cstu
from .names import attribute_names, bindings, fresh, identifiers
from .per_source import parents as tree_parents, per_node, source_text

# Attributes that Keras layers and models and tf.Module define (public and private ones
# a subclass could trip over). A hoisted attribute never takes one of these names.
RESERVED_ATTRIBUTES = frozenset("""
    name dtype trainable weights variables trainable_weights non_trainable_weights trainable_variables
    non_trainable_variables losses metrics metrics_names built input output inputs outputs input_spec
    input_shape output_shape layers optimizer loss submodules name_scope history compiled_loss
    compiled_metrics dynamic activity_regularizer stateful supports_masking updates state_updates
    variable_dtype compute_dtype dtype_policy run_eagerly distribute_strategy call build get_config
    from_config count_params summary compile fit evaluate predict save add_weight add_loss add_metric
    add_variable get_weights set_weights training autocast seed_generators jit_compile steps_per_execution
    _name _dtype _trainable _layers _variables _trainable_weights _non_trainable_weights _losses
    _metrics _built _inbound_nodes _outbound_nodes _self_setattr_tracking _obj_reference_counts_dict
    _tracker _name_scope _scope _parent_path _path _call_signature _build_shapes_dict _seed_generators
    _dtype_policy _input_spec _updates _callable_losses _thread_local _saved_model_inputs_spec
    _compute_dtype _autocast _is_model_for_instrumentation _functional _layer_call_argspecs
    _initial_weights _supports_masking _stateful _trainable_variables _non_trainable_variables
    _optimizer _loss _compiled _run_eagerly _jit_compile _distribution_strategy _training
""".split())
# Classes whose `__init__` is generated or must not be written by hand.
_GENERATED_INIT_DECORATORS = ("dataclass", "define", "frozen", "attrs", "s")
_GENERATED_INIT_BASES = ("NamedTuple", "TypedDict", "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "Protocol",
                         "BaseModel")
_BUILTINS = frozenset(dir(builtins))


@dataclass
class Plan:
    """What the fix does, decided on `ast`."""

    call: ast.Call
    function: ast.FunctionDef | ast.AsyncFunctionDef
    stmt: ast.stmt
    form: str  # "local" (`v = <call>`), "attr" (`self.a = <call>`), "expr" (the call inside a statement)
    dest: str  # "class" or "scope"
    guard: bool
    name: str  # the attribute (class) or variable (scope) that holds the object
    applicability: Applicability
    local: str | None = None
    loads: list[ast.Name] = field(default_factory=list)
    self_name: str | None = None
    classdef: ast.ClassDef | None = None
    init: ast.FunctionDef | None = None
    init_assigns_name: bool = False
    scope_kind: str = "module"  # "module" or "function" (the scope the function is defined in)
    noun: str = "tf.Variable"
    tree: ast.Module | None = None
    # Where the attribute goes in an existing `__init__`: None at its end, else after the
    # statement ending on this line (0: at its start).
    init_after: int | None = None

    @property
    def reference(self) -> str:
        return f"{self.self_name}.{self.name}" if self.dest == "class" else self.name

    @property
    def title(self) -> str:
        if self.guard:
            return f"Create the {self.noun} on the first call only, behind `if {self.reference} is None:`"
        if self.dest == "class":
            return f"Create the {self.noun} once, in `__init__`, as `self.{self.name}`"
        where = "at module level" if self.scope_kind == "module" else "before the function"
        return f"Create the {self.noun} once, {where}, as `{self.name}`"


def hoist_fix(text: str, tree: ast.Module, call: ast.Call, function: ast.AST, *, noun: str = "tf.Variable",
              base_name: str = "variable") -> Fix | None:
    """The fix moving `call` (a creation inside the traced `function`) out of it, or None.

    `text` and `tree` are the file's source and its `ast` (the engine's facts have both);
    `base_name` names the hoisted object when the call is not simply assigned to a name.
    """
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    plan = plan_hoist(tree, call, function, base_name)
    if plan is None:
        return None
    plan.noun = noun
    try:
        return _build(plan, text)
    except cstu.FixNotPossible:
        return None


# --- deciding ----------------------------------------------------------------------------

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def plan_hoist(tree: ast.Module, call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef,
               base_name: str = "variable") -> Plan | None:
    parents = tree_parents(tree)  # found once per tree: a file's every hoist asks
    # The statement of `function` that holds the call, with nothing scope-making in between.
    node: ast.AST = call
    stmt: ast.stmt | None = None
    while node is not function:
        parent = parents.get(node)
        if parent is None:
            return None
        if isinstance(parent, _SCOPES) and parent is not function:
            return None  # inside a lambda, comprehension or nested def: another scope
        if stmt is None and isinstance(node, ast.stmt):
            stmt = node
        node = parent
    if stmt is None or any(isinstance(n, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr))
                           for n in ast.walk(call)):
        return None
    nested = parents.get(stmt) is not function
    in_loop = _inside_loop(stmt, function, parents)

    owner = parents.get(function)
    classdef = owner if isinstance(owner, ast.ClassDef) else None
    self_name = None
    if classdef is not None:
        if function.name == "__init__" or _decorated_with(function, ("staticmethod", "classmethod")):
            return None
        positional = function.args.posonlyargs + function.args.args
        if not positional:
            return None
        self_name = positional[0].arg
        if _generated_init(classdef):
            return None
    scope_kind = "module"
    if classdef is None:
        scope = _enclosing_scope(function, parents)
        if isinstance(scope, (ast.ClassDef, ast.Lambda)):
            return None
        scope_kind = "module" if isinstance(scope, ast.Module) else "function"

    # What form the creation has.
    form, local, attr = "expr", None, None
    if isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Name):
            form, local = "local", target.id
        elif (self_name is not None and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
              and target.value.id == self_name):
            form, attr = "attr", target.attr
    loads: list[ast.Name] = []
    if form == "local":
        assert local is not None
        found = _local_loads(function, local, stmt)
        if found is None:
            return None
        loads = found
    if form == "attr" and _assigned_elsewhere(function, self_name, attr, stmt):  # type: ignore[arg-type]
        return None

    # What the initializer needs.
    locals_ = _function_locals(function)
    dependent = False
    self_attrs: list[str] = []
    for name_node in _free_names(call):
        name = name_node.id
        if self_name is not None and name == self_name:
            parent = parents.get(name_node)
            if isinstance(parent, ast.Attribute) and parent.value is name_node:
                self_attrs.append(parent.attr)
            else:
                dependent = True
        elif name in locals_:
            dependent = True
        elif classdef is None and not _available_before(name, function, tree, parents, scope_kind):
            dependent = True
    init = _init_of(classdef) if classdef is not None else None
    if classdef is not None:
        if init is False:
            return None  # `__init__` is there but not a plain method
        init_self = _first_param(init) if init else self_name
        if init is not None and not _init_extendable(init):
            return None
        known = _attributes_set_in(init) if init else set()
        if init is not None and any(isinstance(n, ast.Return) for n in _own_nodes(init)):
            # Only statements before the first `return` run for sure.
            known = set()
            for stmt in init.body:
                if any(isinstance(n, ast.Return) for n in [stmt, *_own_nodes(stmt)]):
                    break
                known |= {n.attr for n in [stmt, *_own_nodes(stmt)] if isinstance(n, ast.Attribute)
                          and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and n.value.id == init_self}
        class_names = _class_body_names(classdef)
        if any(a not in known and a not in class_names for a in self_attrs):
            dependent = True
        if self_attrs and init_self != self_name:
            dependent = True

    guard = dependent
    # Names.
    used = identifiers(tree)
    if classdef is not None:
        dest = "class"
        taken = [attribute_names(tree), _class_body_names(classdef), {"self"}]
        if _has_bases(classdef):
            taken.append(RESERVED_ATTRIBUTES)
        if form == "attr":
            name = attr  # type: ignore[assignment]
        else:
            stem = local or base_name
            name = fresh([f"_{stem}", stem] if guard else [stem, f"_{stem}"], stem, *taken)
    else:
        dest = "scope"
        outside = identifiers(tree, skip=function)
        if local is not None and local not in outside and local not in _BUILTINS:
            name = local  # used nowhere else: the function's reads stay as they are
        else:
            stem = f"{function.name}_{local or base_name}"
            name = fresh([stem, f"_{stem}"], stem, used, _BUILTINS)
    init_assigns_name = bool(init) and name in _attributes_set_in(init)
    init_after: int | None = None
    if init:
        where = _init_insertion(init, [] if guard else self_attrs)  # type: ignore[arg-type]
        if where is False:
            return None
        init_after = where  # type: ignore[assignment]
    safe = not guard and not nested and not in_loop
    return Plan(call=call, function=function, stmt=stmt, form=form, dest=dest, guard=guard, name=name,
                applicability=Applicability.SAFE if safe else Applicability.UNSAFE, local=local, loads=loads,
                self_name=self_name, classdef=classdef, init=init or None, init_assigns_name=init_assigns_name,
                scope_kind=scope_kind, tree=tree, init_after=init_after)


def _inside_loop(stmt: ast.AST, function: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    node = parents.get(stmt)
    while node is not None and node is not function:
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            return True
        node = parents.get(node)
    return False


def _enclosing_scope(function: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST | None:
    node = parents.get(function)
    while node is not None and not isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                                     ast.ClassDef, ast.Lambda)):
        node = parents.get(node)
    return node


def _decorated_with(function: ast.FunctionDef | ast.AsyncFunctionDef, names: tuple[str, ...]) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        last = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if last in names:
            return True
    return False


def _generated_init(classdef: ast.ClassDef) -> bool:
    for decorator in classdef.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        last = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if last in _GENERATED_INIT_DECORATORS:
            return True
    for base in classdef.bases:
        last = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
        if last in _GENERATED_INIT_BASES:
            return True
    return False


def _has_bases(classdef: ast.ClassDef) -> bool:
    return any(not (isinstance(base, ast.Name) and base.id == "object") for base in classdef.bases)


def _first_param(function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> str | None:
    if function is None:
        return None
    positional = function.args.posonlyargs + function.args.args
    return positional[0].arg if positional else None


def _params(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    args = function.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return names


def _own_nodes(function: ast.AST):
    """Nodes of the function's own scope (not inside nested defs, lambdas, classes, comprehensions)."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _function_locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set(_params(function))
    declared_global: set[str] = set()
    for node in _own_nodes(function):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared_global.update(node.names)
            continue
        names.update(bindings(node))
    return names - declared_global


def _local_loads(function: ast.FunctionDef | ast.AsyncFunctionDef, local: str, stmt: ast.stmt) -> list[ast.Name] | None:
    """The reads of `local` in the function when `stmt` is its only binding anywhere in it, else None."""
    if local in _params(function):
        return None
    loads: list[ast.Name] = []
    target = stmt.targets[0]  # type: ignore[attr-defined]
    for node in ast.walk(function):
        if node is function:
            continue
        if node is target:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if local in _params(node) or (not isinstance(node, ast.Lambda) and node.name == local):
                return None
        if local in bindings(node):
            return None
        if isinstance(node, ast.Name) and node.id == local and isinstance(node.ctx, ast.Load):
            loads.append(node)
    return loads


def _assigned_elsewhere(function: ast.AST, self_name: str, attr: str, stmt: ast.stmt) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.attr == attr \
                and isinstance(node.value, ast.Name) and node.value.id == self_name:
            if not (isinstance(stmt, ast.Assign) and node is stmt.targets[0]):
                return True
    return False


def _free_names(expr: ast.expr) -> list[ast.Name]:
    """Name loads in `expr`, leaving out names bound by lambdas and comprehensions inside it."""
    bound: set[str] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Lambda):
            bound |= _params(node)
        elif isinstance(node, ast.comprehension):
            bound |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return [node for node in ast.walk(expr)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound]


def _available_before(name: str, function: ast.AST, tree: ast.Module, parents: dict[ast.AST, ast.AST],
                      scope_kind: str) -> bool:
    """Whether `name` has a value where the hoisted statement goes (just before the function)."""
    first_line = min([function.lineno] + [d.lineno for d in function.decorator_list])  # type: ignore[attr-defined]
    scope = _enclosing_scope(function, parents)
    scopes = [scope] if scope is not None else []
    if scope_kind == "function":
        scopes.append(tree)
    for owner in scopes:
        if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in _params(owner):
            return True
        first_binding = _first_binding_lines(owner).get(name)
        if first_binding is not None:
            # Bound before the function (the name has a value there), or only after it.
            return first_binding < first_line
    return True  # a builtin, or from a star import: there before and after alike


@per_node
def _first_binding_lines(owner: ast.AST) -> dict[str, float]:
    """Each name the scope `owner` binds -> the first line binding it (infinity for a binding
    without a line). Found once per scope: every hoist out of it asks for its names."""
    first: dict[str, float] = {}
    for node in _own_nodes(owner):
        names = bindings(node)
        if names:
            line = getattr(node, "lineno", None)
            line = float("inf") if line is None else line
            for name in names:
                if name not in first or line < first[name]:
                    first[name] = line
    return first


def _init_of(classdef: ast.ClassDef) -> ast.FunctionDef | None | bool:
    """The class's own `__init__` method; None when it has none; False when `__init__` is bound
    some other way (an assignment, an async def)."""
    found: ast.FunctionDef | None | bool = None
    for stmt in classdef.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            found = stmt
        elif isinstance(stmt, ast.AsyncFunctionDef) and stmt.name == "__init__":
            found = False
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(n, ast.Name) and n.id == "__init__" for t in targets for n in ast.walk(t)):
                found = False
    return found


def _init_extendable(init: ast.FunctionDef) -> bool:
    """Statements can be added to `init`: an indented body, and a `self`."""
    if init.body and init.body[0].lineno == init.lineno:
        return False  # `def __init__(self): pass` on one line
    return bool(_first_param(init))


def _init_insertion(init: ast.FunctionDef, needed: list[str]) -> int | None | bool:
    """Where in `init` the new attribute goes: None for its end (no `return` in it); else the
    line of the statement to insert after (0: at its start), which is after `super().__init__(...)`
    and after the statements setting `needed` attributes, with no `return` before it; False
    when there is no such place."""
    if not any(isinstance(node, ast.Return) for node in _own_nodes(init)):
        return None
    self_name = _first_param(init)
    after = -1
    for index, stmt in enumerate(init.body):
        calls_super = any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                          and node.func.attr == "__init__" for node in ast.walk(stmt))
        sets_needed = any(isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                          and node.attr in needed and isinstance(node.value, ast.Name) and node.value.id == self_name
                          for node in ast.walk(stmt))
        if calls_super or sets_needed:
            after = index
    if any(isinstance(node, ast.Return) for stmt in init.body[:after + 1] for node in _own_nodes(stmt)) \
            or any(isinstance(stmt, ast.Return) for stmt in init.body[:after + 1]):
        return False
    return init.body[after].end_lineno or init.body[after].lineno if after >= 0 else 0


def _attributes_set_in(function: ast.FunctionDef | None) -> set[str]:
    if function is None:
        return set()
    self_name = _first_param(function)
    return {node.attr for node in _own_nodes(function)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name) and node.value.id == self_name}


def _class_body_names(classdef: ast.ClassDef) -> set[str]:
    """Names the class body binds (methods, class attributes): `self.<name>` would find them."""
    names: set[str] = set()
    for node in _own_nodes(classdef):
        names.update(bindings(node))
    return names


# --- rewriting ---------------------------------------------------------------------------

def _build(plan: Plan, text: str) -> Fix | None:
    if plan.classdef is not None and any(isinstance(s, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in s.targets) for s in plan.classdef.body):
        return None  # a class with __slots__: new attributes cannot be set
    nodes: list[ast.AST] = [plan.function] + ([plan.classdef] if plan.classdef is not None else [])
    parsed = cstu.parse_region(text, plan.tree, nodes, with_previous=plan.dest == "scope")
    source = source_text(text)
    call = parsed.at(source.node_range(plan.call), cst.Call)
    small, line, statement = _statement_of(parsed, call)
    function = next((n for n in parsed.ancestors(call) if isinstance(n, cst.FunctionDef)), None)
    if function is None or function.name.value != plan.function.name:
        raise LookupError("the function around the call was not found")
    call_code = parsed.code(call)
    nl = parsed.newline
    ref = plan.reference
    changes: dict[cst.CSTNode, cstu.Change] = {}
    moved_comments: list[cst.EmptyLine] = []
    moved_trailing: cst.TrailingWhitespace | None = None

    # 1. Where the creation was.
    if plan.form in ("local", "attr"):
        if line is None or not isinstance(small, cst.Assign):
            raise LookupError("the assignment was not found")
        if plan.guard:
            if len(line.body) != 1:
                return None
            guard = parsed.statement(f"if {ref} is None:{nl}{parsed.indent}{ref} = {call_code}{nl}")
            assert isinstance(guard, cst.If) and isinstance(guard.body, cst.IndentedBlock)
            inner = guard.body.body[0].with_changes(trailing_whitespace=line.trailing_whitespace)  # type: ignore[attr-defined]
            guard = guard.with_changes(leading_lines=line.leading_lines,
                                       body=guard.body.with_changes(body=[inner]))
            _add_change(changes, line, lambda _updated, new=guard: new)
        else:
            moved_comments, moved_trailing = _remove_statement(parsed, line, small, changes)
    else:
        reference = cst.parse_expression(ref)
        changes[call] = lambda updated, new=reference: new.with_changes(lpar=updated.lpar, rpar=updated.rpar)  # type: ignore[attr-defined]
        if plan.guard:
            guard = parsed.statement(f"if {ref} is None:{nl}{parsed.indent}{ref} = {call_code}{nl}")

            def put_guard(updated, new=guard):
                return cst.FlattenSentinel([new.with_changes(leading_lines=updated.leading_lines),
                                            updated.with_changes(leading_lines=())])
            if statement is None:
                raise LookupError("no statement around the call")
            _add_change(changes, statement, put_guard)
    # 2. The reads of the removed local now read the hoisted object.
    if plan.form == "local" and plan.loads and ref != plan.local:
        for load in plan.loads:
            name_node = parsed.at(source.node_range(load), cst.Name)
            expression = cst.parse_expression(ref)
            changes[name_node] = lambda updated, new=expression: new.with_changes(lpar=updated.lpar, rpar=updated.rpar)  # type: ignore[attr-defined]
    # 3. Where the object is created now.
    created = f"{ref} = None" if plan.guard else f"{ref} = {call_code}"
    if plan.dest == "class":
        _into_init(plan, parsed, function, created, moved_comments, moved_trailing, changes)
    else:
        hoisted_name = plan.name
        statement_text = f"{hoisted_name} = None" if plan.guard else f"{hoisted_name} = {call_code}"
        _before_function(parsed, function, statement_text, moved_comments, moved_trailing, changes)
        if plan.guard:
            keyword = "global" if plan.scope_kind == "module" else "nonlocal"
            _declare(parsed, function, f"{keyword} {hoisted_name}", changes)
    new_code = cstu.rewrite(parsed, changes)
    return cstu.make_fix(parsed, new_code, plan.title, plan.applicability)


def _add_change(changes: dict, node: cst.CSTNode, change: cstu.Change) -> None:
    """Register `change` for `node`, after any change already registered for it."""
    previous = changes.get(node)
    if previous is None:
        changes[node] = change
    else:
        changes[node] = lambda updated: change(previous(updated))  # type: ignore[arg-type]


def _statement_of(parsed: cstu.Parsed, node: cst.CSTNode):
    """(small statement, its line, the statement) holding `node`."""
    small = line = statement = None
    for ancestor in parsed.ancestors(node):
        if small is None and isinstance(ancestor, cst.BaseSmallStatement):
            small = ancestor
        if isinstance(ancestor, cst.SimpleStatementSuite):
            raise cstu.FixNotPossible("a statement on the line of its `def`/`if`/...")
        if isinstance(ancestor, cst.SimpleStatementLine):
            line = statement = ancestor
            break
        if isinstance(ancestor, cst.BaseCompoundStatement):
            statement = ancestor
            break
    return small, line, statement


def _remove_statement(parsed: cstu.Parsed, line: cst.SimpleStatementLine, small: cst.BaseSmallStatement,
                      changes: dict) -> tuple[list[cst.EmptyLine], cst.TrailingWhitespace | None]:
    """Changes removing `small` (and its line, when it is alone there); returns the comments
    that belong to it (the ones right above it, and its end-of-line comment) to move along."""
    if len(line.body) > 1:
        changes[small] = lambda _updated: cst.RemovalSentinel.REMOVE
        return [], None
    block = parsed.parent(line)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        raise cstu.FixNotPossible("statement not in a block")
    leading = list(line.leading_lines)
    last_blank = max((i for i, entry in enumerate(leading) if entry.comment is None), default=-1)
    stays, moves = leading[:last_blank + 1], leading[last_blank + 1:]
    trailing = line.trailing_whitespace if line.trailing_whitespace.comment is not None else None
    index = next(i for i, stmt in enumerate(block.body) if stmt is line)

    def drop(updated):
        body = list(updated.body)
        if len(body) == 1:
            replacement = cst.SimpleStatementLine([cst.Pass()], leading_lines=stays)
            return updated.with_changes(body=[replacement])
        del body[index]
        if index < len(body) and stays:
            following = body[index]
            body[index] = following.with_changes(leading_lines=list(stays) + list(following.leading_lines))
        return updated.with_changes(body=body)

    _add_change(changes, block, drop)
    return moves, trailing


def _with_comments(statement: cst.CSTNode, comments: list[cst.EmptyLine],
                   trailing: cst.TrailingWhitespace | None) -> cst.CSTNode:
    if comments:
        statement = statement.with_changes(leading_lines=list(statement.leading_lines) + comments)  # type: ignore[attr-defined]
    if trailing is not None and isinstance(statement, cst.SimpleStatementLine):
        statement = statement.with_changes(trailing_whitespace=trailing)
    return statement


def _before_function(parsed: cstu.Parsed, function: cst.FunctionDef, statement_text: str,
                     comments: list[cst.EmptyLine], trailing: cst.TrailingWhitespace | None, changes: dict) -> None:
    """Put the new statement just before the function (before its decorators and the blank
    lines above it). Right after plain statements (module state, an earlier hoist) it joins
    them; after an import, a docstring, a class or a def it gets blank lines of its own."""
    new = parsed.statement(statement_text + parsed.newline)
    blanks, rest = cstu.blank_lines_then_rest(function.leading_lines)
    block = parsed.parent(function)
    siblings = list(getattr(block, "body", ()))
    index = next((i for i, s in enumerate(siblings) if s is function), 0)
    previous = siblings[index - 1] if index > 0 else None
    joins = (isinstance(previous, cst.SimpleStatementLine) and blanks and not comments
             and not any(isinstance(small, (cst.Import, cst.ImportFrom)) for small in previous.body)
             and not _is_docstring(previous))
    if joins:
        new = _with_comments(new, [], trailing)

        def insert(updated):
            return cst.FlattenSentinel([new, updated])
    else:
        new = _with_comments(new.with_changes(leading_lines=blanks), comments, trailing)
        separator = [cst.EmptyLine(indent=False)] * max(1, len(blanks))

        def insert(updated):
            return cst.FlattenSentinel([new, updated.with_changes(leading_lines=separator + rest)])

    _add_change(changes, function, insert)


def _declare(parsed: cstu.Parsed, function: cst.FunctionDef, declaration: str, changes: dict) -> None:
    """`global name` (or `nonlocal`) as the first statement of the function (after its docstring)."""
    if not isinstance(function.body, cst.IndentedBlock):
        raise cstu.FixNotPossible("a one-line function body")
    statement = parsed.statement(declaration + parsed.newline)
    block = function.body

    def add(updated):
        body = list(updated.body)
        at = 1 if body and _is_docstring(body[0]) else 0
        while at < len(body) and isinstance(body[at], cst.SimpleStatementLine) \
                and all(isinstance(small, (cst.Global, cst.Nonlocal)) for small in body[at].body):
            at += 1  # after the declarations already there
        if at < len(body):
            following = body[at]
            new = statement.with_changes(leading_lines=following.leading_lines)
            body[at] = following.with_changes(leading_lines=())
        else:
            new = statement
        body.insert(at, new)
        return updated.with_changes(body=body)

    _add_change(changes, block, add)


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _into_init(plan: Plan, parsed: cstu.Parsed, method: cst.FunctionDef, created: str,
               comments: list[cst.EmptyLine], trailing: cst.TrailingWhitespace | None, changes: dict) -> None:
    """Add `created` (`self.v = ...`) to `__init__` (at its end, or where `plan.init_after` says),
    creating `__init__` if needed."""
    nl, indent = parsed.newline, parsed.indent
    class_block = parsed.parent(method)
    classdef = parsed.parent(class_block) if class_block is not None else None
    if not isinstance(class_block, cst.IndentedBlock) or not isinstance(classdef, cst.ClassDef):
        raise cstu.FixNotPossible("the method is not directly in a class body")
    init = next((s for s in class_block.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if plan.guard and plan.init_assigns_name:
        return  # `__init__` already sets the attribute (to None, presumably: the guard tests it)
    if init is not None:
        init_self = _cst_first_param(init) or plan.self_name
        statement_text = created.replace(f"{plan.self_name}.", f"{init_self}.", 1)
        new = _with_comments(parsed.statement(statement_text + nl), comments, trailing)
        if not isinstance(init.body, cst.IndentedBlock):
            raise cstu.FixNotPossible("a one-line __init__")
        block = init.body
        at = len(block.body)
        if plan.init_after is not None:
            at = 1 if block.body and _is_docstring(block.body[0]) else 0
            for index, statement in enumerate(block.body):
                if parsed.range_of(statement).start.line + 1 <= plan.init_after:
                    at = max(at, index + 1)

        def append(updated):
            body = list(updated.body)
            return updated.with_changes(body=body[:at] + [new] + body[at:])

        _add_change(changes, init.body, append)
        return
    has_bases = plan.classdef is not None and _has_bases(plan.classdef)
    me = plan.self_name
    if has_bases:
        head = (f"def __init__({me}, *args, **kwargs):{nl}"
                f"{indent}super().__init__(*args, **kwargs){nl}")
    else:
        head = f"def __init__({me}):{nl}"
    new_init = parsed.statement(f"{head}{indent}{created}{nl}")
    assert isinstance(new_init, cst.FunctionDef) and isinstance(new_init.body, cst.IndentedBlock)
    last = _with_comments(new_init.body.body[-1], comments, trailing)
    new_init = new_init.with_changes(body=new_init.body.with_changes(body=list(new_init.body.body[:-1]) + [last]))
    def create(updated):
        body = list(updated.body)
        at = next((i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef)), len(body))
        if at < len(body):
            following = body[at]
            blanks, rest = cstu.blank_lines_then_rest(following.leading_lines)
            placed = new_init.with_changes(leading_lines=blanks)
            body[at] = following.with_changes(leading_lines=[cst.EmptyLine(indent=False)] * max(1, len(blanks)) + rest)
        else:
            placed = new_init.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        body.insert(at, placed)
        return updated.with_changes(body=body)

    _add_change(changes, class_block, create)


def _cst_first_param(function: cst.FunctionDef) -> str | None:
    params = list(function.params.posonly_params) + list(function.params.params)
    return params[0].name.value if params else None
