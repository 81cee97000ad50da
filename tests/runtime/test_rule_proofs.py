"""Every rule example with a Proof, run under real TensorFlow: TensorFlow decides.

An invalid example must show its documented symptom (the exception and message fragment of
`Proof.raises`, and/or a passing `Proof.check`); a valid example must run clean and its
check must pass. Examples written for another TensorFlow version are skipped.
"""

from __future__ import annotations

import pytest

from .harness import Job, Result, proven_examples, version_matches

pytestmark = pytest.mark.tensorflow

PROVEN = proven_examples()

# Proofs that TensorFlow contradicts, waiting for their rule's owner (strict: an XPASS fails,
# so the entry goes as soon as the example is fixed).
KNOWN_WRONG: dict[str, str] = {}


def _param(case_id: str, example, job: Job):
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[case_id])] if case_id in KNOWN_WRONG else []
    return pytest.param(example, job, id=case_id, marks=marks)


def assert_proven(result: Result | None, job: Job) -> None:
    """Fail the test with the harness's full report unless the example behaved as its Proof says."""
    if result is None:
        pytest.fail(f"{job.id}: the harness returned no result for this example", pytrace=False)
    if not result.ok:
        pytest.fail(result.report(job), pytrace=False)


@pytest.mark.parametrize(("example", "job"), [_param(*case) for case in PROVEN])
def test_example_under_tensorflow(example, job: Job, tensorflow_version: str,
                                  request: pytest.FixtureRequest) -> None:
    wanted = example.tensorflow_version
    if wanted and not version_matches(wanted, tensorflow_version):
        pytest.skip(f"written for TensorFlow {wanted}; TensorFlow {tensorflow_version} is installed")
    results = request.getfixturevalue("proof_results")
    assert_proven(results.get(job.id), job)


def test_known_wrong_entries_exist() -> None:
    """A stale KNOWN_WRONG entry (the example was renumbered or removed) must not linger."""
    assert set(KNOWN_WRONG) <= {case_id for case_id, _example, _job in PROVEN}


def test_some_examples_are_proven() -> None:
    """The harness has something to run (an empty catalogue of proofs would pass vacuously)."""
    kinds = {job.kind for _id, _example, job in PROVEN}
    assert kinds == {"valid", "invalid"}, kinds
