"""`tapelsp/probe` (the VS Code extension's request) and `workspace/executeCommand`
`tapelsp.probe` / `tapelsp.attach` (for other editors): see `..probing`.

    tapelsp/probe            {"textDocument": {"uri": URI}, "timeout": SECONDS?, "workDoneToken"?}
    tapelsp.probe            arguments: [URI] or [{"uri": URI, "timeout": SECONDS?}]
    tapelsp.attach           arguments: [URI, CONNECTION_FILE]

Each answers with a summary object once the merged findings are published, or an error
(RequestFailed) saying why nothing was run. Cancelling the request stops the probe and
its kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..probing import ATTACH_COMMAND, PROBE_COMMAND, REQUEST, ProbeRefused

if TYPE_CHECKING:
    from ..server import TapeLanguageServer


def field(value: Any, name: str) -> Any:
    """`value[name]` for dicts and for the namedtuples pygls makes of unknown parameters."""
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


def register(server: "TapeLanguageServer") -> None:
    @server.feature(REQUEST)
    async def probe(ls: "TapeLanguageServer", params: Any) -> dict:
        uri = field(field(params, "textDocument"), "uri")
        if not isinstance(uri, str):
            raise ProbeRefused("tapelsp/probe needs {\"textDocument\": {\"uri\": ...}}")
        return await ls.session.probes.probe(uri, field(params, "timeout"), field(params, "workDoneToken"))

    @server.command(PROBE_COMMAND)
    async def probe_command(ls, *arguments):  # unannotated: pygls resolves command annotations
        first = arguments[0] if arguments else None
        uri = first if isinstance(first, str) else field(first, "uri")
        if not isinstance(uri, str):
            raise ProbeRefused(f"{PROBE_COMMAND} takes the URI of an open document or notebook")
        timeout = field(first, "timeout") if not isinstance(first, str) else None
        return await ls.session.probes.probe(uri, timeout)

    @server.command(ATTACH_COMMAND)
    async def attach_command(ls, *arguments):
        if len(arguments) < 2 or not all(isinstance(a, str) for a in arguments[:2]):
            raise ProbeRefused(f"{ATTACH_COMMAND} takes a document URI and a kernel connection file")
        return await ls.session.probes.attach(arguments[0], arguments[1])
