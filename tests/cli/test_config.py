"""`[tool.tapelsp]` in pyproject.toml: discovery, every key, per-file-ignores, and errors (exit 2)."""

from __future__ import annotations

import os

import pytest

from tapelsp.cli.args import Options
from tapelsp.cli.config import KNOWN_KEYS, ConfigLocator, load_pyproject
from tapelsp.cli.resolve import Resolver

from .helpers import run_in_process
from .sources import ALL_THREE, FUNC, MAP, PINNED_CONFIG, TAPE, codes, write_tree


def check(tree, *args):
    return run_in_process(["--check", *args], cwd=tree)


def test_nearest_pyproject_with_a_tapelsp_table_wins(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.tapelsp]\nselect = ["TAPE001"]\n',
        "a/all.py": ALL_THREE,
        # a/b has a pyproject.toml without [tool.tapelsp]: discovery goes on up to the root one.
        "a/b/pyproject.toml": "[project]\nname = 'b'\n",
        "a/b/all.py": ALL_THREE,
        # a/c has its own table: it wins for everything below it.
        "a/c/pyproject.toml": '[tool.tapelsp]\nselect = ["MAP002"]\n',
        "a/c/d/all.py": ALL_THREE,
    })
    assert codes(check(tmp_path).out) == [
        "a/all.py:7:10: TAPE001", "a/b/all.py:7:10: TAPE001", "a/c/d/all.py:22:12: MAP002"]


def test_configuration_is_found_from_the_file_not_the_working_directory(tmp_path):
    write_tree(tmp_path, {"proj/pyproject.toml": '[tool.tapelsp]\nselect = ["FUNC001"]\n', "proj/src/all.py": ALL_THREE,
                          "elsewhere/.keep": ""})
    outcome = check(tmp_path / "elsewhere", "../proj/src/all.py")
    assert codes(outcome.out) == [f"{(tmp_path / 'proj/src/all.py').as_posix()}:15:13: FUNC001"]


def test_every_key(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": """\
[tool.tapelsp]
select = ["TAPE001", "MAP002"]
ignore = ["MAP002"]
extend-select = ["FUNC001"]
exclude = ["skipped"]
per-file-ignores = { "tests/*.py" = ["TAPE001"], "conftest.py" = ["FUNC"] }
tensorflow-version = "2.15"
keras-version = "3.3"
tensorflow-probability-version = "0.24"
""", "all.py": ALL_THREE, "skipped/all.py": ALL_THREE, "tests/all.py": ALL_THREE,
        "tests/deep/all.py": ALL_THREE, "conftest.py": FUNC})
    assert codes(check(tmp_path).out) == [
        "all.py:7:10: TAPE001", "all.py:15:13: FUNC001",
        "tests/all.py:15:13: FUNC001",  # `*` stays inside one directory: tests/deep is not matched
        "tests/deep/all.py:7:10: TAPE001", "tests/deep/all.py:15:13: FUNC001",
    ]
    settings = Resolver(Options(check=True), cwd=str(tmp_path)).settings_for(str(tmp_path / "tests/all.py"))
    assert settings.select == ("TAPE001", "MAP002")
    assert settings.ignore == ("MAP002", "TAPE001")
    assert settings.extend_select == ("FUNC001",)
    assert (settings.tensorflow_version, settings.keras_version, settings.tensorflow_probability_version) == (
        "2.15", "3.3", "0.24")
    targets = settings.targets()
    assert (str(targets.tensorflow), str(targets.keras), str(targets.tensorflow_probability), targets.origin) == (
        "2.15", "3.3", "0.24", "configuration")


@pytest.mark.parametrize("glob, ignored", [
    ("sub/*.py", ["sub/m.py"]),
    ("sub/**/*.py", ["sub/m.py", "sub/deep/m.py"]),
    ("**/m.py", ["m.py", "sub/deep/m.py", "sub/m.py"]),
    ("m.py", ["m.py", "sub/deep/m.py", "sub/m.py"]),
    ("sub", ["sub/deep/m.py", "sub/m.py"]),
    ("sub/deep/", ["sub/deep/m.py"]),
    ("./m.py", ["m.py"]),
    ("s?b/m.py", ["sub/m.py"]),
    ("sub/[!d]*.py", ["sub/m.py"]),
])
def test_per_file_ignores_globs(tmp_path, glob, ignored):
    files = ["m.py", "sub/m.py", "sub/deep/m.py"]
    write_tree(tmp_path, {"pyproject.toml": PINNED_CONFIG + f'per-file-ignores = {{ "{glob}" = ["MAP002"] }}\n',
                          **{name: MAP for name in files}})
    reported = {head.split(":")[0] for head in codes(check(tmp_path).out)}
    assert sorted(set(files) - reported) == sorted(ignored)


def test_per_file_ignores_are_relative_to_the_configuration_directory(tmp_path):
    write_tree(tmp_path, {"proj/pyproject.toml": PINNED_CONFIG + 'per-file-ignores = { "gen/*.py" = ["TAPE"] }\n',
                          "proj/gen/t.py": TAPE, "proj/other/gen/t.py": TAPE})
    # From the parent directory, from inside, and naming the file: always proj/gen only.
    assert codes(check(tmp_path).out) == ["proj/other/gen/t.py:7:10: TAPE001"]
    assert codes(check(tmp_path / "proj" / "other").out) == ["gen/t.py:7:10: TAPE001"]
    assert codes(check(tmp_path / "proj" / "gen", "t.py").out) == []


def test_exclude_is_relative_to_the_configuration_directory(tmp_path):
    write_tree(tmp_path, {"proj/pyproject.toml": PINNED_CONFIG + 'exclude = ["build/*", "*_pb2.py"]\n',
                          "proj/build/t.py": TAPE, "proj/src/build/t.py": TAPE, "proj/src/x_pb2.py": TAPE})
    assert codes(check(tmp_path).out) == ["proj/src/build/t.py:7:10: TAPE001"]


def test_config_errors_name_the_file_and_key(tmp_path):
    cases = {
        '[tool.tapelsp]\nselct = ["TAPE"]\n':
            "unknown key `selct`; the known keys are " + ", ".join(KNOWN_KEYS),
        '[tool.tapelsp]\nextend_select = ["TAPE"]\n':
            "unknown key `extend_select` (did you mean `extend-select`?); the known keys are " + ", ".join(KNOWN_KEYS),
        '[tool.tapelsp]\nselect = "TAPE"\n': "`select`: must be a list of strings, got a string ('TAPE')",
        '[tool.tapelsp]\nignore = ["TAPE", 1]\n': "`ignore`: must be a list of strings, got a list",
        '[tool.tapelsp]\nexclude = "build"\n': "`exclude`: must be a list of strings, got a string ('build')",
        '[tool.tapelsp]\nselect = ["TAPE9"]\n': "`select`: unknown rule code or prefix 'TAPE9' (see `tapelsp --list-rules`)",
        '[tool.tapelsp]\nper-file-ignores = ["a.py"]\n':
            "`per-file-ignores`: must be a table of glob = [codes], got a list",
        '[tool.tapelsp]\nper-file-ignores = { "a.py" = "TAPE001" }\n':
            "`per-file-ignores` 'a.py': must be a list of rule codes, got a string ('TAPE001')",
        '[tool.tapelsp]\nper-file-ignores = { "a.py" = ["BOGUS"] }\n':
            "`per-file-ignores` 'a.py': unknown rule code or prefix 'BOGUS' (see `tapelsp --list-rules`)",
        '[tool.tapelsp]\ntensorflow-version = 2.15\n':
            "`tensorflow-version`: must be a string like \"2.15\", got a number (2.15)",
        '[tool.tapelsp]\nkeras-version = "three"\n':
            "`keras-version`: 'three' is not a version number (e.g. \"2.15\")",
        '[tool.tapelsp]\ntensorflow-probability-version = true\n':
            "`tensorflow-probability-version`: must be a string like \"2.15\", got a boolean (True)",
    }
    for text, message in cases.items():
        write_tree(tmp_path, {"pyproject.toml": text, "t.py": TAPE})
        outcome = check(tmp_path)
        where = f"{tmp_path / 'pyproject.toml'}: [tool.tapelsp]"
        expected = f"error: {where}: {message}\n" if message.startswith("unknown key") else f"error: {where} {message}\n"
        assert (outcome.code, outcome.out, outcome.err) == (2, "", expected), text


def test_tapelsp_must_be_a_table(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool]\ntapelsp = "on"\n', "t.py": TAPE})
    outcome = check(tmp_path)
    assert (outcome.code, outcome.err) == (
        2, f"error: {tmp_path / 'pyproject.toml'}: [tool.tapelsp]: must be a table, got a string ('on')\n")


def test_invalid_toml_that_mentions_tapelsp_is_an_error(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.tapelsp\nselect = []\n", "t.py": TAPE})
    outcome = check(tmp_path)
    assert outcome.code == 2
    assert outcome.err.startswith(f"error: {tmp_path / 'pyproject.toml'} is not valid TOML: ")
    assert outcome.err.count("\n") == 1


def test_invalid_toml_that_never_mentions_tapelsp_is_skipped(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.tapelsp]\nselect = ["FUNC001"]\n',
                          "sub/pyproject.toml": "[project\nname = 'broken'\n", "sub/all.py": ALL_THREE})
    outcome = check(tmp_path)
    assert codes(outcome.out) == ["sub/all.py:15:13: FUNC001"]


def test_an_error_only_matters_when_a_checked_file_uses_that_configuration(tmp_path):
    write_tree(tmp_path, {"good/pyproject.toml": '[tool.tapelsp]\nselect = ["TAPE001"]\n', "good/t.py": TAPE,
                          "bad/pyproject.toml": "[tool.tapelsp]\nnope = 1\n", "bad/t.py": TAPE})
    assert check(tmp_path, "good").code == 1
    assert check(tmp_path, "bad").code == 2


def test_locator_walks_up_once_per_directory(tmp_path, monkeypatch):
    write_tree(tmp_path, {"pyproject.toml": '[tool.tapelsp]\nselect = ["TAPE"]\n', "a/b/c/x.py": ""})
    locator = ConfigLocator()
    probes = []
    real_isfile = os.path.isfile
    monkeypatch.setattr(os.path, "isfile", lambda p: probes.append(p) or real_isfile(p))
    first = locator.for_file(str(tmp_path / "a/b/c/x.py"))
    count = len(probes)
    again = locator.for_file(str(tmp_path / "a/b/c/y.py"))
    sibling = locator.for_directory(str(tmp_path / "a/b"))
    assert first is again is sibling
    assert first.select == ("TAPE",) and first.root == tmp_path.as_posix()
    assert count == 4 and len(probes) == 4  # a/b/c, a/b, a, root: then the cache answers


def test_load_pyproject_without_table(tmp_path):
    path = write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n"}) / "pyproject.toml"
    assert load_pyproject(str(path)) is None
    assert load_pyproject(str(path), required=True).select is None
    assert load_pyproject(str(tmp_path / "missing.toml")) is None


def test_selectors_are_case_insensitive_and_may_be_ALL(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.tapelsp]\nselect = ["all"]\nignore = ["tape", "map", "func0", "tl"]\n',
                          "all.py": ALL_THREE, "latin.py": b"x = '\xe9'\n"})
    assert codes(check(tmp_path).out) == []
    write_tree(tmp_path, {"pyproject.toml": '[tool.tapelsp]\nselect = ["func001", "Tape001"]\n'})
    assert codes(check(tmp_path, "all.py").out) == ["all.py:7:10: TAPE001", "all.py:15:13: FUNC001"]


def test_meta_codes_can_be_ignored_per_file(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": PINNED_CONFIG + 'per-file-ignores = { "vendor/*" = ["TL002"] }\n',
                          "vendor/latin.py": b"x = '\xe9'\n", "latin.py": b"x = '\xe9'\n"})
    assert codes(check(tmp_path).out) == ["latin.py:1:1: TL002"]
