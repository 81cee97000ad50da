"""REST handlers: `POST /tapelsp/check`, `POST /tapelsp/probe`, `GET /tapelsp/rules/<CODE>`.

They read the request, call the engine (`tapelsp.notebook_api`, `tapelsp.docs`) off the event
loop, and write its answer: no analysis of their own. Every endpoint is authenticated like the
rest of Jupyter's API (token or cookie, XSRF for POST from browsers).
"""

from __future__ import annotations

import asyncio
import functools
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from .paths import PathError, notebook_os_path

# The engine is CPU-bound: a small pool keeps a big notebook from blocking Jupyter's loop.
_EXECUTOR = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tapelsp")


async def off_loop(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(_EXECUTOR, functools.partial(function, *args, **kwargs))


def _version() -> str:
    from tapelsp import __version__

    return __version__


class Failure(tornado.web.HTTPError):
    """An error answer `{"message": ...}` with this status (the text may contain `%`)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status, "%s", message)
        self.message = message


class _TapelspHandler(APIHandler):
    def write_error(self, status_code: int, **kwargs: Any) -> None:
        error = (kwargs.get("exc_info") or (None, None))[1]
        if isinstance(error, Failure):
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({"message": error.message, "reason": error.reason}))
            return
        super().write_error(status_code, **kwargs)

    def body(self) -> dict[str, Any]:
        """The JSON object of the request; 400 when it is not one."""
        try:
            data = json.loads(self.request.body or b"null")
        except (ValueError, UnicodeDecodeError) as error:
            raise Failure(400, f"the request body is not JSON: {error}") from None
        if not isinstance(data, dict):
            raise Failure(400, "the request body must be a JSON object")
        return data

    def cells_and_path(self, data: dict[str, Any]) -> tuple[list, str | None]:
        from tapelsp.notebook_api import RequestError, parse_cells

        if "cells" not in data:
            raise Failure(400, "the request needs `cells`")
        try:
            cells = parse_cells(data["cells"])
            path = notebook_os_path(self.contents_manager, data.get("path"))
        except (RequestError, PathError) as error:
            raise Failure(400, str(error)) from None
        return cells, path


def check_answer(cells: list, path: str | None) -> dict[str, Any]:
    from tapelsp.notebook_api import check_cells, findings_json, settings_for

    settings, problem = settings_for(path)
    answer: dict[str, Any] = {"version": _version(), "findings": findings_json(check_cells(cells, path, settings), cells)}
    if problem:
        answer["problems"] = [problem]
    return answer


def probe_answer(cells: list, path: str | None, connection_file: str) -> dict[str, Any]:
    from tapelsp.notebook_api import probe_cells, settings_for

    settings, problem = settings_for(path)
    probed = probe_cells(cells, connection_file, path, settings)
    answer: dict[str, Any] = {"version": _version(), "findings": probed.findings, "runtime": probed.runtime,
                              "message": probed.message}
    if problem:
        answer["problems"] = [problem]
    return answer


class CheckHandler(_TapelspHandler):
    @tornado.web.authenticated
    async def post(self) -> None:
        cells, path = self.cells_and_path(self.body())
        self.finish(json.dumps(await off_loop(check_answer, cells, path)))


class ProbeHandler(_TapelspHandler):
    @tornado.web.authenticated
    async def post(self) -> None:
        from tapelsp.notebook_api import NotProbed
        from tapelsp.probe.kernel import ProbeError

        data = self.body()
        kernel_id = data.get("kernel_id")
        if not isinstance(kernel_id, str) or not kernel_id:
            raise Failure(400, "the request needs `kernel_id`, the id of a running kernel")
        cells, path = self.cells_and_path(data)
        if kernel_id not in self.kernel_manager:
            raise Failure(404, f"no running kernel with id {kernel_id!r}")
        connection_file = self.kernel_manager.get_kernel(kernel_id).connection_file
        try:
            answer = await off_loop(probe_answer, cells, path, connection_file)
        except (NotProbed, ProbeError) as error:
            raise Failure(409, str(error)) from None
        self.finish(json.dumps(answer))


class RuleHandler(_TapelspHandler):
    @tornado.web.authenticated
    async def get(self, code: str) -> None:
        from tapelsp.docs import explain
        from tapelsp.rules import rule_by_code

        rule = rule_by_code(code.upper())
        if rule is None:
            raise Failure(404, f"no tapelsp rule {code!r}")
        self.finish(json.dumps({"code": rule.code, "title": rule.name, "summary": rule.summary,
                                "severity": rule.severity.label, "markdown": explain(rule.code),
                                "doc_url": rule.url()}))


def setup_handlers(web_app) -> None:
    base = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [
        (url_path_join(base, "tapelsp", "check"), CheckHandler),
        (url_path_join(base, "tapelsp", "probe"), ProbeHandler),
        (url_path_join(base, "tapelsp", "rules", r"([A-Za-z0-9]+)"), RuleHandler),
    ])
