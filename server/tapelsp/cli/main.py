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
from ..files import UnreadableFile, check_bytes, is_notebook, read_bytes
from ..meta_codes import INTERNAL_ERROR
from ..model import FileResult
from .args import Options, UsageError, default_jobs, parse_args
from .config import ConfigError
from .discover import collect
from .report import render
from .resolve import Resolver
from .cache import DIRECTORY as CACHE_DIRECTORY, ResultCache, salt as cache_salt
from .progress import Progress, wanted as progress_wanted
from .run import Job, check_keyed, run_jobs, start_workers_early

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


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
        from ..docs import list_rules

        sys.stdout.write(list_rules())
        return EXIT_CLEAN
    if options.explain is not None:
        from ..docs import explain

        text = explain(options.explain)
        if text is None:
            raise UsageError(f"unknown rule code {options.explain!r} (see `tapelsp --list-rules`)")
        sys.stdout.write(text)
        return EXIT_CLEAN
    if options.values is not None:
        return _values(options)
    if not options.check:
        if options.paths or options.stdin_filename is not None:
            raise UsageError("PATHS are checked with `tapelsp --check PATHS`; without --check tapelsp "
                             "serves the Language Server Protocol")
        from ..lsp import serve

        return serve(tcp_port=options.tcp)

    resolver = Resolver(options)
    if options.fixing:
        return _fix_stdin(options, resolver) if options.reads_stdin else _fix_paths(options, resolver)
    results = _check_stdin(options, resolver) if options.reads_stdin else _check_paths(options, resolver)
    if options.probe.enabled:  # runs the user's code: only when asked (cli/probe_option.py)
        from .probe_option import probe_results

        results = probe_results(options, resolver, results)
    sys.stdout.write(render(options.output_format, results, quiet=options.quiet, unsafe_fixes=options.unsafe_fixes))
    sys.stdout.flush()
    return _exit_code(options, results)


def _values(options: Options) -> int:
    """`--values FILE[:LINES]`: each name on those lines with what the value model says it holds."""
    import re

    from ..files import UnreadableFile, decode_notebook, decode_python, is_notebook, read_bytes
    from ..inspect_values import describe_lines
    from .run import project_for

    spec = options.values or ""
    match = re.fullmatch(r"(?P<path>.+?)(?::(?P<first>\d+)(?:-(?P<last>\d+))?)?", spec)
    assert match is not None
    path = match.group("path")
    lines = None
    if match.group("first"):
        first = int(match.group("first"))
        lines = set(range(first, int(match.group("last") or first) + 1))
    resolver = Resolver(options)
    try:
        data = read_bytes(resolver.absolute(path))
        source = decode_notebook(data) if is_notebook(path) else decode_python(data)
    except UnreadableFile as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    settings = resolver.settings_for(path)
    project = project_for(resolver.project_root(path))
    label = None
    cells = None
    if is_notebook(path):
        from ..notebook import _locate, code_cells, join_cells

        text, cells = join_cells(code_cells(source.text))

        def label(line: int) -> str:
            cell = _locate(cells, line - 1)
            return f"line {line - cell.first_line} of cell {cell.number}"
    else:
        text = source.text
    found = describe_lines(text, lines if cells is None else None, path=resolver.absolute(path), project=project,
                           targets=resolver.targets_for(settings), line_label=label)
    shown = resolver.display(path)
    for item in found:
        if cells is not None:
            from ..notebook import _locate

            cell = _locate(cells, item.line - 1)
            line = item.line - cell.first_line
            if lines is not None and line not in lines:
                continue
            where = f"{shown}[cell {cell.number}]:{line}:{item.column + 1}"
        else:
            where = f"{shown}:{item.line}:{item.column + 1}"
        sys.stdout.write(f"{where}: {item.text}\n")
    return EXIT_CLEAN


def _wants_fixes(options: Options) -> bool:
    """Text marks fixable findings `[*]` and JSON carries each `fix`: both need the fixes built."""
    return options.output_format in ("text", "json")


def _check_stdin(options: Options, resolver: Resolver) -> list[FileResult]:
    name = options.stdin_filename
    if name is not None and options.force_exclude and resolver.excluded_by(name) is not None:
        sys.stdin.buffer.read()
        return []
    settings = resolver.settings_for(name)
    data = sys.stdin.buffer.read()
    full = resolver.absolute(name) if name is not None else None
    result = check_bytes(data, full, settings, resolver.targets_for(settings), notebook=is_notebook(name),
                         fixes=_wants_fixes(options))
    return [replace(result, path=resolver.display(name) if name is not None else "-")]


def _check_paths(options: Options, resolver: Resolver) -> list[FileResult]:
    cache = None if options.no_cache else ResultCache.open(options.cache_dir or CACHE_DIRECTORY)
    if (cache is None or not cache.entries) and any(os.path.isdir(p) for p in options.paths or (".",)):
        # A directory and no results to reuse: the workers will be needed. They start now and
        # import the engine while this process finds the files.
        start_workers_early(options.jobs or default_jobs())
    files = collect(options.paths or (".",), resolver)
    jobs = []
    for path in files:
        settings = resolver.settings_for(path)
        targets = resolver.targets_for(settings)
        job_salt = cache_salt(path, settings, targets, _wants_fixes(options)) if cache else None
        jobs.append(Job(path, resolver.display(path), settings, targets, fixes=_wants_fixes(options),
                        cache_salt=f"{cache.code}\n{job_salt}" if cache and job_salt is not None else None,
                        project_root=resolver.project_root(path)))
    bar = Progress(len(jobs), sys.stderr) if progress_wanted(sys.stderr, options.output_format,
                                                             options.quiet) else None
    try:
        results = _check_jobs(jobs, options, cache, bar)
    finally:
        if bar is not None:
            bar.close()
    if cache is not None:
        cache.save()
        for warning in cache.warnings:
            _warning(warning)
    return results


def _check_jobs(jobs: list[Job], options: Options, cache: ResultCache | None,
                bar: Progress | None) -> list[FileResult]:
    """Cached results first (read and hash each file), the rest in workers; in job order."""
    found: list[FileResult | None] = [None] * len(jobs)
    missing: list[int] = []
    for index, job in enumerate(jobs):
        # An empty cache (first run, new tapelsp build) cannot hit: do not read the files twice.
        hit = _cached(cache, job) if cache is not None and cache.entries else None
        if hit is None:
            missing.append(index)
        else:
            found[index] = hit
    if bar is not None and len(missing) < len(jobs):
        bar.advance(len(jobs) - len(missing))
    checked = run_jobs([jobs[i] for i in missing], options.jobs or default_jobs(), check_keyed,
                       progress=bar.advance if bar is not None else None)
    for index, outcome in zip(missing, checked):
        found[index] = outcome.result
        if cache is not None and outcome.key is not None:
            cache.put(outcome.key, outcome.result, outcome.depends)
    return [result for result in found if result is not None]


def _cached(cache: ResultCache, job: Job) -> FileResult | None:
    if job.cache_salt is None:
        return None
    try:
        data = read_bytes(job.path)
    except UnreadableFile:
        return None  # the worker reports it
    hit = cache.get(cache.key(job.cache_salt.partition("\n")[2], data))
    return replace(hit, path=job.display) if hit is not None else None


# --- --fix and --diff ----------------------------------------------------------------------

def _fix_paths(options: Options, resolver: Resolver) -> int:
    from .fixing import FixJob, fix_job

    files = collect(options.paths or (".",), resolver)
    jobs = []
    for path in files:
        settings = resolver.settings_for(path)
        jobs.append(FixJob(path, resolver.display(path), settings, resolver.targets_for(settings),
                           unsafe=options.unsafe_fixes, write=not options.diff))
    outcomes = run_jobs(jobs, options.jobs or default_jobs(), fix_job)
    return _fix_report(options, outcomes)


def _fix_stdin(options: Options, resolver: Resolver) -> int:
    from .fixing import fix_bytes

    name = options.stdin_filename
    data = sys.stdin.buffer.read()
    display = resolver.display(name) if name is not None else "-"
    if name is not None and options.force_exclude and resolver.excluded_by(name) is not None:
        if not options.diff:
            _write_bytes(data)
        return EXIT_CLEAN
    settings = resolver.settings_for(name)
    full = resolver.absolute(name) if name is not None else None
    outcome = fix_bytes(data, full, display, settings, resolver.targets_for(settings), unsafe=options.unsafe_fixes)
    if options.diff:
        return _fix_report(options, [outcome])
    # As ruff: the fixed source on standard output, the findings left on standard error.
    _write_bytes(outcome.new_data if outcome.changed and outcome.new_data is not None else data)
    return _fix_report(options, [outcome], report_to=sys.stderr)


def _write_bytes(data: bytes) -> None:
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        sys.stdout.flush()
        buffer.write(data)
        buffer.flush()
    else:  # a text-only stream (tests)
        sys.stdout.write(data.decode("utf-8", errors="replace"))
    sys.stdout.flush()


def _fix_report(options: Options, outcomes: list, report_to=None) -> int:  # list[fixing.FixOutcome]
    for outcome in outcomes:
        for warning in outcome.warnings:
            _warning(warning)
    errors = [outcome.error for outcome in outcomes if outcome.error is not None]
    for error in errors:
        _error(error)
    results = [outcome.result for outcome in outcomes]
    fixed = sum(outcome.fixed for outcome in outcomes if outcome.changed)
    if options.diff:
        sys.stdout.write("".join(outcome.diff for outcome in outcomes))
        sys.stdout.flush()
        if not options.quiet:
            would = (f"Would fix {fixed} error{'' if fixed == 1 else 's'}."
                     if fixed else "No errors would be fixed.")
            sys.stderr.write(would + "\n")
        code = _exit_code(options, results, findings_exit=False)
        if code == EXIT_ERROR or errors:
            return EXIT_ERROR
        changed = any(outcome.changed for outcome in outcomes)
        return EXIT_FINDINGS if changed and not options.exit_zero else EXIT_CLEAN
    stream = report_to or sys.stdout
    stream.write(render(options.output_format, results, quiet=options.quiet, unsafe_fixes=options.unsafe_fixes,
                        fixed=fixed))
    stream.flush()
    code = _exit_code(options, results)
    return EXIT_ERROR if errors else code


def _warning(message: str) -> None:
    try:
        sys.stderr.write(f"warning: {message}\n")
    except (OSError, ValueError):
        pass


def _exit_code(options: Options, results: list[FileResult], findings_exit: bool = True) -> int:
    failed = [result.path for result in results
              if any(violation.code == INTERNAL_ERROR for violation in result.violations)]
    if failed:
        _error(f"tapelsp failed internally on {len(failed)} file{'' if len(failed) == 1 else 's'} "
               f"({', '.join(str(path) for path in failed[:3])}{', ...' if len(failed) > 3 else ''}); "
               "see the TL004 findings")
        return EXIT_ERROR
    if findings_exit and any(result.violations for result in results):
        return EXIT_CLEAN if options.exit_zero else EXIT_FINDINGS
    return EXIT_CLEAN
