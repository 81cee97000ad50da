"""Per file: which configuration applies, whether it is excluded, and its `Settings`.

Command-line options override the configuration key by key: `--select`
replaces `select`, `--ignore` replaces `ignore`, `--extend-select` replaces
`extend-select`, `--exclude` replaces `exclude` (`--extend-exclude` adds to it),
`--tensorflow-version` replaces `tensorflow-version`. Command-line globs are
relative to the working directory; configuration globs to the configuration's
directory. `per-file-ignores` are folded into the file's `ignore` list, so the
engine receives exactly the rules that apply to that file.
"""

from __future__ import annotations

import os

from ..settings import Settings, Targets
from .args import Options
from .config import ConfigLocator, ProjectConfig, load_pyproject
from .globs import GlobSet


def absolute(path: str, cwd: str | None = None) -> str:
    """`path` made absolute against `cwd` (default: the process's), normalised, POSIX separators."""
    full = os.path.normpath(os.path.join(cwd, path)) if cwd is not None else os.path.abspath(path)
    return full.replace(os.sep, "/")


class Resolver:
    def __init__(self, options: Options, cwd: str | None = None) -> None:
        self.options = options
        self.cwd = absolute(cwd or os.getcwd())
        # Every file's path is made absolute several times (exclusion, configuration, display).
        self._absolute: dict[str, str] = {}
        self._locator = ConfigLocator()
        # --config replaces discovery; ConfigError here ends the run with exit 2.
        self._fixed: ProjectConfig | None = (load_pyproject(self.absolute(options.config), required=True)
                                             if options.config is not None else None)
        self._targets: dict[tuple, Targets] = {}

    def absolute(self, path: str) -> str:
        """A path from the command line, absolute against this run's working directory."""
        found = self._absolute.get(path)
        if found is None:
            found = self._absolute[path] = absolute(path, self.cwd)
        return found

    # -- configuration ------------------------------------------------------------
    def config_for_directory(self, directory: str) -> ProjectConfig | None:
        if self.options.isolated:
            return None
        if self._fixed is not None:
            return self._fixed
        return self._locator.for_directory(directory)

    def config_for_file(self, path: str) -> ProjectConfig | None:
        return self.config_for_directory(os.path.dirname(self.absolute(path)))

    def project_root(self, path: str) -> str:
        """The root of the project `path` belongs to, for reading its other modules: the
        directory of the configuration that applies to it, else this run's working directory
        when the file is under it (and it is not the filesystem's root), else the file's own
        directory."""
        full = self.absolute(path)
        config = self.config_for_file(full)
        if config is not None:
            return config.root
        if full.startswith(self.cwd.rstrip("/") + "/") and os.path.dirname(self.cwd) != self.cwd:
            return self.cwd
        # Not under the working directory, or that is the filesystem's root (a run from `/`
        # would index every Python file of the machine): the file's own directory.
        return os.path.dirname(full)

    # -- exclusion ----------------------------------------------------------------
    def _exclusions(self, config: ProjectConfig | None) -> list[GlobSet]:
        sets = []
        if self.options.exclude is not None:
            sets.append(GlobSet(self.cwd, self.options.exclude))
        elif config is not None and config.exclude:
            sets.append(GlobSet(config.root, config.exclude))
        if self.options.extend_exclude:
            sets.append(GlobSet(self.cwd, self.options.extend_exclude))
        return sets

    def excluded_by(self, path: str, *, parents: bool = True) -> str | None:
        """The glob that excludes `path` (a file or a directory), or None.

        `parents=False` looks at the path itself only: the walker uses it, having
        pruned excluded directories already.
        """
        path = self.absolute(path)
        for globs in self._exclusions(self.config_for_file(path)):
            pattern = globs.match(path, parents=parents)
            if pattern is not None:
                return pattern
        return None

    # -- settings -----------------------------------------------------------------
    def settings_for(self, path: str | None) -> Settings:
        """The settings for a file; `path` None is unnamed standard input (configuration of the cwd)."""
        options = self.options
        config = (self.config_for_file(path) if path is not None
                  else self.config_for_directory(self.cwd))

        def pick(cli: tuple[str, ...] | None, configured: tuple[str, ...] | None) -> tuple[str, ...]:
            if cli is not None:
                return cli
            return configured or ()

        select = pick(options.select, config.select if config else None)
        ignore = pick(options.ignore, config.ignore if config else None)
        extend_select = pick(options.extend_select, config.extend_select if config else None)
        if config is not None and path is not None and config.per_file_ignores:
            file = self.absolute(path)
            for glob, codes in config.per_file_ignores:
                if GlobSet(config.root, (glob,)).match(file) is not None:
                    ignore += tuple(code for code in codes if code not in ignore)
        return Settings(
            select=select, ignore=ignore, extend_select=extend_select,
            tensorflow_version=options.tensorflow_version or (config.tensorflow_version if config else None),
            keras_version=config.keras_version if config else None,
            tensorflow_probability_version=config.tensorflow_probability_version if config else None,
        )

    def targets_for(self, settings: Settings) -> Targets:
        key = (settings.tensorflow_version, settings.keras_version, settings.tensorflow_probability_version)
        if key not in self._targets:
            self._targets[key] = settings.targets()
        return self._targets[key]

    # -- display ------------------------------------------------------------------
    def display(self, path: str) -> str:
        """How a path is shown: relative to the working directory when inside it, else absolute."""
        full = self.absolute(path)
        prefix = self.cwd if self.cwd.endswith("/") else self.cwd + "/"
        if full.startswith(prefix):
            return full[len(prefix):]
        return full
