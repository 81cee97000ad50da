"""The command line: its options, parsed into one `Options` value."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

from .config import parse_selectors, parse_version
from .probe_option import ProbeOptions, add_arguments as add_probe_arguments, from_namespace as probe_options

OUTPUT_FORMATS = ("text", "json", "sarif", "github")


class UsageError(Exception):
    """The command line asks for something impossible; exit 2."""


@dataclass(frozen=True)
class Options:
    check: bool = False
    paths: tuple[str, ...] = ()
    output_format: str = "text"
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    stdin_filename: str | None = None
    exit_zero: bool = False
    tensorflow_version: str | None = None
    config: str | None = None
    isolated: bool = False
    jobs: int | None = None
    # The results cache (cli/cache.py): on unless --no-cache; --cache-dir moves it.
    no_cache: bool = False
    cache_dir: str | None = None
    quiet: bool = False
    list_rules: bool = False
    explain: str | None = None
    # --values FILE[:LINES]: what the value model thinks each name there holds.
    values: str | None = None
    version: bool = False
    # Language server transport (used when --check is not given): None means stdio.
    tcp: int | None = None
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    # --probe, --python, --probe-timeout (cli/probe_option.py).
    probe: ProbeOptions = ProbeOptions()

    @property
    def fixing(self) -> bool:
        """--fix or --diff: fixes are applied (in memory for --diff)."""
        return self.fix or self.diff

    @property
    def reads_stdin(self) -> bool:
        return self.paths == ("-",) or (not self.paths and self.stdin_filename is not None)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of jobs, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"the number of jobs must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port number is between 1 and 65535, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tapelsp",
        description="Find TensorFlow GradientTape, tf.function and tf.map_fn mistakes.",
        epilog="Exit status: 0 no findings, 1 findings, 2 usage, configuration or internal error. "
               "With --fix: 0 when every finding was fixed, 1 when some are left. "
               "With --diff: 0 when nothing would change, 1 when something would.",
    )
    modes = parser.add_argument_group("what to do")
    modes.add_argument("--check", action="store_true",
                       help="check files, directories (recursively) or `-` for standard input")
    modes.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    modes.add_argument("--explain", metavar="CODE", help="show the documentation of one rule and exit")
    modes.add_argument("--values", metavar="FILE[:LINES]",
                       help="show what tapelsp infers each name on those lines holds (LINES: 12 or 10-20; all "
                            "lines without) and exit")
    modes.add_argument("--version", action="store_true", help="print the version and exit")
    modes.add_argument("--stdio", action="store_true",
                       help="serve the Language Server Protocol on standard input/output (the default without --check)")
    modes.add_argument("--tcp", type=_port, metavar="PORT",
                       help="serve the Language Server Protocol on 127.0.0.1:PORT instead (for debugging)")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or directories to check (default: the current directory); `-` reads stdin")

    selection = parser.add_argument_group("rule selection (overrides the configuration)")
    selection.add_argument("--select", action="append", metavar="CODES",
                           help="comma-separated rule codes or prefixes to enable (ALL for every rule)")
    selection.add_argument("--ignore", action="append", metavar="CODES",
                           help="comma-separated rule codes or prefixes to disable")
    selection.add_argument("--extend-select", action="append", metavar="CODES",
                           help="comma-separated rule codes or prefixes to enable on top of --select")

    files = parser.add_argument_group("files")
    files.add_argument("--exclude", action="append", metavar="GLOBS",
                       help="comma-separated globs to skip (replaces `exclude` from the configuration)")
    files.add_argument("--extend-exclude", action="append", metavar="GLOBS",
                       help="comma-separated globs to skip in addition to `exclude`")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply exclusions even to paths named on the command line")
    files.add_argument("--stdin-filename", metavar="NAME",
                       help="the file name standard input stands for (picks notebook handling, "
                            "configuration and per-file-ignores)")

    config = parser.add_argument_group("configuration")
    config.add_argument("--config", metavar="PATH",
                        help="use this pyproject.toml instead of finding one next to each file")
    config.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    config.add_argument("--tensorflow-version", metavar="X.Y",
                        help="check against this TensorFlow version (overrides the configuration)")

    fixes = parser.add_argument_group("fixes")
    fixes.add_argument("--fix", action="store_true",
                       help="apply the safe fixes to the files (unsafe ones too with --unsafe-fixes)")
    fixes.add_argument("--unsafe-fixes", action="store_true",
                       help="also apply (with --fix/--diff) and show fixes that may change behaviour")
    fixes.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff and change no file "
                            "(exit 1 when there would be changes)")

    output = parser.add_argument_group("output")
    output.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text",
                        help="how findings are printed (default: text)")
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    output.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    output.add_argument("-j", "--jobs", type=_positive_int, metavar="N",
                        help="worker processes (default: the number of CPU cores)")
    output.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the results cache")
    output.add_argument("--cache-dir", metavar="DIR",
                        help="where the results cache lives (default: .tapelsp_cache in the current directory)")
    add_probe_arguments(parser)
    return parser


def _split(values: list[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def parse_args(argv: list[str] | None = None) -> Options:
    """Options from `argv`; argparse exits 2 on malformed input, UsageError covers the rest."""
    namespace = build_parser().parse_args(argv)
    try:
        select = _selectors(namespace.select, "--select")
        ignore = _selectors(namespace.ignore, "--ignore")
        extend_select = _selectors(namespace.extend_select, "--extend-select")
        tensorflow_version = (parse_version(namespace.tensorflow_version, "--tensorflow-version")
                              if namespace.tensorflow_version is not None else None)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if namespace.stdio and namespace.tcp is not None:
        raise UsageError("--stdio and --tcp cannot be used together")
    if (namespace.stdio or namespace.tcp is not None) and namespace.check:
        raise UsageError("--stdio/--tcp start the language server; they cannot be combined with --check")
    if namespace.config is not None and namespace.isolated:
        raise UsageError("--config and --isolated cannot be used together")
    if (namespace.fix or namespace.diff or namespace.unsafe_fixes) and not namespace.check:
        raise UsageError("--fix, --diff and --unsafe-fixes go with --check (`tapelsp --check --fix PATHS`)")
    paths = tuple(namespace.paths)
    if "-" in paths and len(paths) > 1:
        raise UsageError("`-` (standard input) cannot be combined with other paths")
    return Options(
        check=namespace.check, paths=paths, output_format=namespace.output_format,
        select=select, ignore=ignore, extend_select=extend_select,
        exclude=_split(namespace.exclude), extend_exclude=_split(namespace.extend_exclude) or (),
        force_exclude=namespace.force_exclude, stdin_filename=namespace.stdin_filename,
        exit_zero=namespace.exit_zero, tensorflow_version=tensorflow_version,
        config=namespace.config, isolated=namespace.isolated, jobs=namespace.jobs,
        no_cache=namespace.no_cache, cache_dir=namespace.cache_dir,
        quiet=namespace.quiet, list_rules=namespace.list_rules, explain=namespace.explain, values=namespace.values,
        version=namespace.version, tcp=namespace.tcp,
        fix=namespace.fix, unsafe_fixes=namespace.unsafe_fixes, diff=namespace.diff,
        probe=probe_options(namespace),
    )


def _selectors(values: list[str] | None, option: str) -> tuple[str, ...] | None:
    split = _split(values)
    return None if split is None else parse_selectors(split, option)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
