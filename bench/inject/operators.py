"""Mutation operators: plant one TensorFlow pitfall at one site of a correct module.

Sites are found with `ast`; a mutation is a list of text edits on the module's source, so every
byte outside the edited spans stays as it was. Each mutation names its family (the dev corpus's
family names where one fits), its root-cause line in the mutated text (the dev corpus's
conventions, see README.md), acceptable alternative lines, and the symptom TensorFlow must show
(`oracle`, checked by confirm.py against the original program's run).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

MAX_SITES = 2  # per operator variant and module: the first sites in source order
# Variants that apply almost everywhere a value flows to a loss: one site per module.
ONE_SITE = {"argmax", "compare", "np-asarray", "float", "mean-method", "tf-gradients", "second-gradient",
            "variable-untrainable", "astype", "reshape-method"}

GRAD_METHODS = {"gradient", "jacobian", "batch_jacobian"}
TRACED_METHODS = {"train_step", "test_step", "predict_step"}
DATA_METHODS = {"map", "filter", "flat_map", "interleave"}
GRAD_BROKEN = r"No gradients provided|Gradients do not exist|NoneType|non-persistent GradientTape"
# What tape.gradient raises when its target itself left TensorFlow (a NumPy value, a Python float).
TARGET_LEFT_TF = r"object has no attribute '_id'|to a TensorFlow DType"
NON_PERSISTENT = r"non-persistent GradientTape can only be used"
VAR_IN_FUNCTION = r"singleton tf\.Variables|non-first call|created outside tf\.function|tried to create variables"
NUMPY_IN_GRAPH = r"has no attribute 'numpy'|Cannot convert a symbolic|symbolic tf\.Tensor|SymbolicTensor|numpy\(\) is only available"
AUTOGRAPH_OFF = r"OperatorNotAllowedInGraphError|as a Python `bool`|Iterating over a symbolic|iterating over `tf\.Tensor`|not allowed in Graph"
NUMPY_METHOD = r"has no attribute '(astype|reshape|mean|tolist|max|min|sum)'"
MINIMIZE = r"should be a function|`tape` is required|tape is required|must be callable|must be a callable"
ELEMENTWISE = {"tf.nn.relu": "tf.nn.relu", "tf.tanh": "tf.tanh", "tf.math.tanh": "tf.math.tanh",
               "tf.sigmoid": "tf.sigmoid", "tf.nn.sigmoid": "tf.nn.sigmoid", "tf.math.sigmoid": "tf.math.sigmoid",
               "tf.exp": "tf.exp", "tf.math.exp": "tf.math.exp", "tf.square": "tf.square",
               "tf.math.square": "tf.math.square", "tf.abs": "tf.abs", "tf.math.abs": "tf.math.abs",
               "tf.sqrt": "tf.sqrt", "tf.math.sqrt": "tf.math.sqrt", "tf.nn.softplus": "tf.nn.softplus",
               "tf.math.softplus": "tf.math.softplus", "tf.sin": "tf.sin", "tf.math.sin": "tf.math.sin",
               "tf.cos": "tf.cos", "tf.math.cos": "tf.math.cos", "tf.nn.elu": "tf.nn.elu",
               "tf.math.log1p": "tf.math.log1p"}
NP_SAME = {"square", "exp", "log", "tanh", "abs", "sqrt", "sin", "cos", "maximum", "minimum", "matmul",
           "reduce_sum", "reduce_mean", "log1p"}
NP_NAME = {"reduce_sum": "sum", "reduce_mean": "mean"}


@dataclass
class Mutation:
    op: str
    family: str
    rel: str
    text: str
    root: int
    alt: tuple = ()
    oracle: dict = field(default_factory=dict)
    site: int = 0
    context: str = "function"
    traced: bool = False
    desc: str = ""


# -- text helpers -------------------------------------------------------------------------------
class Source:
    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def off(self, line: int, col_bytes: int) -> int:
        raw = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        return self.starts[line - 1] + len(raw.encode()[:col_bytes].decode(errors="ignore"))

    def span(self, node) -> tuple[int, int]:
        return self.off(node.lineno, node.col_offset), self.off(node.end_lineno, node.end_col_offset)

    def seg(self, node) -> str:
        a, b = self.span(node)
        return self.text[a:b]

    def line_span(self, first: int, last: int) -> tuple[int, int]:
        return self.starts[first - 1], self.starts[last]

    def indent(self, line: int) -> str:
        raw = self.lines[line - 1]
        return raw[: len(raw) - len(raw.lstrip())]

    def line_of(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1


def apply_edits(text: str, edits: list[tuple[int, int, str]]):
    """Apply non-overlapping (start, end, new) edits; return the text and each edit's new start."""
    order = sorted(range(len(edits)), key=lambda i: (edits[i][0], edits[i][1]))
    out, pos, shift = [], 0, 0
    starts = [0] * len(edits)
    for i in order:
        a, b, new = edits[i]
        if a < pos:
            raise ValueError("overlapping edits")
        out.append(text[pos:a])
        starts[i] = a + shift
        out.append(new)
        shift += len(new) - (b - a)
        pos = b
    out.append(text[pos:])
    return "".join(out), starts


def map_offset(edits, offset: int) -> int:
    shift = 0
    for a, b, new in edits:
        if b <= offset:
            shift += len(new) - (b - a)
    return offset + shift


def dedent_block(text: str, remove: int) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        strip = min(remove, len(line) - len(line.lstrip(" ")))
        out.append(line[strip:] if line.strip() else line)
    return "".join(out)


# -- the module as the operators see it --------------------------------------------------------
def dotted(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def is_tape_call(node) -> bool:
    return isinstance(node, ast.Call) and (dotted(node.func) or "").split(".")[-1] == "GradientTape"


def is_tf_function_expr(node) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    name = dotted(target) or ""
    return name in ("tf.function", "function") or name.endswith(".function") and name.startswith("tf")


def names_read(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def assigned_name(stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and isinstance(stmt.target, ast.Name):
        return stmt.target.id
    return None


class Module:
    def __init__(self, rel: str, text: str, kind: str):
        self.rel = rel
        self.kind = kind
        self.src = Source(text)
        self.tree = ast.parse(text)
        self.parent: dict = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.np = self._alias("numpy")
        self.random = self._alias("random")
        self.functions = [n for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        self.traced = self._traced()
        self.data_fns = self._data_fns()
        self.tapes = []  # (with stmt, item, tape name, persistent)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.With):
                for item in node.items:
                    if is_tape_call(item.context_expr) and isinstance(item.optional_vars, ast.Name):
                        persistent = any(k.arg == "persistent" and isinstance(k.value, ast.Constant) and k.value.value
                                         for k in item.context_expr.keywords)
                        self.tapes.append((node, item, item.optional_vars.id, persistent))
        self.grad_calls = [n for n in ast.walk(self.tree) if isinstance(n, ast.Call)
                           and isinstance(n.func, ast.Attribute) and n.func.attr in GRAD_METHODS
                           and isinstance(n.func.value, ast.Name) and len(n.args) >= 2]
        self.grad_calls.sort(key=lambda n: (n.lineno, n.col_offset))

    def _alias(self, module: str) -> str | None:
        for node in self.tree.body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name == module:
                        return a.asname or a.name
        return None

    def _traced(self) -> set:
        wrapped = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and is_tf_function_expr(node) and node.args and isinstance(node.args[0], ast.Name):
                wrapped.add(node.args[0].id)
        out = set()
        for fn in self.functions:
            if any(is_tf_function_expr(d) for d in fn.decorator_list) or fn.name in wrapped:
                out.add(fn)
            elif fn.name in TRACED_METHODS and isinstance(self.parent.get(fn), ast.ClassDef):
                out.add(fn)
        out |= self._data_fns()
        return out

    def _data_fns(self) -> set:
        names = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DATA_METHODS:
                for arg in node.args[:1]:
                    if isinstance(arg, ast.Name):
                        names.add(arg.id)
                    elif isinstance(arg, ast.Attribute):
                        names.add(arg.attr)
        return {fn for fn in self.functions if fn.name in names}

    # -- where a node is --------------------------------------------------------------------
    def enclosing_function(self, node):
        p = self.parent.get(node)
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            p = self.parent.get(p)
        return p

    def is_traced(self, node) -> bool:
        fn = self.enclosing_function(node)
        while fn is not None:
            if fn in self.traced:
                return True
            fn = self.enclosing_function(fn)
        return False

    def context(self, node) -> str:
        if self.kind == "notebook":
            return "notebook"
        if self.kind == "package":
            return "modules"
        fn = self.enclosing_function(node)
        chain = []
        while fn is not None:
            chain.append(fn)
            fn = self.enclosing_function(fn)
        if any(getattr(f, "name", "") in TRACED_METHODS and isinstance(self.parent.get(f), ast.ClassDef) for f in chain):
            return "train_step"
        if any(f in self.data_fns for f in chain):
            return "tf.data map"
        if chain and isinstance(self.parent.get(chain[0]), ast.ClassDef):
            return "method"
        return "function"

    def body_stmts(self, fn):
        """Statements of a function body, not those of nested functions or classes."""
        out = []

        def visit(stmts):
            for s in stmts:
                out.append(s)
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                for name in ("body", "orelse", "finalbody"):
                    visit(getattr(s, name, []) or [])
                for h in getattr(s, "handlers", []) or []:
                    visit(h.body)
        visit(fn.body)
        return out

    def stmt_of(self, node):
        while node is not None and not isinstance(node, ast.stmt):
            node = self.parent.get(node)
        return node

    def within(self, node, ancestor) -> bool:
        while node is not None:
            if node is ancestor:
                return True
            node = self.parent.get(node)
        return False

    def whole_lines(self, stmt) -> bool:
        """The statement owns its lines (nothing else on them)."""
        first = self.src.lines[stmt.lineno - 1]
        last = self.src.lines[stmt.end_lineno - 1]
        a = self.src.off(stmt.lineno, stmt.col_offset) - self.src.starts[stmt.lineno - 1]
        b = self.src.off(stmt.end_lineno, stmt.end_col_offset) - self.src.starts[stmt.end_lineno - 1]
        tail = last[b:].strip()
        return not first[:a].strip() and (not tail or tail.startswith("#"))

    def grads_of(self, tape: str, after_line: int = 0):
        return [c for c in self.grad_calls if c.func.value.id == tape and c.lineno >= after_line]

    def tape_stmts(self, with_node):
        """Statements inside a tape block (nested blocks included, nested defs excluded)."""
        out = []

        def visit(stmts):
            for s in stmts:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                out.append(s)
                for name in ("body", "orelse", "finalbody"):
                    visit(getattr(s, name, []) or [])
        visit(with_node.body)
        return out


# -- building mutations -------------------------------------------------------------------------
class Builder:
    """Collects the edits of one mutation and where its root line will be."""

    def __init__(self, mod: Module, op: str, family: str, site, oracle: dict, desc: str = ""):
        self.mod, self.op, self.family, self.site_node = mod, op, family, site
        self.oracle, self.desc = oracle, desc
        self.edits: list[tuple[int, int, str]] = []

    def replace(self, node, new: str) -> int:
        a, b = self.mod.src.span(node)
        self.edits.append((a, b, new))
        return len(self.edits) - 1

    def replace_span(self, a: int, b: int, new: str) -> int:
        self.edits.append((a, b, new))
        return len(self.edits) - 1

    def insert_lines_before(self, line: int, text: str) -> int:
        a = self.mod.src.starts[line - 1]
        self.edits.append((a, a, text))
        return len(self.edits) - 1

    def insert_lines_after(self, line: int, text: str) -> int:
        a = self.mod.src.starts[line]
        if a == len(self.mod.src.text) and not self.mod.src.text.endswith("\n"):
            text = "\n" + text
        self.edits.append((a, a, text))
        return len(self.edits) - 1

    def delete_lines(self, first: int, last: int) -> int:
        a, b = self.mod.src.line_span(first, last)
        self.edits.append((a, b, ""))
        return len(self.edits) - 1

    def build(self, root, alt=(), root_from_exception=False, marker=None) -> Mutation | None:
        """`root`/`alt` entries: ("edit", index, line_in_new_text) or ("line", original_line)."""
        try:
            new_text, starts = apply_edits(self.mod.src.text, self.edits)
        except ValueError:
            return None
        if new_text == self.mod.src.text:
            return None
        try:
            ast.parse(new_text)
        except SyntaxError:
            return None
        new_src = Source(new_text)
        ordered = sorted(self.edits)

        def resolve(spec):
            if spec[0] == "edit":
                return new_src.line_of(starts[spec[1]]) + spec[2]
            return new_src.line_of(map_offset(ordered, self.mod.src.starts[spec[1] - 1]))
        oracle = dict(self.oracle)
        root_line = resolve(root)
        if oracle.get("kind") in ("trace-only", "slow-mapfn"):
            oracle["line"] = root_line
        if marker:
            oracle["marker"] = marker
        if root_from_exception:
            oracle["root_from_exception"] = True
        return Mutation(self.op, self.family, self.mod.rel, new_text, root_line,
                        tuple(sorted({resolve(s) for s in alt} - {root_line})), oracle,
                        self.site_node.lineno, self.mod.context(self.site_node), self.mod.is_traced(self.site_node),
                        self.desc)


def none_grad(extra: str = "") -> dict:
    return {"kind": "none-grad", "raises": GRAD_BROKEN + ("|" + extra if extra else "")}


def raises(regex: str) -> dict:
    return {"kind": "raises", "raises": regex}


def _cap(items, n=MAX_SITES):
    return list(items)[:n]


# -- operators ------------------------------------------------------------------------------------
def op_shadow_tape(mod: Module):
    for w_in, item_in, name_in, _ in mod.tapes:
        outer = [(w, n) for w, _, n, _ in mod.tapes if w is not w_in and mod.within(w_in, w) and n != name_in]
        if not outer:
            continue
        w_out, name_out = outer[-1]
        scope = mod.enclosing_function(w_in) or mod.tree
        b = Builder(mod, "shadow-tape", "tape-nested-rebind", w_in, none_grad(),
                    f"inner tape `{name_in}` renamed to the outer `{name_out}`")
        for node in ast.walk(scope):
            if isinstance(node, ast.Name) and node.id == name_in and node.lineno >= w_in.lineno:
                b.replace(node, name_out)
        alt = [("line", c.lineno) for c in mod.grads_of(name_out, w_in.lineno)]
        yield b.build(("line", w_in.lineno), alt)


def op_loss_after_block(mod: Module):
    for w, _, tape, _ in mod.tapes:
        if len(w.body) < 2:
            continue
        targets = {c.args[0].id: c for c in mod.grads_of(tape, w.end_lineno + 1) if isinstance(c.args[0], ast.Name)}
        for i, stmt in enumerate(w.body):
            name = assigned_name(stmt)
            if name not in targets or not mod.whole_lines(stmt):
                continue
            if any(name in names_read(s) for s in w.body[i + 1:]):
                continue
            b = Builder(mod, "loss-after-block", "tape-outside", stmt, none_grad(),
                        f"`{name} = ...` moved after the `with {tape}` block")
            text = mod.src.text[slice(*mod.src.line_span(stmt.lineno, stmt.end_lineno))]
            remove = len(mod.src.indent(stmt.lineno)) - len(mod.src.indent(w.lineno))
            b.delete_lines(stmt.lineno, stmt.end_lineno)
            k = b.insert_lines_after(w.end_lineno, dedent_block(text, remove))
            yield b.build(("edit", k, 0), [("line", targets[name].lineno)])


def op_forward_before_block(mod: Module):
    for w, _, tape, _ in mod.tapes:
        if len(w.body) < 2:
            continue
        assigned: set[str] = set()
        done = 0
        for stmt in w.body:
            name = assigned_name(stmt)
            if (isinstance(stmt, ast.Assign) and name and isinstance(stmt.value, ast.Call)
                    and not (names_read(stmt) & assigned) and mod.whole_lines(stmt) and stmt is not w.body[-1]
                    and tape not in names_read(stmt)):
                b = Builder(mod, "forward-before-block", "tape-outside", stmt, none_grad(),
                            f"`{name} = ...` moved before the `with {tape}` block")
                text = mod.src.text[slice(*mod.src.line_span(stmt.lineno, stmt.end_lineno))]
                remove = len(mod.src.indent(stmt.lineno)) - len(mod.src.indent(w.lineno))
                b.delete_lines(stmt.lineno, stmt.end_lineno)
                k = b.insert_lines_before(w.lineno, dedent_block(text, remove))
                alt = [("line", c.lineno) for c in mod.grads_of(tape, w.end_lineno)][:1]
                yield b.build(("edit", k, 0), alt)
                done += 1
                if done >= 2:
                    break
            for t in ast.walk(stmt):
                if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store):
                    assigned.add(t.id)


def _source_names(call) -> set[str]:
    out = set()
    for n in ast.walk(call.args[1]):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
    return out


def _target_key(stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if isinstance(t, ast.Name):
            return t.id
        if isinstance(t, ast.Attribute):
            return t.attr
    return None


def _grad_using(mod: Module, key: str):
    return [c for c in mod.grad_calls if key in _source_names(c)]


def _watched(mod: Module, key: str) -> bool:
    for n in ast.walk(mod.tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "watch":
            if any(isinstance(x, (ast.Name, ast.Attribute)) and (getattr(x, "id", None) or getattr(x, "attr", None)) == key
                   for a in n.args for x in ast.walk(a)):
                return True
    return False


def _calls_named(mod: Module, names: set[str]):
    for stmt in ast.walk(mod.tree):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) in names:
            yield stmt, stmt.value


def op_variable_to_constant(mod: Module):
    n1 = n2 = 0
    for stmt, call in _calls_named(mod, {"tf.Variable"}):
        key = _target_key(stmt)
        users = _grad_using(mod, key) if key else []
        if not users or not call.args:
            continue
        kw = "".join(f", dtype={mod.src.seg(k.value)}" for k in call.keywords if k.arg == "dtype")
        if n1 < MAX_SITES:
            b = Builder(mod, "variable-to-constant", "tape-unwatched-constant", stmt, none_grad(),
                        "tf.Variable source made a tf.constant")
            b.replace(call, f"tf.constant({mod.src.seg(call.args[0])}{kw})")
            yield b.build(("line", users[0].lineno), [("line", stmt.lineno)] + [("line", u.lineno) for u in users[1:]])
            n1 += 1
        if n2 < MAX_SITES and not any(k.arg == "trainable" for k in call.keywords):
            b = Builder(mod, "variable-untrainable", "tape-unwatched-constant", stmt, none_grad(),
                        "source tf.Variable made trainable=False")
            a, e = mod.src.span(call)
            b.replace_span(e - 1, e - 1, ", trainable=False")
            yield b.build(("line", users[0].lineno), [("line", stmt.lineno)])
            n2 += 1


def op_drop_watch(mod: Module):
    for w, _, tape, _ in mod.tapes:
        for stmt in mod.tape_stmts(w):
            if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                    and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "watch"
                    and dotted(stmt.value.func.value) == tape and len(w.body) > 1 and mod.whole_lines(stmt)):
                watched = names_read(stmt.value) - {tape}
                grads = [c for c in mod.grads_of(tape, w.lineno) if _source_names(c) & watched] or mod.grads_of(tape, w.lineno)
                if not grads:
                    continue
                b = Builder(mod, "drop-watch", "tape-unwatched-constant", stmt, none_grad(),
                            f"`{mod.src.seg(stmt)}` removed")
                b.delete_lines(stmt.lineno, stmt.end_lineno)
                yield b.build(("line", grads[0].lineno), [("line", w.lineno)])


def _float_literals(node) -> bool:
    nums = [n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, (int, float))
            and not isinstance(n.value, bool)]
    return bool(nums) and all(isinstance(n.value, float) and n.value.is_integer() for n in nums) and all(
        isinstance(n, (ast.List, ast.Tuple, ast.Constant, ast.UnaryOp, ast.USub, ast.Load)) for n in ast.walk(node))


def op_integer_source(mod: Module):
    counts: dict[str, int] = {}

    def flows(stmt):
        key = _target_key(stmt)
        return key and (_grad_using(mod, key) or _watched(mod, key)), key

    for stmt in ast.walk(mod.tree):
        if not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Call):
            continue
        call = stmt.value
        name = dotted(call.func)
        ok, key = flows(stmt)
        if not ok:
            continue
        users = _grad_using(mod, key)
        root = ("line", users[0].lineno) if users else ("line", stmt.lineno)
        variant = None
        b = None
        if name == "tf.range" and any(k.arg == "dtype" for k in call.keywords):
            variant = "range-no-dtype"
            b = Builder(mod, "int-range", "tape-integer-source", stmt, none_grad("must be floating"),
                        "tf.range without its float dtype")
            args = [mod.src.seg(a) for a in call.args] + [f"{k.arg}={mod.src.seg(k.value)}" for k in call.keywords
                                                           if k.arg != "dtype"]
            b.replace(call, f"tf.range({', '.join(args)})")
        elif name in ("tf.constant", "tf.convert_to_tensor") and call.args and _float_literals(call.args[0]):
            variant = "int-constant"
            b = Builder(mod, "int-constant", "tape-integer-source", stmt, none_grad("must be floating"),
                        "float literals made integers")
            for n in ast.walk(call.args[0]):
                if isinstance(n, ast.Constant) and isinstance(n.value, float):
                    b.replace(n, str(int(n.value)))
            for k in call.keywords:
                if k.arg == "dtype":
                    a, e = mod.src.span(k)
                    s = mod.src.text.rfind(",", 0, a)
                    b.replace_span(s, e, "")
        elif name == "tf.cast" and len(call.args) == 2 and (dotted(call.args[1]) or "").startswith("tf.float"):
            variant = "int-cast"
            b = Builder(mod, "int-cast", "tape-integer-source", stmt, none_grad("must be floating"),
                        "cast to tf.int32 instead of a float dtype")
            b.replace(call.args[1], "tf.int32")
        elif (name == "tf.Variable" and call.args and isinstance(call.args[0], ast.Constant)
              and isinstance(call.args[0].value, float) and call.args[0].value.is_integer()):
            variant = "int-variable"
            b = Builder(mod, "int-variable", "tape-integer-source", stmt, none_grad("must be floating"),
                        "tf.Variable initialised with an int")
            b.replace(call.args[0], str(int(call.args[0].value)))
            root = ("line", stmt.lineno)
        if b is None or counts.get(variant, 0) >= MAX_SITES:
            continue
        counts[variant] = counts.get(variant, 0) + 1
        alt = [("line", stmt.lineno)] + [("line", u.lineno) for u in users]
        edits = list(b.edits)
        yield b.build(root, alt)
        # The same integer source, cast to float where the tape uses it (as real code does to get
        # past TensorFlow's dtype checks): the tape still differentiates w.r.t. the integer tensor.
        if variant != "int-variable" and isinstance(stmt.targets[0], ast.Name) and _watched(mod, key):
            uses = [n for w, _, _, _ in mod.tapes for s in mod.tape_stmts(w)
                    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                            and getattr(s.value.func, "attr", "") == "watch")
                    for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == key and isinstance(n.ctx, ast.Load)]
            if uses:
                c = Builder(mod, b.op + "-cast-in-tape", "tape-integer-source", stmt, none_grad("must be floating"),
                            b.desc + ", cast to float inside the tape")
                c.edits = edits + [(*mod.src.span(n), f"tf.cast({key}, tf.float32)") for n in uses]
                yield c.build(root, alt)


def _path_assigns(mod: Module):
    """(tape with, assignment) where the assigned name is read later in the block or is a target."""
    seen = set()
    for w, _, tape, _ in mod.tapes:
        stmts = mod.tape_stmts(w)
        targets = {c.args[0].id for c in mod.grads_of(tape, w.lineno) if isinstance(c.args[0], ast.Name)}
        for i, stmt in enumerate(stmts):
            name = assigned_name(stmt)
            if not isinstance(stmt, ast.Assign) or not name or stmt in seen or not mod.whole_lines(stmt):
                continue
            if not isinstance(stmt.value, (ast.Call, ast.BinOp, ast.Subscript, ast.Attribute)):
                continue
            later = any(name in names_read(s) for s in stmts[i + 1:])
            if later or name in targets:
                seen.add(stmt)
                yield w, tape, stmt, name, name in targets


def _wrap(src: str, node) -> str:
    text = src
    return text if isinstance(node, (ast.Call, ast.Name, ast.Attribute, ast.Subscript)) else f"({text})"


def op_numpy_escape(mod: Module):
    counts: dict[str, int] = {}
    for w, tape, stmt, name, is_target in _path_assigns(mod):
        traced = mod.is_traced(stmt)
        family = "tffunc-numpy-call" if traced else "grad-numpy-escape"
        oracle = raises(NUMPY_IN_GRAPH) if traced else none_grad(TARGET_LEFT_TF)
        rhs = mod.src.seg(stmt.value)
        variants = [("dot-numpy", f"{_wrap(rhs, stmt.value)}.numpy()")]
        if mod.np:
            variants.append(("np-asarray", f"{mod.np}.asarray({rhs})"))
        if is_target and not traced:
            variants.append(("float", f"float({rhs})"))
        for variant, new in variants:
            if counts.get(variant, 0) >= MAX_SITES:
                continue
            counts[variant] = counts.get(variant, 0) + 1
            b = Builder(mod, variant, family, stmt, oracle, f"`{name}` leaves TensorFlow ({variant})")
            b.replace(stmt.value, new)
            yield b.build(("line", stmt.lineno))
    # tf ops on the path replaced by their NumPy twins
    if mod.np:
        n = 0
        for w, _, tape, _ in mod.tapes:
            for stmt in mod.tape_stmts(w):
                if n >= MAX_SITES or not isinstance(stmt, ast.Assign):
                    continue
                for call in ast.walk(stmt.value):
                    name = dotted(call.func) if isinstance(call, ast.Call) else None
                    if name and name.startswith(("tf.", "tf.math.")) and name.split(".")[-1] in NP_SAME and (
                            name.count(".") == 1 or name.startswith("tf.math.")) and not call.keywords:
                        fn = name.split(".")[-1]
                        traced = mod.is_traced(stmt)
                        b = Builder(mod, "np-op", "tffunc-numpy-call" if traced else "grad-numpy-escape", stmt,
                                    raises(NUMPY_IN_GRAPH) if traced else none_grad(TARGET_LEFT_TF), f"{name} -> np.{fn}")
                        b.replace(call.func, f"{mod.np}.{NP_NAME.get(fn, fn)}")
                        yield b.build(("line", stmt.lineno))
                        n += 1
                        break
    # model.predict on the path (eager tapes only)
    n = 0
    for w, tape, stmt, name, _ in list(_path_assigns(mod)):
        call = stmt.value
        if n >= MAX_SITES or mod.is_traced(stmt) or not isinstance(call, ast.Call) or len(call.args) != 1:
            continue
        callee = dotted(call.func)
        if not callee or callee.startswith(("tf.", "np.", mod.np or "np")) or callee.split(".")[-1][0].isupper():
            continue
        if any(k.arg not in ("training",) for k in call.keywords):
            continue
        b = Builder(mod, "predict", "grad-numpy-escape", stmt, none_grad(TARGET_LEFT_TF),
                    f"`{callee}(...)` -> `{callee}.predict`")
        b.replace(call, f"{callee}.predict({mod.src.seg(call.args[0])}, verbose=0)")
        yield b.build(("line", stmt.lineno))
        n += 1


def op_nondiff(mod: Module):
    counts: dict[str, int] = {}
    for w, tape, stmt, name, _ in _path_assigns(mod):
        rhs = mod.src.seg(stmt.value)
        for variant, new in (("round", f"tf.round({rhs})"),
                             ("compare", f"tf.cast({_wrap(rhs, stmt.value)} > 0, tf.float32)"),
                             ("argmax", f"tf.cast(tf.argmax({rhs}, axis=-1), tf.float32)")):
            if counts.get(variant, 0) >= MAX_SITES:
                continue
            counts[variant] = counts.get(variant, 0) + 1
            b = Builder(mod, variant, "grad-nondiff-op", stmt, none_grad(), f"`{name}` through {variant}")
            b.replace(stmt.value, new)
            yield b.build(("line", stmt.lineno))


NP_FUNCTION_OK = {"tanh", "exp", "square", "sin", "cos", "abs", "sqrt"}


def op_numpy_function(mod: Module):
    if not mod.np:
        return
    n = 0
    for w, _, tape, _ in mod.tapes:
        for stmt in mod.tape_stmts(w):
            if n >= MAX_SITES or not isinstance(stmt, ast.Assign):
                continue
            for call in ast.walk(stmt.value):
                name = dotted(call.func) if isinstance(call, ast.Call) else None
                if (name and (name.count(".") == 1 or name.startswith("tf.math.")) and name.startswith("tf.")
                        and name.split(".")[-1] in NP_FUNCTION_OK and len(call.args) == 1 and not call.keywords):
                    fn = name.split(".")[-1]
                    b = Builder(mod, "numpy-function", "grad-numpy-function", stmt, none_grad(),
                                f"{name} computed by tf.numpy_function(np.{fn})")
                    b.replace(call, f"tf.numpy_function({mod.np}.{fn}, [{mod.src.seg(call.args[0])}], tf.float32)")
                    yield b.build(("line", stmt.lineno))
                    n += 1
                    break


def op_tape_reused(mod: Module):
    for w, item, tape, persistent in mod.tapes:
        calls = mod.grads_of(tape, w.lineno)
        scope = mod.enclosing_function(w)
        calls = [c for c in calls if mod.enclosing_function(c) is scope]
        if persistent and len(calls) >= 2:
            b = Builder(mod, "drop-persistent", "tape-reused", w, raises(NON_PERSISTENT),
                        f"`persistent=True` removed from `{tape}`")
            call = item.context_expr
            rest = [mod.src.seg(a) for a in call.args] + [f"{k.arg}={mod.src.seg(k.value)}" for k in call.keywords
                                                           if k.arg != "persistent"]
            b.replace(call, f"{mod.src.seg(call.func)}({', '.join(rest)})")
            yield b.build(("line", calls[1].lineno), [("line", calls[0].lineno)])
        if not persistent and calls:
            call = calls[0]
            stmt = mod.stmt_of(call)
            if not mod.whole_lines(stmt) or not isinstance(stmt, ast.Assign):
                continue
            b = Builder(mod, "second-gradient", "tape-reused", stmt, raises(NON_PERSISTENT),
                        f"a second `{tape}.gradient` call (gradient-norm logging)")
            k = b.insert_lines_after(stmt.end_lineno, f"{mod.src.indent(stmt.lineno)}grad_check = {mod.src.seg(call)}\n")
            yield b.build(("edit", k, 0), [("line", stmt.lineno)])


def op_wrong_model_vars(mod: Module):
    owners = []
    for n in ast.walk(mod.tree):
        if isinstance(n, ast.Attribute) and n.attr in ("trainable_variables", "trainable_weights"):
            owner = dotted(n.value)
            if owner and owner not in owners:
                owners.append(owner)
    n_done = 0
    for call in mod.grad_calls:
        src = call.args[1]
        if not (isinstance(src, ast.Attribute) and src.attr in ("trainable_variables", "trainable_weights")):
            continue
        owner = dotted(src.value)
        others = [o for o in owners if o != owner]
        if not owner or not others or n_done >= MAX_SITES:
            continue
        b = Builder(mod, "wrong-model-vars", "grad-unconnected-target", call, none_grad(),
                    f"gradients of {mod.src.seg(call.args[0])} w.r.t. {others[0]}'s variables")
        b.replace(src.value, others[0])
        yield b.build(("line", call.lineno))
        n_done += 1


def op_eager_tf_gradients(mod: Module):
    n = 0
    for call in mod.grad_calls:
        if call.func.attr != "gradient" or mod.is_traced(call) or len(call.args) != 2 or call.keywords or n >= MAX_SITES:
            continue
        b = Builder(mod, "tf-gradients", "eager-tf-gradients", call,
                    raises(r"tf\.gradients is not supported when eager execution is enabled"), "tape.gradient -> tf.gradients")
        b.replace(call.func, "tf.gradients")
        yield b.build(("line", call.lineno))
        n += 1


def op_variable_rebind(mod: Module):
    n = 0
    for stmt in ast.walk(mod.tree):
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
                and stmt.value.func.attr in ("assign_sub", "assign_add") and len(stmt.value.args) == 1):
            continue
        target = dotted(stmt.value.func.value)
        if not target or n >= MAX_SITES or not mod.whole_lines(stmt):
            continue
        sign = "-" if stmt.value.func.attr == "assign_sub" else "+"
        b = Builder(mod, "rebind", "variable-rebind", stmt, none_grad(r"has no attribute 'assign"),
                    f"`{target}.{stmt.value.func.attr}(...)` -> `{target} = {target} {sign} ...`")
        arg = stmt.value.args[0]
        b.replace(stmt, f"{target} = {target} {sign} {_wrap(mod.src.seg(arg), arg) if not isinstance(arg, ast.BinOp) else '(' + mod.src.seg(arg) + ')'}")
        yield b.build(("line", stmt.lineno))
        n += 1


def _first_tensor_assign(mod: Module, fn):
    for stmt in fn.body:
        name = assigned_name(stmt)
        if (isinstance(stmt, ast.Assign) and name and isinstance(stmt.value, (ast.Call, ast.BinOp))
                and mod.whole_lines(stmt)):
            return stmt, name
        if isinstance(stmt, ast.With):
            for inner in stmt.body:
                name = assigned_name(inner)
                if isinstance(inner, ast.Assign) and name and isinstance(inner.value, (ast.Call, ast.BinOp)) and mod.whole_lines(inner):
                    return inner, name
    return None, None


def op_variable_creation(mod: Module):
    for fn in sorted(mod.traced, key=lambda f: f.lineno)[:MAX_SITES]:
        if fn in mod.data_fns:
            continue
        stmt, name = _first_tensor_assign(mod, fn)
        if stmt is not None:
            ind = mod.src.indent(stmt.lineno)
            b = Builder(mod, "variable-in-function", "tffunc-variable-creation", stmt, raises(VAR_IN_FUNCTION),
                        "tf.Variable created in the traced function")
            k = b.insert_lines_after(stmt.end_lineno, f"{ind}scale = tf.Variable(1.0)\n{ind}{name} = {name} * scale\n")
            yield b.build(("edit", k, 0))
            b = Builder(mod, "layer-in-function", "tffunc-variable-creation", stmt, raises(VAR_IN_FUNCTION),
                        "Keras layer created in the traced function")
            k = b.insert_lines_after(stmt.end_lineno, f"{ind}{name} = tf.keras.layers.LayerNormalization()({name})\n")
            yield b.build(("edit", k, 0))
        # the optimizer constructed inside the function
        ctor = {}
        for s in ast.walk(mod.tree):
            if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and ".optimizers." in f".{dotted(s.value.func) or ''}":
                key = dotted(s.targets[0]) if len(s.targets) == 1 else None
                if key:
                    ctor[key] = mod.src.seg(s.value)
        for s in mod.body_stmts(fn):
            if (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
                    and s.value.func.attr == "apply_gradients" and dotted(s.value.func.value) in ctor and mod.whole_lines(s)):
                opt = dotted(s.value.func.value)
                b = Builder(mod, "optimizer-in-function", "tffunc-variable-creation", s, raises(VAR_IN_FUNCTION),
                            "optimizer constructed in the traced function")
                k = b.insert_lines_before(s.lineno, f"{mod.src.indent(s.lineno)}{opt} = {ctor[opt]}\n")
                yield b.build(("edit", k, 0))
                break


def _module_insert_point(mod: Module) -> int:
    """The line after the last top-level import (1 when there is none)."""
    last = 0
    for node in mod.tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            last = node.end_lineno
        elif last:
            break
    return last


def op_side_effect(mod: Module):
    for fn in sorted(mod.traced, key=lambda f: f.lineno)[:MAX_SITES]:
        stmt, name = _first_tensor_assign(mod, fn)
        if stmt is None:
            continue
        ind = mod.src.indent(stmt.lineno)
        data = fn in mod.data_fns
        oracle = {"kind": "trace-only", "data_debug": data}
        b = Builder(mod, "print", "tffunc-python-side-effect", stmt, oracle, "print() in the traced function")
        k = b.insert_lines_after(stmt.end_lineno, f'{ind}print("inject-value", {name})\n')
        yield b.build(("edit", k, 0), marker="inject-value")
        b = Builder(mod, "append", "tffunc-python-side-effect", stmt, oracle, "list.append in the traced function")
        at = _module_insert_point(mod)
        b.insert_lines_after(at, "debug_values = []\n") if at else b.insert_lines_before(1, "debug_values = []\n")
        k = b.insert_lines_after(stmt.end_lineno, f"{ind}debug_values.append({name})\n")
        yield b.build(("edit", k, 0))
        if mod.np:
            b = Builder(mod, "np-random", "tffunc-python-side-effect", stmt, oracle, "np.random in the traced function")
            k = b.insert_lines_after(stmt.end_lineno, f"{ind}{name} = {name} + {mod.np}.random.normal(0.0, 1e-3)\n")
            yield b.build(("edit", k, 0))
        b = Builder(mod, "py-random", "tffunc-python-side-effect", stmt, oracle, "random.uniform in the traced function")
        if not mod.random:
            at = _module_insert_point(mod)
            b.insert_lines_after(at, "import random\n") if at else b.insert_lines_before(1, "import random\n")
        k = b.insert_lines_after(stmt.end_lineno, f"{ind}{name} = {name} * {mod.random or 'random'}.uniform(0.99, 1.01)\n")
        yield b.build(("edit", k, 0))


def _traced_defs(mod: Module):
    return {fn.name: fn for fn in mod.traced if any(is_tf_function_expr(d) for d in fn.decorator_list)
            and not any(isinstance(d, ast.Call) and any(k.arg == "input_signature" for k in d.keywords)
                        for d in fn.decorator_list)}


def _loop_calls(mod: Module, defs: dict):
    for loop in ast.walk(mod.tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        var = loop.target.id if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) else None
        for s in loop.body:
            for call in ast.walk(s):
                if not isinstance(call, ast.Call):
                    continue
                fname = call.func.id if isinstance(call.func, ast.Name) else (
                    call.func.attr if isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self" else None)
                if fname in defs:
                    yield loop, var, call, defs[fname]


def op_python_scalar(mod: Module):
    defs = _traced_defs(mod)
    done = set()
    n = 0
    for loop, var, call, fn in _loop_calls(mod, defs):
        if fn.name in done or n >= MAX_SITES or not var:
            continue
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or not a.args:
            continue
        if call.keywords or any(isinstance(x, ast.Starred) for x in call.args):
            continue
        done.add(fn.name)
        b = Builder(mod, "python-float-arg", "tffunc-retracing-python-scalar", call, {"kind": "retrace"},
                    f"`{fn.name}` called with a Python float per step")
        end = mod.src.off(a.args[-1].end_lineno, a.args[-1].end_col_offset)
        b.replace_span(end, end, ", decay=1.0")
        _, e = mod.src.span(call)
        b.replace_span(e - 1, e - 1, (", " if call.args else "") + f"decay=0.99 ** {var}")
        yield b.build(("line", call.lineno))
        n += 1
    n = 0
    for loop, var, call, fn in _loop_calls(mod, defs):
        for arg in call.args:
            if (isinstance(arg, ast.Call) and dotted(arg.func) in ("tf.constant", "tf.convert_to_tensor")
                    and len(arg.args) == 1 and isinstance(arg.args[0], (ast.Name, ast.Constant, ast.BinOp, ast.Call))
                    and n < MAX_SITES):
                b = Builder(mod, "unwrap-constant-arg", "tffunc-retracing-python-scalar", call, {"kind": "retrace"},
                            f"`{mod.src.seg(arg)}` passed as a Python value")
                b.replace(arg, mod.src.seg(arg.args[0]))
                yield b.build(("line", call.lineno))
                n += 1


def op_recreated(mod: Module):
    defs = _traced_defs(mod)
    done = set()
    for loop, var, call, fn in _loop_calls(mod, defs):
        if fn.name in done or not isinstance(call.func, ast.Name) or isinstance(mod.parent.get(fn), ast.ClassDef):
            continue
        decos = [d for d in fn.decorator_list if is_tf_function_expr(d)]
        if len(decos) != 1 or len(done) >= MAX_SITES:
            continue
        done.add(fn.name)
        d = decos[0]
        b = Builder(mod, "function-per-call", "tffunc-recreated", call, {"kind": "retrace"},
                    f"`{fn.name}` wrapped by tf.function at each call")
        b.delete_lines(d.lineno, d.end_lineno)
        deco_text = mod.src.seg(d)
        if isinstance(d, ast.Call):
            extra = ", ".join([f"{k.arg}={mod.src.seg(k.value)}" for k in d.keywords])
            wrapper = f"{mod.src.seg(d.func)}({fn.name}{', ' + extra if extra else ''})"
        else:
            wrapper = f"{deco_text}({fn.name})"
        b.replace(call.func, wrapper)
        yield b.build(("line", call.lineno))


def op_python_iterator(mod: Module):
    nexts = [c for c in ast.walk(mod.tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and c.func.id == "next" and c.args and isinstance(c.args[0], ast.Name) and mod.is_traced(c)]
    for stmt in ast.walk(mod.tree):
        if (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
                and stmt.value.func.id == "iter" and len(stmt.value.args) == 1):
            key = assigned_name(stmt)
            users = [c for c in nexts if c.args[0].id == key]
            if not users:
                continue
            b = Builder(mod, "python-iterator", "tffunc-python-iterator", users[0], {"kind": "trace-only"},
                        "the iterator made a Python list iterator")
            arg = stmt.value.args[0]
            b.replace(arg, f"list({mod.src.seg(arg)})")
            yield b.build(("line", users[0].lineno))


def op_autograph_off(mod: Module):
    n = 0
    for fn in sorted(mod.traced, key=lambda f: f.lineno):
        decos = [d for d in fn.decorator_list if is_tf_function_expr(d)]
        if len(decos) != 1 or n >= MAX_SITES:
            continue
        flow = [s for s in mod.body_stmts(fn) if isinstance(s, (ast.If, ast.For, ast.While))]
        if not flow:
            continue
        d = decos[0]
        if isinstance(d, ast.Call) and any(k.arg == "autograph" for k in d.keywords):
            continue
        b = Builder(mod, "autograph-off", "tffunc-autograph-disabled", flow[0], raises(AUTOGRAPH_OFF),
                    f"`{fn.name}` compiled with autograph=False")
        if isinstance(d, ast.Call):
            _, e = mod.src.span(d)
            b.replace_span(e - 1, e - 1, (", " if d.args or d.keywords else "") + "autograph=False")
        else:
            b.replace(d, f"{mod.src.seg(d)}(autograph=False)")
        yield b.build(("line", flow[0].lineno), [("line", s.lineno) for s in flow[1:4]], root_from_exception=True)
        n += 1


def op_map_fn(mod: Module):
    n = 0
    for call in ast.walk(mod.tree):
        if not isinstance(call, ast.Call) or n >= MAX_SITES:
            continue
        name = dotted(call.func)
        if name not in ELEMENTWISE or len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name):
            continue
        if mod.is_traced(call) or mod.enclosing_function(call) is not None and mod.context(call) == "method" and \
                getattr(mod.enclosing_function(call), "name", "") == "call":
            continue
        stmt = mod.stmt_of(call)
        b = Builder(mod, "map-fn", "mapfn-vectorizable", call, {"kind": "slow-mapfn"},
                    f"`{name}` applied with tf.map_fn element by element")
        b.replace(call, f"tf.map_fn(lambda v: {name}(v), {call.args[0].id})")
        yield b.build(("line", call.lineno) if stmt.lineno == call.lineno else ("line", call.lineno))
        n += 1


def op_numpy_method(mod: Module):
    counts: dict[str, int] = {}
    for call in ast.walk(mod.tree):
        if not isinstance(call, ast.Call):
            continue
        name = dotted(call.func)
        new = None
        if name == "tf.cast" and len(call.args) == 2 and (dotted(call.args[1]) or "").startswith("tf.float"):
            variant, new = "astype", f"{_wrap(mod.src.seg(call.args[0]), call.args[0])}.astype(\"{dotted(call.args[1])[3:]}\")"
        elif name == "tf.reshape" and len(call.args) == 2 and not call.keywords:
            variant, new = "reshape-method", f"{_wrap(mod.src.seg(call.args[0]), call.args[0])}.reshape({mod.src.seg(call.args[1])})"
        elif name == "tf.reduce_mean" and len(call.args) == 1 and not call.keywords:
            variant, new = "mean-method", f"{_wrap(mod.src.seg(call.args[0]), call.args[0])}.mean()"
        if new is None or counts.get(variant, 0) >= MAX_SITES:
            continue
        if isinstance(call.args[0], ast.Constant):
            continue
        counts[variant] = counts.get(variant, 0) + 1
        b = Builder(mod, variant, "tensor-numpy-method", call, raises(NUMPY_METHOD), f"{name} -> NumPy method")
        b.replace(call, new)
        yield b.build(("line", call.lineno))


def op_minimize_tensor(mod: Module):
    for stmt in ast.walk(mod.tree):
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
                and stmt.value.func.attr == "minimize" and stmt.value.args and isinstance(stmt.value.args[0], ast.Lambda)):
            continue
        lam = stmt.value.args[0]
        b = Builder(mod, "minimize-tensor", "optimizer-minimize-tensor", stmt, raises(MINIMIZE),
                    "minimize() given the loss tensor computed before the call")
        b.insert_lines_before(stmt.lineno, f"{mod.src.indent(stmt.lineno)}loss_value = {mod.src.seg(lam.body)}\n")
        b.replace(lam, "loss_value")
        yield b.build(("line", stmt.lineno))


def op_other_tape(mod: Module):
    n = 0
    for call in mod.grad_calls:
        scope = mod.enclosing_function(call)
        mine = [w for w, _, name, _ in mod.tapes if name == call.func.value.id and mod.enclosing_function(w) is scope]
        others = [(w, name) for w, _, name, _ in mod.tapes if name != call.func.value.id
                  and mod.enclosing_function(w) is scope and not any(mod.within(w, m) or mod.within(m, w) for m in mine)]
        if not mine or not others or n >= MAX_SITES:
            continue
        b = Builder(mod, "other-tape", "tape-stale", call, none_grad(),
                    f"gradient asked of `{others[0][1]}`, which did not record the target")
        b.replace(call.func.value, others[0][1])
        yield b.build(("line", call.lineno))
        n += 1


def op_inner_grad_outside(mod: Module):
    for w_out, _, name_out, _ in mod.tapes:
        inner_names = {name for w, _, name, _ in mod.tapes if w is not w_out and mod.within(w, w_out) and name != name_out}
        for i, stmt in enumerate(w_out.body):
            if not isinstance(stmt, ast.Assign) or not assigned_name(stmt) or not mod.whole_lines(stmt):
                continue
            if not any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in GRAD_METHODS
                       and dotted(c.func.value) in inner_names for c in ast.walk(stmt.value)):
                continue
            name = assigned_name(stmt)
            if any(name in names_read(s) for s in w_out.body[i + 1:]):
                continue
            b = Builder(mod, "inner-gradient-outside", "tape-outside", stmt, none_grad(),
                        "the inner gradient moved after the outer tape's block")
            text = mod.src.text[slice(*mod.src.line_span(stmt.lineno, stmt.end_lineno))]
            remove = len(mod.src.indent(stmt.lineno)) - len(mod.src.indent(w_out.lineno))
            b.delete_lines(stmt.lineno, stmt.end_lineno)
            k = b.insert_lines_after(w_out.end_lineno, dedent_block(text, remove))
            yield b.build(("edit", k, 0))


def op_back_prop_false(mod: Module):
    for w, _, tape, _ in mod.tapes:
        for stmt in mod.tape_stmts(w):
            for call in ast.walk(stmt):
                if (isinstance(call, ast.Call) and dotted(call.func) in ("tf.map_fn", "tf.scan", "tf.while_loop")
                        and not any(k.arg == "back_prop" for k in call.keywords)):
                    b = Builder(mod, "back-prop-false", "mapfn-back-prop", call, none_grad(),
                                "back_prop=False on a map under the tape")
                    _, e = mod.src.span(call)
                    b.replace_span(e - 1, e - 1, ", back_prop=False")
                    yield b.build(("line", call.lineno))


LIST_IN_LOOP = r"out of scope|inaccessible|TensorArray|list|captured|symbolic"


def op_list_in_tensor_loop(mod: Module):
    """A TensorArray written in a loop of a traced function -> a Python list and tf.stack."""
    for stmt in ast.walk(mod.tree):
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                and dotted(stmt.value.func) == "tf.TensorArray" and assigned_name(stmt) and mod.is_traced(stmt)):
            continue
        name = assigned_name(stmt)
        fn = mod.enclosing_function(stmt)
        writes, stacks = [], []
        for s in mod.body_stmts(fn):
            if (isinstance(s, ast.Assign) and assigned_name(s) == name and isinstance(s.value, ast.Call)
                    and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "write"
                    and dotted(s.value.func.value) == name and len(s.value.args) == 2):
                writes.append(s)
        for c in ast.walk(fn):
            if (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "stack"
                    and dotted(c.func.value) == name and not c.args):
                stacks.append(c)
        if not writes or not stacks:
            continue
        b = Builder(mod, "list-in-loop", "tffunc-list-in-tf-loop", writes[0], raises(LIST_IN_LOOP),
                    "TensorArray replaced by a Python list appended in the loop")
        b.replace(stmt.value, "[]")
        for w in writes:
            b.replace(w, f"{name}.append({mod.src.seg(w.value.args[1])})")
        for c in stacks:
            b.replace(c, f"tf.stack({name})")
        yield b.build(("line", writes[0].lineno), [("line", stmt.lineno)])


def op_frozen_global(mod: Module):
    """A module-level tf.Variable assigned between calls and read in a tf.function -> a Python float."""
    for stmt in mod.tree.body:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) == "tf.Variable"
                and assigned_name(stmt) and len(stmt.value.args) == 1 and isinstance(stmt.value.args[0], ast.Constant)):
            continue
        name = assigned_name(stmt)
        assigns = [s for s in ast.walk(mod.tree) if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                   and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "assign"
                   and dotted(s.value.func.value) == name and not mod.is_traced(s) and len(s.value.args) == 1]
        reads = [n for n in ast.walk(mod.tree) if isinstance(n, ast.Name) and n.id == name and mod.is_traced(n)]
        if not assigns or not reads:
            continue
        b = Builder(mod, "frozen-global", "tffunc-frozen-python-state", reads[0], {"kind": "frozen"},
                    f"`{name}` made a Python float rebound between calls")
        b.replace(stmt.value, mod.src.seg(stmt.value.args[0]))
        for s in assigns:
            b.replace(s, f"{name} = {mod.src.seg(s.value.args[0])}")
        if any(isinstance(f, ast.Global) for f in ast.walk(mod.tree)):
            continue
        yield b.build(("line", mod.stmt_of(reads[0]).lineno), [("line", s.lineno) for s in assigns])


V1_LOOPS = {"tf.map_fn", "tf.scan", "tf.while_loop", "tf.foldl", "tf.foldr", "tf.compat.v1.while_loop",
            "tf.compat.v1.map_fn"}


def op_tf1_mode(mod: Module):
    """v1 control flow under a tape: TF1 behaviour switched on, or control flow v2 switched off."""
    loops = [c for w, _, _, _ in mod.tapes for s in mod.tape_stmts(w) for c in ast.walk(s)
             if isinstance(c, ast.Call) and dotted(c.func) in V1_LOOPS]
    if not loops:
        return
    loop = min(loops, key=lambda c: c.lineno)
    grads = [("line", c.lineno) for c in mod.grad_calls if c.lineno > loop.lineno][:1]
    enable = [s for s in mod.tree.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
              and dotted(s.value.func) == "tf.compat.v1.enable_control_flow_v2"]
    if enable:
        b = Builder(mod, "drop-control-flow-v2", "tf1-control-flow-tape", loop, none_grad(r"Retval\[0\] does not have value"),
                    "control flow v2 no longer re-enabled in the TF1 graph")
        b.delete_lines(enable[0].lineno, enable[0].end_lineno)
        yield b.build(("line", loop.lineno), grads)
        return
    if "disable_v2_behavior" in mod.src.text:
        return
    imports = [s for s in mod.tree.body if isinstance(s, ast.Import) and any(a.name == "tensorflow" for a in s.names)]
    if not imports:
        return
    b = Builder(mod, "tf1-mode", "tf1-control-flow-tape", loop, none_grad(r"Retval\[0\] does not have value"),
                "tf.compat.v1.disable_v2_behavior() at the top")
    b.insert_lines_after(imports[0].end_lineno, "tf.compat.v1.disable_v2_behavior()\n")
    yield b.build(("line", loop.lineno), grads)


OPERATORS = [op_shadow_tape, op_loss_after_block, op_forward_before_block, op_inner_grad_outside,
             op_variable_to_constant, op_drop_watch, op_integer_source, op_numpy_escape, op_nondiff,
             op_numpy_function, op_tape_reused, op_other_tape, op_wrong_model_vars, op_eager_tf_gradients,
             op_variable_rebind, op_variable_creation, op_side_effect, op_python_scalar, op_recreated,
             op_python_iterator, op_autograph_off, op_map_fn, op_numpy_method, op_minimize_tensor,
             op_back_prop_false, op_list_in_tensor_loop, op_frozen_global, op_tf1_mode]


def mutations(rel: str, text: str, kind: str) -> list[Mutation]:
    try:
        mod = Module(rel, text, kind)
    except SyntaxError:
        return []
    out, seen = [], set()
    per_op: dict[str, int] = {}
    for op in OPERATORS:
        for m in op(mod):
            if m is None or m.text in seen:
                continue
            if m.op in ONE_SITE and per_op.get(m.op, 0) >= 1:
                continue
            per_op[m.op] = per_op.get(m.op, 0) + 1
            seen.add(m.text)
            out.append(m)
    return out


def line_map(old: str, new: str) -> dict[int, int]:
    """Lines of `old` that survive unchanged in `new` (1-based), by difflib."""
    import difflib
    a, b = old.splitlines(), new.splitlines()
    out = {}
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            out[block.a + k + 1] = block.b + k + 1
    return out

