"""Every command-line option of `tapelsp`, run in process (subprocess runs are in test_no_traceback.py)."""

from __future__ import annotations

import pytest

from tapelsp import __version__
from tapelsp.cli.args import default_jobs, parse_args
from tapelsp.docs import explain, list_rules

from .helpers import run_in_process
from .sources import ALL_THREE, CLEAN, FUNC, MAP, PINNED_CONFIG, TAPE, codes, write_tree


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path, {"all.py": ALL_THREE, "clean.py": CLEAN})


def check(tree, *args, stdin=b""):
    return run_in_process(["--check", *args], cwd=tree, stdin=stdin)


def test_default_is_text_and_current_directory(tree):
    outcome = check(tree)
    assert outcome.code == 1
    assert codes(outcome.out) == ["all.py:7:10: TAPE001", "all.py:15:13: FUNC001", "all.py:22:12: MAP002"]
    assert "\nFound 3 errors.\n" in outcome.out
    assert outcome.err == ""


def test_clean_run_exits_0(tree):
    outcome = check(tree, "clean.py")
    assert (outcome.code, outcome.out, outcome.err) == (0, "All checks passed!\n", "")


@pytest.mark.parametrize("args, expected", [
    (["--select", "TAPE001"], ["all.py:7:10: TAPE001"]),
    (["--select", "TAPE001,MAP002"], ["all.py:7:10: TAPE001", "all.py:22:12: MAP002"]),
    (["--select", "TAPE001", "--select", "FUNC001"], ["all.py:7:10: TAPE001", "all.py:15:13: FUNC001"]),
    (["--ignore", "TAPE001"], ["all.py:15:13: FUNC001", "all.py:22:12: MAP002"]),
    (["--select", "map002", "--extend-select", "FUNC001"], ["all.py:15:13: FUNC001", "all.py:22:12: MAP002"]),
    (["--select", "TAPE001", "--ignore", "TAPE001"], []),
])
def test_rule_selection(tree, args, expected):
    outcome = check(tree, "all.py", *args)
    assert codes(outcome.out) == expected
    assert outcome.code == (1 if expected else 0)


@pytest.mark.parametrize("selectors, allowed, required", [
    ("TAPE", ("TAPE",), {"TAPE001"}),
    ("MAP,FUNC00", ("MAP", "FUNC00"), {"MAP002", "FUNC001"}),
    ("tape00,map", ("TAPE00", "MAP"), {"TAPE001", "MAP002"}),
    ("ALL", ("",), {"TAPE001", "FUNC001", "MAP002"}),
])
def test_prefix_selection(tree, selectors, allowed, required):
    """Prefixes select every rule code they start; other rules may join the catalogue, so check membership."""
    found = {head.rsplit(" ", 1)[1] for head in codes(check(tree, "all.py", "--select", selectors).out)}
    assert required <= found
    assert all(code.startswith(allowed) for code in found)
    found = {head.rsplit(" ", 1)[1] for head in codes(check(tree, "all.py", "--select", "ALL",
                                                            "--ignore", selectors).out)}
    assert not any(code.startswith(allowed) for code in found)


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_unknown_rule_code_is_a_usage_error(tree, option):
    outcome = check(tree, option, "TAPE001,NOPE42")
    assert outcome.code == 2
    assert outcome.out == ""
    assert outcome.err == f"error: {option}: unknown rule code or prefix 'NOPE42' (see `tapelsp --list-rules`)\n"


def test_command_line_selection_overrides_configuration(tree):
    write_tree(tree, {"pyproject.toml": '[tool.tapelsp]\nselect = ["MAP002"]\nignore = ["TAPE001"]\n'})
    assert codes(check(tree, "all.py").out) == ["all.py:22:12: MAP002"]
    # --select replaces `select`; the configured `ignore` still applies.
    assert codes(check(tree, "all.py", "--select", "TAPE001,FUNC001").out) == ["all.py:15:13: FUNC001"]
    assert codes(check(tree, "all.py", "--select", "TAPE001,FUNC001", "--ignore", "MAP").out) == [
        "all.py:7:10: TAPE001", "all.py:15:13: FUNC001"]
    assert codes(check(tree, "all.py", "--extend-select", "FUNC001").out) == [
        "all.py:15:13: FUNC001", "all.py:22:12: MAP002"]


def test_exit_zero(tree):
    outcome = check(tree, "--exit-zero")
    assert outcome.code == 0
    assert "Found 3 errors." in outcome.out


def test_quiet_prints_findings_only(tree):
    outcome = check(tree, "-q")
    assert outcome.code == 1
    assert codes(outcome.out) == ["all.py:7:10: TAPE001", "all.py:15:13: FUNC001", "all.py:22:12: MAP002"]
    assert "Found" not in outcome.out
    assert check(tree, "--quiet", "clean.py").out == ""


@pytest.mark.parametrize("output_format, start", [
    ("text", "all.py:7:10: TAPE001 "), ("json", "[\n  {\n    \"cell\": null,"),
    ("sarif", "{\n  \"$schema\""), ("github", "::error title=tapelsp (TAPE001),file=all.py,line=7,col=10,"),
])
def test_output_formats(tree, output_format, start):
    outcome = check(tree, "all.py", "--output-format", output_format)
    assert outcome.code == 1
    assert outcome.out.startswith(start)


def test_unknown_output_format_is_a_usage_error(tree):
    outcome = check(tree, "--output-format", "xml")
    assert outcome.code == 2
    assert "invalid choice: 'xml'" in outcome.err


def test_tensorflow_version_option_overrides_configuration(tree):
    # FUNC001 applies to TensorFlow >= 2.0.
    write_tree(tree, {"pyproject.toml": PINNED_CONFIG + 'tensorflow-version = "1.15"\n'})
    assert codes(check(tree, "all.py").out) == ["all.py:7:10: TAPE001", "all.py:22:12: MAP002"]
    assert codes(check(tree, "all.py", "--tensorflow-version", "2.16").out) == [
        "all.py:7:10: TAPE001", "all.py:15:13: FUNC001", "all.py:22:12: MAP002"]
    assert "FUNC001" not in check(tree, "all.py", "--isolated", "--tensorflow-version", "1.15").out
    assert "FUNC001" in check(tree, "all.py", "--isolated", "--tensorflow-version", "2.0").out


def test_bad_tensorflow_version_is_a_usage_error(tree):
    outcome = check(tree, "--tensorflow-version", "latest")
    assert (outcome.code, outcome.out) == (2, "")
    assert outcome.err == "error: --tensorflow-version: 'latest' is not a version number (e.g. \"2.15\")\n"


def test_config_option_replaces_discovery(tree):
    write_tree(tree, {
        "pyproject.toml": '[tool.tapelsp]\nselect = ["TAPE"]\n',
        "elsewhere/strict.toml": '[tool.tapelsp]\nselect = ["MAP"]\nper-file-ignores = { "sub/*.py" = ["MAP002"] }\n',
        "sub/m.py": MAP,
    })
    assert codes(check(tree, "all.py", "--config", "elsewhere/strict.toml").out) == ["all.py:22:12: MAP002"]
    # per-file-ignores globs are relative to the --config file's directory (elsewhere/), not to sub/.
    assert codes(check(tree, "sub/m.py", "--config", "elsewhere/strict.toml").out) == ["sub/m.py:5:12: MAP002"]


def test_config_option_with_missing_file(tree):
    outcome = check(tree, "--config", "missing.toml")
    assert outcome.code == 2
    assert outcome.err == f"error: cannot read {tree / 'missing.toml'}: No such file or directory\n"


def test_config_option_without_table_means_defaults(tree):
    write_tree(tree, {"pyproject.toml": '[tool.tapelsp]\nselect = ["MAP002"]\n', "plain.toml": "[project]\nname = 'x'\n"})
    found = {head.rsplit(" ", 1)[1] for head in codes(check(tree, "all.py", "--config", "plain.toml").out)}
    assert {"TAPE001", "FUNC001", "MAP002"} <= found


def test_isolated_ignores_configuration(tree):
    write_tree(tree, {"pyproject.toml": '[tool.tapelsp]\nselect = ["MAP002"]\nunknown-key = 1\n'})
    outcome = check(tree, "--isolated", "all.py")
    assert outcome.code == 1
    assert {"TAPE001", "FUNC001", "MAP002"} <= {head.rsplit(" ", 1)[1] for head in codes(outcome.out)}


def test_config_and_isolated_together_is_a_usage_error(tree):
    outcome = check(tree, "--isolated", "--config", "pyproject.toml")
    assert (outcome.code, outcome.err) == (2, "error: --config and --isolated cannot be used together\n")


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_bad_jobs_is_a_usage_error(tree, jobs):
    outcome = check(tree, "-j", jobs)
    assert outcome.code == 2
    assert "argument -j/--jobs" in outcome.err


def test_jobs_default_is_the_cpu_count():
    assert parse_args(["--check"]).jobs is None
    assert parse_args(["--check", "-j", "3"]).jobs == 3
    assert parse_args(["--check", "--jobs", "1"]).jobs == 1
    assert default_jobs() >= 1


def test_version(tree):
    assert run_in_process(["--version"], cwd=tree) == type(check(tree))(0, f"tapelsp {__version__}\n", "")


def test_list_rules(tree):
    outcome = run_in_process(["--list-rules"], cwd=tree)
    assert (outcome.code, outcome.out, outcome.err) == (0, list_rules(), "")
    assert outcome.out.splitlines()[0].split() == ["code", "name", "severity", "fix", "summary"]
    assert any(line.startswith("TAPE001  ") for line in outcome.out.splitlines())


@pytest.mark.parametrize("code", ["TAPE001", "tape001", "TL002"])
def test_explain(tree, code):
    outcome = run_in_process(["--explain", code], cwd=tree)
    assert (outcome.code, outcome.out, outcome.err) == (0, explain(code), "")
    assert outcome.out.startswith(f"# {code.upper()} (")
    assert "## What it does" in outcome.out


def test_explain_unknown_code(tree):
    outcome = run_in_process(["--explain", "NOPE1"], cwd=tree)
    assert (outcome.code, outcome.out) == (2, "")
    assert outcome.err == "error: unknown rule code 'NOPE1' (see `tapelsp --list-rules`)\n"


@pytest.mark.parametrize("args", [["all.py"], ["-q", "all.py"], ["--stdin-filename", "x.py"]])
def test_paths_without_check_are_a_usage_error(tree, args):
    # Without --check tapelsp is the language server (tests/lsp); PATHS need --check.
    outcome = run_in_process(args, cwd=tree)
    assert (outcome.code, outcome.out) == (2, "")
    assert "tapelsp --check PATHS" in outcome.err


@pytest.mark.parametrize("args", [["--stdio", "--tcp", "2087"], ["--check", "--stdio"], ["--check", "--tcp", "2087"]])
def test_server_transports_exclude_each_other_and_check(tree, args):
    outcome = run_in_process(args, cwd=tree)
    assert (outcome.code, outcome.out) == (2, "")
    assert outcome.err.startswith("error: --stdio")


def test_help_exits_0(tree):
    outcome = run_in_process(["--help"], cwd=tree)
    assert outcome.code == 0
    for option in ("--check", "--output-format", "--select", "--ignore", "--extend-select", "--exit-zero",
                   "--list-rules", "--explain", "--tensorflow-version", "--config", "--isolated", "--jobs",
                   "--quiet", "--version", "--stdin-filename", "--exclude", "--extend-exclude",
                   "--force-exclude"):
        assert option in outcome.out


def test_unknown_option_is_a_usage_error(tree):
    outcome = run_in_process(["--check", "--frobnicate"], cwd=tree)
    assert outcome.code == 2
    assert "unrecognized arguments: --frobnicate" in outcome.err


def test_nonexistent_path_is_a_usage_error(tree):
    outcome = check(tree, "all.py", "missing.py")
    assert (outcome.code, outcome.out, outcome.err) == (2, "", "error: missing.py: no such file or directory\n")


def test_exclude_options(tree):
    write_tree(tree, {"pkg/a.py": TAPE, "pkg/gen/b.py": FUNC, "pkg/c_pb2.py": MAP,
                      "pyproject.toml": PINNED_CONFIG + 'exclude = ["pkg/gen"]\n'})
    assert [c.split(":")[0] for c in codes(check(tree, "pkg").out)] == ["pkg/a.py", "pkg/c_pb2.py"]
    # --exclude replaces the configured list; --extend-exclude adds to it.
    assert [c.split(":")[0] for c in codes(check(tree, "pkg", "--exclude", "*_pb2.py").out)] == [
        "pkg/a.py", "pkg/gen/b.py"]
    assert [c.split(":")[0] for c in codes(check(tree, "pkg", "--extend-exclude", "*_pb2.py,a.py").out)] == []


def test_explicit_paths_are_checked_even_if_excluded_unless_force_exclude(tree):
    write_tree(tree, {"gen/b.py": FUNC, "pyproject.toml": PINNED_CONFIG + 'exclude = ["gen"]\n'})
    assert codes(check(tree).out) == ["all.py:7:10: TAPE001", "all.py:15:13: FUNC001", "all.py:22:12: MAP002"]
    assert codes(check(tree, "gen/b.py").out) == ["gen/b.py:6:13: FUNC001"]
    assert codes(check(tree, "gen").out) == ["gen/b.py:6:13: FUNC001"]
    outcome = check(tree, "gen/b.py", "--force-exclude")
    assert (outcome.code, outcome.out) == (0, "All checks passed!\n")
    assert check(tree, "gen", "--force-exclude").out == "All checks passed!\n"
    assert codes(check(tree, "all.py", "--force-exclude", "--extend-exclude", "all.py").out) == []


def test_paths_outside_the_working_directory_are_shown_absolute(tree, tmp_path_factory):
    other = write_tree(tmp_path_factory.mktemp("other"), {"t.py": TAPE})
    outcome = check(tree, str(other / "t.py"))
    assert codes(outcome.out) == [f"{other.as_posix()}/t.py:7:10: TAPE001"]


def test_dash_with_other_paths_is_a_usage_error(tree):
    outcome = check(tree, "-", "all.py")
    assert (outcome.code, outcome.err) == (2, "error: `-` (standard input) cannot be combined with other paths\n")


def test_findings_from_two_rules_on_separate_files_are_sorted_by_path(tree):
    write_tree(tree, {"b/z.py": FUNC, "a.py": TAPE, "b/a.py": MAP})
    assert [c.split(":")[0] for c in codes(check(tree).out)] == ["a.py", "all.py", "all.py", "all.py", "b/a.py", "b/z.py"]
