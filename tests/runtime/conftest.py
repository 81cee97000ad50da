"""Runtime proofs: one harness run per session, shared by every test in tests/runtime."""

from __future__ import annotations

import os
import sys

import pytest

from . import selftest
from .harness import installed_tensorflow, proven_examples, run_jobs, version_matches

REQUIRE = "TAPELSP_REQUIRE_TENSORFLOW"


@pytest.fixture(scope="session")
def tensorflow_version() -> str:
    """The installed TensorFlow (package metadata); skip, or fail under TAPELSP_REQUIRE_TENSORFLOW=1."""
    version = installed_tensorflow()
    if version is None:
        message = (f"TensorFlow is not installed for {sys.executable}; "
                   "`scripts/test` installs it (pip install -e '.[test]')")
        if os.environ.get(REQUIRE, "") not in ("", "0"):
            pytest.fail(f"{message} and {REQUIRE} is set", pytrace=False)
        pytest.skip(message)
    return version


@pytest.fixture(scope="session")
def proof_results(request: pytest.FixtureRequest, tensorflow_version: str) -> dict:
    """The examples of the collected tests (and, when test_harness.py is collected, the
    self-test jobs), run once under real TensorFlow."""
    proven = proven_examples()
    items = request.session.items
    selected = {item.callspec.id for item in items
                if item.path.name == "test_rule_proofs.py" and hasattr(item, "callspec")}
    jobs = [job for case_id, example, job in proven
            if case_id in selected
            and (not example.tensorflow_version or version_matches(example.tensorflow_version, tensorflow_version))]
    collected = {item.path.name for item in items}
    if "test_harness.py" in collected:
        jobs += selftest.JOBS + selftest.mutated_catalogue_jobs(proven)
    if "test_known_bug_symptoms.py" in collected:
        from .test_known_bug_symptoms import JOBS as KNOWN_BUG_JOBS

        jobs += KNOWN_BUG_JOBS
    return run_jobs(jobs)
