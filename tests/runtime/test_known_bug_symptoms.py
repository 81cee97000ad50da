"""The rule bugs in tests/known_bugs.py are real: TensorFlow shows each one's symptom."""

from __future__ import annotations

import pytest

from known_bugs import KNOWN_BUGS

from .harness import Job
from .test_rule_proofs import assert_proven

pytestmark = pytest.mark.tensorflow


def bug_job(bug) -> Job:
    return Job(id=f"known-bug-{bug.id}", kind="invalid", source=bug.source, check=bug.check, raises=bug.raises)


JOBS = [bug_job(bug) for bug in KNOWN_BUGS]


@pytest.mark.parametrize("job", JOBS, ids=[bug.id for bug in KNOWN_BUGS])
def test_known_bug_symptom_under_tensorflow(job: Job, proof_results: dict) -> None:
    assert_proven(proof_results.get(job.id), job)
