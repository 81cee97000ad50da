"""Code actions built from findings: quick fixes, "ignore on this line", fix-all.

The fixes themselves come from the engine (a rule's `Fix`, `tapelsp.fixes.ignore_fix`,
`tapelsp.fixes.apply_fixes` run in a worker); this module only turns them into LSP edits
in the client's position encoding.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

from lsprotocol import types

from ..fixes import text_edits
from ..model import Applicability, Edit, Fix, Range, Violation
from .convert import identity, text_edit, to_diagnostic

QUICK_FIX = types.CodeActionKind.QuickFix.value
FIX_ALL = "source.fixAll.tapelsp"
NOTEBOOK_FIX_ALL = "notebook.source.fixAll.tapelsp"
KINDS = (QUICK_FIX, FIX_ALL, NOTEBOOK_FIX_ALL)


def wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Whether an action of `kind` answers a request limited to `only` (None: any kind)."""
    if only is None:
        return True
    return any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


def touches(first: Range, second: Range) -> bool:
    return first.start <= second.end and second.start <= first.end


@dataclass(frozen=True)
class Target:
    """The document an action edits: a text document or one notebook cell."""

    uri: str
    version: Optional[int]
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.lines)


def workspace_edit(changes: Sequence[tuple[Target, Sequence[types.TextEdit]]],
                   document_changes: bool) -> types.WorkspaceEdit:
    if document_changes:
        return types.WorkspaceEdit(document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=target.uri, version=target.version),
                edits=list(edits))
            for target, edits in changes])
    return types.WorkspaceEdit(changes={target.uri: list(edits) for target, edits in changes})


def edits_for(target: Target, edits: Sequence[Edit], encoding: str) -> list[types.TextEdit]:
    return [text_edit(edit, target.lines, encoding) for edit in edits]


def quick_fix(violation: Violation, fix: Optional[Fix], target: Target, encoding: str,
              document_changes: bool) -> Optional[types.CodeAction]:
    """The rule's own fix for a finding, when it has one."""
    if fix is None:
        return None
    return types.CodeAction(
        title=f"{fix.title} ({violation.code})",
        kind=QUICK_FIX,
        diagnostics=[to_diagnostic(violation, target.uri, target.lines, encoding, target.version, True, fix)],
        is_preferred=fix.applicability == Applicability.SAFE,
        edit=workspace_edit([(target, edits_for(target, fix.edits, encoding))], document_changes),
    )


def ignore_action(violation: Violation, fix: Optional[Fix], target: Target, encoding: str,
                  document_changes: bool) -> Optional[types.CodeAction]:
    """`# tapelsp: ignore[CODE]` on the finding's line (None when the line cannot take a comment)."""
    if fix is None:
        return None
    return types.CodeAction(
        title=fix.title,
        kind=QUICK_FIX,
        diagnostics=[to_diagnostic(violation, target.uri, target.lines, encoding, target.version)],
        is_preferred=False,
        edit=workspace_edit([(target, edits_for(target, fix.edits, encoding))], document_changes),
    )


@functools.lru_cache(maxsize=1)
def libcst_missing() -> Optional[str]:
    """Why this Python cannot build fixes, when libcst (which builds them) is not there or has no
    native module for this Python (a universal .vsix, a platform's .vsix on another Python), else
    None. Found without importing libcst: the server process never loads it, only its workers do."""
    python = sys.executable
    install = f"install it with `{python} -m pip install libcst` and restart the server"
    spec = importlib.util.find_spec("libcst")
    if spec is None or not spec.submodule_search_locations:
        return f"tapelsp's fixes need libcst, which {python} does not have: {install}"
    folder = Path(list(spec.submodule_search_locations)[0])
    if not any((folder / f"native{suffix}").exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES):
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        return f"tapelsp's fixes need libcst, and the libcst in {folder.parent} has no native module for Python {version}: {install}"
    return None


def fix_unavailable(violation: Violation, problem: Optional[str], target: Target, encoding: str) -> Optional[types.CodeAction]:
    """For a finding whose rule offers a fix that could not be built because libcst is missing: a
    disabled quick fix whose title and reason say what to install (clients show it greyed out)."""
    if problem is None:
        return None
    missing = libcst_missing()
    if missing is None:
        return None
    return types.CodeAction(
        title=f"Fix {violation.code}: needs libcst (pip install libcst)",
        kind=QUICK_FIX,
        diagnostics=[to_diagnostic(violation, target.uri, target.lines, encoding, target.version)],
        disabled=types.CodeActionDisabled(reason=missing),
    )


def quick_fixes(in_range: Sequence[Violation], built: dict[tuple, tuple[Optional[Fix], Optional[str]]],
                target: Target, encoding: str, document_changes: bool,
                ignore_of: Callable[[Violation], Optional[Fix]], disabled: bool = False) -> list[types.CodeAction]:
    """The rules' fixes for the findings, then one "ignore CODE on this line" per code and line.
    `ignore_of(violation)` gives the ignore edit (`tapelsp.fixes.ignore_fix`, memoised). With
    `disabled` (the client shows disabled code actions), a fix that could not be built for want
    of libcst is a disabled action saying what to install."""
    actions: list[types.CodeAction] = []
    for violation in in_range:
        fix, problem = built.get(identity(violation), (None, None))
        action = quick_fix(violation, fix, target, encoding, document_changes)
        if action is None and disabled:
            action = fix_unavailable(violation, problem, target, encoding)
        if action is not None:
            actions.append(action)
    seen: set[tuple[str, int]] = set()
    for violation in in_range:
        key = (violation.code, violation.range.start.line)
        if key in seen:
            continue
        seen.add(key)
        action = ignore_action(violation, ignore_of(violation), target, encoding, document_changes)
        if action is not None:
            actions.append(action)
    return actions


def replacement_edits(target: Target, new_text: str, encoding: str) -> list[types.TextEdit]:
    """The smallest edits turning the target's text into `new_text` (unchanged lines untouched)."""
    return edits_for(target, text_edits(target.text, new_text), encoding)

