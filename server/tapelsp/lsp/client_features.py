"""What the client said it can do, read once at `initialize`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from .positions import normalise_encoding


def _get(value: Any, *path: str) -> Any:
    for name in path:
        if value is None:
            return None
        value = getattr(value, name, None)
    return value


@dataclass(frozen=True)
class ClientFeatures:
    encoding: str = "utf-16"
    pull_diagnostics: bool = False
    diagnostic_refresh: bool = False
    code_action_literals: bool = True
    code_action_resolve: bool = False
    code_action_disabled: bool = False
    document_changes: bool = False
    hover_markdown: bool = True
    configuration: bool = False
    watched_files_registration: bool = False
    watched_files_relative_patterns: bool = False
    notebooks: bool = False
    work_done_progress: bool = False

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities | None, encoding: Any) -> "ClientFeatures":
        caps = capabilities or types.ClientCapabilities()
        text = caps.text_document
        workspace = caps.workspace
        resolve_properties = _get(text, "code_action", "resolve_support", "properties") or []
        hover_formats = _get(text, "hover", "content_format")
        return cls(
            encoding=normalise_encoding(encoding),
            pull_diagnostics=_get(text, "diagnostic") is not None,
            diagnostic_refresh=bool(_get(workspace, "diagnostics", "refresh_support")),
            code_action_literals=_get(text, "code_action", "code_action_literal_support") is not None,
            code_action_resolve="edit" in resolve_properties,
            code_action_disabled=bool(_get(text, "code_action", "disabled_support")),
            document_changes=bool(_get(workspace, "workspace_edit", "document_changes")),
            hover_markdown=(hover_formats is None or types.MarkupKind.Markdown in hover_formats),
            configuration=bool(_get(workspace, "configuration")),
            watched_files_registration=bool(_get(workspace, "did_change_watched_files", "dynamic_registration")),
            watched_files_relative_patterns=bool(
                _get(workspace, "did_change_watched_files", "relative_pattern_support")),
            notebooks=caps.notebook_document is not None,
            work_done_progress=bool(_get(caps.window, "work_done_progress")),
        )
