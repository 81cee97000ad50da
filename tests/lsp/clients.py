"""Client capability sets the tests run the server with.

They are the recordings pytest-lsp ships (captured from the real editors), used as they
are, except VS Code: the only VS Code recording there is 1.65.2 (2022), older than pull
diagnostics and notebook sync in vscode-languageclient. `vscode()` adds exactly the
capabilities a current VS Code with vscode-languageclient 9 sends for those features
(listed in VSCODE_ADDITIONS), so the pull model and notebooks are exercised.
"""

from __future__ import annotations

import copy

from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import client_capabilities

VSCODE_ADDITIONS = {
    "textDocument": {"diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": False}},
    "workspace": {"diagnostics": {"refreshSupport": True}},
    "notebookDocument": {"synchronization": {"dynamicRegistration": True, "executionSummarySupport": True}},
    "general": {"positionEncodings": ["utf-16"]},
}


def _merge(base: dict, extra: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def vscode(*, pull: bool = True) -> types.ClientCapabilities:
    converter = get_converter()
    raw = converter.unstructure(client_capabilities("visual-studio-code@1.65.2"))
    raw = _merge(raw, VSCODE_ADDITIONS)
    if not pull:
        raw["textDocument"].pop("diagnostic")
    return converter.structure(raw, types.ClientCapabilities)


def neovim_09() -> types.ClientCapabilities:
    return client_capabilities("neovim@v0.9.1")


def neovim_011() -> types.ClientCapabilities:
    return client_capabilities("neovim@v0.11.0")


def emacs_29() -> types.ClientCapabilities:
    return client_capabilities("emacs@v29.1")


EDITORS = {
    "vscode": vscode,  # pull diagnostics, notebooks, code action resolve, UTF-16
    "vscode-push": lambda: vscode(pull=False),
    "neovim-0.9": neovim_09,  # push diagnostics, resolve, UTF-16
    "neovim-0.11": neovim_011,  # pull diagnostics, UTF-8 preferred
    "emacs-29": emacs_29,  # push diagnostics, no code action resolve, UTF-32 preferred
}


def pulls(capabilities: types.ClientCapabilities) -> bool:
    return capabilities.text_document is not None and capabilities.text_document.diagnostic is not None
