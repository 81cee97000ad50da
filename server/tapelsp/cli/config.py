"""`[tool.tapelsp]` in pyproject.toml: reading, validating and finding it.

The nearest pyproject.toml above a file that has a `[tool.tapelsp]` table is
that file's configuration. Paths in it (`exclude`, `per-file-ignores`) are
relative to the directory holding that pyproject.toml.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from ..versions import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dependency there)
    import tomli as tomllib

PYPROJECT = "pyproject.toml"

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude")
_VERSION_KEYS = ("tensorflow-version", "keras-version", "tensorflow-probability-version")
KNOWN_KEYS = (*_LIST_KEYS, "per-file-ignores", *_VERSION_KEYS)


class ConfigError(Exception):
    """A configuration file is broken; the message names the file and the key."""


@dataclass(frozen=True)
class ProjectConfig:
    """One `[tool.tapelsp]` table. None means "not set here"."""

    path: str  # the pyproject.toml, absolute
    root: str  # its directory, absolute POSIX; the base of its globs
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = field(default_factory=tuple)
    tensorflow_version: str | None = None
    keras_version: str | None = None
    tensorflow_probability_version: str | None = None


def known_codes() -> tuple[str, ...]:
    from ..rules import all_rules

    return tuple(rule.code for rule in all_rules())


def parse_selectors(values: list[str] | tuple[str, ...], where: str) -> tuple[str, ...]:
    """Rule codes or prefixes (`TAPE001`, `TAPE`, `ALL`), upper-cased; ValueError names the bad one."""
    codes = known_codes()
    out = []
    for raw in values:
        selector = raw.strip().upper()
        if not selector:
            continue
        if selector != "ALL" and not any(code.startswith(selector) for code in codes):
            raise ValueError(f"{where}: unknown rule code or prefix {raw.strip()!r} "
                             f"(see `tapelsp --list-rules`)")
        out.append(selector)
    return tuple(out)


def parse_version(value: str, where: str) -> str:
    try:
        Version.parse(value)
    except ValueError:
        raise ValueError(f"{where}: {value!r} is not a version number (e.g. \"2.15\")") from None
    return value.strip()


def load_pyproject(path: str, *, required: bool = False) -> ProjectConfig | None:
    """The `[tool.tapelsp]` table of `path`, or None when it has none.

    `required` is for `--config`: then the file must exist and parse, and a
    missing table means an empty configuration rather than "keep looking".
    """
    path = os.path.abspath(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        if not required:
            return None
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        # A broken pyproject.toml that never mentions tapelsp is somebody else's problem.
        if required or b"tapelsp" in raw:
            raise ConfigError(f"{path} is not valid TOML: {error}") from None
        return None
    tool = document.get("tool")
    table = tool.get("tapelsp") if isinstance(tool, dict) else None
    if table is None:
        return ProjectConfig(path, _posix_dir(path)) if required else None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.tapelsp]: must be a table, got {_describe(table)}")
    return _validate(table, path)


def _posix_dir(path: str) -> str:
    return os.path.dirname(path).replace(os.sep, "/")


def _string_list(table: dict, key: str, where: str) -> list[str]:
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{where} `{key}`: must be a list of strings, got {_describe(value)}")
    return value


def _describe(value: object) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
             list: "a list", dict: "a table"}
    kind = names.get(type(value), type(value).__name__)
    return f"{kind} ({value!r})" if not isinstance(value, (list, dict)) else kind


def _validate(table: dict, path: str) -> ProjectConfig:
    where = f"{path}: [tool.tapelsp]"
    for key in table:
        if key not in KNOWN_KEYS:
            hint = ""
            if key.replace("_", "-") in KNOWN_KEYS:
                hint = f" (did you mean `{key.replace('_', '-')}`?)"
            raise ConfigError(f"{where}: unknown key `{key}`{hint}; the known keys are {', '.join(KNOWN_KEYS)}")
    values: dict[str, object] = {}
    try:
        for key in ("select", "ignore", "extend-select"):
            if key in table:
                values[key.replace("-", "_")] = parse_selectors(_string_list(table, key, where), f"{where} `{key}`")
        if "exclude" in table:
            values["exclude"] = tuple(_string_list(table, "exclude", where))
        if "per-file-ignores" in table:
            values["per_file_ignores"] = _per_file_ignores(table["per-file-ignores"], where)
        for key in _VERSION_KEYS:
            if key in table:
                value = table[key]
                if not isinstance(value, str):
                    raise ValueError(f"{where} `{key}`: must be a string like \"2.15\", got {_describe(value)}")
                values[key.replace("-", "_")] = parse_version(value, f"{where} `{key}`")
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return ProjectConfig(path=path, root=_posix_dir(path), **values)  # type: ignore[arg-type]


def _per_file_ignores(value: object, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ValueError(f"{where} `per-file-ignores`: must be a table of glob = [codes], got {_describe(value)}")
    out = []
    for glob, codes in value.items():
        if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
            raise ValueError(f"{where} `per-file-ignores` {glob!r}: must be a list of rule codes, "
                             f"got {_describe(codes)}")
        out.append((glob, parse_selectors(codes, f"{where} `per-file-ignores` {glob!r}")))
    return tuple(out)


class ConfigLocator:
    """Finds the configuration of a directory, walking up; caches every directory it visits."""

    def __init__(self) -> None:
        self._by_dir: dict[str, ProjectConfig | None] = {}

    def for_directory(self, directory: str) -> ProjectConfig | None:
        directory = os.path.abspath(directory)
        visited = []
        found: ProjectConfig | None = None
        current = directory
        while True:
            if current in self._by_dir:
                found = self._by_dir[current]
                break
            visited.append(current)
            candidate = os.path.join(current, PYPROJECT)
            if os.path.isfile(candidate):
                found = load_pyproject(candidate)
                if found is not None:
                    break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for seen in visited:
            self._by_dir[seen] = found
        return found

    def for_file(self, path: str) -> ProjectConfig | None:
        return self.for_directory(os.path.dirname(os.path.abspath(path)))
