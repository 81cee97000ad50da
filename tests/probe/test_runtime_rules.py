"""Every example of every runtime-only rule (RT codes), run under the probe's script runner.

An invalid example must be flagged for its rule at exactly its documented lines by the merge
of the static findings with what the run recorded; a valid one must not be. All examples run
in a TensorFlow process of its own (TensorFlow's retracing detector is process-wide), as
`__main__` from a file of its own, two at a time.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tapelsp import Settings, check_source
from tapelsp.probe.merge import merge
from tapelsp.probe.report import ProbeReport
from tapelsp.probe.runtime_findings import outcome_finding
from tapelsp.probe.source_map import SourceMap
from tapelsp.rules import all_rules

SERVER = Path(__file__).resolve().parents[2] / "server"
RUNTIME_RULES = [rule for rule in all_rules() if getattr(rule, "runtime_only", False)]
CASES = []
for _rule in RUNTIME_RULES:
    _counts = {"valid": 0, "invalid": 0}
    for _example in _rule.examples:
        _kind = "valid" if _example.valid else "invalid"
        _counts[_kind] += 1
        CASES.append((f"{_rule.code}-{_kind}-{_counts[_kind]}", _rule, _example))

RUN_ONE = '''
import json, sys
from tapelsp.probe import kernel_query, script
stopped = None
try:
    script.run_file(sys.argv[2], {})
except BaseException as error:
    stopped = f"{type(error).__name__}: {error}".splitlines()[0]
report = kernel_query.collect({})
report["stopped"] = stopped
open(sys.argv[1], "w").write(json.dumps(report, default=str))
'''


def test_runtime_rules_exist():
    assert {rule.code for rule in RUNTIME_RULES} >= {"RT001", "RT002", "RT003", "RT004", "RT005", "RT006"}


@pytest.fixture(scope="module")
def recorded(kernel_python, tmp_path_factory):
    directory = tmp_path_factory.mktemp("rt-examples")
    paths = {}
    for case_id, _rule, example in CASES:
        path = directory / f"{case_id.replace('-', '_').lower()}.py"
        path.write_text(example.source, encoding="utf-8")
        paths[case_id] = path
    env = dict(os.environ, PYTHONPATH=str(SERVER))

    def run(case_id: str):
        out = directory / f"{case_id}.json"
        subprocess.run([kernel_python, "-c", RUN_ONE, str(out), str(paths[case_id])], env=env,
                       capture_output=True, text=True, timeout=600, check=True)
        data = json.loads(out.read_text(encoding="utf-8"))
        return case_id, (ProbeReport.from_json(data), data["stopped"])

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(pool.map(run, paths))
    return paths, results


@pytest.mark.parametrize(("case_id", "rule", "example"), CASES, ids=[c[0] for c in CASES])
def test_example_under_the_probe(case_id, rule, example, recorded):
    paths, results = recorded
    path = str(paths[case_id])
    report, stopped = results[case_id]
    unit = SourceMap(path, example.source, notebook=False)
    static = check_source(example.source, path, Settings())
    found = list(merge(static, report, unit).violations)
    if stopped is not None:
        stop_line = next((unit.unit_line(e.place) for e in report.events
                          if e.place is not None and unit.unit_line(e.place) is not None
                          and e.kind == "exception"), None)
        finding = outcome_finding(f"the program raised {stopped}", stop_line, None, unit, Settings())
        if finding is not None and not any(v.range.start.line == finding.range.start.line for v in found):
            found.append(finding)
    flagged = sorted(v.range.start.line + 1 for v in found if v.code == rule.code)
    described = "\n".join(f"  {v.code} line {v.range.start.line + 1}: {v.message}" for v in found)
    assert flagged == sorted(example.lines), f"{case_id}: flagged {flagged}\n{described}"
    for violation in found:
        if violation.code == rule.code:
            assert violation.evidence is not None and violation.evidence.verdict == "runtime"
