"""`--probe`: run the checked files under the runtime probe and merge what TensorFlow shows.

    tapelsp --check --probe [--python PATH] [--probe-timeout SECONDS] FILE.py|FILE.ipynb

Each .py or .ipynb file named is run in a Jupyter kernel of its own (jupyter_client and
ipykernel; `--python` picks the interpreter, by default the one running tapelsp), under the
probe's instrumentation, for at most `--probe-timeout` seconds (default 60); the kernel and
every process the program started are always ended, also on Ctrl-C, `kill`, or when tapelsp
itself is killed (`probe.containment`). Of the program's output the probe keeps the last
lines only, and says so when there was more. Static findings the run shows are marked
confirmed, those it contradicts are dropped (listed on standard error), and runtime-only
findings (RT codes) are added. Without `--probe` nothing is ever run.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace

from ..files import is_notebook
from ..model import FileResult

DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class ProbeOptions:
    enabled: bool = False
    python: str | None = None
    timeout: float = DEFAULT_TIMEOUT


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"the time limit must be more than 0 seconds, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("runtime probe (runs your code, only when asked)")
    group.add_argument("--probe", action="store_true",
                       help="run each .py/.ipynb file in a Jupyter kernel under the probe and merge what "
                            "TensorFlow shows at runtime into the findings (needs jupyter_client and ipykernel)")
    group.add_argument("--python", metavar="PATH",
                       help="the interpreter the probe's kernel runs (default: the one running tapelsp)")
    group.add_argument("--probe-timeout", type=_seconds, metavar="SECONDS",
                       help=f"stop a probed program after this many seconds (default {DEFAULT_TIMEOUT:g})")


def from_namespace(namespace: argparse.Namespace) -> ProbeOptions:
    from .args import UsageError

    if not namespace.probe:
        if namespace.python is not None or namespace.probe_timeout is not None:
            raise UsageError("--python and --probe-timeout go with --probe")
        return ProbeOptions()
    if not namespace.check:
        raise UsageError("--probe goes with --check (`tapelsp --check --probe FILE.py`)")
    if namespace.fix or namespace.diff:
        raise UsageError("--probe cannot be combined with --fix or --diff")
    if namespace.paths == ["-"] or (not namespace.paths and namespace.stdin_filename is not None):
        raise UsageError("--probe runs files; it cannot run standard input")
    return ProbeOptions(True, namespace.python, namespace.probe_timeout or DEFAULT_TIMEOUT)


def probe_results(options, resolver, results: list[FileResult]) -> list[FileResult]:
    """`results` with every probed file's findings replaced by the merged ones."""
    from ..probe.check import merge_run
    from ..probe.kernel import ProbeError
    from ..probe.run import probe_file
    from .args import UsageError

    probe: ProbeOptions = options.probe
    out = []
    for result in results:
        display = result.path or "-"
        full = resolver.absolute(display)
        if result.error is not None or not (full.endswith(".py") or is_notebook(full)):
            out.append(result)
            continue
        _say(options, f"probe: running {display} in {probe.python or sys.executable} "
                      f"(time limit {probe.timeout:g} s)")
        try:
            run = probe_file(full, python=probe.python, timeout=probe.timeout)
        except ProbeError as error:
            raise UsageError(f"--probe: {error}") from None
        settings = resolver.settings_for(display)
        checked = merge_run(full, run, settings, fixes=options.output_format in ("text", "json"))
        out.append(replace(checked.result, path=display))
        _summary(options, display, checked)
    return out


def _summary(options, display: str, checked) -> None:
    run, merged = checked.run, checked.merged
    report = run.report
    facts = ""
    if report is not None:
        version = report.version("tensorflow")
        facts = f" (TensorFlow {version or 'not installed'}, {report.describe_mode()})"
    _say(options, f"probe: {display}: {run.outcome.message}{facts} in {run.seconds:.1f} s; "
                  f"{len(merged.confirmed)} confirmed, {len(merged.refuted)} refuted, "
                  f"{len(merged.runtime_only)} runtime-only")
    if getattr(run, "output_note", ""):
        _say(options, f"probe: {display}: {run.output_note}")
    for refuted in merged.refuted:
        violation = refuted.violation
        where = f"cell {violation.cell}, line" if violation.cell is not None else "line"
        _say(options, f"probe: dropped {violation.code} at {where} {violation.range.start.line + 1}: "
                      f"{refuted.reason}")


def _say(options, text: str) -> None:
    if options.quiet:
        return
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
