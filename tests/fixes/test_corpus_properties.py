"""The fix properties on real code: the tf_keras sources (bench/corpus.py installs them under .cache/bench).

tf_keras has no FUNC001/TAPE001 bug of its own, so each file is mutated into having some,
in the middle of its real classes, decorators, docstrings, comments and formatting:

- two of its functions become tf.functions creating a variable: one with a constant
  initializer (hoisted to `__init__`/module level), one initialised from an argument
  (a first-call guard);
- in every `with ... GradientTape() as tape:` block, the last statement gets wrapped in an
  inner tape of the same name.

Then all fixes are applied (unsafe ones included) and the properties of
tests/fixes/properties.py must hold. By default a deterministic sample of files runs;
TAPELSP_FIX_CORPUS=all runs every file.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from tapelsp import Settings, check_source
from tapelsp.rules import all_rules

from .properties import check_fix_properties, check_ignore_properties

REPO = Path(__file__).resolve().parents[2]
SAMPLE = 30
MAX_SAMPLE_LINES = 2500
PROBE_IMPORT = "import tensorflow as _tf_probe\n"


def _corpus_root() -> Path | None:
    for site in sorted((REPO / ".cache" / "bench" / "venv").glob("lib/python3*/site-packages")):
        if (site / "tf_keras").is_dir():
            return site / "tf_keras"
    return None


def _files() -> list[Path]:
    root = _corpus_root()
    if root is None:
        return []
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    if os.environ.get("TAPELSP_FIX_CORPUS", "") == "all":
        return files
    # A deterministic sample that runs in seconds: files with tapes, and an even spread of
    # the others that have functions to plant bugs in (the biggest files only in full runs).
    texts = {p: p.read_text(encoding="utf-8", errors="replace") for p in files}
    usable = [p for p in files if texts[p].count("\n") < MAX_SAMPLE_LINES and "\n    def " in texts[p]]
    with_tapes = [p for p in usable if "GradientTape" in texts[p]][:8]
    rest = [p for p in usable if p not in with_tapes]
    step = max(1, len(rest) // (SAMPLE - len(with_tapes)))
    return sorted(set(with_tapes) | set(rest[::step]))


FILES = _files()


def _indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def mutate(text: str) -> str | None:
    """The file with FUNC001 and TAPE001 bugs planted, or None when it offers no place for them."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    lines = text.splitlines(keepends=True)
    inserts: list[tuple[int, str]] = []  # (0-based line to insert before, text)
    # The probe import goes after the docstring and `from __future__` imports.
    first = next((s for s in tree.body if not (isinstance(s, ast.ImportFrom) and s.module == "__future__")
                  and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))), None)
    if first is None:
        return None
    inserts.append((min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])]) - 1,
                    PROBE_IMPORT))
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        functions += [node for node in cls.body if isinstance(node, ast.FunctionDef) and node.name != "__init__"
                      and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod", "property")
                                  for d in node.decorator_list)]
    planted = 0
    for function in sorted(functions, key=lambda f: f.lineno):
        body = function.body
        start = 1 if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
        target = body[start]
        if target.lineno == function.lineno or target.col_offset == 0:
            continue  # a one-line def
        params = [a.arg for a in function.args.posonlyargs + function.args.args]
        inner = _indent_of(lines[target.lineno - 1])
        outer = _indent_of(lines[function.lineno - 1])
        first_line = min([function.lineno] + [d.lineno for d in function.decorator_list])
        if planted == 0:
            init = "1.0"
        elif len(params) > (1 if params and params[0] in ("self", "cls") else 0):
            init = params[-1]
        else:
            continue
        inserts.append((first_line - 1, f"{outer}@_tf_probe.function\n"))
        inserts.append((target.lineno - 1, f"{inner}probe_{planted} = _tf_probe.Variable({init})\n"
                                           f"{inner}probe_{planted}.read_value()\n"))
        planted += 1
        if planted == 2:
            break
    for node in ast.walk(tree):
        if not isinstance(node, ast.With) or len(node.items) != 1:
            continue
        item = node.items[0]
        call = item.context_expr
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "GradientTape" and isinstance(item.optional_vars, ast.Name)):
            continue
        last = node.body[-1]
        if last.lineno != last.end_lineno or isinstance(last, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
            continue
        line = lines[last.lineno - 1]
        indent = _indent_of(line)
        name = item.optional_vars.id
        inserts.append((last.lineno - 1, f"{indent}with _tf_probe.GradientTape() as {name}:\n"))
        lines[last.lineno - 1] = "    " + line
    if planted == 0 and len(inserts) == 1:
        return None
    for index, added in sorted(inserts, key=lambda pair: pair[0], reverse=True):
        lines.insert(index, added)
    mutated = "".join(lines)
    try:
        ast.parse(mutated)
    except SyntaxError:
        return None
    return mutated


SETTINGS = Settings(tensorflow_version="2.21", select=tuple(r.code for r in all_rules() if r.fixable))


@pytest.mark.skipif(not FILES, reason="the tf_keras corpus is not installed (python bench/corpus.py)")
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p).split("tf_keras/", 1)[-1])
def test_fix_properties_on_tf_keras(path: Path):
    mutated = mutate(path.read_text(encoding="utf-8"))
    if mutated is None:
        pytest.skip("no function or tape to plant a bug in")
    found = check_source(mutated, str(path), SETTINGS, fixes=True)
    assert found, "the planted bugs were not found"
    assert all(v.fix is not None or v.fix_error is None for v in found), [v.fix_error for v in found]
    # (A fix may decline: a class with __slots__, an __init__ that can return before
    # super().__init__(...); test_most_planted_bugs_get_a_fix counts how often.)
    check_fix_properties(mutated, str(path), SETTINGS, unsafe=True)
    for violation in found[:3]:
        check_ignore_properties(mutated, violation, str(path), SETTINGS)


@pytest.mark.skipif(not FILES, reason="the tf_keras corpus is not installed (python bench/corpus.py)")
def test_most_planted_bugs_get_a_fix():
    planted = {"FUNC001": 0, "TAPE001": 0}
    with_fix = {"FUNC001": 0, "TAPE001": 0}
    for path in FILES:
        mutated = mutate(path.read_text(encoding="utf-8"))
        if mutated is None:
            continue
        for violation in check_source(mutated, str(path), SETTINGS, fixes=True):
            if violation.code in planted:
                planted[violation.code] += 1
                with_fix[violation.code] += violation.fix is not None
    assert all(planted.values()), planted
    for code in planted:
        assert with_fix[code] >= 0.8 * planted[code], (code, with_fix[code], planted[code])


def test_mutation_helper_on_a_small_file():
    text = ('"""Doc."""\nfrom __future__ import annotations\nimport tensorflow as tf\n\n\n'
            "class A:\n    def f(self, x):\n        return x\n\n    def g(self, x):\n        with tf.GradientTape() as t:\n"
            "            y = x * x\n        return t.gradient(y, x)\n")
    mutated = mutate(text)
    assert mutated is not None and re.search(r"^import tensorflow as _tf_probe$", mutated, re.M)
    assert "    @_tf_probe.function\n    def f(self, x):\n        probe_0 = _tf_probe.Variable(1.0)" in mutated
    assert "        with tf.GradientTape() as t:\n            with _tf_probe.GradientTape() as t:\n" \
           "                y = x * x\n" in mutated
