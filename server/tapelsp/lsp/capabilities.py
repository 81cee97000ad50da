"""What `initialize` says about the probe, on top of what pygls builds.

- `experimental.tapelspProbe: true`: the server answers `tapelsp/probe` (the VS Code
  extension's request, see `probing`).
- `executeCommandProvider` lists `tapelsp.probe` and `tapelsp.attach` for other editors,
  unless the client's initializationOptions say `"serverCommands": false`: VS Code's
  language client registers every advertised command as a VS Code command, and the
  extension has its own `tapelsp.probe` (registering the name twice fails).
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from .probing import CAPABILITY


def probe_capabilities(params: types.InitializeParams, capabilities: types.ServerCapabilities) -> None:
    options: Any = params.initialization_options
    if isinstance(options, dict) and isinstance(options.get("tapelsp"), dict):
        options = options["tapelsp"]
    experimental = capabilities.experimental if isinstance(capabilities.experimental, dict) else {}
    capabilities.experimental = {**experimental, CAPABILITY: True}
    if isinstance(options, dict) and options.get("serverCommands") is False:
        capabilities.execute_command_provider = None
