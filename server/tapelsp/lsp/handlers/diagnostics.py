"""textDocument/diagnostic: pull diagnostics with result ids.

Clients that cannot pull get the same reports pushed (see `Session.publish`). A pull
waits for the analysis of the document's current version; a result id is the
document's version, the settings generation and a fingerprint of the findings, so a
client that asks again about an unchanged document gets `unchanged`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from lsprotocol import types

if TYPE_CHECKING:
    from ..server import TapeLanguageServer

Report = Union[types.RelatedFullDocumentDiagnosticReport, types.RelatedUnchangedDocumentDiagnosticReport]

def register(server: "TapeLanguageServer") -> None:
    options = types.DiagnosticOptions(identifier="tapelsp", inter_file_dependencies=False,
                                      workspace_diagnostics=False)

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, options)
    async def diagnostic(ls: "TapeLanguageServer", params: types.DocumentDiagnosticParams) -> Report:
        session = ls.session
        uri = params.text_document.uri
        key = session.owner_of(uri)
        if key is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        analysis = await session.scheduler.current(key)
        if analysis is None:  # closed while we waited
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        if analysis.error is not None and params.previous_result_id:
            # The analysis failed: keep what the client shows rather than wiping it.
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=params.previous_result_id)
        reports = session.reports(analysis)
        if uri not in reports:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        version, items, fingerprint = reports[uri]
        result_id = f"{version}:{analysis.snapshot.generation}:{fingerprint}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        if analysis.snapshot.is_notebook:
            session.pushed[uri] = fingerprint
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)
