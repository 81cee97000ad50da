"""Parsing with recovery: a half-typed line must not hide the rest of the file.

When the whole file parses, this is one `ast.parse`. When it does not, the file is
cut into top-level chunks (each def, class or statement at column 0) that are parsed
on their own; inside a chunk that still fails, the smallest failing statement is
replaced by `pass` (then its enclosing block, if that is not enough), so the other
statements of the same function or class are still analysed. Line numbers never move.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .model import Position, Range
from .text import SourceText

MAX_ATTEMPTS_PER_CHUNK = 12


class TooComplex(Exception):
    """The source nests deeper than the parser or the analysis can follow."""


@dataclass(frozen=True)
class SyntaxProblem:
    message: str
    range: Range


@dataclass
class Parsed:
    tree: ast.Module
    problems: list[SyntaxProblem] = field(default_factory=list)
    # 0-based line ranges [start, end) that were left out of the tree.
    dropped: list[tuple[int, int]] = field(default_factory=list)


def parse_source(source: SourceText, filename: str = "<unknown>") -> Parsed:
    if "\0" in source.text:
        return _parse_with_null_bytes(source, filename)
    try:
        return Parsed(_parse(source.text, filename))
    except SyntaxError as error:
        first = _problem(source, error)
        hint = _hint_line(error)
    except ValueError as error:  # defensive: what ast.parse raised for NULs in older Pythons
        return Parsed(ast.Module(body=[], type_ignores=[]),
                      [SyntaxProblem(str(error), source.line_range(0))], [(0, len(source.lines))])
    return _recover(source, filename, first, hint)


def _parse_with_null_bytes(source: SourceText, filename: str) -> Parsed:
    """Python refuses the whole file without saying where; point at the first NUL and
    analyse the file as if each NUL were a space (columns do not move)."""
    line = next(i for i, text in enumerate(source.lines) if "\0" in text)
    column = source.lines[line].index("\0")
    problem = SyntaxProblem("source code string cannot contain null bytes",
                            Range(Position(line, column), Position(line, column + 1)))
    parsed = parse_source(SourceText(source.text.replace("\0", " ")), filename)
    parsed.problems.insert(0, problem)
    return parsed


def _parse(text: str, filename: str) -> ast.Module:
    try:
        return ast.parse(text, filename)
    except (RecursionError, MemoryError) as error:
        raise TooComplex(str(error) or type(error).__name__) from None
    except SyntaxError as error:
        if "too many nested" in str(error.msg) or "too complex" in str(error.msg):
            raise TooComplex(error.msg) from None
        raise


def _problem(source: SourceText, error: SyntaxError) -> SyntaxProblem:
    line = max((error.lineno or 1) - 1, 0)
    line = min(line, len(source.lines) - 1)
    text = source.line(line)
    col = min(max((error.offset or 1) - 1, 0), len(text))
    end_line = (error.end_lineno or error.lineno or 1) - 1
    end_col = (error.end_offset or 0) - 1
    if end_line != line or end_col <= col:
        end_line, end_col = line, len(text) if col < len(text) else col
    end_col = min(end_col, len(source.line(end_line)))
    message = error.msg
    if isinstance(error, IndentationError) and not message.lower().startswith(("unexpected indent", "unindent")):
        message = f"IndentationError: {message}"
    return SyntaxProblem(message, Range(Position(line, col), Position(end_line, end_col)))


# --- splitting into top-level chunks -------------------------------------------------

_OPENERS = "([{"
_CLOSERS = ")]}"
_NEW_TOP_LEVEL = re.compile(r"(?:async\s+def|def|class|@)\b|@")
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")


def _code_lines(lines: list[str]) -> list[bool]:
    """For each line, does a new statement start at column 0 here?"""
    starts: list[bool] = []
    depth = 0
    in_triple: str | None = None
    previous_decorator = False
    for text in lines:
        begins_in_string = in_triple is not None
        if not begins_in_string and text[:1] and not text[0].isspace() and _NEW_TOP_LEVEL.match(text):
            depth = 0  # a def or class at column 0 is never inside brackets in sane code
        starts_here = (not begins_in_string and depth == 0 and bool(text[:1])
                       and not text[0].isspace() and text[0] not in "#" + _CLOSERS
                       and not _CONTINUATION.match(text))
        if starts_here and previous_decorator:
            starts_here = False
        if text.strip():
            previous_decorator = (starts_here or previous_decorator) and text.lstrip().startswith("@")
        starts.append(starts_here)
        depth, in_triple = _scan_line(text, depth, in_triple)
    return starts


def _scan_line(text: str, depth: int, in_triple: str | None) -> tuple[int, str | None]:
    i, n = 0, len(text)
    while i < n:
        if in_triple:
            end = text.find(in_triple, i)
            if end < 0:
                return depth, in_triple
            i, in_triple = end + 3, None
            continue
        ch = text[i]
        if ch == "#":
            break
        if ch in "\"'":
            triple = text[i:i + 3]
            if triple in ('"""', "'''"):
                in_triple = triple
                i += 3
                continue
            i += 1
            while i < n and text[i] != ch:
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth = max(depth - 1, 0)
        i += 1
    return depth, in_triple


def _chunks(lines: list[str]) -> list[tuple[int, int]]:
    starts = [i for i, flag in enumerate(_code_lines(lines)) if flag]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = starts + [len(lines)]
    return [(bounds[k], bounds[k + 1]) for k in range(len(starts)) if bounds[k] < bounds[k + 1]]


# --- recovery -------------------------------------------------------------------------

def _recover(source: SourceText, filename: str, first: SyntaxProblem, hint: int | None = None) -> Parsed:
    lines = list(source.lines)
    body: list[ast.stmt] = []
    problems = [first]
    dropped: list[tuple[int, int]] = []
    # The lines the first error is about: where Python points and, for "expected an
    # indented block after 'if' statement on line 8", the statement it names. A chunk
    # holding either reports the same error again; it is not repeated.
    anchors = {first.range.start.line} | ({hint} if hint is not None else set())
    for start, end in _chunks(lines):
        stmts, lost, problem = _parse_chunk(lines, start, end, filename)
        body.extend(stmts)
        dropped.extend(lost)
        if problem is not None and not any(start <= line < end for line in anchors):
            problems.append(_problem(source, problem))
    return Parsed(ast.Module(body=body, type_ignores=[]), problems, dropped)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _block_end(work: list[str], line: int, end: int) -> int:
    """One past the last line that belongs to the statement starting at `line`."""
    base = _indent(work[line])
    stop = line + 1
    while stop < end:
        text = work[stop]
        if text.strip() and not text.lstrip().startswith("#") and _indent(text) <= base:
            break
        stop += 1
    return stop


def _parent_header(work: list[str], line: int, start: int) -> int | None:
    base = _indent(work[line])
    for k in range(line - 1, start - 1, -1):
        text = work[k]
        if text.strip() and not text.lstrip().startswith("#") and _indent(text) < base:
            return k
    return None


_ON_LINE = re.compile(r"on line (\d+)")
# Errors about the indentation of one line: blanking that line (and what is indented
# under it) fixes them, where `pass` at the same indentation would fail again.
_BAD_INDENT = ("unindent does not match", "unexpected indent", "inconsistent use of tabs")


def _hint_line(error: SyntaxError) -> int | None:
    """The 0-based line an error message names ("... on line 8"), if any."""
    hint = _ON_LINE.search(str(error.msg))
    return int(hint.group(1)) - 1 if hint else None


def _parse_chunk(lines: list[str], start: int, end: int, filename: str
                 ) -> tuple[list[ast.stmt], list[tuple[int, int]], SyntaxError | None]:
    work = lines[start:end]
    offset = start
    first_error: SyntaxError | None = None
    lost: list[tuple[int, int]] = []
    last_line: int | None = None
    for _ in range(MAX_ATTEMPTS_PER_CHUNK):
        try:
            tree = _parse("\n" * offset + "\n".join(work), filename)
            return tree.body, lost, first_error
        except SyntaxError as error:
            first_error = first_error or error
            line = (error.lineno or 1) - 1
            hint = _ON_LINE.search(str(error.msg))
            if hint:
                line = int(hint.group(1)) - 1
            local = min(max(line - offset, 0), len(work) - 1)
            if isinstance(error, IndentationError) and str(error.msg).startswith(_BAD_INDENT) \
                    and work[local].strip() and (last_line is None or local > last_line):
                # Only this line's indentation is wrong: drop the line, keep its neighbours.
                unexpected = str(error.msg).startswith("unexpected indent")
                stop = _block_end(work, local, len(work)) if unexpected else local + 1
                for k in range(local, stop):
                    work[k] = ""
                lost.append((offset + local, offset + stop))
                last_line = local
                continue
            if last_line is not None and local <= last_line:
                header = _parent_header(work, max(local, last_line), 0)
                if header is None:
                    return [], lost + [(start, end)], first_error
                local = header
            stop = _block_end(work, local, len(work))
            work[local] = " " * _indent(work[local]) + "pass"
            for k in range(local + 1, stop):
                work[k] = ""
            lost.append((offset + local, offset + stop))
            last_line = local
    return [], [(start, end)], first_error
