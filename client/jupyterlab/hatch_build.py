"""Wheel build hook: install the prebuilt labextension and the server-extension config as
shared data. The labextension is the frontend's committed build output; a wheel built from a
tree that does not have it (yet) still installs the server extension."""

from __future__ import annotations

import os

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

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
