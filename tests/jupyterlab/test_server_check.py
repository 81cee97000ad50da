"""POST /tapelsp/check and GET /tapelsp/rules through a real Jupyter server (pytest-jupyter)."""

from __future__ import annotations

import ast
import json
import threading

from jupyterlab_helpers import apply_fix, code, markdown, post
from tornado.httpclient import HTTPClientError

import pytest

TAPE001_CELL = ("x = tf.Variable(1.0)\n"
                "with tf.GradientTape() as tape:\n"
                "    with tf.GradientTape() as tape:\n"
                "        y = x * x\n"
                "    z = tape.gradient(y, x)\n"
                "g = tape.gradient(z, x)\n")
FUNC001_CELL = ("@tf.function\n"
                "def step(x):\n"
                "    v = tf.Variable(1.0)\n"
                "    return v * x\n")
MAP002_CELL = "ys = tf.map_fn(lambda t: t * 2.0, tf.constant([1.0, 2.0]))\n"

SEEDED = [
    markdown("# Seeded bugs\nWith `tf.map_fn(lambda t: t, x)` in prose, which is not code.", "md-1"),
    code("import tensorflow as tf", "imports"),
    code(TAPE001_CELL, "tape"),
    markdown("More prose", "md-2"),
    code(FUNC001_CELL, "func"),
    {"id": "raw", "cell_type": "raw", "source": "tf.map_fn(lambda t: t * 2.0, xs)"},
    code(MAP002_CELL, "map"),
]


def codes_by_cell(answer: dict) -> list[tuple[int, str, str]]:
    return [(f["cell_index"], f["cell_id"], f["code"]) for f in answer["findings"]]


async def test_seeded_bugs_are_found_in_their_cells(jp_fetch):
    status, answer = await post(jp_fetch, "check", {"path": None, "cells": SEEDED})
    assert status == 200, answer
    from tapelsp import __version__
    assert answer["version"] == __version__
    found = codes_by_cell(answer)
    assert (2, "tape", "TAPE001") in found
    assert (4, "func", "FUNC001") in found
    assert (6, "map", "MAP002") in found
    # markdown and raw cells are skipped; indexes count every cell of the request
    assert not [f for f in answer["findings"] if f["cell_id"] in ("md-1", "md-2", "raw")]
    [tape] = [f for f in answer["findings"] if f["code"] == "TAPE001"]
    assert tape["range"] == {"start": {"line": 2, "character": 9}, "end": {"line": 2, "character": 34}}
    assert tape["severity"] == "error" and tape["doc_url"].endswith("#tape001-shadowed-outer-tape")
    assert tape["runtime"] is None
    assert {r["cell_id"] for r in tape["related"]} == {"tape"}
    assert [r["range"]["start"]["line"] for r in tape["related"]] == [1, 5]
    [func] = [f for f in answer["findings"] if f["code"] == "FUNC001"]
    assert func["range"]["start"] == {"line": 2, "character": 8}
    keys = [(f["cell_index"], f["range"]["start"]["line"], f["range"]["start"]["character"])
            for f in answer["findings"]]
    assert keys == sorted(keys)


async def test_names_cross_cells_like_one_program(jp_fetch):
    cells = [code("import tensorflow as T", "a"), markdown("x", "b"),
             code("ys = T.map_fn(lambda x: x * 2.0, T.constant([1.0]))", "c")]
    status, answer = await post(jp_fetch, "check", {"cells": cells})
    assert status == 200 and codes_by_cell(answer) == [(2, "c", "MAP002")]
    # without the cell that imports TensorFlow as T, nothing says T is TensorFlow
    status, answer = await post(jp_fetch, "check", {"cells": cells[1:]})
    assert status == 200 and answer["findings"] == []


async def test_columns_are_utf16_code_units_after_a_non_bmp_character(jp_fetch):
    line = 's = "😀😀"; ys = tf.map_fn(lambda t: t * 2.0, tf.constant([1.0, 2.0]))'
    cells = [code("import tensorflow as tf", "a"), code(line, "b")]
    status, answer = await post(jp_fetch, "check", {"cells": cells})
    [found] = answer["findings"]
    # each emoji is one code point but two UTF-16 code units
    assert found["range"]["start"] == {"line": 0, "character": line.index("tf.map_fn") + 2}
    assert found["range"]["end"] == {"line": 0, "character": len(line) + 2}
    assert found["fix"]["edits"][0]["range"] == found["range"]


async def test_fix_edits_applied_to_the_cells_leave_parseable_code_without_the_finding(jp_fetch):
    cells = [code("import tensorflow as tf  # 😀", "imports"), code("# 😀 " + TAPE001_CELL, "tape"),
             code(FUNC001_CELL, "func"), code('s = "😀"; ' + MAP002_CELL, "map")]
    status, answer = await post(jp_fetch, "check", {"cells": cells})
    fixed_codes = []
    for finding in answer["findings"]:
        if finding["fix"] is None:
            continue
        assert {edit["cell_id"] for edit in finding["fix"]["edits"]} == {finding["cell_id"]}
        sources = apply_fix({c["id"]: c["source"] for c in cells}, finding["fix"])
        assert sources != {c["id"]: c["source"] for c in cells}
        for text in sources.values():
            ast.parse(text)
        again = [dict(c, source=sources[c["id"]]) for c in cells]
        status, after = await post(jp_fetch, "check", {"cells": again})
        assert status == 200
        assert (finding["cell_id"], finding["code"]) not in [(f["cell_id"], f["code"]) for f in after["findings"]]
        fixed_codes.append(finding["code"])
    assert {"TAPE001", "FUNC001", "MAP002"} <= set(fixed_codes)


async def test_a_cell_that_does_not_parse_is_a_TL001_finding(jp_fetch):
    cells = [code("import tensorflow as tf", "a"), code("def f(:\n    pass", "broken"),
             code("%%bash\necho hi", "magic"), code(MAP002_CELL, "map")]
    status, answer = await post(jp_fetch, "check", {"cells": cells})
    assert status == 200
    assert codes_by_cell(answer) == [(1, "broken", "TL001"), (3, "map", "MAP002")]


async def test_settings_come_from_the_pyproject_above_the_notebook(jp_fetch, jp_root_dir):
    (jp_root_dir / "project").mkdir()
    (jp_root_dir / "project" / "pyproject.toml").write_text('[tool.tapelsp]\nignore = ["MAP002"]\n')
    cells = [code("import tensorflow as tf", "a"), code(FUNC001_CELL, "func"), code(MAP002_CELL, "map")]
    status, answer = await post(jp_fetch, "check", {"path": "project/nb.ipynb", "cells": cells})
    assert status == 200 and [f["code"] for f in answer["findings"]] == ["FUNC001"]
    status, answer = await post(jp_fetch, "check", {"path": "elsewhere/nb.ipynb", "cells": cells})
    assert status == 200 and [f["code"] for f in answer["findings"]] == ["FUNC001", "MAP002"]



async def test_a_broken_configuration_is_reported_and_defaults_apply(jp_fetch, jp_root_dir):
    (jp_root_dir / "broken").mkdir()
    (jp_root_dir / "broken" / "pyproject.toml").write_text('[tool.tapelsp]\nselect = 3\n')
    cells = [code("import tensorflow as tf", "a"), code(MAP002_CELL, "map")]
    status, answer = await post(jp_fetch, "check", {"path": "broken/nb.ipynb", "cells": cells})
    assert status == 200 and [f["code"] for f in answer["findings"]] == ["MAP002"]
    [problem] = answer["problems"]
    assert "pyproject.toml" in problem and "select" in problem
    status, answer = await post(jp_fetch, "check", {"path": None, "cells": cells})
    assert "problems" not in answer


@pytest.mark.parametrize("body, words", [
    ("{not json", "not JSON"),
    ([1, 2], "JSON object"),
    ({"path": None}, "`cells`"),
    ({"cells": "import tensorflow"}, "list"),
    ({"cells": [{"cell_type": "code", "source": "x"}]}, "`id`"),
    ({"cells": [code("x", "a"), code("y", "a")]}, "used by another cell"),
    ({"cells": [{"id": "a", "cell_type": "python", "source": "x"}]}, "`cell_type`"),
    ({"cells": [{"id": "a", "cell_type": "code", "source": 3}]}, "`source`"),
    ({"cells": [], "path": 7}, "`path`"),
    ({"cells": [], "path": "../../etc/nb.ipynb"}, "outside"),
])
async def test_bad_input_is_a_400_with_a_message(jp_fetch, body, words):
    status, answer = await post(jp_fetch, "check", body)
    assert status == 400 and words in answer["message"], answer


async def test_unauthenticated_requests_are_rejected(jp_fetch):
    body = json.dumps({"cells": [code(MAP002_CELL, "a")]})
    for headers in ({"Authorization": "token wrong"}, {"Authorization": ""}):
        with pytest.raises(HTTPClientError) as error:
            await jp_fetch("tapelsp", "check", method="POST", body=body, headers=headers)
        assert error.value.code in (401, 403)
        with pytest.raises(HTTPClientError) as error:
            await jp_fetch("tapelsp", "rules", "TAPE001", headers=headers)
        assert error.value.code in (401, 403)


async def test_the_engine_runs_off_the_event_loop(jp_fetch, monkeypatch):
    import tapelsp_jupyterlab.handlers as handlers

    threads = []
    real = handlers.check_answer

    def spy(*args):
        threads.append(threading.current_thread())
        return real(*args)

    monkeypatch.setattr(handlers, "check_answer", spy)
    status, answer = await post(jp_fetch, "check", {"cells": [code("import tensorflow as tf\n" + MAP002_CELL, "a")]})
    assert status == 200 and [f["code"] for f in answer["findings"]] == ["MAP002"]
    assert threads and threads[0] is not threading.main_thread()
    assert threads[0].name.startswith("tapelsp")


async def test_a_big_notebook_does_not_block_the_server(jp_fetch, monkeypatch):
    # 140 cells with 80 findings and their fixes: seconds of work. While it runs, the server
    # still answers other requests (an engine on the event loop would answer them after it).
    import asyncio

    import tapelsp_jupyterlab.handlers as handlers

    started = threading.Event()
    real = handlers.check_answer

    def check_answer(*args):
        started.set()
        return real(*args)

    monkeypatch.setattr(handlers, "check_answer", check_answer)
    cells = [dict(cell, id=f"{cell['id']}-{copy}") for copy in range(20) for cell in SEEDED]
    check = asyncio.ensure_future(post(jp_fetch, "check", {"cells": cells}, request_timeout=600))
    while not started.is_set():
        await asyncio.sleep(0.01)
    assert (await jp_fetch("api", "status")).code == 200
    assert not check.done(), "the server answered /api/status only after the check"
    status, answer = await check
    assert status == 200 and len(answer["findings"]) == 80


async def test_rules_endpoint(jp_fetch):
    response = await jp_fetch("tapelsp", "rules", "TAPE001")
    rule = json.loads(response.body)
    assert rule["code"] == "TAPE001" and rule["title"] == "shadowed-outer-tape" and rule["severity"] == "error"
    assert rule["markdown"].startswith("# TAPE001 (shadowed-outer-tape)")
    response = await jp_fetch("tapelsp", "rules", "map002")
    assert json.loads(response.body)["code"] == "MAP002"
    with pytest.raises(HTTPClientError) as error:
        await jp_fetch("tapelsp", "rules", "NOPE999")
    assert error.value.code == 404 and "NOPE999" in json.loads(error.value.response.body)["message"]
