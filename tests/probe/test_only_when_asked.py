"""The probe never runs unless asked, and its command line is checked before anything runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tapelsp.cli.args import UsageError, parse_args
from tapelsp.cli.main import main

SERVER = Path(__file__).resolve().parents[2] / "server"

# A fresh interpreter that records every import of the kernel machinery or of the probe's
# run/attach modules while plain `tapelsp --check` runs.
TRIPWIRE = '''
import importlib.abc, json, sys
WATCHED = ("jupyter_client", "ipykernel", "zmq", "tapelsp.probe.run", "tapelsp.probe.kernel",
           "tapelsp.probe.attach", "tensorflow")
attempted = []
class Tripwire(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(WATCHED):
            attempted.append(fullname)
        return None
sys.meta_path.insert(0, Tripwire())
sys.path.insert(0, sys.argv[1])
from tapelsp.cli.main import main
code = main(sys.argv[2:])
sys.stderr.write("TRIPWIRE " + json.dumps(sorted(set(attempted))) + "\\n")
sys.exit(code)
'''

PROGRAM = '''\
import pathlib
pathlib.Path(__file__).with_name("ran.txt").write_text("the program ran")
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
    with tf.GradientTape() as tape:
        dy = tape.gradient(y, x)
'''


def test_plain_check_starts_no_kernel_and_runs_nothing(tmp_path):
    (tmp_path / "train.py").write_text(PROGRAM, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", TRIPWIRE, str(SERVER), "--check", "--isolated", "train.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "TAPE001" in done.stdout, done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("TRIPWIRE "))
    assert json.loads(line[len("TRIPWIRE "):]) == []
    assert "probe:" not in done.stderr
    assert not (tmp_path / "ran.txt").exists()


def test_the_control_run_with_probe_does_run_the_program(kernel_python, tmp_path):
    """Control for the test above: the same file with --probe runs (the marker appears)."""
    (tmp_path / "train.py").write_text(PROGRAM, encoding="utf-8")
    code = main(["--check", "--isolated", "--probe", "--python", kernel_python, "-q", str(tmp_path / "train.py")])
    assert code == 1
    assert (tmp_path / "ran.txt").read_text() == "the program ran"


@pytest.mark.parametrize("argv, message", [
    (["--python", "/usr/bin/python3", "--check", "x.py"], "--python and --probe-timeout go with --probe"),
    (["--probe-timeout", "5", "--check", "x.py"], "--python and --probe-timeout go with --probe"),
    (["--probe", "x.py"], "--probe goes with --check"),
    (["--check", "--probe", "--fix", "x.py"], "cannot be combined with --fix"),
    (["--check", "--probe", "-"], "cannot run standard input"),
])
def test_usage_errors(argv, message):
    with pytest.raises(UsageError, match=message):
        parse_args(argv)


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_the_time_limit_must_be_a_positive_number(value, capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(["--check", "--probe", "--probe-timeout", value, "x.py"])
    assert stop.value.code == 2


def test_options_carry_the_probe_settings():
    options = parse_args(["--check", "--probe", "--python", "/opt/py", "--probe-timeout", "7.5", "x.py"])
    assert (options.probe.enabled, options.probe.python, options.probe.timeout) == (True, "/opt/py", 7.5)
    assert parse_args(["--check", "x.py"]).probe.enabled is False
