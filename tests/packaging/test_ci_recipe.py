"""The GitHub Actions recipe of docs/github-actions.md: the workflow parses, uploads the file the
check step writes, and its two tapelsp steps, run as written on a copy of the examples, write a
SARIF 2.1.0 file with the findings and fail with annotations."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "github-actions.md"
SCHEMA = ROOT / "tests" / "cli" / "data" / "sarif-schema-2.1.0.json"


def _workflow() -> dict:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1, "one workflow in the document"
    return yaml.safe_load(blocks[0])


def _steps() -> dict[str, dict]:
    steps = _workflow()["jobs"]["tapelsp"]["steps"]
    return {step.get("name", step.get("uses")): step for step in steps}


def test_the_workflow_uploads_what_the_check_step_writes() -> None:
    workflow = _workflow()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"push", "pull_request"}
    job = workflow["jobs"]["tapelsp"]
    assert job["permissions"]["security-events"] == "write"
    steps = _steps()
    check = steps["Check with tapelsp"]["run"]
    assert "--output-format sarif" in check
    written = re.search(r">\s*(\S+)\s*$", check).group(1)
    upload = steps["Upload the findings to code scanning"]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == written
    assert "tapelsp @ git+https://github.com/tapelsp/tapelsp@" in steps["Install tapelsp"]["run"]


def test_the_steps_run_as_written_write_valid_sarif_and_fail_on_findings(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "examples", checkout / "examples")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    steps = _steps()
    check = subprocess.run(["bash", "-e", "-c", steps["Check with tapelsp"]["run"]], cwd=checkout, env=env,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    sarif = json.loads((checkout / "tapelsp.sarif").read_text(encoding="utf-8"))
    jsonschema.validate(sarif, json.loads(SCHEMA.read_text(encoding="utf-8")))
    results = sarif["runs"][0]["results"]
    places = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results}
    assert ("TAPE001", "examples/second_derivative.py") in places
    assert ("FUNC001", "examples/dqn_agent.py") in places

    fail = subprocess.run(["bash", "-e", "-c", steps["Fail on findings"]["run"]], cwd=checkout, env=env,
                          capture_output=True, text=True)
    assert fail.returncode == 1, fail.stdout + fail.stderr
    annotations = [line for line in fail.stdout.splitlines() if re.match(r"::(error|warning|notice) ", line)]
    assert len(annotations) == len(results)
    assert any(line.startswith("::error ") and "file=examples/second_derivative.py,line=8" in line and "TAPE001" in line
               for line in annotations)
