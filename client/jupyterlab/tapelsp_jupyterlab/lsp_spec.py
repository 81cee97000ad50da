"""The `jupyter_lsp_spec_v1` entry point: tapelsp's language server for jupyterlab-lsp users.

Opt-in: jupyterlab-lsp runs one language server per language, so a user who wants tapelsp's
diagnostics there chooses it over their other Python server (see the README). The server is
the same one every editor runs, `python -m tapelsp`, in the Jupyter server's interpreter.
"""

from __future__ import annotations

import sys
from typing import Any

KEY = "tapelsp"


def spec(manager: Any = None) -> dict[str, dict[str, Any]]:
    """jupyter_lsp's spec finder protocol: called with the LanguageServerManager."""
    return {
        KEY: {
            "version": 2,
            "argv": [sys.executable, "-m", "tapelsp"],
            "languages": ["python"],
            "mime_types": ["text/python", "text/x-ipython"],
            "display_name": "tapelsp",
            "requires_documents_on_disk": False,
            "urls": {"home": "https://github.com/tapelsp/tapelsp",
                     "issues": "https://github.com/tapelsp/tapelsp/issues"},
            "install": {"pip": "pip install tapelsp"},
        }
    }
