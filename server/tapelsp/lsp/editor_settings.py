"""Settings from the editor, merged with the project's `[tool.tapelsp]` configuration.

The editor sends an object (in `initializationOptions`, `workspace/didChangeConfiguration`
or as the `tapelsp` section of `workspace/configuration`):

    {"select": ["TAPE", "FUNC001"], "ignore": ["MAP002"], "extendSelect": [],
     "severity": {"TAPE001": "warning", "MAP": "hint"},
     "tensorflowVersion": "2.15", "configuration": "/path/to/pyproject.toml",
     "ignoreConfiguration": false,
     "probe": {"enabled": false, "timeout": 60, "python": "/path/to/python", "autoAttach": false},
     "workspaceTrusted": true}

`probe` configures the live probe (`probing`): it runs only when `enabled` is true and the
workspace is trusted. `workspaceTrusted` is the client's word on that (VS Code sends
`workspace.isTrusted`); a client that says nothing is trusted only when the user enabled
the probe explicitly.

Keys may also be nested under a `tapelsp` key. Each editor setting that is given
overrides the same key of the project configuration, exactly as the command line's
options do: the project configuration is found and merged by the CLI's own `Resolver`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from ..cli.args import Options
from ..cli.config import ConfigError, parse_selectors, parse_version
from ..cli.resolve import Resolver
from ..model import Severity
from ..settings import Settings

KNOWN_KEYS = ("select", "ignore", "extendSelect", "severity", "tensorflowVersion", "configuration",
              "ignoreConfiguration", "probe", "debounce", "workspaceTrusted",
              "serverCommands")
PROBE_KEYS = ("enabled", "timeout", "python", "autoAttach")


@dataclass(frozen=True)
class EditorSettings:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    severity: tuple[tuple[str, Severity], ...] = ()
    tensorflow_version: str | None = None
    configuration: str | None = None
    ignore_configuration: bool = False
    # The live probe's settings, checked (see `probe_settings`); it runs in a process of its own.
    probe: tuple[tuple[str, Any], ...] = ()
    workspace_trusted: bool | None = None
    # Seconds to wait after a change before analysing (None: the server's default).
    debounce: float | None = None


@dataclass(frozen=True)
class Parsed:
    settings: EditorSettings
    # One message per value that was not understood (the rest still applies).
    problems: tuple[str, ...] = field(default_factory=tuple)


def parse_editor_settings(raw: Any) -> Parsed:
    """Editor settings from whatever the client sent; bad values are reported and skipped."""
    if isinstance(raw, dict) and isinstance(raw.get("tapelsp"), dict):
        raw = raw["tapelsp"]
    if raw is None:
        return Parsed(EditorSettings())
    if not isinstance(raw, dict):
        return Parsed(EditorSettings(), (f"tapelsp settings must be an object, got {type(raw).__name__}",))
    values: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in raw.items():
        if value is None:
            continue
        try:
            _read(key, value, values)
        except ValueError as error:
            problems.append(str(error))
    return Parsed(EditorSettings(**values), tuple(problems))


def _read(key: str, value: Any, values: dict[str, Any]) -> None:
    if key in ("select", "ignore", "extendSelect"):
        if isinstance(value, str):
            value = [part for part in value.split(",")]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError(f"tapelsp.{key}: expected a list of rule codes or prefixes")
        name = "extend_select" if key == "extendSelect" else key
        values[name] = parse_selectors(value, f"tapelsp.{key}")
    elif key == "severity":
        if not isinstance(value, dict):
            raise ValueError("tapelsp.severity: expected an object of code or prefix -> severity")
        pairs = []
        for raw_code, level in value.items():
            codes = parse_selectors([str(raw_code)], "tapelsp.severity")
            if not codes or not isinstance(level, str):
                raise ValueError(f"tapelsp.severity.{raw_code}: expected a rule code or prefix mapped to "
                                 "error, warning, information or hint")
            pairs.append((codes[0], Severity.parse(level)))
        values["severity"] = tuple(pairs)
    elif key == "tensorflowVersion":
        if not isinstance(value, str):
            raise ValueError("tapelsp.tensorflowVersion: expected a version string like \"2.15\"")
        values["tensorflow_version"] = parse_version(value, "tapelsp.tensorflowVersion")
    elif key == "configuration":
        if not isinstance(value, str):
            raise ValueError("tapelsp.configuration: expected the path of a pyproject.toml")
        values["configuration"] = os.path.expanduser(value) if value.strip() else None
    elif key == "ignoreConfiguration":
        if not isinstance(value, bool):
            raise ValueError("tapelsp.ignoreConfiguration: expected true or false")
        values["ignore_configuration"] = value
    elif key == "probe":
        if not isinstance(value, dict):
            raise ValueError("tapelsp.probe: expected an object")
        for name, item in value.items():
            _check_probe(name, item)
        values["probe"] = tuple(sorted(((k, v) for k, v in value.items() if v is not None),
                                       key=lambda item: str(item[0])))
    elif key == "serverCommands":
        if not isinstance(value, bool):  # read at initialize only (see `capabilities`)
            raise ValueError("tapelsp.serverCommands: expected true or false")
    elif key == "workspaceTrusted":
        if not isinstance(value, bool):
            raise ValueError("tapelsp.workspaceTrusted: expected true or false")
        values["workspace_trusted"] = value
    elif key == "debounce":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 10_000:
            raise ValueError("tapelsp.debounce: expected milliseconds between 0 and 10000")
        values["debounce"] = value / 1000.0
    else:
        raise ValueError(f"tapelsp.{key}: unknown setting (known: {', '.join(KNOWN_KEYS)})")


def _check_probe(name: Any, value: Any) -> None:
    if value is None:
        return
    if name in ("enabled", "autoAttach"):
        if not isinstance(value, bool):
            raise ValueError(f"tapelsp.probe.{name}: expected true or false")
    elif name == "timeout":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 24 * 3600:
            raise ValueError("tapelsp.probe.timeout: expected a number of seconds above 0")
    elif name == "python":
        if not isinstance(value, str):
            raise ValueError("tapelsp.probe.python: expected the path of a Python interpreter")
    else:
        raise ValueError(f"tapelsp.probe.{name}: unknown setting (known: {', '.join(PROBE_KEYS)})")


@dataclass(frozen=True)
class ProbeSettings:
    enabled: bool = False
    timeout: float = 60.0
    python: str | None = None  # the kernel's interpreter (None: the one running the server)
    auto_attach: bool = False
    trusted: bool = False  # the workspace may run code (see the module's docstring)


def probe_settings(editor: EditorSettings) -> ProbeSettings:
    """The probe's settings; a bad value was reported when the settings arrived, and is ignored."""
    raw = dict(editor.probe)
    values: dict[str, Any] = {}
    for name, value in raw.items():
        try:
            _check_probe(name, value)
        except ValueError:
            continue
        values[name] = value
    enabled = values.get("enabled") is True
    python = values.get("python")
    trusted = editor.workspace_trusted if editor.workspace_trusted is not None else enabled
    return ProbeSettings(enabled=enabled, timeout=float(values.get("timeout", 60.0)),
                         python=os.path.expanduser(python) if isinstance(python, str) and python.strip() else None,
                         auto_attach=values.get("autoAttach") is True, trusted=trusted)


class SettingsResolver:
    """Per file: the engine `Settings` from the editor's settings and the project configuration.

    A configuration file that is broken does not stop analysis: `problem` says what is
    wrong, and the editor's settings apply alone until the file is fixed.
    """

    def __init__(self, editor: EditorSettings, root: str | None) -> None:
        self.editor = editor
        self.root = root or os.getcwd()
        self.problem: str | None = None
        # The configuration files used so far, with (mtime, size) when first used: clients
        # that cannot watch files still get an edited pyproject.toml picked up.
        self._stamps: dict[str, tuple[int, int] | None] = {}
        options = Options(select=editor.select, ignore=editor.ignore, extend_select=editor.extend_select,
                          tensorflow_version=editor.tensorflow_version,
                          config=editor.configuration if not editor.ignore_configuration else None,
                          isolated=editor.ignore_configuration)
        try:
            self._resolver: Resolver = Resolver(options, cwd=self.root)
        except ConfigError as error:
            self.problem = str(error)
            self._resolver = Resolver(replace(options, config=None, isolated=True), cwd=self.root)

    def settings_for(self, path: str | None) -> Settings:
        try:
            settings = self._resolver.settings_for(path)
        except ConfigError as error:
            self.problem = str(error)
            settings = self._isolated().settings_for(path)
        if self.editor.severity:
            settings = replace(settings, severity_overrides=self.editor.severity)
        used = self.configuration_file(path)
        if used is not None and used not in self._stamps:
            self._stamps[used] = _stamp(used)
        return settings

    def stale(self) -> bool:
        """Whether a configuration file used so far changed on disk since."""
        return any(_stamp(path) != stamp for path, stamp in self._stamps.items())

    def excluded(self, path: str | None) -> bool:
        if path is None:
            return False
        try:
            return self._resolver.excluded_by(path) is not None
        except ConfigError as error:
            self.problem = str(error)
            return False

    def configuration_file(self, path: str | None) -> str | None:
        """The pyproject.toml whose `[tool.tapelsp]` applies to `path`, if any."""
        try:
            config = (self._resolver.config_for_file(path) if path is not None
                      else self._resolver.config_for_directory(self.root))
        except ConfigError:
            return None
        return config.path if config is not None else None

    def _isolated(self) -> Resolver:
        options = replace(self._resolver.options, config=None, isolated=True)
        return Resolver(options, cwd=self.root)


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)
