"""When code inside a traced tf.function body is safe after all.

Two questions the tf.function rules share:

- Is this object created lazily, once? `if self.v is None: self.v = ...`,
  `if not self.built:`, `if "k" not in cache:`, `self.opt = self.opt or Adam()`:
  state created behind a first-call guard is the documented way to create it inside a
  tf.function, and must stay silent (FUNC001-FUNC003).
- Does this code really run while TensorFlow traces? A function handed to
  `tf.py_function` / `tf.numpy_function` runs eagerly at execution time, a
  `with tf.init_scope():` block runs eagerly at trace time, and the branch of
  `if tf.executing_eagerly():` never runs in a trace. Eager-only calls there are fine
  (FUNC005, FUNC006).

Both answers need the parents of nodes, which the facts do not record: `parents(facts)`
builds that map once per file (a one-entry cache keyed by the tree), one top-level
statement at a time as rules ask.
"""

from __future__ import annotations

import ast
import threading
from bisect import bisect_left

from ..facts.model import Facts
from ..facts.walk import children as child_nodes
from ..versions import Version

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)

# TensorFlow's error for state created on a later trace, before and after its rewording in 2.7.
VARIABLE_ERROR = ("tf.function only supports singleton tf.Variables created on the first call. "
                  "Make sure the tf.Variable is only created once or created outside tf.function.")
VARIABLE_ERROR_BEFORE_2_7 = "tf.function-decorated function tried to create variables on non-first call."
_REWORDED = Version.parse("2.7")


def variable_error(tensorflow: Version) -> str:
    return VARIABLE_ERROR if tensorflow >= _REWORDED else VARIABLE_ERROR_BEFORE_2_7


# --- parents -------------------------------------------------------------------------

_cache = threading.local()


def parents(facts: Facts) -> "_Parents":
    """Child node -> parent node, for the whole file (`.get(child)`; filled on use)."""
    cached = getattr(_cache, "entry", None)
    if cached is not None and cached[0] is facts.tree:
        return cached[1]
    found = _Parents(facts.tree)
    _cache.entry = (facts.tree, found)
    return found


class _Parents:
    """The parent map, built one top-level statement at a time: asking for a node's parent
    fills the map for the top-level statement around it only (found by position), so rules
    that ask about a few calls do not pay for a walk of the whole file. A node without a
    position, or not found where its position says, makes the map whole (the walk the map
    was built with before), so every answer is the one the whole map gives."""

    def __init__(self, tree: ast.AST) -> None:
        self.tree = tree
        self.map: dict[ast.AST, ast.AST] = {}
        body = getattr(tree, "body", None)
        self.top: list[ast.AST] = body if isinstance(body, list) else []
        self.ends = [(stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0) for stmt in self.top]
        self.filled: set[int] = set()
        self.whole = not self.top
        if self.whole:
            self._fill_whole()
        else:
            for stmt in self.top:
                self.map[stmt] = tree

    def get(self, node: ast.AST, default: ast.AST | None = None) -> ast.AST | None:
        lineno = getattr(node, "lineno", None)
        if lineno is not None and not self.whole:
            # Positioned nodes are never shared within a tree: a partial map's answer is final.
            # (`Load()`, `Add()`... are shared and positionless: only the whole map answers.)
            found = self.map.get(node)
            if found is not None:
                return found
            index = bisect_left(self.ends, (lineno, getattr(node, "col_offset", 0) or 0))
            if index < len(self.top) and index not in self.filled:
                self.filled.add(index)
                self._fill(self.top[index])
                found = self.map.get(node)
                if found is not None:
                    return found
        if not self.whole:
            self._fill_whole()
        found = self.map.get(node)
        return found if found is not None else default

    def _fill(self, root: ast.AST) -> None:
        found = self.map
        stack: list[ast.AST] = [root]
        while stack:
            node = stack.pop()
            for child in child_nodes(node):
                found[child] = node
                stack.append(child)

    def _fill_whole(self) -> None:
        self.map = {}
        self._fill(self.tree)
        self.whole = True


def ancestors(node: ast.AST, facts: Facts):
    """(child, parent) pairs from `node` up to the module."""
    table = parents(facts)
    child = node
    parent = table.get(child)
    while parent is not None:
        yield child, parent
        child, parent = parent, table.get(parent)


# --- first-call guards -----------------------------------------------------------------

def is_first_call_guard(test: ast.expr, params: frozenset[str] | set[str] = frozenset()) -> bool:
    """A condition that plausibly holds on the first trace only.

    `self.v is None`, `v is not None`, `not self.built`, `not hasattr(self, "v")`,
    `"k" not in cache`, and `and`/`or` combinations containing one. Not guards: comparisons
    of values (`step > 0`), a flag's truthiness (`if training:`, `if self.use_bias:`: the
    object is created exactly when the flag is set, on every trace), and `not p` for a
    parameter `p` of the function (`params`), which each call passes afresh.
    """
    if isinstance(test, ast.BoolOp):
        return any(is_first_call_guard(value, params) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        operand = test.operand
        if isinstance(operand, ast.Name):
            return operand.id not in params
        return isinstance(operand, (ast.Attribute, ast.Subscript, ast.Call)) \
            or is_first_call_guard(operand, params)
    if isinstance(test, ast.Compare):
        operands = [test.left, *test.comparators]
        if any(isinstance(o, ast.Constant) and o.value is None for o in operands):
            return True
        return any(isinstance(op, (ast.In, ast.NotIn)) for op in test.ops)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        return test.func.id in ("hasattr", "getattr", "isinstance")
    return False


def created_lazily(call: ast.Call, guards: tuple[ast.If, ...], facts: Facts) -> bool:
    """Is the object `call` makes created behind a first-call guard?

    `guards` are the `if` statements around the call within its function (CallSite.guards).
    Also accepted: `x = x or Ctor()` and `Ctor() if x is None else x`. Not accepted:
    `cache.setdefault(k, Ctor())`, whose constructor runs every time.
    """
    params = _enclosing_params(call, facts)
    if any(is_first_call_guard(guard.test, params) for guard in guards):
        return True
    for child, parent in ancestors(call, facts):
        if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.Or) and child is not parent.values[0]:
            return True
        if isinstance(parent, ast.IfExp) and child is not parent.test and is_first_call_guard(parent.test):
            return True
        if isinstance(parent, (ast.stmt, *FUNCTION_NODES)):
            return False
    return False


def _enclosing_params(node: ast.AST, facts: Facts) -> set[str]:
    for _child, parent in ancestors(node, facts):
        if isinstance(parent, FUNCTION_NODES):
            args = parent.args
            return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    return set()


# --- code in a traced body that runs eagerly -------------------------------------------

_EAGER_FUNCTION_WRAPPERS = frozenset({
    "tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func",
    "tensorflow.experimental.numpy_function",
})


def eager_context(node: ast.AST, facts: Facts) -> str | None:
    """Why `node`, inside a tf.function body, runs eagerly rather than in the trace (or None).

    Stops at the tf.function's own def: a function traced by TensorFlow is never eager itself.
    """
    imports = facts.imports
    for child, parent in ancestors(node, facts):
        if isinstance(parent, (ast.With, ast.AsyncWith)) and child in parent.body:
            for item in parent.items:
                expr = item.context_expr
                if isinstance(expr, ast.Call) and _name_ends(imports.resolve(expr.func), "init_scope"):
                    return "inside `tf.init_scope()`, which runs eagerly"
        if isinstance(parent, ast.If):
            eager_branch = _eager_branch(parent.test, imports)
            if eager_branch == "body" and child in parent.body:
                return "under `if tf.executing_eagerly():`"
            if eager_branch == "orelse" and child in parent.orelse:
                return "in the eager branch of `if not tf.executing_eagerly():`"
        if isinstance(parent, ast.IfExp):
            eager_branch = _eager_branch(parent.test, imports)
            if (eager_branch == "body" and child is parent.body) or (eager_branch == "orelse" and child is parent.orelse):
                return "in the eager branch of a `tf.executing_eagerly()` test"
        if isinstance(parent, FUNCTION_NODES):
            scope = facts.function_scopes.get(parent)
            if scope is not None and scope.tf_function is not None:
                return None
            if _passed_to_eager_wrapper(parent, facts):
                return "in a function run by `tf.py_function`/`tf.numpy_function`, which runs eagerly"
    return None


def _name_ends(qualname: str | None, name: str) -> bool:
    return qualname is not None and (qualname == name or qualname.endswith("." + name))


def _is_executing_eagerly(expr: ast.expr, imports) -> bool:
    return isinstance(expr, ast.Call) and not expr.args and _name_ends(imports.resolve(expr.func), "executing_eagerly")


def _eager_branch(test: ast.expr, imports) -> str | None:
    if _is_executing_eagerly(test, imports):
        return "body"
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _is_executing_eagerly(test.operand, imports):
        return "orelse"
    return None


def _passed_to_eager_wrapper(function: ast.AST, facts: Facts) -> bool:
    """Is this def or lambda the function of a `tf.py_function(f, ...)`-style call?"""
    table = parents(facts)
    if isinstance(function, ast.Lambda):
        parent = table.get(function)
        return isinstance(parent, ast.Call) and _wraps(parent, function, facts)
    name = getattr(function, "name", None)
    for qualname in _EAGER_FUNCTION_WRAPPERS:
        for site in facts.calls_by_name.get(qualname, ()):
            target = _wrapped_function(site.node)
            if isinstance(target, ast.Name) and target.id == name:
                return True
            if isinstance(target, ast.Attribute) and target.attr == name:
                return True
    return False


def _wraps(call: ast.Call, function: ast.AST, facts: Facts) -> bool:
    return facts.imports.resolve(call.func) in _EAGER_FUNCTION_WRAPPERS and _wrapped_function(call) is function


def _wrapped_function(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    for keyword in call.keywords:
        if keyword.arg in ("func", "fn"):
            return keyword.value
    return None


def runs_functions_eagerly(facts: Facts) -> bool:
    """`tf.config.run_functions_eagerly(True)` in the file: tf.functions run as plain Python."""
    for site in facts.calls_to("tensorflow.config.run_functions_eagerly",
                               "tensorflow.config.experimental_run_functions_eagerly"):
        args = site.node.args
        if args and isinstance(args[0], ast.Constant) and args[0].value is True:
            return True
    return False


# --- is an object made in a traced body used there? ---------------------------------------

def used_after_construction(call: ast.Call, scope, facts: Facts,
                            methods: tuple[str, ...] | None = None) -> ast.AST | None:
    """Where the object `call` constructs is used in its function (None when it is not).

    Used: called right away (`Dense(3)(x)`), passed to another call (`model.add(Dense(3))`),
    or bound to a name or `self.attr` that is read again. With `methods`, only calls of those
    methods count as uses (`opt.apply_gradients(...)`), besides the chained form.
    """
    table = parents(facts)
    parent = table.get(call)
    if isinstance(parent, ast.Attribute) and parent.value is call:
        outer = table.get(parent)
        if isinstance(outer, ast.Call) and outer.func is parent:
            return outer if methods is None or parent.attr in methods else None
        return None
    if isinstance(parent, ast.Call) and parent.func is call:
        return parent if methods is None else None
    if isinstance(parent, (ast.Call, ast.List, ast.Tuple, ast.keyword)) and methods is None:
        return parent
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is call:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        for target in targets:
            name = _dotted(target)
            if name is None:
                continue
            found = _later_use(name, parent, scope, facts, methods)
            if found is not None:
                return found
    return None


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return f"{expr.value.id}.{expr.attr}"
    return None


def _later_use(name: str, statement: ast.stmt, scope, facts: Facts,
               methods: tuple[str, ...] | None) -> ast.AST | None:
    if methods is not None:
        receiver_scopes = [scope] if not name.startswith("self.") else _class_scopes(scope, facts)
        for candidate in receiver_scopes:
            for method in methods:
                sites = candidate.method_calls.get((name, method), ())
                for site in sites:
                    if site.node is not statement:
                        return site.node
        return None
    scopes = [scope] if not name.startswith("self.") else _class_scopes(scope, facts)
    for candidate in scopes:
        for load in candidate.loads.get(name, ()):
            if not _inside(load, statement):
                return load
        receiver, _, attr = name.partition(".")
        if attr:
            for (call_receiver, method), sites in candidate.method_calls.items():
                if call_receiver == receiver and method == attr:
                    return sites[0].node
    return None


def _class_scopes(scope, facts: Facts) -> list:
    """Every scope of the class that `scope` is a method of (or just `scope`)."""
    current = scope
    while current is not None and not (current.parent is not None and current.parent.kind == "class"
                                       and current.kind in ("function", "lambda")):
        current = current.parent
    if current is None:
        return [scope]
    cls = current.parent
    found = []
    for candidate in facts.scopes:
        probe = candidate
        while probe is not None and probe is not cls:
            probe = probe.parent
        if probe is cls and candidate is not cls:
            found.append(candidate)
    return found


def _inside(node: ast.AST, statement: ast.stmt) -> bool:
    return (statement.lineno, statement.col_offset) <= (node.lineno, node.col_offset) <= \
        (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
