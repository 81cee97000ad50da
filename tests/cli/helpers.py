"""Running the CLI in tests: in this process (fast) or as `python -m tapelsp` (what users run)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SERVER = REPO / "server"
FIXTURES = HERE / "fixtures"
PROJECT = FIXTURES / "project"
GOLDEN = HERE / "golden"
SARIF_SCHEMA = HERE / "data" / "sarif-schema-2.1.0.json"


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str


class _Stdin(io.TextIOWrapper):
    """A text stdin whose `.buffer` yields the given bytes, like the real one."""


def run_in_process(args: list[str], cwd: Path | str, stdin: bytes = b"") -> Outcome:
    """`tapelsp ARGS` run by calling main() in this process, from `cwd`."""
    from tapelsp.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    old_cwd, old_stdin = os.getcwd(), sys.stdin
    os.chdir(cwd)
    sys.stdin = _Stdin(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(arg) for arg in args])
    finally:
        sys.stdin = old_stdin
        os.chdir(old_cwd)
    return Outcome(code, out.getvalue(), err.getvalue())


def subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SERVER), env.get("PYTHONPATH")]))
    env.pop("PYTHONWARNINGS", None)
    return env


def run_module(args: list[str], cwd: Path | str, stdin: bytes = b"", *, prelude: str | None = None) -> Outcome:
    """`python -m tapelsp ARGS` in a fresh interpreter. `prelude` runs first (to plant faults)."""
    if prelude is None:
        command = [sys.executable, "-m", "tapelsp", *map(str, args)]
    else:
        script = (f"{prelude}\nimport sys\nfrom tapelsp.cli.main import main\n"
                  f"raise SystemExit(main(sys.argv[1:]))\n")
        command = [sys.executable, "-c", script, *map(str, args)]
    proc = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, env=subprocess_env(), timeout=300)
    return Outcome(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"))
