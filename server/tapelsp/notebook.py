"""Notebooks: all code cells checked as one program, findings mapped back per cell.

IPython syntax (`%magic`, `!shell`, `x = !cmd`, `obj?`, `%%cell magics`) is
neutralised line by line so the cell still parses and line numbers stay put.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace
from typing import Any, Callable

from .engine import SYNTAX_ERROR, TENSORFLOW_MENTIONS, TOO_COMPLEX, UNREADABLE, check_source, meta_violation
from .model import Edit, Fix, Position, Range, Violation
from .parse import TooComplex, parse_source
from .settings import Settings, Targets
from .suppression import filter_suppressed, ignores_whole_file
from .text import SourceText

# Cell magics whose body is still Python.
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "tensorflow_version", "memit"}
_LINE_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?:%|!|\?)")
_ASSIGN_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?P<target>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*[%!]")
_HELP = re.compile(r"^(?P<indent>[ \t]*)[\w.]+\?\??\s*$")
# IPython's automagic: in a cell of one line (IPython applies it to single-line cells only,
# after dropping leading blank lines), a line magic's name without its `%` (`pip install x`,
# `ls ./data`, `cd dir`) runs the magic. Only lines that are not Python anyway are read so
# (`ls = 3`, `time(x)` stay Python); in a longer cell `pip install x` is a SyntaxError.
_AUTOMAGICS = frozenset(
    "alias autoawait autocall automagic bookmark cat cd clear colors conda config cp dhist dirs env gui "
    "hist history ldir less lf lk ll load load_ext loadpy logstart logstop ls lsmagic lx macro magic man "
    "matplotlib mkdir more mv page pdb pdef pdoc pfile pinfo pinfo2 pip popd pprint precision prun psearch "
    "psource pushd pwd pycat pylab recall rehashx reload_ext rerun reset reset_selective rm rmdir run save "
    "sc set_env store sx system tb time timeit unalias unload_ext who who_ls whos xdel xmode".split())
_AUTOMAGIC = re.compile(r"^(?P<indent>[ \t]*)(?P<name>[A-Za-z_]\w*)(?:[ \t]+\S|[ \t]*$)")


class NotebookError(ValueError):
    """The notebook's JSON is not a notebook tapelsp can read."""


@dataclass(frozen=True)
class Cell:
    number: int  # 1-based among all cells (as ruff counts them)
    source: str
    first_line: int  # 0-based line of the cell in the joined source


def code_cells(notebook: str | bytes | dict) -> list[tuple[int, str]]:
    """(1-based cell number, source) of every code cell."""
    if isinstance(notebook, (str, bytes)):
        try:
            notebook = json.loads(notebook)
        except (ValueError, UnicodeDecodeError) as error:
            raise NotebookError(f"not valid notebook JSON: {error}") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError("not a Jupyter notebook: no list of cells")
    cells = []
    for number, cell in enumerate(notebook["cells"], start=1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is not an object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            if not all(isinstance(part, str) for part in source):
                raise NotebookError(f"cell {number} has a source that is not text")
            source = "".join(source)
        if not isinstance(source, str):
            raise NotebookError(f"cell {number} has a source that is not text")
        cells.append((number, source))
    return cells


def neutralise_magics(source: str) -> str:
    """The cell with IPython-only lines replaced by Python of the same line count."""
    lines = source.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic = first[2:].split()[0] if first[2:].split() else ""
        if magic not in _PYTHON_CELL_MAGICS:
            return "\n".join("" for _ in lines)
        lines[0] = ""
    out = []
    continued = False  # the previous line was IPython syntax ending in a backslash
    python = _PythonLines()
    single_line = len(re.sub(r"^(?:[ \t]*\n)+", "", "\n".join(lines)).splitlines()) == 1
    for line in lines:
        if continued:
            out.append("")
            continued = line.endswith("\\")
            continue
        if not python.at_statement_start():
            # Inside brackets, a string or after a backslash (`    % (a, b)` continuing a
            # format, `    != x` a comparison): IPython reads escapes only where a line starts.
            out.append(line)
            python.feed(line)
            continue
        assign = _ASSIGN_MAGIC.match(line)
        if assign:
            out.append(f"{assign.group('indent')}{assign.group('target')} = None")
        elif _LINE_MAGIC.match(line) or _HELP.match(line) or (single_line and _is_automagic(line)):
            indent = re.match(r"[ \t]*", line).group(0)  # type: ignore[union-attr]
            out.append(f"{indent}pass")
        else:
            out.append(line)
            python.feed(line)
            continue
        continued = line.endswith("\\")  # `%config X = \` goes on on the next line
    return "\n".join(out)


def _is_automagic(line: str) -> bool:
    match = _AUTOMAGIC.match(line)
    if match is None or match.group("name") not in _AUTOMAGICS:
        return False
    try:
        ast.parse(line.strip())
    except (SyntaxError, ValueError):
        return True
    return False


class _PythonLines:
    """Where Python lines leave off: open brackets, an open triple-quoted string, a backslash."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the open triple quote, if any
        self.backslash = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and not self.quote and not self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        while i < n:
            if self.quote:
                end = line.find(self.quote, i)
                while end > 0 and line[end - 1] == "\\" and not line[:end].endswith("\\\\"):
                    end = line.find(self.quote, end + 1)
                if end < 0:
                    break
                i, self.quote = end + 3, ""
                continue
            char = line[i]
            if char == "#":
                break
            if char in "\"'":
                if line.startswith(char * 3, i):
                    self.quote = char * 3
                    i += 3
                    continue
                i += 1
                while i < n and line[i] != char:
                    i += 2 if line[i] == "\\" else 1
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        self.backslash = not self.quote and line.rstrip("\r").endswith("\\")


def join_cells(cells: list[tuple[int, str]]) -> tuple[str, list[Cell]]:
    parts: list[str] = []
    mapped: list[Cell] = []
    line = 0
    for number, source in cells:
        text = neutralise_magics(source)
        if not text.endswith("\n"):
            text += "\n"
        mapped.append(Cell(number, source, line))
        parts.append(text)
        line += text.count("\n")
    return "".join(parts), mapped


def _locate(cells: list[Cell], line: int) -> Cell:
    found = cells[0]
    for cell in cells:
        if cell.first_line <= line:
            found = cell
        else:
            break
    return found


def _shift(rng: Range, cell: Cell) -> Range:
    return Range(Position(rng.start.line - cell.first_line, rng.start.column),
                 Position(rng.end.line - cell.first_line, rng.end.column))


def _clip(rng: Range, cell: Cell, cells: list[Cell]) -> Range:
    """Keep a range inside its starting cell."""
    index = cells.index(cell)
    if index + 1 < len(cells) and rng.end.line >= cells[index + 1].first_line:
        last = cells[index + 1].first_line - 1
        return Range(rng.start, Position(last, len(cell.source.split("\n")[last - cell.first_line])
                                         if last - cell.first_line < len(cell.source.split("\n")) else 0))
    return rng


def map_violation(violation: Violation, cells: list[Cell]) -> Violation:
    cell = _locate(cells, violation.range.start.line)
    rng = _shift(_clip(violation.range, cell, cells), cell)
    related = tuple(replace(r, range=_shift(r.range, _locate(cells, r.range.start.line)))
                    for r in violation.related if _locate(cells, r.range.start.line) is cell)
    fix, fix_error = violation.fix, violation.fix_error
    if fix is not None:
        problem = _cell_edit_problem(fix, cell, cells)
        if problem is None:
            fix = Fix(fix.title, fix.applicability,
                      tuple(Edit(_shift(e.range, cell), e.new_text) for e in fix.edits))
        else:
            fix, fix_error = None, problem
    return replace(violation, range=rng, related=related, fix=fix, cell=cell.number, fix_error=fix_error)


def _cell_edit_problem(fix: Fix, cell: Cell, cells: list[Cell]) -> str | None:
    """Why the fix's edits cannot be applied to the cell's own source, or None."""
    index = cells.index(cell)
    end = cells[index + 1].first_line if index + 1 < len(cells) else None
    original = cell.source.split("\n")
    neutralised = neutralise_magics(cell.source).split("\n")
    for edit in fix.edits:
        first, last = edit.range.start.line, edit.range.end.line
        # An edit may end at the very start of the next cell (it removes the cell's last lines).
        if first < cell.first_line or (end is not None and (first >= end or last > end
                                                            or (last == end and edit.range.end.column))):
            return "the fix would edit more than one cell"
        if edit.range.end.column == 0 and last > first:
            last -= 1  # the edit stops where that line starts
        for line in range(first - cell.first_line, min(last - cell.first_line, len(original) - 1) + 1):
            if original[line] != neutralised[line]:
                return "the fix would edit a line of IPython syntax (a magic or shell command)"
    return None


def check_notebook(notebook: str | bytes | dict, path: str | None = None, settings: Settings | None = None,
                   targets: Targets | None = None, *, project: Any = None,
                   fixes: bool = False,
                   analyse: Callable[[str, Callable[[int], str]], list[Violation]] | None = None) -> list[Violation]:
    """Findings for a notebook (its JSON text or parsed dict), each with its 1-based `cell`.

    With `fixes=True` a finding's fix has edits relative to its cell's own source (as
    `tapelsp.fixes.apply_notebook_fixes` applies them). `analyse(text, line_label)`, when
    given, analyses the joined program instead of `check_source` (the language server's
    incremental analysis, which keeps fixes to itself)."""
    try:
        cells = code_cells(notebook)
    except NotebookError as error:
        found = meta_violation(UNREADABLE, f"Cannot read notebook: {error}", None, settings, path)
        return [found] if found else []
    if not cells:
        return []
    text, mapped = join_cells(cells)

    def label(line: int) -> str:
        cell = _locate(mapped, line - 1)
        return f"line {line - cell.first_line} of cell {cell.number}"

    if analyse is not None:
        violations = analyse(text, label)
    else:
        violations = check_source(text, path, settings, targets, line_label=label, project=project, fixes=fixes)
    analysed = any(v.code == SYNTAX_ERROR for v in violations) or (
        any(mention in text for mention in TENSORFLOW_MENTIONS) and not ignores_whole_file(text))
    if analysed and not any(v.code == TOO_COMPLEX for v in violations):
        # Jupyter compiles each cell on its own: report syntax errors per cell, where Python
        # points in that cell, not where the joined program happens to break (or parses,
        # when the next cell happens to complete a broken one).
        violations = [v for v in violations if v.code != SYNTAX_ERROR]
        violations += _cell_syntax_errors(text, mapped, settings, path)
    return sorted((map_violation(v, mapped) for v in violations), key=Violation.sort_key)


def _parses_in_ipython(code: str) -> bool:
    """Does the cell compile, after IPython removes the first line's indentation from every line?"""
    lines = code.split("\n")
    first = next((line for line in lines if line.strip()), "")
    indent = first[:len(first) - len(first.lstrip())]
    candidates = [code]
    if indent:
        candidates.append("\n".join(line[len(indent):] if line.startswith(indent) else line for line in lines))
    for candidate in candidates:
        try:
            ast.parse(candidate)
            return True
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return False


def _cell_syntax_errors(text: str, cells: list[Cell], settings: Settings | None,
                        path: str | None) -> list[Violation]:
    found: list[Violation] = []
    for cell in cells:
        code = neutralise_magics(cell.source)
        if _parses_in_ipython(code):
            continue
        try:
            problems = parse_source(SourceText(code)).problems
        except (TooComplex, RecursionError, MemoryError):
            continue
        for problem in problems:
            rng = Range(Position(problem.range.start.line + cell.first_line, problem.range.start.column),
                        Position(problem.range.end.line + cell.first_line, problem.range.end.column))
            violation = meta_violation(SYNTAX_ERROR, f"SyntaxError: {problem.message}", rng, settings, path)
            if violation is not None:
                found.append(violation)
    return filter_suppressed(found, SourceText(text))
