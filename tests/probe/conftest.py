"""The probe's tests run real kernels (jupyter_client + ipykernel) and real TensorFlow.

Missing TensorFlow, jupyter_client or ipykernel skips them, or fails them when
TAPELSP_REQUIRE_TENSORFLOW=1 (as `scripts/test` sets): the proofs must run there.
Every kernel a test starts is ended by the test (the probe's own `KernelProcess`
context, or a `finally` around the test's KernelManager).
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

REQUIRE = "TAPELSP_REQUIRE_TENSORFLOW"


def _missing() -> list[str]:
    return [name for name in ("tensorflow", "jupyter_client", "ipykernel") if importlib.util.find_spec(name) is None]


@pytest.fixture(scope="session")
def kernel_python() -> str:
    """The interpreter the probe's kernels run: this one, which has TensorFlow and ipykernel."""
    missing = _missing()
    if missing:
        message = f"{', '.join(missing)} not installed for {sys.executable}; `scripts/test` installs them"
        if os.environ.get(REQUIRE, "") not in ("", "0"):
            pytest.fail(f"{message} and {REQUIRE} is set", pytrace=False)
        pytest.skip(message)
    return sys.executable
