"""tapelsp in JupyterLab: the Jupyter server extension (REST endpoints) and the prebuilt
labextension that shows the findings in notebooks.

Importing this package imports neither TensorFlow nor the engine; the handlers import the
engine on first use. Analysis runs off the server's event loop.
"""

from __future__ import annotations

__version__ = "0.1.0"


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "tapelsp-jupyterlab"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "tapelsp_jupyterlab"}]


def _load_jupyter_server_extension(server_app) -> None:
    from .handlers import setup_handlers

    setup_handlers(server_app.web_app)
    server_app.log.info("tapelsp_jupyterlab: /tapelsp/check, /tapelsp/probe and /tapelsp/rules registered")


# Older name some tools still look for.
load_jupyter_server_extension = _load_jupyter_server_extension
