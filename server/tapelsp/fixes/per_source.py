"""Work a fix builder needs about the whole source, done once per source instead of once per fix.

A file with N findings builds N fixes; each used to rescan the whole program (its names,
its parent links, its lines), which made building the fixes of a file quadratic in its
findings. The results here are computed once per source and shared:

- per `ast` node (held weakly: a tree's entries go when the tree goes):
  `attribute_names`, `statement_spans`, and what `per_node` wraps elsewhere (the names
  of `names.identifiers`, the bindings of a scope in `hoist`); `parents` for the last
  few trees;
- per text (a small bounded cache keyed by the text): `source_text`, `lines_keepends`,
  `line_index`.

Nothing returned may be changed by the caller: it is shared by every later fix of the source.
Trees are assumed not to change once built (the engine never changes them).
"""

from __future__ import annotations

import ast
import functools
import threading
import weakref
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Callable, TypeVar

from ..facts.walk import children
from ..text import SourceText
from .edits import _split_keepends, line_starts, newline_of

T = TypeVar("T")
BARRY = "barry_as_FLUFL"


def per_node(compute: Callable[[ast.AST], T]) -> Callable[[ast.AST], T]:
    """`compute(node)` remembered for as long as `node` lives (one entry per node object)."""
    memo: weakref.WeakKeyDictionary[ast.AST, T] = weakref.WeakKeyDictionary()

    @functools.wraps(compute)
    def cached(node: ast.AST) -> T:
        try:
            return memo[node]
        except KeyError:
            value = memo[node] = compute(node)
            return value
        except TypeError:  # not weakly referenceable: not remembered
            return compute(node)
    return cached


def per_recent_node(size: int) -> Callable[[Callable[[ast.AST], T]], Callable[[ast.AST], T]]:
    """`compute(node)` remembered for the last `size` nodes asked about: for results that
    refer back to the node (a weak key would then never be let go)."""
    def wrap(compute: Callable[[ast.AST], T]) -> Callable[[ast.AST], T]:
        memo: OrderedDict[int, tuple[ast.AST, T]] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(compute)
        def cached(node: ast.AST) -> T:
            with lock:
                entry = memo.get(id(node))
                if entry is not None and entry[0] is node:
                    memo.move_to_end(id(node))
                    return entry[1]
            value = compute(node)
            with lock:
                memo[id(node)] = (node, value)
                memo.move_to_end(id(node))
                while len(memo) > size:
                    memo.popitem(last=False)
            return value
        return cached
    return wrap


# --- per tree ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Survey:
    """What one walk of a tree finds for the fix builders (see `survey`)."""

    parents: dict[ast.AST, ast.AST]  # every node but the tree -> its parent
    name_counts: Counter[str]  # name -> how many nodes use or bind it (names.identifiers)
    names: frozenset[str]  # the keys of name_counts
    attributes: frozenset[str]  # every `.name` after a dot


@per_recent_node(4)
def survey(tree: ast.AST) -> Survey:
    """One walk of `tree` for its parent links, the names its nodes use or bind, and its
    attribute names (for the last few trees: the links lead back to the tree, so they
    cannot be held by a weak reference to it). One walk instead of three: on a
    10,000-line file the first fix of a text cost 1.7 s in three `ast.walk`s."""
    from .names import names_of  # names.py builds on this module

    found: dict[ast.AST, ast.AST] = {}
    counts: Counter[str] = Counter()
    attributes: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        own = names_of(node)
        if own:
            counts.update(own)
        if isinstance(node, ast.Attribute):
            attributes.add(node.attr)
        for child in children(node):
            found[child] = node
            stack.append(child)
    return Survey(found, counts, frozenset(counts), frozenset(attributes))


def parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    """Every node of `tree` (but `tree`) -> its parent."""
    return survey(tree).parents


def attribute_names(tree: ast.AST) -> frozenset[str]:
    """Every `.name` that appears after a dot anywhere in `tree`."""
    return survey(tree).attributes


@dataclass(frozen=True)
class StatementSpans:
    """The 1-based (first line with decorators, last line) of each statement of a module's body."""

    firsts: tuple[int, ...]
    lasts: tuple[int, ...]
    ordered: bool  # both never decrease: a bisection finds what a scan from the start finds


@per_node
def statement_spans(tree: ast.Module) -> StatementSpans:
    firsts = tuple(min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])]) for s in tree.body)
    lasts = tuple(s.end_lineno or s.lineno for s in tree.body)
    ordered = all(a <= b for a, b in zip(firsts, firsts[1:])) and all(a <= b for a, b in zip(lasts, lasts[1:]))
    return StatementSpans(firsts, lasts, ordered)


# --- per text ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def source_text(text: str) -> SourceText:
    """The text's `SourceText` (its lines split once)."""
    return SourceText(text)


@functools.lru_cache(maxsize=8)
def lines_keepends(text: str) -> tuple[str, ...]:
    """The text's lines with their endings (`edits._split_keepends`)."""
    return tuple(_split_keepends(text))


@dataclass(frozen=True)
class LineIndex:
    """What checking a fix's edits on one text needs: line starts, line ending, and where the
    text can be cut into runs of whole top-level statements (None when it does not parse)."""

    starts: tuple[int, ...]
    newline: str
    cuts: tuple[int, ...] | None  # sorted 0-based lines a region of whole statements may start or end at


@functools.lru_cache(maxsize=8)
def line_index(text: str) -> LineIndex:
    starts = tuple(line_starts(text))
    return LineIndex(starts, newline_of(text), _cuts(text, starts))


def _cuts(text: str, starts: tuple[int, ...]) -> tuple[int, ...] | None:
    """0-based lines L such that the lines before L are whole top-level statements (with the
    comments and blank lines around them): the text splits there into pieces that parse on
    their own. None when the text does not parse (or mentions `barry_as_FLUFL`, the one
    `__future__` import that changes how the rest of the file is parsed)."""
    if BARRY in text:
        return None
    try:
        tree = compile(text, "<fixed>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    spans = statement_spans(tree)
    cuts = {0}
    for index, (first, last) in enumerate(zip(spans.firsts, spans.lasts)):
        if index == 0 or spans.lasts[index - 1] < first:
            cuts.add(first - 1)  # just before the statement (and its decorators)
        if index + 1 == len(spans.firsts) or last < spans.firsts[index + 1]:
            cuts.add(last)  # just after it
    lines = len(starts)

    def clean(line: int) -> bool:
        """The line before `line` does not end in a backslash (which would join it to `line`)."""
        if line == 0:
            return True
        if line > lines:
            return False
        end = starts[line] if line < lines else len(text)
        return not text[starts[line - 1]:end].rstrip("\r\n").endswith("\\")
    return tuple(sorted(line for line in cuts if line < lines and clean(line)))
