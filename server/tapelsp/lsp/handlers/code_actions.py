"""textDocument/codeAction and codeAction/resolve.

Quick fixes (one per fixable finding, preferred when the fix is safe), "ignore CODE on
this line", `source.fixAll.tapelsp` (safe fixes until nothing is left to fix) and, for a
notebook, `notebook.source.fixAll.tapelsp` over all its cells. Fix-all is the expensive
one: clients that can resolve code actions get it without its edit, computed on resolve.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable, Optional

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified

from ...fixes import ignore_fix
from ...model import Fix, Violation
from .. import jobs
from ..actions import (FIX_ALL, KINDS, NOTEBOOK_FIX_ALL, QUICK_FIX, Target, libcst_missing, quick_fixes,
                       replacement_edits, touches, wanted, workspace_edit)
from ..convert import identity
from ..pool import FIXES, WorkerError
from ..positions import from_client_range
from ..snapshots import Analysis

if TYPE_CHECKING:
    from ..server import TapeLanguageServer

log = logging.getLogger("tapelsp.lsp")

# Fix-all builds every fix, round after round: on a large file that takes a while.
FIX_ALL_TIMEOUT = 600.0


def register(server: "TapeLanguageServer") -> None:
    options = types.CodeActionOptions(code_action_kinds=list(KINDS), resolve_provider=True)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)
    async def code_action(ls: "TapeLanguageServer", params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
        session = ls.session
        uri = params.text_document.uri
        key = session.owner_of(uri)
        if key is None:
            return None
        only = params.context.only
        analysis = await session.scheduler.current(key)
        if analysis is None or analysis.error is not None:
            return None
        target = target_of(analysis, uri)
        if target is None:
            return None
        encoding = session.features.encoding
        document_changes = session.features.document_changes
        violations = findings_of(analysis, uri)
        actions: list[types.CodeAction] = []
        if wanted(QUICK_FIX, only):
            asked = from_client_range(target.lines, params.range, encoding)
            in_range = [v for v in violations if touches(v.range, asked)]
            if in_range:
                # Only the fixes of these findings are built (libcst runs for them alone).
                built = await session.scheduler.fixes(analysis, in_range)
                actions.extend(quick_fixes(in_range, built, target, encoding, document_changes,
                                           memoised_ignore(session.scheduler.memo(analysis), target,
                                                           () if analysis.snapshot.is_notebook else analysis.statements),
                                           session.features.code_action_disabled))
                if not session.features.code_action_disabled:
                    tell_libcst_missing(ls, built)
        for kind, whole_notebook in ((FIX_ALL, False), (NOTEBOOK_FIX_ALL, True)):
            if only is None or not wanted(kind, only):
                continue  # fix-all is a source action: offered when source actions are asked for
            if whole_notebook and not analysis.snapshot.is_notebook:
                continue
            scope = analysis.violations if whole_notebook else violations
            if not any(identity(v) in analysis.offered for v in scope):
                continue
            action = types.CodeAction(
                title="Fix all safely fixable tapelsp problems" + (" in the notebook" if whole_notebook else ""),
                kind=kind,
                data={"tapelsp": "fixAll", "uri": uri, "key": key, "notebook": whole_notebook,
                      "ident": list(analysis.ident)})
            if not session.features.code_action_resolve:
                action.edit = await fix_all_edit(ls, analysis, uri, whole_notebook)
                if action.edit is None:
                    continue
            actions.append(action)
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: "TapeLanguageServer", action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        if data.get("tapelsp") != "fixAll":
            return action
        session = ls.session
        key, uri = data.get("key"), data.get("uri")
        if not isinstance(key, str) or not isinstance(uri, str):
            return action
        analysis = await session.scheduler.current(key)
        if analysis is None or list(analysis.ident) != data.get("ident"):
            raise JsonRpcContentModified("the document changed since the code action was offered")
        action.edit = await fix_all_edit(ls, analysis, uri, bool(data.get("notebook")))
        return action


def tell_libcst_missing(ls: "TapeLanguageServer", built: dict) -> None:
    """For a client that does not show disabled code actions: once per server, a message saying
    that fixes need libcst, when a fix asked for could not be built for want of it."""
    if getattr(ls.session, "told_libcst_missing", False):
        return
    if not any(fix is None and problem is not None for fix, problem in built.values()):
        return
    missing = libcst_missing()
    if missing is not None:
        ls.session.told_libcst_missing = True  # type: ignore[attr-defined]
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=missing))


def memoised_ignore(memo: dict, target: Target,
                    statements: tuple[tuple[int, int], ...] = ()) -> Callable[[Violation], Optional[Fix]]:
    """`ignore_fix` once per finding and analysis (it tokenizes the finding's statement when
    the `statements` of the text are known, the text up to the finding otherwise)."""
    def ignore_of(violation: Violation) -> Optional[Fix]:
        key = ("ignore", target.uri, identity(violation))
        if key not in memo:
            text_key = ("text", target.uri)
            if text_key not in memo:
                memo[text_key] = target.text
            memo[key] = ignore_fix(violation, memo[text_key], statements)
        return memo[key]
    return ignore_of


def findings_of(analysis: Analysis, uri: str) -> list[Any]:
    snapshot = analysis.snapshot
    if not snapshot.is_notebook:
        return list(analysis.violations)
    cell = snapshot.cell_by_uri(uri)
    return list(analysis.for_cell(cell.number)) if cell is not None else []


def target_of(analysis: Analysis, uri: str) -> Optional[Target]:
    snapshot = analysis.snapshot
    if not snapshot.is_notebook:
        return Target(snapshot.key, snapshot.client_version, snapshot.lines)
    cell = snapshot.cell_by_uri(uri)
    return Target(cell.uri, cell.version, cell.lines) if cell is not None else None


async def fix_all_edit(ls: "TapeLanguageServer", analysis: Analysis, uri: str,
                       whole_notebook: bool) -> Optional[types.WorkspaceEdit]:
    """Run fix-all in a worker and turn the result into one workspace edit."""
    session = ls.session
    snapshot = analysis.snapshot
    only_cell = None
    if snapshot.is_notebook and not whole_notebook:
        cell = snapshot.cell_by_uri(uri)
        if cell is None:
            return None
        only_cell = cell.number
    job = jobs.FixAll(snapshot.source, snapshot.settings, only_cell=only_cell, project_root=snapshot.project_root,
                      project_generation=snapshot.project_generation)
    try:
        result = await session.pool.run(job, priority=FIXES, timeout=FIX_ALL_TIMEOUT)
    except WorkerError as error:
        log.error("fix-all for %s failed: %s", uri, error)
        return None
    encoding = session.features.encoding
    changes = []
    if snapshot.is_notebook:
        for number, new_text in result.cells:
            cell = snapshot.cell_by_number(number)
            if cell is not None:
                target = Target(cell.uri, cell.version, cell.lines)
                changes.append((target, replacement_edits(target, new_text, encoding)))
    elif result.text is not None:
        target = Target(snapshot.key, snapshot.client_version, snapshot.lines)
        changes.append((target, replacement_edits(target, result.text, encoding)))
    changes = [(target, edits) for target, edits in changes if edits]
    if not changes:
        return None
    return workspace_edit(changes, session.features.document_changes)
