"""The progress line: on a terminal's stderr for long human-readable runs, nowhere else."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import pytest

from tapelsp.cli import main as main_mod
from tapelsp.cli import progress as progress_mod
from tapelsp.cli.progress import Progress, wanted

from .helpers import Outcome, run_in_process, subprocess_env
from .sources import FUNC, TAPE, write_tree


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("fmt", "quiet", "tty", "shown"), [
    ("text", False, True, True), ("github", False, True, True),
    ("json", False, True, False), ("sarif", False, True, False),
    ("text", True, True, False), ("text", False, False, False),
])
def test_wanted_only_for_people_at_a_terminal(fmt, quiet, tty, shown):
    assert wanted(Terminal() if tty else io.StringIO(), fmt, quiet) is shown


def test_a_closed_stream_is_not_a_terminal():
    stream = io.StringIO()
    stream.close()
    assert wanted(stream, "text") is False


def test_nothing_is_drawn_before_the_delay_then_count_and_rate_then_erased():
    stream, clock = Terminal(), Clock()
    bar = Progress(200, stream, clock=clock, delay=1.0)
    clock.now += 0.5
    bar.advance(10)
    assert stream.getvalue() == ""
    clock.now += 1.5  # 2 s in, 50 files done
    bar.advance(40)
    drawn = stream.getvalue()
    assert drawn.startswith("\r") and "50/200 files" in drawn and "25 files/s" in drawn
    clock.now += 0.01  # redrawn at most every INTERVAL
    bar.advance(1)
    assert stream.getvalue() == drawn
    clock.now += 1.0
    bar.advance(149)
    assert "200/200 files" in stream.getvalue()
    bar.close()
    assert stream.getvalue().endswith("\r" + " " * bar.width + "\r")


def test_a_short_run_draws_nothing_even_on_close():
    stream = Terminal()
    bar = Progress(3, stream, clock=Clock(), delay=1.0)
    bar.advance(3)
    bar.close()
    assert stream.getvalue() == ""


def test_a_broken_terminal_stops_the_bar_without_an_error():
    class Gone(Terminal):
        def write(self, text):
            raise OSError("terminal gone")

    clock = Clock()
    bar = Progress(10, Gone(), clock=clock, delay=0.0)
    bar.advance(1)
    bar.advance(1)
    bar.close()
    assert bar.done == 2


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path, {f"m{i:02d}.py": (TAPE, FUNC)[i % 2] for i in range(20)})


def _run_with_terminal_stderr(args, cwd, monkeypatch):
    """main() in this process with stderr a (fake) terminal and the bar's delay 0."""
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    monkeypatch.chdir(cwd)
    out, terminal = io.StringIO(), Terminal()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(terminal):
        code = main_mod.main(args)
    return Outcome(code, out.getvalue(), ""), terminal.getvalue()


def test_the_cli_draws_on_a_terminal_and_erases_the_line(tree, monkeypatch):
    outcome, err = _run_with_terminal_stderr(["--check", ".", "--no-cache", "-j1"], tree, monkeypatch)
    assert outcome.code == 1 and "Found 20 errors" in outcome.out
    assert "20/20 files" in err and "files/s" in err
    assert err.endswith("\r") and err.rstrip("\r ").endswith("files/s")
    assert "checking [" not in outcome.out


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_the_cli_draws_nothing_in_json_and_sarif(tree, monkeypatch, fmt):
    outcome, err = _run_with_terminal_stderr(["--check", ".", "--no-cache", "--output-format", fmt], tree,
                                             monkeypatch)
    assert outcome.code == 1 and err == ""


def test_cached_files_count_as_done(tree, monkeypatch):
    run_in_process(["--check", "."], cwd=tree)
    _, err = _run_with_terminal_stderr(["--check", "."], tree, monkeypatch)
    assert "20/20 files" in err


def test_a_real_terminal_gets_the_bar_and_a_pipe_does_not(tree):
    """`python -m tapelsp` with stderr on a pseudo-terminal, then on a pipe (DELAY set to 0 first)."""
    script = ("import sys; from tapelsp.cli import progress; progress.DELAY = 0.0\n"
              "from tapelsp.cli.main import main; raise SystemExit(main(sys.argv[1:]))")
    command = [sys.executable, "-c", script, "--check", ".", "--no-cache", "-j2"]
    leader, follower = os.openpty()
    try:
        proc = subprocess.run(command, cwd=tree, stdout=subprocess.PIPE, stderr=follower, env=subprocess_env(),
                              timeout=120)
        os.close(follower)
        follower = -1
        err = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other end is closed
                break
            if not chunk:
                break
            err += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 1 and b"Found 20 errors" in proc.stdout
    assert b"20/20 files" in err
    piped = subprocess.run(command, cwd=tree, capture_output=True, env=subprocess_env(), timeout=120)
    assert piped.returncode == 1 and piped.stderr == b"" and piped.stdout == proc.stdout
