"""Settings: which rules run (select / ignore / extend-select / per-file-ignores) and severities."""

from __future__ import annotations

import pytest

import tapelsp
from tapelsp import Settings, Severity
from tapelsp.settings import path_matches

SOURCE = '''\
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x * x * x
    with tf.GradientTape() as tape:
        dy = tape.gradient(y, x)

@tf.function
def scale(v):
    w = tf.Variable(2.0)
    return w * v

z = tf.map_fn(lambda a: a ** 2, x)
broken = (
'''
EVERYTHING = ["TAPE001", "FUNC001", "MAP002", "TL001"]


def codes(path: str | None = "pkg/train.py", **options) -> list[str]:
    settings = Settings(tensorflow_version="2.21", **options)
    found = {v.code for v in tapelsp.check_source(SOURCE, path, settings)}
    return [code for code in EVERYTHING if code in found]


def test_everything_by_default() -> None:
    assert codes() == EVERYTHING


@pytest.mark.parametrize(("options", "expected"), [
    ({"select": ("TAPE001",)}, ["TAPE001", "TL001"]),
    ({"select": ("TAPE",)}, ["TAPE001", "TL001"]),
    ({"select": ("FUNC", "MAP")}, ["FUNC001", "MAP002", "TL001"]),
    ({"select": ("ALL",)}, EVERYTHING),
    ({"ignore": ("FUNC001",)}, ["TAPE001", "MAP002", "TL001"]),
    ({"ignore": ("FUNC", "MAP")}, ["TAPE001", "TL001"]),
    ({"ignore": ("TL001",)}, ["TAPE001", "FUNC001", "MAP002"]),
    ({"ignore": ("TL",)}, ["TAPE001", "FUNC001", "MAP002"]),
    ({"ignore": ("ALL",)}, []),
    ({"select": ("FUNC",), "ignore": ("FUNC001",)}, ["TL001"]),
    ({"select": ("TAPE",), "extend_select": ("MAP002",)}, ["TAPE001", "MAP002", "TL001"]),
    ({"extend_select": ("MAP002",), "ignore": ("MAP",)}, ["TAPE001", "FUNC001", "TL001"]),
    ({"select": ("NOPE999",)}, ["TL001"]),
])
def test_select_and_ignore(options: dict, expected: list[str]) -> None:
    assert codes(**options) == expected


@pytest.mark.parametrize(("path", "pattern", "expected"), [
    ("tests/test_train.py", "tests/*", True),
    ("/home/me/project/tests/test_train.py", "tests/*", True),
    ("pkg/train.py", "tests/*", False),
    ("notebooks/a.ipynb", "*.ipynb", True),
    ("pkg/train.py", "train.py", True),
    ("pkg/train.py", "pkg/*.py", True),
    ("pkg/train.py", "other/*.py", False),
])
def test_path_matches(path: str, pattern: str, expected: bool) -> None:
    assert path_matches(path, pattern) is expected


def test_per_file_ignores() -> None:
    per_file = (("tests/*", ("FUNC001", "TL")), ("*.ipynb", ("MAP",)))
    assert codes("tests/test_train.py", per_file_ignores=per_file) == ["TAPE001", "MAP002"]
    assert codes("pkg/train.py", per_file_ignores=per_file) == EVERYTHING
    assert codes(None, per_file_ignores=per_file) == EVERYTHING, "no path: no per-file ignores apply"


def test_per_file_ignores_apply_to_notebooks() -> None:
    import json

    notebook = json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                      "source": SOURCE.replace("broken = (\n", "")}]})
    settings = Settings(tensorflow_version="2.21", per_file_ignores=(("*.ipynb", ("MAP",)),))
    found = {v.code for v in tapelsp.check_notebook(notebook, "work/analysis.ipynb", settings)}
    assert found & set(EVERYTHING) == {"TAPE001", "FUNC001"}


def test_enabled_directly() -> None:
    settings = Settings(select=("TAPE",), ignore=("TAPE002",), per_file_ignores=(("gen/*", ("TAPE",)),))
    assert settings.enabled("TAPE001") and not settings.enabled("TAPE002") and not settings.enabled("FUNC001")
    assert settings.enabled("TL003"), "meta findings show unless ignored"
    assert not settings.enabled("TAPE001", "gen/model_pb2.py")


def test_severity_overrides_longest_prefix_wins() -> None:
    settings = Settings(tensorflow_version="2.21",
                        severity_overrides=(("FUNC", Severity.HINT), ("FUNC001", Severity.WARNING),
                                            ("MAP", Severity.ERROR)))
    by_code = {v.code: v.severity for v in tapelsp.check_source(SOURCE, "a.py", settings)}
    assert by_code["FUNC001"] is Severity.WARNING
    assert by_code["MAP002"] is Severity.ERROR
    assert by_code["TAPE001"] is Severity.ERROR  # the rule's default
    assert settings.severity_for("FUNC009", Severity.ERROR) is Severity.HINT


def test_default_severities_come_from_the_rules() -> None:
    from tapelsp.rules import rule_by_code

    found = tapelsp.check_source(SOURCE, "a.py", Settings(tensorflow_version="2.21"))
    for violation in found:
        assert violation.severity is rule_by_code(violation.code).severity


def test_findings_carry_name_url_and_are_sorted() -> None:
    found = tapelsp.check_source(SOURCE, "a.py", Settings(tensorflow_version="2.21"))
    assert found == sorted(found, key=tapelsp.Violation.sort_key)
    for violation in found:
        assert violation.name and violation.url and violation.url.endswith(f"#{violation.code.lower()}-{violation.name}")


def test_files_that_never_mention_tensorflow_are_not_parsed() -> None:
    # a syntax error in a file unrelated to TensorFlow is not tapelsp's business
    assert tapelsp.check_source("def f(:\n", "other.py") == []
    assert [v.code for v in tapelsp.check_source("import tensorflow\ndef f(:\n", "tf.py")] == ["TL001"]
