"""The tapelsp language server (pygls 2): `tapelsp` without `--check`, or `python -m tapelsp`.

Layout: `server` (the LanguageServer subclass holding a `session.Session`), `handlers/`
(one module per LSP area), `scheduler` + `pool` + `worker` (analysis in worker processes,
debounced, newest version wins), `documents`/`notebooks` (what the client has open),
`positions`/`convert`/`actions` (engine values to LSP values, at the edge only) and
`editor_settings` (editor settings merged with `[tool.tapelsp]` by the CLI's resolver).
"""

from __future__ import annotations

DEFAULT_HOST = "127.0.0.1"


def serve(tcp_port: int | None = None, host: str = DEFAULT_HOST) -> int:
    """Run the server until the client says `exit` (stdio, or TCP for debugging).

    `TAPELSP_WORKERS` in the environment sets the number of analysis worker processes
    (default 2)."""
    import os

    from .logs import configure
    from .server import TapeLanguageServer

    try:
        workers = max(1, int(os.environ.get("TAPELSP_WORKERS", "2")))
    except ValueError:
        workers = 2
    server = TapeLanguageServer(workers=workers)
    configure(server)
    if tcp_port is not None:
        server.start_tcp(host, tcp_port)
    else:
        server.start_io()
    # LSP: exit code 0 after `shutdown`, 1 when the client went away without it.
    return 0 if server.protocol._shutdown else 1
