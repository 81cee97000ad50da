"""Shared by the server extension's tests: requests to the endpoints, and applying a fix's
edits (UTF-16 ranges) to cell texts the way a JavaScript frontend would."""

from __future__ import annotations

import json
from typing import Any

from tornado.httpclient import HTTPClientError


def code(source: str, cell_id: str) -> dict[str, str]:
    return {"id": cell_id, "cell_type": "code", "source": source}


def markdown(source: str, cell_id: str) -> dict[str, str]:
    return {"id": cell_id, "cell_type": "markdown", "source": source}


async def post(jp_fetch, endpoint: str, body: Any, **kwargs) -> tuple[int, dict]:
    """(status, JSON answer) of a POST, errors included."""
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    try:
        response = await jp_fetch("tapelsp", endpoint, method="POST", body=data, **kwargs)
    except HTTPClientError as error:
        text = error.response.body if error.response is not None else b"{}"
        return error.code, json.loads(text or b"{}")
    return response.code, json.loads(response.body)


def offset(text: str, line: int, character: int) -> int:
    """The string index of a (line, UTF-16 character) position in `text` (lines end at \\n)."""
    lines = text.split("\n")
    start = sum(len(lines[i]) + 1 for i in range(line))
    units = 0
    for index, char in enumerate(lines[line]):
        if units >= character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    assert units == character, (line, character, lines[line])
    return start + len(lines[line])


def apply_fix(sources: dict[str, str], fix: dict) -> dict[str, str]:
    """The cell texts with the fix's edits applied (each cell's edits from the end backwards)."""
    out = dict(sources)
    for cell_id in {edit["cell_id"] for edit in fix["edits"]}:
        edits = [edit for edit in fix["edits"] if edit["cell_id"] == cell_id]
        text = out[cell_id]
        spans = sorted(((offset(text, e["range"]["start"]["line"], e["range"]["start"]["character"]),
                         offset(text, e["range"]["end"]["line"], e["range"]["end"]["character"]),
                         e["new_text"]) for e in edits), reverse=True)
        for begin, end, new in spans:
            assert begin <= end
            text = text[:begin] + new + text[end:]
        out[cell_id] = text
    return out
