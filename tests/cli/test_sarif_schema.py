"""SARIF output validates against the official SARIF 2.1.0 schema (tests/cli/data, see its README)."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from tapelsp import __version__
from tapelsp.cli.report.as_sarif import LEVELS, artifact_uri
from tapelsp.rules import all_rules

from .helpers import PROJECT, SARIF_SCHEMA, run_in_process
from .sources import write_tree

NOTEBOOK = json.dumps({
    "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": "import tensorflow as tf\nx = tf.constant(1.0)\n"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": "with tf.GradientTape() as t:\n    t.watch(x)\n    y = x * x\n"
                   "    with tf.GradientTape() as t:\n        g = t.gradient(y, x)\n"},
    ],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
})


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.fixture(scope="module")
def project_log():
    outcome = run_in_process(["--check", ".", "--output-format", "sarif"], cwd=PROJECT)
    assert outcome.code == 1
    return json.loads(outcome.out)


def test_project_output_is_valid_sarif(validator, project_log):
    errors = sorted(validator.iter_errors(project_log), key=str)
    assert errors == []


def test_validator_rejects_broken_sarif(validator, project_log):
    """The schema check can fail: a 0-based line and a made-up level are caught."""
    broken = copy.deepcopy(project_log)
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert not validator.is_valid(broken)
    broken = copy.deepcopy(project_log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    assert not validator.is_valid(broken)


def test_clean_run_is_valid_sarif_with_no_results(validator, tmp_path):
    write_tree(tmp_path, {"ok.py": "import tensorflow as tf\n"})
    outcome = run_in_process(["--check", ".", "--output-format", "sarif"], cwd=tmp_path)
    log = json.loads(outcome.out)
    assert outcome.code == 0
    assert log["runs"][0]["results"] == []
    assert validator.is_valid(log)


def test_notebook_output_is_valid_sarif_and_names_the_cell(validator, tmp_path):
    write_tree(tmp_path, {})
    outcome = run_in_process(["--check", "-", "--stdin-filename", "exp.ipynb", "--output-format", "sarif"],
                             cwd=tmp_path, stdin=NOTEBOOK.encode())
    log = json.loads(outcome.out)
    assert validator.is_valid(log)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "TAPE001"
    assert result["properties"] == {"cell": 2}
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "exp.ipynb"},
        "region": {"startLine": 4, "startColumn": 10, "endLine": 4, "endColumn": 32},
    }
    assert [r["properties"] for r in result["relatedLocations"]] == [{"cell": 2}, {"cell": 2}]


def test_log_header(project_log):
    assert project_log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert project_log["version"] == "2.1.0"
    (run,) = project_log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["informationUri"]) == (
        "tapelsp", __version__, "https://github.com/tapelsp/tapelsp")
    assert run["columnKind"] == "unicodeCodePoints"


def test_rules_are_the_whole_catalogue(project_log):
    rules = project_log["runs"][0]["tool"]["driver"]["rules"]
    expected = [{
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc()},
        "helpUri": rule.url(),
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
    } for rule in all_rules()]
    assert rules == expected
    assert {"TAPE001", "FUNC001", "MAP002", "TL001", "TL002", "TL003", "TL004"} <= {r["id"] for r in rules}
    assert all(rule["fullDescription"]["text"].startswith("## What it does") for rule in rules)


def test_every_result_names_a_listed_rule_with_its_level(project_log):
    run = project_log["runs"][0]
    levels = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in run["tool"]["driver"]["rules"]}
    assert run["results"]
    for result in run["results"]:
        assert result["level"] == levels[result["ruleId"]]
    assert {result["level"] for result in run["results"]} == {"error", "warning"}


def test_related_locations_come_from_the_violation(project_log):
    results = [r for r in project_log["runs"][0]["results"]
               if r["ruleId"] == "TAPE001"
               and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train.py"]
    (result,) = results
    assert [(loc["id"], loc["message"]["text"], loc["physicalLocation"]["region"]["startLine"])
            for loc in result["relatedLocations"]] == [
        (0, "outer tape `tape` opened here", 5),
        (1, "this use of `tape` gets the inner tape", 9),
    ]


def test_artifact_uris():
    assert artifact_uri("legacy/old.py") == "legacy/old.py"
    assert artifact_uri("my dir/a%b.py") == "my%20dir/a%25b.py"
    assert artifact_uri("/abs/path/x.py") == "file:///abs/path/x.py"
