"""`tapelsp` entry point (console script and `python -m tapelsp`).

Exit status: 0 no findings, 1 findings (0 with --exit-zero), 2 usage,
configuration or internal error. Nothing ever reaches the user as a traceback:
unexpected exceptions become one `error: ...` line on stderr and exit 2.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from .. import __version__
from ..docs import explain, list_rules
from ..engine import INTERNAL_ERROR
from ..files import check_bytes, is_notebook
from ..model import FileResult
from .args import Options, UsageError, default_jobs, parse_args
from .config import ConfigError
from .discover import collect
from .report import render
from .resolve import Resolver
from .run import Job, run_jobs

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2

NO_SERVER_YET = ("tapelsp: the language server is not part of this version yet.\n"
                 "Use `tapelsp --check PATHS` to check files and directories "
                 "(`tapelsp --help` lists the options).\n")


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except SystemExit as stop:  # argparse: --help (0) or a malformed command line (2)
        code = stop.code
        return code if isinstance(code, int) else (EXIT_CLEAN if code is None else EXIT_ERROR)
    except (UsageError, ConfigError) as error:
        _error(str(error))
        return EXIT_ERROR
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_ERROR
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_ERROR
    except RecursionError:
        _error("internal error: RecursionError (please report this with the command line and files)")
        return EXIT_ERROR
    except Exception as error:  # never a traceback
        _error(f"internal error: {type(error).__name__}: {error} (please report this with the "
               "command line and files)")
        return EXIT_ERROR


def _error(message: str) -> None:
    try:
        sys.stderr.write(f"error: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    # Output piped into `head`: stop writing, and let interpreter shutdown not complain.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _main(argv: list[str] | None) -> int:
    options = parse_args(argv)
    if options.version:
        sys.stdout.write(f"tapelsp {__version__}\n")
        return EXIT_CLEAN
    if options.list_rules:
        sys.stdout.write(list_rules())
        return EXIT_CLEAN
    if options.explain is not None:
        text = explain(options.explain)
        if text is None:
            raise UsageError(f"unknown rule code {options.explain!r} (see `tapelsp --list-rules`)")
        sys.stdout.write(text)
        return EXIT_CLEAN
    if not options.check:
        sys.stderr.write(NO_SERVER_YET)
        return EXIT_ERROR

    resolver = Resolver(options)
    results = _check_stdin(options, resolver) if options.reads_stdin else _check_paths(options, resolver)
    sys.stdout.write(render(options.output_format, results, quiet=options.quiet))
    sys.stdout.flush()
    return _exit_code(options, results)


def _check_stdin(options: Options, resolver: Resolver) -> list[FileResult]:
    name = options.stdin_filename
    if name is not None and options.force_exclude and resolver.excluded_by(name) is not None:
        sys.stdin.buffer.read()
        return []
    settings = resolver.settings_for(name)
    data = sys.stdin.buffer.read()
    full = resolver.absolute(name) if name is not None else None
    result = check_bytes(data, full, settings, resolver.targets_for(settings), notebook=is_notebook(name))
    return [replace(result, path=resolver.display(name) if name is not None else "-")]


def _check_paths(options: Options, resolver: Resolver) -> list[FileResult]:
    files = collect(options.paths or (".",), resolver)
    jobs = []
    for path in files:
        settings = resolver.settings_for(path)
        jobs.append(Job(path, resolver.display(path), settings, resolver.targets_for(settings)))
    return run_jobs(jobs, options.jobs or default_jobs())


def _exit_code(options: Options, results: list[FileResult]) -> int:
    failed = [result.path for result in results
              if any(violation.code == INTERNAL_ERROR for violation in result.violations)]
    if failed:
        _error(f"tapelsp failed internally on {len(failed)} file{'' if len(failed) == 1 else 's'} "
               f"({', '.join(str(path) for path in failed[:3])}{', ...' if len(failed) > 3 else ''}); "
               "see the TL004 findings")
        return EXIT_ERROR
    if any(result.violations for result in results):
        return EXIT_CLEAN if options.exit_zero else EXIT_FINDINGS
    return EXIT_CLEAN
