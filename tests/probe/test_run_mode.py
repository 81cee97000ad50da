"""Run mode with real kernels and real TensorFlow: confirm, refute, add, and the versions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tapelsp import Settings
from tapelsp.probe.check import check_with_probe
from tapelsp.probe.run import FINISHED, RAISED

from . import programs

SERVER = Path(__file__).resolve().parents[2] / "server"
CLI_TIMEOUT = 600  # a safety net for a hung run, not an assertion

# Runs the CLI in a fresh interpreter that records every attempt to import TensorFlow (or the
# probe's user-process modules) in the tapelsp process itself.
TRIPWIRE_CLI = '''
import importlib.abc, json, sys
WATCHED = {"tensorflow", "keras", "tf_keras", "tensorflow_probability"}
USER_SIDE = {"tapelsp.probe.instrument", "tapelsp.probe.locate", "tapelsp.probe.recorder"}
attempted = []
class Tripwire(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in WATCHED or fullname in USER_SIDE:
            attempted.append(fullname)
        return None
sys.meta_path.insert(0, Tripwire())
sys.path.insert(0, sys.argv[1])
from tapelsp.cli.main import main
code = main(sys.argv[2:])
sys.stderr.write("TRIPWIRE " + json.dumps(sorted(set(attempted))) + "\\n")
sys.exit(code)
'''


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", TRIPWIRE_CLI, str(SERVER), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=CLI_TIMEOUT)


def tripwire(stderr: str) -> list[str]:
    line = next(line for line in stderr.splitlines() if line.startswith("TRIPWIRE "))
    return json.loads(line[len("TRIPWIRE "):])


@pytest.fixture(scope="module")
def seeds_json(kernel_python, tmp_path_factory):
    """`tapelsp --check --probe --output-format json` on the seed-like program, once."""
    directory = tmp_path_factory.mktemp("seeds")
    (directory / "seeds.py").write_text(programs.SEEDS, encoding="utf-8")
    done = run_cli(["--check", "--isolated", "--probe", "--python", kernel_python, "--probe-timeout", "300",
                    "--output-format", "json", "seeds.py"], directory)
    return done


def by_code(findings: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for finding in findings:
        out.setdefault(finding["code"], []).append(finding)
    return out


def test_cli_probe_confirms_tape001_and_func001_with_evidence(seeds_json):
    assert seeds_json.returncode == 1, seeds_json.stderr
    found = by_code(json.loads(seeds_json.stdout))
    tape = found["TAPE001"][0]
    assert tape["location"]["row"] == programs.SEEDS_LINES["TAPE001"]
    assert tape["evidence"]["confirmed"] is True
    assert "returned None" in tape["evidence"]["summary"] and "line 8" in tape["evidence"]["summary"]
    assert "[confirmed at runtime:" in tape["message"]
    func = found["FUNC001"][0]
    assert func["location"]["row"] == programs.SEEDS_LINES["FUNC001"]
    assert func["evidence"]["confirmed"] is True
    assert "tf.function only supports singleton tf.Variables" in func["evidence"]["summary"]


def test_cli_probe_records_the_retrace_count_and_the_values(seeds_json):
    found = by_code(json.loads(seeds_json.stdout))
    retrace = found["FUNC009"][0]
    assert retrace["location"]["row"] == programs.SEEDS_LINES["FUNC009"]
    assert retrace["evidence"]["confirmed"] is True
    assert "traced 6 times for 6 calls" in retrace["evidence"]["summary"]
    assert any(detail.startswith("epsilon: 1.0 -> 0.9") for detail in retrace["evidence"]["details"])


def test_cli_probe_says_what_happened_and_never_imports_tensorflow_itself(seeds_json):
    assert "probe: seeds.py: the program raised ValueError" in seeds_json.stderr
    assert "TensorFlow 2." in seeds_json.stderr
    # RT006 stays out: the confirmed FUNC001 on the same line already says why the run stopped.
    assert "RT006" not in {f["code"] for f in json.loads(seeds_json.stdout)}
    assert tripwire(seeds_json.stderr) == []


def test_map_fn_gradient_under_graph_mode_with_control_flow_v2_refutes_map001(kernel_python, tmp_path):
    path = tmp_path / "map_fn.py"
    path.write_text(programs.MAP_FN_CFV2, encoding="utf-8")
    checked = check_with_probe(str(path), Settings(), python=kernel_python, timeout=300)
    assert checked.run.outcome.status == FINISHED, checked.run.outcome.message
    assert checked.run.report.mode.executing_eagerly is False
    assert checked.run.report.mode.control_flow_v2 is True
    codes = [v.code for v in checked.result.violations]
    assert "MAP001" not in codes
    assert [r.violation.code for r in checked.merged.refuted] == ["MAP001"]
    assert "never returned None" in checked.merged.refuted[0].reason
    assert "MAP002" in codes  # a performance finding the run says nothing about stays


def test_map_fn_gradient_under_graph_mode_with_control_flow_v1_confirms_map001(kernel_python, tmp_path):
    path = tmp_path / "map_fn.py"
    path.write_text(programs.MAP_FN_CFV1, encoding="utf-8")
    checked = check_with_probe(str(path), Settings(), python=kernel_python, timeout=300)
    assert checked.run.report.mode.control_flow_v2 is False
    map001 = [v for v in checked.result.violations if v.code == "MAP001"]
    assert len(map001) == 1 and map001[0].confirmed
    assert map001[0].range.start.line + 1 == programs.MAP_FN_LINE
    assert not checked.merged.refuted


def test_variable_argument_with_and_without_input_signature(kernel_python, tmp_path):
    """Seed 003 on the installed TensorFlow, which decides: a plain tf.Variable passed to a
    tf.function keeps its gradient with an input_signature (it is read under the tape before
    the call) and without one; the probe reports exactly that, and the versions it ran."""
    path = tmp_path / "noise.py"
    path.write_text(programs.VARIABLE_ARGUMENT, encoding="utf-8")
    checked = check_with_probe(str(path), Settings(), python=kernel_python, timeout=300)
    assert checked.run.outcome.status == FINISHED, checked.run.outcome.message
    report = checked.run.report
    installed = next(v for v in (_version(d) for d in ("tensorflow-cpu", "tensorflow")) if v)
    assert report.version("tensorflow") == installed
    assert checked.targets.origin == "probe"
    assert checked.targets.tensorflow.parts[:2] == tuple(int(p) for p in installed.split(".")[:2])
    sites = {site.place.line: site for site in report.gradient_sites}
    for line in (programs.WITH_SIGNATURE_GRADIENT_LINE, programs.WITHOUT_SIGNATURE_GRADIENT_LINE):
        assert (sites[line].calls, sites[line].none_calls) == (1, 0)
    functions = {f.name: f for f in report.functions}
    assert functions["loss_with_signature"].traces == 1 and functions["loss_without_signature"].traces == 1
    namespace = {entry.name: entry for entry in report.namespace}
    assert namespace["noise"].kind == "variable" and namespace["noise"].get("name") == "noise:0"
    assert namespace["loss_with_signature"].get("input_signature") is True
    assert checked.result.violations == ()


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def test_configured_tensorflow_version_wins_over_the_probe(kernel_python, tmp_path):
    path = tmp_path / "noise.py"
    path.write_text(programs.VARIABLE_ARGUMENT, encoding="utf-8")
    checked = check_with_probe(str(path), Settings(tensorflow_version="2.5"), python=kernel_python, timeout=300)
    assert checked.targets.origin == "configuration" and str(checked.targets.tensorflow) == "2.5"


def test_notebook_cells_run_in_order_and_findings_land_in_their_cells(kernel_python, tmp_path):
    path = tmp_path / "experiment.ipynb"
    path.write_text(programs.notebook(*programs.NOTEBOOK_CELLS), encoding="utf-8")
    checked = check_with_probe(str(path), Settings(), python=kernel_python, timeout=300)
    assert checked.run.outcome.status == FINISHED, checked.run.outcome.message
    found = {(v.code, v.cell, v.range.start.line + 1): v for v in checked.result.violations}
    tape = found[("TAPE001", 3, 5)]
    assert tape.confirmed and "line 6 of cell 3" in tape.evidence.summary
    runtime = found[("RT001", 4, 8)]
    assert runtime.evidence.verdict == "runtime" and "`w`" in runtime.message
    assert not checked.merged.refuted


def test_a_program_that_raises_is_reported_where_it_stopped(kernel_python, tmp_path):
    path = tmp_path / "boom.py"
    path.write_text("import tensorflow as tf\n\nx = tf.constant([1.0, 2.0])\ny = tf.reshape(x, [3])\n",
                    encoding="utf-8")
    checked = check_with_probe(str(path), Settings(), python=kernel_python, timeout=300)
    assert checked.run.outcome.status == RAISED
    [stopped] = [v for v in checked.result.violations if v.code == "RT006"]
    assert stopped.range.start.line + 1 == 4
    assert "InvalidArgumentError" in stopped.message and "{{function_node" not in stopped.message
