"""The other modules of the user's project (and installed packages), for the value model.

`remote_model(project, importer, module, level, targets)` finds the file that `import
module` (or `from ..module import`) reads from `importer` and returns the value model of
that file, built from its own facts (parsed with the stdlib `ast`, never imported) and
kept while the file is unchanged (by path, modification time and size).

Limits keep a check quick whatever the project holds: files above `MAX_BYTES` are not
read, one check reaches at most `MAX_READS` other files (cached or not), and at most
`MAX_MODELS` models are kept. Anything beyond them is unknown, and rules stay silent.
"""

from __future__ import annotations

import ast
import os
import threading
from collections import OrderedDict
from typing import Any

from ..facts.build import build
from ..facts.names import LIBRARIES
from ..text import SourceText

MAX_BYTES = 1_000_000
MAX_READS = 16
MAX_MODELS = 64

_models: OrderedDict[str, tuple[tuple[int, int], Any]] = OrderedDict()
_lock = threading.Lock()


class Reads:
    """The other files one check has reached so far (shared by the models it reaches). Cached
    models count as well: what one check finds must not depend on what was checked before."""

    def __init__(self) -> None:
        self.paths: set[str] = set()

    def admit(self, path: str) -> bool:
        if path in self.paths:
            return True
        if len(self.paths) >= MAX_READS:
            return False
        self.paths.add(path)
        return True


def module_path(project: Any, importer: str | None, module: str, level: int) -> str | None:
    """The file `import module` (or `from ..module import`) reads from `importer`: jedi
    resolves absolute imports (packages, `__init__` re-exports, the environment's sys.path:
    an installed package that is not TensorFlow); relative ones, and whatever jedi cannot
    answer in time, come from the project index. TensorFlow, Keras and NumPy are never
    looked up: the library table covers them."""
    if project is None:
        return None
    if not level and module.split(".")[0] in LIBRARIES:
        return None
    if not level and module:
        found = _jedi_module(getattr(project, "root", None), importer, module,
                             getattr(project, "index_ttl", 5.0))
        if found is not None:
            return found
    try:
        return project.module_file(module, level, importer)
    except (OSError, ValueError, AttributeError, TypeError):  # the project index is best effort
        return None


# --- jedi ------------------------------------------------------------------------------------------

# Seconds one lookup may take (jedi's first one in a process loads its caches), and how long
# jedi is left alone after one did not answer in time.
JEDI_SECONDS = 5.0
JEDI_PAUSE = 60.0
# Parts of a path jedi may answer that are TensorFlow's own sources (never read).
_LIBRARY_PARTS = tuple(f"{os.sep}{name}{os.sep}" for name in ("tensorflow", "keras", "tf_keras", "numpy",
                                                             "tensorflow_probability"))
_jedi_state: dict[str, Any] = {"executor": None, "paused_until": 0.0, "projects": {}}
_jedi_answers: dict[tuple, tuple[float, str | None]] = {}


def _jedi_module(root: str | None, importer: str | None, module: str, ttl: float) -> str | None:
    import time

    key = (root, os.path.dirname(os.path.abspath(importer)) if importer else None, module)
    now = time.monotonic()
    known = _jedi_answers.get(key)
    if known is not None and now - known[0] < ttl:
        return known[1]
    if now < _jedi_state["paused_until"]:
        return None
    try:
        import jedi  # noqa: F401  (a dependency; missing means no jedi, not an error)
    except ImportError:
        return None
    from concurrent.futures import ThreadPoolExecutor, TimeoutError as Late

    executor = _jedi_state["executor"]
    if executor is None:
        executor = _jedi_state["executor"] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tapelsp-jedi")
    future = executor.submit(_jedi_goto, root, importer, module)
    try:
        found = future.result(timeout=JEDI_SECONDS)
    except Late:
        _jedi_state["paused_until"] = now + JEDI_PAUSE
        return None
    except Exception:  # jedi's own trouble: the project index answers
        found = None
    _jedi_answers[key] = (now, found)
    if len(_jedi_answers) > 4096:
        _jedi_answers.clear()
    return found


def _jedi_goto(root: str | None, importer: str | None, module: str) -> str | None:
    import jedi

    projects = _jedi_state["projects"]
    project = projects.get(root)
    if project is None:
        project = projects[root] = jedi.Project(root or os.getcwd(), smart_sys_path=True,
                                                load_unsafe_extensions=False)
    code = f"import {module}\n"
    script = jedi.Script(code, path=importer, project=project)
    names = script.goto(1, len(code) - 1, follow_imports=True)
    for name in names:
        path = name.module_path
        if path is None:
            continue
        text = str(path)
        if not text.endswith(".py") or any(part in text for part in _LIBRARY_PARTS):
            return None
        return os.path.abspath(text)
    return None


def model_for(path: str, project: Any, targets: Any, reads: Reads):
    """The value model of the file at `path`, or None when it cannot be had within the limits."""
    from .values import ValueModel

    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = (stat.st_mtime_ns, stat.st_size)
    if stat.st_size > MAX_BYTES or not reads.admit(path):
        return None
    from ..project import note_read

    note_read(path, stat)
    with _lock:
        cached = _models.get(path)
        if cached is not None and cached[0] == key and (cached[1] is None or cached[1].targets == targets):
            _models.move_to_end(path)
            return cached[1]
    model = None
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
        tree = ast.parse(text, filename=path)
        facts = build(tree, SourceText(text))
        model = ValueModel(facts, targets, project=project, path=path, reads=reads)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
        model = None
    with _lock:
        _models[path] = (key, model)
        while len(_models) > MAX_MODELS:
            _models.popitem(last=False)
    return model


def label(path: str) -> str:
    return os.path.basename(path)
