"""Every fix example, proven by TensorFlow: the original shows its symptom, the fixed source does not.

For each invalid example of a fixable rule that can run here, two jobs run under real
TensorFlow: the original with its `proof` (it must show the documented symptom: the
ValueError, the None gradient, the RuntimeError) and the example's `fixed` source with its
`fixed_proof` (it must run clean and its check must pass: the gradient is there and equal to
the reference, the variable keeps its state across calls). That `fixed` is exactly what the
fix produces is checked by tests/fixes/test_fix_examples.py.
"""

from __future__ import annotations

import inspect

import pytest

from .harness import Job, example_ids, installed_tensorflow, run_jobs, version_matches

pytestmark = pytest.mark.tensorflow


def _runnable(proof) -> bool:
    return proof is not None and bool(proof.check.strip() or proof.raises)


def _cases() -> list[tuple[str, object, Job, Job]]:
    from tapelsp.rules import all_rules

    cases = []
    for rule in all_rules():
        if not rule.fixable:
            continue
        for case_id, example in example_ids(rule):
            if example.valid or example.fixed is None or not _runnable(example.proof):
                continue
            if example.fixed == example.source:
                continue  # the rule offers no fix for this example (rules/tape/_fixes.unfixed)
            proof, cure = example.proof, example.fixed_proof
            original = Job(id=f"fix-{case_id}-original", kind="invalid", source=example.source,
                           check=inspect.cleandoc(proof.check) + "\n" if proof.check.strip() else "",
                           raises=tuple(proof.raises) if proof.raises else None, isolated=proof.isolated,
                           title=example.title, group="fix-proofs")
            fixed = Job(id=f"fix-{case_id}-fixed", kind="valid", source=example.fixed,
                        check=inspect.cleandoc(cure.check) + "\n" if cure is not None and cure.check.strip() else "",
                        isolated=bool(cure and cure.isolated), title=f"fixed: {example.title}", group="fix-proofs")
            cases.append((case_id, example, original, fixed))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def fix_results(tensorflow_version: str) -> dict:
    jobs = [job for _id, example, original, fixed in CASES
            if not example.tensorflow_version or version_matches(example.tensorflow_version, tensorflow_version)
            for job in (original, fixed)]
    return run_jobs(jobs)


def _skip_other_version(example, tensorflow_version: str) -> None:
    wanted = example.tensorflow_version
    if wanted and not version_matches(wanted, tensorflow_version):
        pytest.skip(f"written for TensorFlow {wanted}; TensorFlow {tensorflow_version} is installed")


def _assert(result, job: Job) -> None:
    if result is None:
        pytest.fail(f"{job.id}: the harness returned no result", pytrace=False)
    if not result.ok:
        pytest.fail(result.report(job), pytrace=False)


@pytest.mark.parametrize(("example", "original", "fixed"), [(e, o, f) for _i, e, o, f in CASES],
                         ids=[case_id for case_id, *_rest in CASES])
def test_fix_cures_the_symptom(example, original: Job, fixed: Job, tensorflow_version: str,
                               fix_results: dict) -> None:
    _skip_other_version(example, tensorflow_version)
    _assert(fix_results.get(original.id), original)
    _assert(fix_results.get(fixed.id), fixed)


def test_every_runnable_fix_example_proves_its_cure() -> None:
    """A fixed version needs a check of its own: running clean is not enough to show the cure."""
    missing = [case_id for case_id, example, _o, _f in CASES
               if example.fixed_proof is None or not example.fixed_proof.check.strip()]
    assert not missing, f"fix examples without fixed_proof=Proof(check=...): {missing}"


def test_there_are_fix_proofs() -> None:
    codes = {case_id.split("-")[0] for case_id, *_rest in CASES}
    assert {"FUNC001", "TAPE001"} <= codes, codes
    assert installed_tensorflow() is None or CASES
