"""The other modules of the user's project, for the value model.

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
from ..text import SourceText

MAX_BYTES = 1_000_000
MAX_READS = 16
MAX_MODELS = 64
# Top-level modules that are libraries, never files of the user's project.
LIBRARIES = frozenset({
    "tensorflow", "keras", "tf_keras", "numpy", "tensorflow_probability", "jax", "torch", "scipy", "pandas",
    "sklearn", "os", "sys", "time", "random", "math", "json", "typing", "collections", "functools",
    "itertools", "abc", "dataclasses", "re", "pathlib", "logging", "absl", "six", "builtins", "__future__",
    "datetime", "copy", "pickle", "argparse", "warnings", "matplotlib", "gym", "gymnasium",
})

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
    if project is None:
        return None
    if not level and module.split(".")[0] in LIBRARIES:
        return None
    try:
        return project.module_file(module, level, importer)
    except (OSError, ValueError, AttributeError, TypeError):  # the project index is best effort
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
