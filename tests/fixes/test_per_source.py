"""Building a file's fixes does the whole-file work once, not once per fix, and decides the same.

- A fix is checked on the run of top-level statements its edits touch: the verdict (kept,
  dropped and why) is the one checking the whole fixed file gives, on lines built to trap a
  piece-wise check (a backslash joining a line to the next, statements sharing a line,
  decorators, `barry_as_FLUFL`, a file that does not parse, edits that do not fit).
- `identifiers(tree, skip)` and `TakenEdits` agree with a direct scan.
- On a file with many fixes, nothing parses the whole file per fix, and the module's names
  are counted once.
"""

from __future__ import annotations

import ast
import importlib.util
import random
from pathlib import Path

import pytest

import tapelsp
from tapelsp.fixes import names, validate
from tapelsp.fixes.edits import EditError, TakenEdits, apply_edits, fits, parse_problem
from tapelsp.fixes.names import bindings, fresh, identifiers
from tapelsp.fixes.validate import resolve_fix, whole_file_verdict
from tapelsp.model import Applicability, Edit, Fix, Position, Range
from tapelsp.rules import all_rules

# The edited texts are compiled; some have `1if`-like spellings Python only warns about.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")




TEXTS = [
    "import tensorflow as tf\n\nx = 1\n\n\ndef f(a):\n    return a\n\n\ny = f(x)\n",
    # A backslash after a statement joins the next line (a comment here) to it.
    "x = 1 \\\n# a comment\ny = 2\n",
    "a = 1; b = 2\nc = 3\nif a:\n    b = 4\nelse:\n    b = 5\n",
    "@decorator\n\n# between\n@other(1)\ndef g():\n    pass\nclass C:\n    z = 1\n\n    def m(self):\n        return 2\n",
    "s = '''\nline\n'''\nt = (1,\n     2)\n",
    "from __future__ import barry_as_FLUFL\nok = 1 <> 2\nz = 3\n",
    "def broken(:\n    pass\nx = 1\n",
    "a = 1\r\nb = 2\r\n\r\ndef h():\r\n    return 3\r\n",
    "x = 1",
    "",
]
SNIPPETS = ["z = 3", "    z = 3", "def f(:", "", "(", ")", "\\", "x = 1 \\", "@dec", "pass", "'''",
            "y = 1 <> 2", "from __future__ import barry_as_FLUFL", "class K:", "    return 1", "z = 3\nw = 4",
            "if z:\n    pass"]


def _edits_for(text: str):
    lines = text.replace("\r\n", "\n").split("\n")
    for line, content in enumerate(lines + ["", ""]):
        for snippet in SNIPPETS:
            width = len(content) if line < len(lines) else 0
            yield (Edit(Range(Position(line, 0), Position(line, width)), snippet),)
            yield (Edit(Range(Position(line, 0), Position(line, 0)), snippet + "\n"),)
        if line + 1 < len(lines):
            yield (Edit(Range(Position(line, 0), Position(line + 1, 0)), ""),)  # a line removed
            yield (Edit(Range(Position(line, 0), Position(line, 0)), "q = 0\n"),
                   Edit(Range(Position(line + 1, 0), Position(line + 1, 0)), "r = 0\n"))
    yield (Edit(Range(Position(0, 0), Position(0, 0)), "a\n"), Edit(Range(Position(0, 0), Position(0, 0)), "b\n"))
    yield (Edit(Range(Position(-1, 0), Position(0, 0)), "a\n"),)
    yield (Edit(Range(Position(1, 0), Position(0, 0)), "a\n"),)


@pytest.mark.parametrize("text", TEXTS)
def test_a_fix_checked_on_its_piece_gets_the_whole_files_verdict(text: str) -> None:
    checked = 0
    for edits in _edits_for(text):
        fix = Fix("a fix", Applicability.SAFE, edits)
        assert resolve_fix(fix, text) == whole_file_verdict(fix, text), (text, edits)
        checked += 1
    assert checked > 50


def test_the_piece_check_is_what_decides_a_good_fix_in_a_file_that_parses(monkeypatch) -> None:
    text = TEXTS[0] * 30
    parsed: list[int] = []
    monkeypatch.setattr(validate, "parse_problem", lambda t: parsed.append(len(t)) or parse_problem(t))
    fix = Fix("rename", Applicability.SAFE, (Edit(Range(Position(5, 4), Position(5, 5)), "g"),))
    assert resolve_fix(fix, text) == (fix, None)
    assert parsed and max(parsed) < len(TEXTS[0])


def test_random_edits_get_the_whole_files_verdict() -> None:
    rng = random.Random(7)
    sources = [example.source for rule in all_rules() for example in rule.examples][:120]
    pieces = SNIPPETS + ["    ", "\n", "# note\n", "x", "):\n", "    y = 2\n"]
    for text in sources:
        lines = text.split("\n")
        for _ in range(15):
            edits = []
            for line in sorted(rng.sample(range(len(lines)), min(len(lines), rng.randint(1, 3)))):
                column = rng.randint(0, len(lines[line]))
                end = rng.randint(column, len(lines[line]))
                edits.append(Edit(Range(Position(line, column), Position(line, end)), rng.choice(pieces)))
            fix = Fix("random", Applicability.UNSAFE, tuple(edits))
            assert resolve_fix(fix, text) == whole_file_verdict(fix, text), (text, edits)


def _scan(tree: ast.AST, skip: ast.AST | None) -> set[str]:
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if node is skip:
            continue
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        else:
            found.update(bindings(node))
        stack.extend(ast.iter_child_nodes(node))
    return found


def test_identifiers_leaving_out_a_function_are_what_a_scan_finds() -> None:
    sources = [example.source for rule in all_rules() for example in rule.examples]
    compared = 0
    for text in sources:
        if parse_problem(text) is not None:
            continue
        tree = ast.parse(text)
        assert identifiers(tree) == _scan(tree, None)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Lambda)):
                assert identifiers(tree, skip=node) == _scan(tree, node), text
                compared += 1
        assert identifiers(tree, skip=tree) == frozenset()
        assert identifiers(tree, skip=ast.parse("elsewhere = 1")) == _scan(tree, None)
    assert compared > 100


def test_fresh_looks_in_every_set_it_is_given() -> None:
    assert fresh(["v"], "v", {"v"}, {"v_2"}) == "v_3"
    assert fresh(["v", "_v"], "v", frozenset(), {"v"}) == "_v"
    assert fresh(["__v"], "v", set()) == "v_2"


def test_taken_edits_fit_as_fits_says() -> None:
    rng = random.Random(3)

    def random_edit() -> Edit:
        line = rng.randint(0, 4)
        column = rng.randint(0, 6)
        if rng.random() < 0.4:
            return Edit(Range(Position(line, column), Position(line, column)), "i")
        end_line = line + rng.choice([0, 0, 1])
        end_column = rng.randint(column + 1 if end_line == line else 0, 8)
        return Edit(Range(Position(line, column), Position(end_line, end_column)), "r")

    for _ in range(400):
        taken_list: list[Edit] = []
        taken = TakenEdits()
        for _ in range(rng.randint(1, 25)):
            edits = [random_edit() for _ in range(rng.randint(1, 3))]
            expected = fits(edits, taken_list)
            assert taken.fit(edits) == expected, (edits, taken_list)
            if expected:
                taken.add(edits)
                taken_list.extend(edits)


def _bench_block() -> str:
    """The seed-bug block that bench/fix_scaling.py repeats N times (one copy for both)."""
    spec = importlib.util.spec_from_file_location(
        "fix_scaling", Path(__file__).resolve().parents[2] / "bench" / "fix_scaling.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BLOCK


BLOCK = _bench_block()


def test_many_fixes_of_one_file_do_the_whole_file_work_once(monkeypatch) -> None:
    text = "import tensorflow as tf\n" + "".join(BLOCK.format(i=i) for i in range(20))
    parsed: list[int] = []
    monkeypatch.setattr(validate, "parse_problem", lambda t: parsed.append(len(t)) or parse_problem(t))
    from tapelsp.fixes import per_source

    walked: list[ast.AST] = []
    children = per_source.children
    monkeypatch.setattr(per_source, "children", lambda node: walked.append(node) or children(node))
    found = tapelsp.check_source(text, "many.py", tapelsp.Settings(tensorflow_version="2.21"), fixes=True)
    fixes = [v for v in found if v.fix is not None]
    assert sorted({v.code for v in fixes}) == ["FUNC001", "MAP002", "TAPE001"] and len(fixes) == 60
    assert all(v.fix_error is None for v in found)
    # Each fix was checked on its own function or two, never on the whole file.
    assert len(parsed) == 60 and max(parsed) < len(text) // 10
    # The module was walked once (names, parents, attributes) for the 60 fixes, 40 of which
    # choose a new name.
    assert sum(isinstance(node, ast.Module) for node in walked) == 1


def test_what_is_remembered_about_a_tree_does_not_keep_it_alive() -> None:
    import gc
    import weakref

    from tapelsp.fixes import blocks, hoist, per_source

    tree = ast.parse("import tensorflow as tf\n" + BLOCK.format(i=0))
    gone = weakref.ref(tree)
    per_source.parents(tree)
    identifiers(tree, skip=tree.body[1])
    per_source.statement_spans(tree)
    per_source.attribute_names(tree)
    hoist._first_binding_lines(tree)
    blocks._statements_by_place(tree)
    del tree
    for _ in range(5):  # the parent links are kept for the last few trees only
        per_source.parents(ast.parse("x = 1"))
    gc.collect()
    assert gone() is None
