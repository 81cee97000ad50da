"""A small index of the user's project, for rules that look across modules.

`Project(root)` answers one kind of question: "the name this file imports from
`train.steps` (or `.steps`, or `s` in `import train.steps as s`) — is it a
tf.function over there, and with which options?" It finds the module's file under
`root` (also in a `src/` layout, and next to the importing file the way a script's
own directory comes first on `sys.path`), parses it with the stdlib `ast`, and keeps
a small summary per file.

It never imports user code and never imports TensorFlow. Summaries are cached by
path, modification time and size, the cache is bounded, files above a size limit are
skipped, and parsing stops for good once a time budget is spent: then every answer is
"unknown" (None), and rules stay silent.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import os
import re
import stat
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from .facts.names import LIBRARIES as _LIBRARIES, ImportTable, dotted as _dotted

# The other files one check reads, for caches that must know what a result depends on
# (cli/cache.py): (path, size, mtime_ns) of each, collected while `tracking_reads()` is open.
_reads: contextvars.ContextVar[dict[str, tuple[int, int]] | None] = contextvars.ContextVar("tapelsp_reads",
                                                                                           default=None)


@contextlib.contextmanager
def tracking_reads():
    """Collect the files of the project that the checks inside the block read."""
    found: dict[str, tuple[int, int]] = {}
    token = _reads.set(found)
    try:
        yield found
    finally:
        _reads.reset(token)


def note_read(path: str, stat: os.stat_result) -> None:
    found = _reads.get()
    if found is not None:
        found[path] = (stat.st_size, stat.st_mtime_ns)

TF_FUNCTION = "tensorflow.function"
# Seconds a "which file is module X" answer is reused (files appear while an editor is open).
FILE_LOOKUP_TTL = 5.0
# At most this many files of a project are indexed for "who imports this module".
MAX_INDEXED_FILES = 5000


@dataclass(frozen=True)
class RemoteFunction:
    """A tf.function found in another module of the project."""

    name: str  # as defined there ("step", or "Agent.train" for a method)
    path: str  # absolute path of the module that defines it
    line: int  # 1-based line of the def (or of the `tf.function(...)` call)
    kind: str  # "decorator" or "call"
    input_signature: bool = False
    reduce_retracing: bool = False

    def location(self, root: str | None = None) -> str:
        shown = self.path
        if root:
            try:
                shown = os.path.relpath(self.path, root)
            except ValueError:  # another drive on Windows
                pass
        return f"{shown.replace(os.sep, '/')} line {self.line}"


@dataclass
class ModuleSummary:
    """What other modules may ask about one file."""

    path: str
    is_package: bool
    functions: dict[str, RemoteFunction] = field(default_factory=dict)
    # Class name -> method name -> tf.function.
    methods: dict[str, dict[str, RemoteFunction]] = field(default_factory=dict)
    # Class name -> base class expressions as dotted names (for inherited methods).
    bases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Names bound by `from X import Y as Z` at top level: Z -> (X, Y, level).
    imported: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    # Names bound by `import a.b as c`: c -> "a.b".
    modules: dict[str, str] = field(default_factory=dict)
    # Every other name defined at top level (defs, classes, assignments).
    defined: set[str] = field(default_factory=set)


class Project:
    """The Python files under one root, read on demand."""

    def __init__(self, root: str, *, max_entries: int = 256, max_bytes: int = 1_000_000,
                 budget_seconds: float = 2.0, max_depth: int = 4, index_ttl: float = FILE_LOOKUP_TTL) -> None:
        self.root = os.path.abspath(root)
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.budget_seconds = budget_seconds
        self.max_depth = max_depth
        # Seconds the index of who imports what is reused (an editor's files change; a
        # command-line run's do not: it passes infinity).
        self.index_ttl = index_ttl
        self._spent = 0.0
        self._cache: OrderedDict[str, tuple[int, int, ModuleSummary | None]] = OrderedDict()
        self._files: OrderedDict[tuple, tuple[float, str | None]] = OrderedDict()
        self._lock = threading.Lock()
        self._index: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        self._index_time: float | None = None
        self._by_module: dict[str, list[str]] = {}
        self._importers: dict[tuple[str, str], list[str]] = {}
        self._index_files: dict[str, tuple[tuple[int, int], tuple[frozenset[str], frozenset[str]]]] = {}
        # (directory, name) -> (when looked, whether <directory>/<name>.py or <directory>/<name>/ exists).
        self._roots: dict[tuple[str, str], tuple[float, bool]] = {}

    def __getstate__(self) -> dict:
        """Picklable for worker processes: the settings travel, the caches and the lock do not."""
        return {"root": self.root, "max_entries": self.max_entries, "max_bytes": self.max_bytes,
                "budget_seconds": self.budget_seconds, "max_depth": self.max_depth, "index_ttl": self.index_ttl}

    def __setstate__(self, state: dict) -> None:
        root = state.pop("root")
        self.__init__(root, **state)  # type: ignore[misc]

    def begin_check(self) -> None:
        """A new file is checked: it gets the whole parsing budget, whatever came before (so
        a file's findings do not depend on which files a process checked first)."""
        with self._lock:
            self._spent = 0.0

    # --- finding files -----------------------------------------------------------

    def _search_dirs(self, importer: str | None) -> list[str]:
        dirs = []
        if importer:
            here = os.path.dirname(os.path.abspath(importer))
            if _inside(here, self.root):
                dirs.append(here)
        dirs.append(self.root)
        src = os.path.join(self.root, "src")
        if os.path.isdir(src):
            dirs.append(src)
        return dirs

    def may_import(self, imports: ImportTable, importer: str | None) -> bool:
        """Could one of a file's imports (an `ImportTable`) read a file of the project? False
        only when none is relative and no absolute one starts at a name that is a module or
        package in a directory `module_file` searches: then no question about another module
        of the project can have an answer, and a rule can skip asking."""
        if imports.relative:
            return True
        dirs = self._search_dirs(importer)
        now = time.monotonic()
        for root in imports.roots:
            if root in _LIBRARIES:
                continue
            for base in dirs:
                key = (base, root)
                hit = self._roots.get(key)
                if hit is None or now - hit[0] >= self.index_ttl:
                    stem = os.path.join(base, root)
                    hit = self._roots[key] = (now, os.path.isfile(stem + ".py") or os.path.isdir(stem))
                if hit[1]:
                    return True
        return False

    def module_file(self, module: str, level: int = 0, importer: str | None = None) -> str | None:
        """The file that `import module` (or `from .module import`) reads, under the root."""
        key = (module, level, os.path.dirname(os.path.abspath(importer)) if importer else None)
        now = time.monotonic()
        with self._lock:
            hit = self._files.get(key)
            if hit is not None and now - hit[0] < self.index_ttl:
                return hit[1]
        found = self._find_module_file(module, level, importer)
        with self._lock:
            self._files[key] = (now, found)
            while len(self._files) > 4 * self.max_entries:
                self._files.popitem(last=False)
        return found

    def _find_module_file(self, module: str, level: int, importer: str | None) -> str | None:
        parts = [p for p in module.split(".") if p] if module else []
        if level:
            if not importer:
                return None
            base = os.path.dirname(os.path.abspath(importer))
            for _ in range(level - 1):
                base = os.path.dirname(base)
            bases = [base]
        else:
            if not parts or parts[0] in _LIBRARIES:
                return None
            bases = self._search_dirs(importer)
        for base in bases:
            if not _inside(base, self.root):
                continue
            found = _file_for(base, parts)
            if found is not None:
                return found
        return None

    # --- who imports a module --------------------------------------------------------

    def importers(self, path: str, name: str) -> list[str]:
        """Files of the project that may import `name` from the module at `path` (`from
        learner import Reinforce`, `import learner`, `from .learner import ...`), most likely
        first; a text index of every file's imports, refreshed by modification time."""
        module = os.path.splitext(os.path.basename(path))[0]
        if module == "__init__":
            module = os.path.basename(os.path.dirname(path))
        index, by_module = self._import_index()
        path = os.path.abspath(path)
        key = (path, name)
        answers = self._importers
        if key in answers:
            return answers[key]
        here = os.path.dirname(path)
        found = []
        for other in by_module.get(module, ()):
            modules, names = index[other]
            if other != path and (name in names or module in names or not names):
                found.append((os.path.dirname(other) != here, other))
        answers[key] = [other for _far, other in sorted(found)]
        return answers[key]

    def _import_index(self) -> tuple[dict[str, tuple[frozenset[str], frozenset[str]]], dict[str, list[str]]]:
        now = time.monotonic()
        with self._lock:
            if self._index_time is not None and now - self._index_time < self.index_ttl:
                return self._index, self._by_module
        index: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        for path, stat in _python_files(os.path.abspath(self.root), MAX_INDEXED_FILES):
            key = (stat.st_mtime_ns, stat.st_size)
            cached = self._index_files.get(path)
            if cached is not None and cached[0] == key:
                index[path] = cached[1]
                continue
            entry = _imports_of(path, self.max_bytes)
            self._index_files[path] = (key, entry)
            index[path] = entry
        by_module: dict[str, list[str]] = {}
        for path, (modules, _names) in index.items():
            for module in modules:
                by_module.setdefault(module, []).append(path)
        with self._lock:
            self._index, self._index_time, self._by_module, self._importers = index, now, by_module, {}
        return index, by_module

    # --- summaries ---------------------------------------------------------------

    def summary(self, path: str) -> ModuleSummary | None:
        """The parsed summary of one file, or None (unreadable, too large, out of time)."""
        path = os.path.abspath(path)
        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        note_read(path, stat)
        with self._lock:
            cached = self._cache.get(path)
            if cached is not None and cached[:2] == key:
                self._cache.move_to_end(path)
                return cached[2]
            if stat.st_size > self.max_bytes or self._spent >= self.budget_seconds:
                return None
        start = time.perf_counter()
        summary = _summarise(path, os.path.basename(path) == "__init__.py")
        with self._lock:
            self._spent += time.perf_counter() - start
            self._cache[path] = (*key, summary)
            self._cache.move_to_end(path)
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        return summary

    # --- questions rules ask -----------------------------------------------------

    def tf_function(self, qualname: str, importer: str | None = None) -> RemoteFunction | None:
        """Is `pkg.mod.name` (as an absolute import names it) a tf.function in the project?"""
        found = self._split(qualname, importer)
        if found is None:
            return None
        path, rest = found
        if len(rest) == 1:
            return self._function_in(path, rest[0], 0)
        if len(rest) == 2:
            return self._method_in(path, rest[0], rest[1], 0)
        return None

    def imported_tf_function(self, module: str, name: str, level: int,
                             importer: str | None) -> RemoteFunction | None:
        """`from <level dots><module> import <name>`: is that name a tf.function?"""
        path = self.module_file(module, level, importer)
        return self._function_in(path, name, 0) if path else None

    def method(self, qualname: str, method: str, importer: str | None = None) -> RemoteFunction | None:
        """Is `method` of the class `pkg.mod.Class` a tf.function (also when inherited)?"""
        found = self._split(qualname, importer)
        if found is None or len(found[1]) != 1:
            return None
        return self._method_in(found[0], found[1][0], method, 0)

    def imported_method(self, module: str, class_name: str, method: str, level: int,
                        importer: str | None) -> RemoteFunction | None:
        path = self.module_file(module, level, importer)
        return self._method_in(path, class_name, method, 0) if path else None

    # --- internals ---------------------------------------------------------------

    def _split(self, qualname: str, importer: str | None) -> tuple[str, list[str]] | None:
        """Longest module prefix of `qualname` that is a file here, and the rest."""
        parts = qualname.split(".")
        if not parts or parts[0] in _LIBRARIES:
            return None
        for cut in range(len(parts) - 1, 0, -1):
            path = self.module_file(".".join(parts[:cut]), 0, importer)
            if path is not None:
                return path, parts[cut:]
        return None

    def _follow(self, summary: ModuleSummary, name: str, depth: int) -> tuple[str, str] | None:
        """Where a re-exported name (`from .steps import step` in `__init__.py`) really lives."""
        if depth >= self.max_depth or name not in summary.imported:
            return None
        module, attr, level = summary.imported[name]
        path = self.module_file(module, level, summary.path)
        return (path, attr) if path else None

    def _function_in(self, path: str | None, name: str, depth: int) -> RemoteFunction | None:
        if path is None or depth > self.max_depth:
            return None
        summary = self.summary(path)
        if summary is None:
            return None
        if name in summary.functions:
            return summary.functions[name]
        followed = self._follow(summary, name, depth)
        return self._function_in(followed[0], followed[1], depth + 1) if followed else None

    def _method_in(self, path: str | None, class_name: str, method: str, depth: int) -> RemoteFunction | None:
        if path is None or depth > self.max_depth:
            return None
        summary = self.summary(path)
        if summary is None:
            return None
        if class_name in summary.methods or class_name in summary.bases:
            found = summary.methods.get(class_name, {}).get(method)
            if found is not None:
                return found
            for base in summary.bases.get(class_name, ()):
                inherited = self._base_method(summary, base, method, depth + 1)
                if inherited is not None:
                    return inherited
            return None
        followed = self._follow(summary, class_name, depth)
        return self._method_in(followed[0], followed[1], method, depth + 1) if followed else None

    def _base_method(self, summary: ModuleSummary, base: str, method: str, depth: int) -> RemoteFunction | None:
        head, _, tail = base.partition(".")
        if not tail:
            # A class of the same module, or one it imports by name.
            return self._method_in(summary.path, base, method, depth)
        module = summary.modules.get(head)
        if module is None or depth > self.max_depth:
            return None
        found = self._split(f"{module}.{tail}", summary.path)
        if found is None or len(found[1]) != 1:
            return None
        return self._method_in(found[0], found[1][0], method, depth + 1)


_SKIPPED_DIRS = frozenset({".git", "__pycache__", "node_modules", ".venv", "venv", ".tox", "build", "dist",
                           "site-packages", ".cache", ".tapelsp_cache", ".mypy_cache", ".pytest_cache"})
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(.+)|import[ \t]+(.+))", re.MULTILINE)


def _python_files(root: str, limit: int):
    """(path, stat) of the .py files under `root`, not in virtual environments or caches."""
    count = 0
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith(".")
                         and not os.path.exists(os.path.join(directory, d, "pyvenv.cfg")))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            try:
                found = os.stat(path)
            except OSError:
                continue
            if not stat.S_ISREG(found.st_mode):
                continue  # a FIFO or device named *.py would block the read
            yield path, found
            count += 1
            if count >= limit:
                return


def _imports_of(path: str, max_bytes: int) -> tuple[frozenset[str], frozenset[str]]:
    """The module names a file imports (every dotted part) and the names it imports from them."""
    try:
        if os.path.getsize(path) > max_bytes:
            return frozenset(), frozenset()
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return frozenset(), frozenset()
    modules: set[str] = set()
    names: set[str] = set()
    for match in _IMPORT_LINE.finditer(text):
        source, imported, plain = match.groups()
        if plain is not None:
            for part in plain.split(","):
                module = part.split(" as ")[0].strip()
                modules.update(p for p in module.split(".") if p)
            continue
        modules.update(p for p in source.strip(".").split(".") if p)
        for part in imported.replace("(", " ").replace(")", " ").replace("\\", " ").split(","):
            name = part.split(" as ")[0].strip()
            if name.isidentifier():
                names.add(name)
                if not source.strip("."):
                    modules.add(name)  # `from . import learner`
    return frozenset(modules), frozenset(names)


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), root]) == root
    except ValueError:
        return False


def _file_for(base: str, parts: list[str]) -> str | None:
    if not parts:
        init = os.path.join(base, "__init__.py")
        return init if os.path.isfile(init) else None
    stem = os.path.join(base, *parts)
    if os.path.isfile(stem + ".py"):
        return stem + ".py"
    init = os.path.join(stem, "__init__.py")
    if os.path.isfile(init):
        return init
    return None


def _summarise(path: str, is_package: bool) -> ModuleSummary | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        tree = ast.parse(data, filename=path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    summary = ModuleSummary(path=path, is_package=is_package)
    imports = ImportTable()
    imports.assume("tf", "tensorflow")
    _read_imports(tree.body, imports, summary)
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = _decorated(stmt, imports, path, stmt.name)
            if found is not None:
                summary.functions[stmt.name] = found
            else:
                summary.defined.add(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            summary.bases[stmt.name] = tuple(b for b in (_dotted(base) for base in stmt.bases) if b)
            methods = _class_methods(stmt, imports, path)
            summary.methods[stmt.name] = methods
            summary.defined.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if not isinstance(target, ast.Name):
                    continue
                found = _wrapped(stmt.value, imports, path, target.id)
                if found is not None:
                    summary.functions[target.id] = found
                else:
                    summary.defined.add(target.id)
                    summary.functions.pop(target.id, None)
    return summary


def _read_imports(body: list[ast.stmt], imports: ImportTable, summary: ModuleSummary) -> None:
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.add_import(stmt)
            if isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if alias.name != "*":
                        summary.imported[alias.asname or alias.name] = (stmt.module or "", alias.name, stmt.level)
            else:
                for alias in stmt.names:
                    if alias.asname:
                        summary.modules[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        summary.modules[top] = top
        elif isinstance(stmt, (ast.If, ast.Try)):
            _read_imports(stmt.body, imports, summary)
            _read_imports(stmt.orelse, imports, summary)
            for handler in getattr(stmt, "handlers", ()):
                _read_imports(handler.body, imports, summary)


def _options(call: ast.Call | None, first: int) -> tuple[bool, bool]:
    if call is None:
        return False, False
    signature = _argument(call, "input_signature", first + 1)
    relax = _argument(call, "reduce_retracing", first + 4) or _argument(call, "experimental_relax_shapes", None)
    has_signature = signature is not None and not (isinstance(signature, ast.Constant) and signature.value is None)
    reduce = isinstance(relax, ast.Constant) and relax.value is True
    return has_signature, reduce


def _argument(call: ast.Call, name: str, position: int | None) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is not None and len(call.args) > position:
        return call.args[position]
    return None


def _decorated(node: ast.FunctionDef | ast.AsyncFunctionDef, imports: ImportTable, path: str,
               name: str) -> RemoteFunction | None:
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        if imports.resolve(call.func if call else decorator) == TF_FUNCTION:
            signature, reduce = _options(call, 0)
            return RemoteFunction(name, path, node.lineno, "decorator", signature, reduce)
    return None


def _wrapped(value: ast.expr, imports: ImportTable, path: str, name: str) -> RemoteFunction | None:
    """`name = tf.function(f, ...)`."""
    if isinstance(value, ast.Call) and value.args and imports.resolve(value.func) == TF_FUNCTION:
        signature, reduce = _options(value, 1)
        return RemoteFunction(name, path, value.lineno, "call", signature, reduce)
    return None


def _class_methods(node: ast.ClassDef, imports: ImportTable, path: str) -> dict[str, RemoteFunction]:
    methods: dict[str, RemoteFunction] = {}
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = _decorated(stmt, imports, path, f"{node.name}.{stmt.name}")
            if found is not None:
                methods[stmt.name] = found
    # `self.step = tf.function(self._step)` in a method.
    for stmt in node.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(stmt):
            if isinstance(inner, ast.Assign) and len(inner.targets) == 1:
                target = inner.targets[0]
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    found = _wrapped(inner.value, imports, path, f"{node.name}.{target.attr}")
                    if found is not None:
                        methods.setdefault(target.attr, found)
    return methods

