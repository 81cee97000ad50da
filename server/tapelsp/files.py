"""Reading files from disk (or bytes from anywhere) and checking them.

Shared by every front end that starts from a file rather than from editor text:
the command line, and later the language server and the JupyterLab extension.

Anything that stops a file from being read as source (it vanished, is a
directory or a broken link, is binary, is not in its declared encoding, is a
broken notebook) becomes one TL002 finding for that file; nothing here raises
for a bad file.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
import tokenize
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .meta_codes import INTERNAL_ERROR, TOO_COMPLEX, UNREADABLE
from .model import FileResult, Violation
from .settings import Settings, Targets

PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
# A NUL byte this early means the file is not text.
BINARY_SNIFF_BYTES = 8192


# The engine is imported on first use, not with this module: a command line run answered
# from the results cache reads files but never analyses one.

def check_source(*args: Any, **kwargs: Any) -> list[Violation]:
    from .engine import check_source as engine_check_source

    return engine_check_source(*args, **kwargs)


def check_notebook(*args: Any, **kwargs: Any) -> list[Violation]:
    from .notebook import check_notebook as notebook_check

    return notebook_check(*args, **kwargs)


def meta_violation(*args: Any, **kwargs: Any) -> Violation | None:
    from .engine import meta_violation as engine_meta_violation

    return engine_meta_violation(*args, **kwargs)


class UnreadableFile(Exception):
    """The file's bytes could not be turned into source text; `str(error)` says why."""


@dataclass(frozen=True)
class Source:
    """Decoded text of a file, with what it took to decode it."""

    text: str
    encoding: str


def is_notebook(path: str | os.PathLike[str] | None) -> bool:
    return path is not None and str(path).lower().endswith(NOTEBOOK_SUFFIX)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes, or UnreadableFile with a message a user can act on."""
    path = os.fspath(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise UnreadableFile(f"broken symbolic link (points to {os.readlink(path)!r}, which does not exist)") from None
        raise UnreadableFile("no such file") from None
    except OSError as error:
        raise UnreadableFile(_os_reason(error)) from None
    if stat.S_ISDIR(info.st_mode):
        raise UnreadableFile("it is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        # Reading a FIFO or a device could block forever or never end.
        raise UnreadableFile("not a regular file (a pipe, socket or device)")
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise UnreadableFile(_os_reason(error)) from None


def _os_reason(error: OSError) -> str:
    if isinstance(error, PermissionError):
        return "permission denied"
    if isinstance(error, IsADirectoryError):
        return "it is a directory, not a file"
    reason = error.strerror or str(error) or type(error).__name__
    return reason[0].lower() + reason[1:] if reason else type(error).__name__


def _reject_binary(data: bytes) -> None:
    nul = data.find(b"\x00", 0, BINARY_SNIFF_BYTES)
    if nul != -1:
        raise UnreadableFile(f"it looks like a binary file (NUL byte at offset {nul})")


def _position(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return f"line {line}, byte {offset - start + 1} of the line"


def decode_python(data: bytes) -> Source:
    """Source text as Python reads it: UTF-8 unless a BOM or PEP 263 coding line says otherwise.

    Line endings are kept exactly (\\r\\n, \\r, \\n), so line numbers match what
    editors show.
    """
    _reject_binary(data)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        message = str(error.msg if hasattr(error, "msg") else error)
        if message.startswith("invalid or missing encoding declaration"):
            # The first lines are not UTF-8 and declare nothing: say where UTF-8 decoding fails.
            encoding = "utf-8"
        elif message.startswith("unknown encoding"):
            declared = message.split(":", 1)[-1].strip()
            raise UnreadableFile(f"its coding declaration names an unknown encoding {declared!r}") from None
        elif message.startswith("encoding problem"):
            raise UnreadableFile(f"it starts with a UTF-8 byte-order mark but declares another encoding ({message})") from None
        else:
            raise UnreadableFile(f"its encoding cannot be determined ({message})") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        name = "UTF-8" if codecs.lookup(encoding).name in ("utf-8", "utf-8-sig") else encoding
        hint = ("save it as UTF-8 or declare its encoding with a `# -*- coding: ... -*-` line"
                if name == "UTF-8" else "fix the bytes or the coding declaration")
        raise UnreadableFile(f"it is not valid {name} (byte 0x{data[error.start]:02x} at "
                             f"{_position(data, error.start)}); {hint}") from None
    return Source(text, encoding)


def decode_notebook(data: bytes) -> Source:
    """Notebook JSON text (always UTF-8; a BOM is tolerated)."""
    _reject_binary(data)
    try:
        return Source(data.decode("utf-8-sig"), "utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableFile(f"it is not valid UTF-8 (byte 0x{data[error.start]:02x} at "
                             f"{_position(data, error.start)}); notebooks are UTF-8 JSON") from None


def read_source(path: str | os.PathLike[str]) -> Source:
    """The decoded text of a .py/.pyi/.ipynb file, or UnreadableFile."""
    data = read_bytes(path)
    return decode_notebook(data) if is_notebook(path) else decode_python(data)


def check_bytes(data: bytes, path: str | None = None, settings: Settings | None = None,
                targets: Targets | None = None, notebook: bool | None = None, *,
                project: Any = None, fixes: bool = False) -> FileResult:
    """Check file contents that are already in memory (stdin, an unsaved buffer).

    `path` names the file for messages and decides notebook handling unless
    `notebook` is given. `project` is handed to the engine as is (a
    `tapelsp.project.Project` lets rules look into the user's other modules).
    `fixes=True` asks the rules to build their fixes.
    """
    settings = settings or Settings()
    notebook = is_notebook(path) if notebook is None else notebook
    try:
        source = decode_notebook(data) if notebook else decode_python(data)
    except UnreadableFile as error:
        return _unreadable(path, str(error), settings)
    return _check_text(source.text, path, settings, targets, notebook, project, fixes)


def check_path(path: str | os.PathLike[str], settings: Settings | None = None,
               targets: Targets | None = None, *, project: Any = None, fixes: bool = False) -> FileResult:
    """Read one file and check it; never raises for a bad file."""
    settings = settings or Settings()
    name = os.fspath(path)
    try:
        data = read_bytes(name)
    except UnreadableFile as error:
        return _unreadable(name, str(error), settings)
    return check_bytes(data, name, settings, targets, project=project, fixes=fixes)


def _check_text(text: str, path: str | None, settings: Settings, targets: Targets | None,
                notebook: bool, project: Any, fixes: bool = False) -> FileResult:
    if not text.strip():
        return FileResult(path, ())
    targets = targets or settings.targets()
    try:
        if notebook:
            found = check_notebook(text, path, settings, targets, project=project, fixes=fixes)
        else:
            found = check_source(text, path, settings, targets, project=project, fixes=fixes)
    except RecursionError:
        found = [meta_violation(TOO_COMPLEX, "Too deeply nested to analyse; no other findings are reported "
                                "for this file.", None, settings, path)]
    except Exception as error:  # a bug in tapelsp must not end the run or show a traceback
        where = traceback.extract_tb(error.__traceback__)
        place = f" at {Path(where[-1].filename).name}:{where[-1].lineno}" if where else ""
        found = [meta_violation(INTERNAL_ERROR, f"Internal error while checking this file "
                                f"({type(error).__name__}: {error}{place}). Please report this with the file.",
                                None, settings, path)]
    violations = tuple(v for v in found if v is not None)
    unreadable = next((v.message for v in violations if v.code == UNREADABLE), None)
    return FileResult(path, violations, unreadable)


def _unreadable(path: str | None, reason: str, settings: Settings) -> FileResult:
    message = f"Cannot read file: {reason}."
    found = meta_violation(UNREADABLE, message, None, settings, path)
    violations: tuple[Violation, ...] = (found,) if found is not None else ()
    return FileResult(path, violations, message)
