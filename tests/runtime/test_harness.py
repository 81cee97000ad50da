"""The harness itself: a wrong Proof, a crash or a hang must be reported as a failure.

These jobs run in the same harness session as the rules' examples (see selftest.py).
"""

from __future__ import annotations

import pytest

from . import selftest
from tapelsp.rules import all_rules

from .harness import Result, proven_examples, version_matches, version_parts
from .test_rule_proofs import assert_proven

pytestmark = pytest.mark.tensorflow

PASSING = ["right-check", "right-raises", "right-raises-base-class", "clean-valid", "leak-a", "leak-b",
           "eager", "captured-output", "after-soft-timeout", "isolated-graph-mode", "after-crash",
           "after-run-functions-eagerly", "after-graph-mode", "main-guard-runs"]

# job -> fragments the failure report must contain
FAILING = {
    "wrong-check": ["the proof check failed", "AssertionError: expected a gradient", "<proof check selftest-wrong-check>"],
    "wrong-exception-type": ["expected the example to raise RuntimeError", "it raised ValueError", SINGLETON := selftest.SINGLETON],
    "wrong-exception-message": ["a message TensorFlow never prints", "it raised ValueError", SINGLETON],
    "expected-raise-missing": ["ran without raising"],
    "valid-that-raises": ["the example raised InvalidArgumentError", "Incompatible shapes",
                          "<example selftest-valid-that-raises>"],
    "valid-expecting-exception": ["a valid example must run clean"],
    "invalid-asserting-nothing": ["asserts nothing"],
    "check-that-errors": ["the proof check raised", "AttributeError", "no_such_function"],
    "check-after-expected-raise": ["the check still runs after the raise"],
    "leaks-run-functions-eagerly": ["changed global TensorFlow state (functions_run_eagerly=True)",
                                    "Proof(isolated=True)"],
    "leaks-graph-mode": ["changed global TensorFlow state (executing_eagerly=False", "Proof(isolated=True)"],
}


def result(results: dict, name: str) -> Result:
    found = results.get(f"selftest-{name}")
    assert found is not None, f"no result for selftest-{name}; got {sorted(results)}"
    return found


@pytest.mark.parametrize("name", PASSING)
def test_right_proofs_pass(proof_results: dict, name: str) -> None:
    outcome = result(proof_results, name)
    assert outcome.ok, outcome.report(selftest.BY_ID[f"selftest-{name}"])


@pytest.mark.parametrize("name", sorted(FAILING))
def test_wrong_proofs_fail(proof_results: dict, name: str) -> None:
    outcome = result(proof_results, name)
    job = selftest.BY_ID[f"selftest-{name}"]
    assert outcome.status == "failed", outcome.report(job)
    report = outcome.report(job)
    for fragment in FAILING[name]:
        assert fragment in report, f"{fragment!r} missing from the report:\n{report}"
    # ... and the test that would run it fails, with that report as its message.
    with pytest.raises(pytest.fail.Exception) as failure:
        assert_proven(outcome, job)
    assert str(failure.value) == report


def test_failure_report_shows_the_example_and_its_traceback(proof_results: dict) -> None:
    job = selftest.BY_ID["selftest-valid-that-raises"]
    report = result(proof_results, "valid-that-raises").report(job)
    assert "   2 | z = tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])" in report
    assert "Traceback (most recent call last)" in report
    # the traceback quotes the example's own line
    assert report.count("z = tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])") >= 2, report


def test_a_mutated_catalogue_proof_fails(proof_results: dict) -> None:
    mutated = [r for key, r in proof_results.items() if key.startswith("selftest-mutated-")]
    if not mutated:
        pytest.skip("no rule example has Proof(raises=...) to mutate")
    for outcome in mutated:
        assert outcome.status == "failed" and "[mutated: not in TensorFlow's message]" in outcome.report(), \
            outcome.report()


def test_examples_share_one_tensorflow_process(proof_results: dict) -> None:
    isolated_ids = {job.id for _id, _example, job in proven_examples() if job.isolated}
    shared = {r.pid for key, r in proof_results.items()
              if r.pid is not None and key.startswith(tuple(f"{rule.code}-" for rule in all_rules()))
              and key not in isolated_ids}
    shared |= {result(proof_results, name).pid for name in ("leak-a", "leak-b", "right-check", "after-soft-timeout")}
    assert len(shared) == 1, f"shared examples ran in {len(shared)} processes: {shared}"
    isolated = [result(proof_results, "isolated-graph-mode").pid]
    isolated += [proof_results[key].pid for key in isolated_ids if key in proof_results]
    assert None not in isolated and not set(isolated) & shared
    assert len(set(isolated)) == len(isolated), "each isolated example in a process of its own"


def test_soft_timeout_is_reported_and_the_worker_goes_on(proof_results: dict) -> None:
    outcome = result(proof_results, "soft-timeout")
    assert outcome.status == "timeout", outcome.report()
    assert "timed out after 1.0 s" in outcome.report()
    assert "JobTimeout" in outcome.example_error["traceback"]
    assert result(proof_results, "after-soft-timeout").pid == outcome.pid


def test_hard_timeout_kills_the_worker(proof_results: dict) -> None:
    outcome = result(proof_results, "hard-timeout")
    assert outcome.status == "timeout", outcome.report()
    assert "killed after its time ran out on selftest-hard-timeout" in outcome.report()


def test_global_state_is_restored_or_the_worker_replaced(proof_results: dict) -> None:
    same = result(proof_results, "leaks-run-functions-eagerly").pid
    assert result(proof_results, "after-run-functions-eagerly").pid == same, "restored in place"
    graph = result(proof_results, "leaks-graph-mode").pid
    assert result(proof_results, "after-graph-mode").pid != graph, "eager mode cannot come back: a new worker"


def test_crash_is_reported_and_later_jobs_run_in_a_new_worker(proof_results: dict) -> None:
    crashed = result(proof_results, "crash")
    assert crashed.status == "crashed", crashed.report()
    assert "exited with code 7" in crashed.report()
    assert result(proof_results, "after-crash").ok


@pytest.mark.parametrize(("wanted", "installed", "expected"), [
    ("2.21", "2.21.0", True), ("2.21", "2.21.3rc1", True), ("2", "2.21.0", True),
    ("2.6", "2.21.0", False), ("2.0", "2.21.0", False), ("2.2", "2.21.0", False),
    ("1.15", "2.21.0", False), ("2.21.1", "2.21.0", False), ("nonsense", "2.21.0", False),
])
def test_version_matching(wanted: str, installed: str, expected: bool) -> None:
    assert version_matches(wanted, installed) is expected
    assert version_parts("2.21.0") == (2, 21, 0)
