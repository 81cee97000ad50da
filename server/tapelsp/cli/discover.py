"""Which files a `--check PATHS` run looks at.

Directories are walked recursively in a fixed order. Skipped while walking:
version-control and tool directories, virtual environments (any directory
holding `pyvenv.cfg`), and whatever an `exclude` glob matches. Symbolic links to
directories are not followed (no loops, no checking a tree twice). A path named
on the command line is always checked unless `--force-exclude` is given, as in
ruff.
"""

from __future__ import annotations

import os
import sys
from pathlib import PurePosixPath

from ..files import NOTEBOOK_SUFFIX, PYTHON_SUFFIXES
from .args import UsageError
from .resolve import Resolver

SKIPPED_DIRECTORIES = frozenset({
    ".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".nox",
    ".tapelsp_cache", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints",
})
CHECKED_SUFFIXES = (*PYTHON_SUFFIXES, NOTEBOOK_SUFFIX)


def is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def is_checked_name(name: str) -> bool:
    return name.lower().endswith(CHECKED_SUFFIXES)


def collect(paths: tuple[str, ...], resolver: Resolver, *, warn=None) -> list[str]:
    """Absolute POSIX paths of the files to check, without duplicates, in display order."""
    warn = warn or (lambda message: print(f"warning: {message}", file=sys.stderr))
    force = resolver.options.force_exclude
    found: dict[str, None] = {}
    for given in paths:
        full = resolver.absolute(given)
        if not os.path.lexists(full):
            raise UsageError(f"{given}: no such file or directory")
        if force and resolver.excluded_by(full) is not None:
            continue
        if os.path.isdir(full):
            for file in _walk(full, resolver, warn):
                found.setdefault(file, None)
        else:
            # Named explicitly: checked whatever its suffix (broken links become TL002).
            found.setdefault(full, None)
    return sorted(found, key=lambda path: PurePosixPath(resolver.display(path)).parts)


def _walk(top: str, resolver: Resolver, warn) -> list[str]:
    files: list[str] = []
    pending = [top]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            warn(f"cannot list {resolver.display(directory)}: {error.strerror or error}")
            continue
        subdirectories = []
        for entry in entries:
            path = f"{directory.rstrip('/')}/{entry.name}"
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                is_dir, is_link = False, False
            if is_dir:
                if entry.name in SKIPPED_DIRECTORIES or is_virtualenv(path):
                    continue
                if resolver.excluded_by(path, parents=False) is not None:
                    continue
                subdirectories.append(path)
            elif is_link and os.path.isdir(path):
                continue  # symlinked directory: not followed
            elif is_checked_name(entry.name) and resolver.excluded_by(path, parents=False) is None:
                files.append(path)
        # Depth first, in name order.
        pending.extend(reversed(subdirectories))
    return files
