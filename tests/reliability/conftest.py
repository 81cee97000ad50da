"""Hypothesis profiles for the reliability tests.

`ci` (the default): derandomized, so a CI run is reproducible, with modest example counts so
the fuzz tests take seconds. `dev`: random, more examples. Choose with HYPOTHESIS_PROFILE.
The long runs are in bench/fuzz.py.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                      HealthCheck.filter_too_much])
settings.register_profile("ci", max_examples=25, derandomize=True, database=None, print_blob=True, **_COMMON)
settings.register_profile("dev", max_examples=200, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The engine raises the recursion limit once (engine._ensure_recursion_headroom); doing it
# before hypothesis runs keeps hypothesis from warning that it changed during a test.
from tapelsp.engine import _ensure_recursion_headroom  # noqa: E402

_ensure_recursion_headroom()


# The probe tests need real kernels: the same fixture as tests/probe (skips, or fails under
# TAPELSP_REQUIRE_TENSORFLOW=1, when jupyter_client/ipykernel/tensorflow are missing).
from probe.conftest import kernel_python  # noqa: E402,F401
