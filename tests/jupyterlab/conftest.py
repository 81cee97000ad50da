"""Fixtures for the JupyterLab server extension's tests: pytest-jupyter's server fixtures
(`jp_fetch`, `jp_serverapp`, `jp_root_dir` ...), scoped to this folder, and a server with the
extension enabled.

`scripts/test` installs what these tests need: `pip install ./client/jupyterlab` (the server
extension, as a user installs it), `jupyterlab` and `pytest-jupyter[server]`.
"""

from __future__ import annotations

import importlib.util

_missing = [name for name in ("pytest_jupyter", "jupyter_server", "tapelsp_jupyterlab")
            if importlib.util.find_spec(name) is None]
if _missing:
    raise ImportError(f"{', '.join(_missing)} not installed: `pip install ./client/jupyterlab "
                      "'pytest-jupyter[server]' 'jupyterlab==4.6.*'` (scripts/test does)")

import pytest  # noqa: E402

# The plugin's fixtures and hooks, for this folder only (its autouse fixtures and its
# collection hook for `async def` tests must not reach the rest of the suite).
from pytest_jupyter.jupyter_server import *  # noqa: E402,F401,F403


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"tapelsp_jupyterlab": True}}}


@pytest.fixture(scope="session")
def kernel_python() -> str:
    """The interpreter of the kernels the probe tests start (the native `python3` kernel): this
    one, which must have TensorFlow. Missing, it skips, or fails under TAPELSP_REQUIRE_TENSORFLOW=1."""
    import os
    import sys

    if importlib.util.find_spec("tensorflow") is None:
        message = f"tensorflow not installed for {sys.executable}; `scripts/test` installs it"
        if os.environ.get("TAPELSP_REQUIRE_TENSORFLOW", "") not in ("", "0"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return sys.executable
