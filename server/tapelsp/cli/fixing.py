"""`--fix` and `--diff`: fix one file (or standard input) and write it back safely, or show the diff.

Writing keeps everything about the file that the fixes did not change: its encoding (the
PEP 263 coding line is honoured), a UTF-8 byte-order mark, its line endings (`\\r\\n`, `\\r`
or `\\n`; new lines use the file's own), tabs, and its permission bits. The new content goes
to a temporary file in the same directory that then replaces the original (`os.replace`),
so a reader never sees half a file. If the file's bytes changed since they were read (an
editor saved it meanwhile), it is not overwritten: that is an error for that file.

Notebooks: fixes apply to the code cells' sources and the notebook JSON is written back
with its other content and its indentation style unchanged.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from dataclasses import dataclass, field, replace
from typing import Any

from ..engine import UNREADABLE, meta_violation
from ..files import UnreadableFile, decode_notebook, decode_python, is_notebook, read_bytes
from ..fixes import apply_fixes, apply_notebook_fixes, notebook_json
from ..fixes.edits import newline_of, with_newline
from ..model import FileResult, Violation
from ..settings import Settings, Targets

UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class FixOutcome:
    """What fixing one file did."""

    result: FileResult  # the findings left after fixing (displayed path)
    fixed: int = 0  # findings whose fixes were applied (or would be, with --diff)
    changed: bool = False
    diff: str = ""
    written: bool = False
    new_data: bytes | None = None  # the fixed bytes (for standard input)
    error: str | None = None  # the file could not be fixed or written (exit 2)
    warnings: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class FixJob:
    path: str  # absolute
    display: str
    settings: Settings
    targets: Targets
    unsafe: bool = False
    write: bool = True  # False for --diff


class ChangedOnDisk(Exception):
    pass


def fix_job(job: FixJob) -> FixOutcome:
    """Fix one file from disk; never raises for a bad file."""
    try:
        data = read_bytes(job.path)
    except UnreadableFile as error:
        return _unreadable(job, str(error))
    outcome = fix_bytes(data, job.path, job.display, job.settings, job.targets, unsafe=job.unsafe)
    if outcome.error is not None or not outcome.changed or not job.write:
        return outcome
    assert outcome.new_data is not None
    try:
        write_atomically(job.path, outcome.new_data, expected=data)
    except ChangedOnDisk:
        return replace(outcome, error=f"{job.display}: the file changed on disk while it was being fixed; "
                                      "it was not overwritten (run again to fix the new content)")
    except OSError as error:
        return replace(outcome, error=f"{job.display}: could not write the fixed file: "
                                      f"{error.strerror or error}")
    return replace(outcome, written=True)


def fix_bytes(data: bytes, path: str | None, display: str, settings: Settings, targets: Targets | None, *,
              unsafe: bool = False, project: Any = None) -> FixOutcome:
    """Fix file contents in memory: the new bytes, the unified diff and the findings left."""
    notebook = is_notebook(path)
    try:
        source = decode_notebook(data) if notebook else decode_python(data)
    except UnreadableFile as error:
        return _unreadable_display(display, str(error), settings, path)
    targets = targets or settings.targets()
    try:
        if notebook:
            return _fix_notebook(data, source.text, path, display, settings, targets, unsafe, project)
        return _fix_python(source.text, source.encoding, path, display, settings, targets, unsafe, project)
    except Exception as error:  # a bug while fixing must not lose the run, nor write anything
        return FixOutcome(FileResult(display, ()), error=f"{display}: internal error while fixing "
                          f"({type(error).__name__}: {error}); the file was not changed")


def _fix_python(text: str, encoding: str, path: str | None, display: str, settings: Settings,
                targets: Targets, unsafe: bool, project: Any) -> FixOutcome:
    if not text.strip():
        return FixOutcome(FileResult(display, ()))
    result = apply_fixes(text, path, settings, targets, unsafe=unsafe, project=project)
    remaining = FileResult(display, result.remaining, _unreadable_message(result.remaining))
    warnings = tuple(f"{display}: {problem}" for problem in result.problems)
    if result.text == text:
        return FixOutcome(remaining, warnings=warnings)
    try:
        new_data = result.text.encode(encoding)
    except UnicodeEncodeError as error:
        return FixOutcome(remaining, error=f"{display}: the fixed code cannot be written in the file's "
                          f"encoding {encoding} ({error.reason}); the file was not changed", warnings=warnings)
    diff = unified_diff(text, result.text, display)
    return FixOutcome(remaining, fixed=len(result.fixed), changed=True, diff=diff, new_data=new_data,
                      warnings=warnings)


def _fix_notebook(data: bytes, text: str, path: str | None, display: str, settings: Settings,
                  targets: Targets, unsafe: bool, project: Any) -> FixOutcome:
    result = apply_notebook_fixes(text, path, settings, targets, unsafe=unsafe, project=project)
    remaining = FileResult(display, result.remaining, _unreadable_message(result.remaining))
    warnings = tuple(f"{display}: {problem}" for problem in result.problems)
    if not result.changed:
        return FixOutcome(remaining, warnings=warnings)
    new_text = notebook_json(result.notebook, like=text)
    newline = newline_of(text)
    if newline != "\n":
        new_text = with_newline(new_text, newline)
    new_data = (UTF8_BOM if data.startswith(UTF8_BOM) else b"") + new_text.encode("utf-8")
    diff = "".join(unified_diff(before, after, f"{display}:cell {number}")
                   for number, (before, after) in sorted(result.cells.items()))
    return FixOutcome(remaining, fixed=len(result.fixed), changed=True, diff=diff, new_data=new_data,
                      warnings=warnings)


def unified_diff(before: str, after: str, name: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=name, tofile=name)
    out = []
    for line in lines:
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def write_atomically(path: str, data: bytes, *, expected: bytes) -> None:
    """Replace the file's content with `data` unless its bytes are no longer `expected`.

    The file behind a symbolic link is the one replaced (the link stays a link); the new
    file gets the old one's permission bits (and owner, where allowed).
    """
    real = os.path.realpath(path)
    info = os.stat(real)
    with open(real, "rb") as handle:
        if handle.read() != expected:
            raise ChangedOnDisk(path)
    directory, name = os.path.split(real)
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tapelsp-fix", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        if hasattr(os, "chown"):
            try:
                os.chown(temporary, info.st_uid, info.st_gid)
            except OSError:
                pass  # not ours to give away: the new file keeps our ownership
        # Last look before the swap: an editor may have saved while we were writing.
        with open(real, "rb") as handle:
            if handle.read() != expected:
                raise ChangedOnDisk(path)
        os.replace(temporary, real)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _unreadable_message(violations: tuple[Violation, ...]) -> str | None:
    return next((v.message for v in violations if v.code == UNREADABLE), None)


def _unreadable(job: FixJob, reason: str) -> FixOutcome:
    return _unreadable_display(job.display, reason, job.settings, job.path)


def _unreadable_display(display: str, reason: str, settings: Settings, path: str | None) -> FixOutcome:
    message = f"Cannot read file: {reason}."
    found = meta_violation(UNREADABLE, message, None, settings, path)
    return FixOutcome(FileResult(display, (found,) if found is not None else (), message))
