"""What library functions and methods do, read from `library.tsv` (one row per API).

`api(qualname)` answers for a canonical qualified name (`tensorflow.reduce_sum`,
`numpy.linspace`, `builtins.float`), `method(kind, name)` for a method or attribute of a
value of a given kind (`method("tensor", "numpy")`). Both return an `Api` or None.

A row's name may be a pattern for the members of a namespace: `tensorflow.math.{f}` for
its lowercase functions, `keras.layers.{C}` for its capitalised names, and `*` inside the
last part (`tensorflow.assert_*`). An exact row wins over a pattern; among patterns the
one with the longest literal text wins. The table's own header says what each column means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_TABLE = Path(__file__).with_name("library.tsv")


@dataclass(frozen=True)
class Api:
    name: str
    kind: str
    dtype: tuple[str, ...]  # the dtype rules, first that answers wins
    grad: str  # yes / no / stop / const / leave / -
    flags: frozenset[str]
    traced_fn: tuple[int, ...] = ()  # positions of functions that get traced
    py_callback: tuple[int, ...] = ()  # positions of functions run eagerly on every call
    # (position, keyword) of a function the API differentiates with respect to its arguments
    grad_fn: tuple[tuple[int, str], ...] = ()

    def has(self, flag: str) -> bool:
        return flag in self.flags

    @property
    def attribute(self) -> bool:
        return "attr" in self.flags


@dataclass
class _Table:
    exact: dict[str, Api]
    # namespace -> [(regex over the last part, literal length, Api)], most specific first
    patterns: dict[str, list[tuple[re.Pattern, int, Api]]]


def _parse_row(fields: list[str], line_number: int) -> Api:
    if len(fields) != 4:
        raise ValueError(f"library.tsv:{line_number}: expected 4 tab-separated columns, got {len(fields)}")
    name, returns, grad, flags_text = fields
    kind, _, dtype = returns.partition(":")
    flags = frozenset() if flags_text == "-" else frozenset(f.strip() for f in flags_text.split(","))
    traced = tuple(int(f.split("@", 1)[1]) for f in flags if f.startswith("traced_fn@"))
    callbacks = tuple(int(f.split("@", 1)[1]) for f in flags if f.startswith("py_callback@"))
    differentiated = tuple(sorted((int(f.split("@", 1)[1].split("=", 1)[0]), f.split("=", 1)[1])
                                  for f in flags if f.startswith("grad_fn@")))
    plain = frozenset(f for f in flags if "@" not in f)
    return Api(name, kind, tuple(dtype.split("|")) if dtype else (), grad, plain, tuple(sorted(traced)),
               tuple(sorted(callbacks)), differentiated)


def _pattern(member: str) -> tuple[re.Pattern, int]:
    literal = member.replace("{f}", "").replace("{C}", "").replace("*", "")
    regex = re.escape(member).replace(r"\{f\}", "[a-z][A-Za-z0-9_]*").replace(r"\{C\}", "[A-Z][A-Za-z0-9_]*") \
        .replace(r"\*", "[A-Za-z0-9_]*")
    return re.compile(regex + r"\Z"), len(literal)


@lru_cache(maxsize=1)
def _table() -> _Table:
    exact: dict[str, Api] = {}
    patterns: dict[str, list[tuple[re.Pattern, int, Api]]] = {}
    for number, raw in enumerate(_TABLE.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        row = _parse_row(raw.split("\t"), number)
        namespace, _, member = row.name.rpartition(".")
        if "{" in member or "*" in member:
            regex, literal = _pattern(member)
            patterns.setdefault(namespace, []).append((regex, literal, row))
        else:
            if row.name in exact:
                raise ValueError(f"library.tsv:{number}: {row.name} is listed twice")
            exact[row.name] = row
    for rows in patterns.values():
        rows.sort(key=lambda entry: -entry[1])
    return _Table(exact, patterns)


@lru_cache(maxsize=8192)
def api(qualname: str | None) -> Api | None:
    """The row for a canonical qualified name, exact or by its namespace's patterns."""
    if not qualname:
        return None
    table = _table()
    found = table.exact.get(qualname)
    if found is not None:
        return found
    namespace, _, member = qualname.rpartition(".")
    if not member or member.startswith("_"):
        return None
    for regex, _literal, row in table.patterns.get(namespace, ()):
        if regex.match(member):
            return row
    return None


def method(kind: str, name: str) -> Api | None:
    """The row of method (or attribute) `name` of a value of `kind` (`@tensor.numpy`)."""
    return api(f"@{kind}.{name}")


def rows() -> list[Api]:
    """Every row, exact names and patterns (for tests and documentation)."""
    table = _table()
    return [*table.exact.values(), *(row for entries in table.patterns.values() for _r, _l, row in entries)]
