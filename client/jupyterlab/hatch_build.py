"""Build hooks.

- Metadata: the dependencies. Built from a checkout of the tapelsp repository (this folder is
  its client/jupyterlab), tapelsp is a direct reference to that checkout, so that
  `pip install ./client/jupyterlab` installs tapelsp from it too (tapelsp is not on PyPI). Built
  anywhere else, or with TAPELSP_JUPYTERLAB_PUBLISH=1 (a wheel or sdist for a package index, which
  takes no direct references), it is `tapelsp>=0.1.0`.
- Wheel: install the prebuilt labextension and the server-extension config as shared data. The
  labextension is the frontend's committed build output; a wheel built from a tree that does not
  have it (yet) still installs the server extension.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface

DEPENDENCIES = ["jupyter_server>=2,<3", "jupyter_client>=8"]
TAPELSP = "tapelsp>=0.1.0"


def tapelsp_checkout(root: str) -> Path | None:
    """The tapelsp repository this folder belongs to (its pyproject.toml names the project
    `tapelsp`), or None."""
    repository = Path(root).resolve().parents[1]
    pyproject = repository / "pyproject.toml"
    if not (repository / "client" / "jupyterlab").samefile(root) or not pyproject.is_file():
        return None
    if not re.search(r'^name\s*=\s*"tapelsp"\s*$', pyproject.read_text(encoding="utf-8"), re.MULTILINE):
        return None
    return repository


class CustomMetadataHook(MetadataHookInterface):
    PLUGIN_NAME = "custom"

    def update(self, metadata: dict) -> None:
        checkout = None if os.environ.get("TAPELSP_JUPYTERLAB_PUBLISH") else tapelsp_checkout(self.root)
        tapelsp = f"tapelsp @ {checkout.as_uri()}" if checkout is not None else TAPELSP
        metadata["dependencies"] = [tapelsp, *DEPENDENCIES]

LABEXTENSION = "tapelsp_jupyterlab/labextension"
SHARED = {
    LABEXTENSION: "share/jupyter/labextensions/tapelsp-jupyterlab",
    "jupyter-config/jupyter_server_config.d": "etc/jupyter/jupyter_server_config.d",
}


class CustomBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        for source, target in SHARED.items():
            folder = os.path.join(self.root, source)
            if not os.path.isdir(folder):
                if source == LABEXTENSION:
                    self.app.display_warning(f"{source} is missing: the wheel has no labextension")
                continue
            for directory, _dirs, files in os.walk(folder):
                for name in files:
                    full = os.path.join(directory, name)
                    relative = os.path.relpath(full, folder)
                    build_data["shared_data"][full] = f"{target}/{relative}".replace(os.sep, "/")
            if source == LABEXTENSION:
                # Tells `jupyter labextension list` which Python package provides it.
                build_data["shared_data"][os.path.join(self.root, "install.json")] = f"{target}/install.json"
