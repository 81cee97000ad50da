"""The runs whose outputs are stored under tests/cli/golden/.

Each case runs `tapelsp --check . --output-format FORMAT` from
tests/cli/fixtures/project (whose pyproject.toml pins the rules and the
TensorFlow version). Two normalisations, both in SARIF only: tapelsp's own
version (`tool.driver.version`) becomes VERSION_PLACEHOLDER, and the rule
catalogue (`tool.driver.rules`) becomes RULES_PLACEHOLDER. The catalogue grows
whenever a rule is added anywhere, which says nothing about the output format;
test_sarif_schema.py checks it exactly against the live rule classes instead.

Regenerate after an intended change with:

    PYTHONPATH=server python3 tests/cli/regen_golden.py

and review the diff before committing it.
"""

from __future__ import annotations

import json

try:
    from .helpers import GOLDEN, PROJECT, Outcome, run_in_process
except ImportError:  # run as a script by regen_golden.py
    from helpers import GOLDEN, PROJECT, Outcome, run_in_process  # type: ignore[no-redef]

VERSION_PLACEHOLDER = "<tapelsp version>"
RULES_PLACEHOLDER = "<every rule: checked against the catalogue by test_sarif_schema.py>"
CASES = {
    "text": "text.txt",
    "json": "json.json",
    "sarif": "sarif.json",
    "github": "github.txt",
}


def normalise(output_format: str, output: str) -> str:
    if output_format != "sarif":
        return output
    log = json.loads(output)
    for run in log["runs"]:
        run["tool"]["driver"]["version"] = VERSION_PLACEHOLDER
        run["tool"]["driver"]["rules"] = RULES_PLACEHOLDER
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def produce(output_format: str) -> Outcome:
    outcome = run_in_process(["--check", ".", "--output-format", output_format], cwd=PROJECT)
    return Outcome(outcome.code, normalise(output_format, outcome.out), outcome.err)


def golden_path(output_format: str):
    return GOLDEN / CASES[output_format]
