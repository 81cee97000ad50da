"""Damaging real TensorFlow sources the way typing does, and the property that must survive it.

Each edit picks one top-level `def` or `class` of a file that parses (the damaged block) and
breaks it: a deleted line, a cut in the middle of a token, an unbalanced bracket, a line
indented wrongly (or with a tab), a NUL character, or the file truncated inside it. The lines
before the block are untouched; the lines after it are untouched but may have moved (`shift`),
or are gone (truncation).

The property: the engine does not crash (no exception, no TL004), and every finding outside the
damaged block survives, at the same place (moved by `shift`). The reference for "outside" is
the original with the damaged block blanked out (empty lines), so a finding that only existed
because of what the block defined (a tf.function called elsewhere) is not demanded.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tapelsp import Settings, check_source

REPO = Path(__file__).resolve().parents[2]
TL = ("TL001", "TL002", "TL003")


def corpus_roots() -> list[Path]:
    roots = []
    for site in sorted((REPO / ".cache" / "bench" / "venv").glob("lib/python3*/site-packages")):
        for package in ("tf_keras", "tensorflow_probability"):
            if (site / package).is_dir():
                roots.append(site / package)
    if not any(r.name == "tf_keras" for r in roots):
        fallback = Path("/tmp/tfvenv/lib/python3.11/site-packages/tf_keras")
        if fallback.is_dir():
            roots.append(fallback)
    return roots


def corpus_files() -> list[Path]:
    files = []
    for root in corpus_roots():
        files += sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    return files


@dataclass(frozen=True)
class Damaged:
    text: str
    first: int  # 0-based first line of the damaged top-level block (decorators included)
    last: int  # 0-based last line of it, in the original
    shift: int | None  # how far the lines after the block moved; None: they are gone (truncated)
    how: str


def _blocks(text: str) -> list[tuple[int, int]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.end_lineno:
            first = min([stmt.lineno] + [d.lineno for d in stmt.decorator_list]) - 1
            out.append((first, stmt.end_lineno - 1))
    return out


def _pick(text: str, rng: random.Random) -> tuple[list[str], int, int, int] | None:
    """The file's lines, a block and a non-blank line inside it (not its first)."""
    blocks = _blocks(text)
    if not blocks:
        return None
    first, last = rng.choice(blocks)
    lines = text.splitlines(keepends=True)
    inside = [n for n in range(first, last + 1) if lines[n].strip()]
    if not inside:
        return None
    return lines, first, last, rng.choice(inside)


def delete_line(text: str, rng: random.Random) -> Damaged | None:
    picked = _pick(text, rng)
    if picked is None:
        return None
    lines, first, last, n = picked
    return Damaged("".join(lines[:n] + lines[n + 1:]), first, last, -1, f"deleted line {n + 1}")


def cut_mid_token(text: str, rng: random.Random) -> Damaged | None:
    """Remove a few characters from the middle of a line (half a name, an operator, a quote)."""
    picked = _pick(text, rng)
    if picked is None:
        return None
    lines, first, last, n = picked
    line = lines[n].rstrip("\r\n")
    if len(line) < 2:
        return None
    start = rng.randrange(len(line) - 1)
    stop = min(len(line), start + rng.randint(1, 6))
    lines[n] = line[:start] + line[stop:] + lines[n][len(line):]
    return Damaged("".join(lines), first, last, 0, f"cut {line[start:stop]!r} from line {n + 1}")


def unbalance(text: str, rng: random.Random) -> Damaged | None:
    picked = _pick(text, rng)
    if picked is None:
        return None
    lines, first, last, n = picked
    line = lines[n]
    closers = [i for i, c in enumerate(line) if c in ")]}"]
    if closers and rng.random() < 0.5:
        i = rng.choice(closers)
        lines[n] = line[:i] + line[i + 1:]
        how = f"removed {line[i]!r} on line {n + 1}"
    else:
        body = len(line.rstrip("\r\n"))
        i = rng.randint(len(line) - len(line.lstrip()), body)
        opener = rng.choice("([{)]}")
        lines[n] = line[:i] + opener + line[i:]
        how = f"inserted {opener!r} on line {n + 1}"
    return Damaged("".join(lines), first, last, 0, how)


def reindent(text: str, rng: random.Random) -> Damaged | None:
    picked = _pick(text, rng)
    if picked is None:
        return None
    lines, first, last, n = picked
    line = lines[n]
    stripped = line.lstrip(" \t")
    indent = line[: len(line) - len(stripped)]
    choice = rng.choice(["more", "less", "tab", "half"])
    if choice == "more":
        new = indent + "    "
    elif choice == "less":
        new = indent[4:]
    elif choice == "tab":
        new = indent.replace("    ", "\t", 1)
    else:
        new = indent + "  "
    if new == indent:
        return None
    lines[n] = new + stripped
    return Damaged("".join(lines), first, last, 0, f"indentation {choice} on line {n + 1}")


def insert_nul(text: str, rng: random.Random) -> Damaged | None:
    picked = _pick(text, rng)
    if picked is None:
        return None
    lines, first, last, n = picked
    line = lines[n]
    i = rng.randrange(len(line.rstrip("\r\n")) + 1)
    lines[n] = line[:i] + "\0" + line[i:]
    return Damaged("".join(lines), first, last, 0, f"NUL on line {n + 1}")


def truncate(text: str, rng: random.Random) -> Damaged | None:
    picked = _pick(text, rng)
    if picked is None:
        return None
    lines, first, last, n = picked
    cut = rng.randrange(len(lines[n]))
    return Damaged("".join(lines[:n]) + lines[n][:cut], first, last, None, f"truncated at line {n + 1}:{cut}")


EDITS: list[Callable[[str, random.Random], Damaged | None]] = [
    delete_line, cut_mid_token, unbalance, reindent, insert_nul, truncate,
]


def _outside(violation, first: int, last: int) -> bool:
    ranges = [violation.range] + [r.range for r in violation.related]
    return all(r.end.line < first or r.start.line > last for r in ranges)


def _key(violation, first: int, last: int, shift: int) -> tuple:
    def moved(line: int) -> int:
        return line + shift if line > last else line

    r = violation.range
    return (violation.code, moved(r.start.line), r.start.column, moved(r.end.line), r.end.column)


def blanked(text: str, first: int, last: int) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:first] + ["\n"] * (last - first + 1) + lines[last + 1:])


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def check_damage(original: str, damaged: Damaged, path: str, settings: Settings | None = None) -> tuple[int, int]:
    """Assert the property; returns (findings expected to survive, findings after damage)."""
    settings = settings or Settings()
    after = check_source(damaged.text, path, settings)
    crashes = [v.message for v in after if v.code == "TL004"]
    assert not crashes, f"{path}: {damaged.how}: a rule raised: {crashes}"
    if _parses(damaged.text):
        # Still valid Python: a different program (a deleted decorator, a deleted assignment),
        # whose findings may rightly differ anywhere. Only code that does not parse is broken.
        return 0, len(after)
    reference = check_source(blanked(original, damaged.first, damaged.last), path, settings)
    expected = {_key(v, damaged.first, damaged.last, damaged.shift or 0) for v in reference
                if v.code not in TL and _outside(v, damaged.first, damaged.last)
                and (damaged.shift is not None or v.range.end.line < damaged.first)}
    shifted_block_end = damaged.last + (damaged.shift or 0)
    got = {_key(v, -1, 10**9, 0) for v in after if v.code not in TL}
    lost = expected - got
    assert not lost, (f"{path}: {damaged.how} (block at lines {damaged.first + 1}-{damaged.last + 1}, "
                      f"now ending at {shifted_block_end + 1}): findings outside it were lost: {sorted(lost)}")
    return len(expected), len(after)
