// The extension's settings (`tapelsp.*`), read through a getter so that this module has no
// dependency on `vscode` and runs under plain Node in the unit tests.
//
// Two kinds of settings live here:
// - client settings: `enable`, `interpreter`, `importStrategy`, `showNotifications` (and `trace.server`,
//   which vscode-languageclient reads itself). They decide how the server is started and
//   which notifications are shown; the server never sees them.
// - server settings: `select`, `ignore`, `severity`, `tensorflowVersion`, `probe.*` (and the
//   workspace's trust, which is not a setting but goes with them). They are
//   sent as `initializationOptions`, as the `tapelsp` section of `workspace/configuration`
//   and in `workspace/didChangeConfiguration`, always in the shape that the server's
//   `tapelsp.lsp.editor_settings` reads (camelCase keys, unset values left out).

export type SeverityName = 'error' | 'warning' | 'information' | 'hint';
export type NotificationLevel = 'off' | 'onError' | 'onWarning' | 'always';
/**
 * Where the server's Python code comes from: the copy bundled in the extension (tapelsp and its
 * dependencies, run by the chosen interpreter with nothing installed there), or the tapelsp
 * installed in that interpreter. The names are those of Microsoft's Python tool extensions.
 */
export type ImportStrategy = 'useBundled' | 'fromEnvironment';

export interface Settings {
    enable: boolean;
    interpreter: string;
    importStrategy: ImportStrategy;
    select: string[];
    ignore: string[];
    severity: Record<string, SeverityName>;
    tensorflowVersion: string;
    probe: { enable: boolean; timeout: number; autoAttach: boolean };
    showNotifications: NotificationLevel;
}

/** What the server's `editor_settings.parse_editor_settings` reads. */
export interface ServerSettings {
    select?: string[];
    ignore?: string[];
    severity?: Record<string, SeverityName>;
    tensorflowVersion?: string;
    probe: { enabled: boolean; timeout: number; autoAttach: boolean };
    /** `vscode.workspace.isTrusted`: the server never probes an untrusted workspace. */
    workspaceTrusted: boolean;
    /**
     * The extension has its own `tapelsp.probe` command: the server must not advertise its
     * `workspace/executeCommand` commands (the language client would register the same name).
     */
    serverCommands: false;
}

export const DEFAULTS: Settings = {
    enable: true,
    interpreter: '',
    importStrategy: 'useBundled',
    select: [],
    ignore: [],
    severity: {},
    tensorflowVersion: '',
    probe: { enable: false, timeout: 60, autoAttach: false },
    showNotifications: 'onWarning',
};

const SEVERITIES: readonly SeverityName[] = ['error', 'warning', 'information', 'hint'];
const SEVERITY_ALIASES: Record<string, SeverityName> = { info: 'information', warn: 'warning' };
const LEVELS: readonly NotificationLevel[] = ['off', 'onError', 'onWarning', 'always'];
const STRATEGIES: readonly ImportStrategy[] = ['useBundled', 'fromEnvironment'];

/** Reads one key below `tapelsp.` (e.g. `select`, `probe.timeout`); undefined when unset. */
export type Getter = (key: string) => unknown;

/**
 * The settings, with every value checked: a value of the wrong type falls back to the
 * default (VS Code validates settings.json only by showing squiggles, so anything can come).
 * `problems` says what was ignored, for the output channel.
 */
export function readSettings(get: Getter): { settings: Settings; problems: string[] } {
    const problems: string[] = [];
    const bool = (key: string, fallback: boolean): boolean => {
        const value = get(key);
        if (value === undefined || value === null) return fallback;
        if (typeof value === 'boolean') return value;
        problems.push(`tapelsp.${key}: expected true or false`);
        return fallback;
    };
    const text = (key: string): string => {
        const value = get(key);
        if (value === undefined || value === null) return '';
        if (typeof value === 'string') return value.trim();
        problems.push(`tapelsp.${key}: expected a string`);
        return '';
    };
    const codes = (key: string): string[] => {
        const value = get(key);
        if (value === undefined || value === null) return [];
        // A comma-separated string is what people type in the settings UI's text box.
        const items = typeof value === 'string' ? value.split(',') : value;
        if (!Array.isArray(items) || !items.every((item) => typeof item === 'string')) {
            problems.push(`tapelsp.${key}: expected a list of rule codes or prefixes`);
            return [];
        }
        const seen = new Set<string>();
        for (const item of items as string[]) {
            const code = item.trim().toUpperCase();
            if (code) seen.add(code);
        }
        return [...seen];
    };
    const severity = (): Record<string, SeverityName> => {
        const value = get('severity');
        if (value === undefined || value === null) return {};
        if (typeof value !== 'object' || Array.isArray(value)) {
            problems.push('tapelsp.severity: expected an object of code or prefix -> severity');
            return {};
        }
        const out: Record<string, SeverityName> = {};
        for (const [code, level] of Object.entries(value as Record<string, unknown>)) {
            const name = typeof level === 'string' ? level.trim().toLowerCase() : '';
            const parsed = (SEVERITIES as readonly string[]).includes(name)
                ? (name as SeverityName) : SEVERITY_ALIASES[name];
            if (!code.trim() || parsed === undefined) {
                problems.push(`tapelsp.severity.${code}: expected error, warning, information or hint`);
                continue;
            }
            out[code.trim().toUpperCase()] = parsed;
        }
        return out;
    };
    const timeout = (): number => {
        const value = get('probe.timeout');
        if (value === undefined || value === null) return DEFAULTS.probe.timeout;
        if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
        problems.push('tapelsp.probe.timeout: expected a positive number of seconds');
        return DEFAULTS.probe.timeout;
    };
    /** One of `values`; anything else falls back to `fallback` (and is reported). */
    const choice = <T extends string>(key: string, values: readonly T[], fallback: T): T => {
        const value = get(key);
        if (value === undefined || value === null) return fallback;
        if ((values as readonly unknown[]).includes(value)) return value as T;
        problems.push(`tapelsp.${key}: expected one of ${values.join(', ')}`);
        return fallback;
    };
    const settings: Settings = {
        enable: bool('enable', DEFAULTS.enable),
        interpreter: text('interpreter'),
        importStrategy: choice('importStrategy', STRATEGIES, DEFAULTS.importStrategy),
        select: codes('select'),
        ignore: codes('ignore'),
        severity: severity(),
        tensorflowVersion: text('tensorflowVersion'),
        probe: {
            enable: bool('probe.enable', DEFAULTS.probe.enable),
            timeout: timeout(),
            autoAttach: bool('probe.autoAttach', DEFAULTS.probe.autoAttach),
        },
        showNotifications: choice('showNotifications', LEVELS, DEFAULTS.showNotifications),
    };
    return { settings, problems };
}

/**
 * The object the server gets. An empty list or string means "not set here": it is left out,
 * so that `[tool.tapelsp]` in pyproject.toml applies (the server lets every key it is given
 * override the project's configuration, and `select: []` would select nothing).
 */
export function toServerSettings(settings: Settings, workspaceTrusted: boolean): ServerSettings {
    const out: ServerSettings = {
        probe: { enabled: settings.probe.enable, timeout: settings.probe.timeout, autoAttach: settings.probe.autoAttach },
        workspaceTrusted,
        serverCommands: false,
    };
    if (settings.select.length) out.select = [...settings.select];
    if (settings.ignore.length) out.ignore = [...settings.ignore];
    if (Object.keys(settings.severity).length) out.severity = { ...settings.severity };
    if (settings.tensorflowVersion) out.tensorflowVersion = settings.tensorflowVersion;
    return out;
}

/** What a change of configuration asks of the running server. */
export type ChangeAction = 'none' | 'notify' | 'restart';

/**
 * `affects(section)` is VS Code's `ConfigurationChangeEvent.affectsConfiguration`.
 * A new interpreter, import strategy or enable flag needs a new server process; anything else the server
 * takes through `workspace/didChangeConfiguration`. Trace and notification levels are read
 * by the client alone.
 */
export function changeAction(affects: (section: string) => boolean): ChangeAction {
    if (affects('tapelsp.enable') || affects('tapelsp.interpreter') || affects('tapelsp.importStrategy')) return 'restart';
    for (const key of ['select', 'ignore', 'severity', 'tensorflowVersion', 'probe']) {
        if (affects(`tapelsp.${key}`)) return 'notify';
    }
    return 'none';
}

/** LSP `MessageType`: 1 error, 2 warning, 3 info, 4 log (5 debug). */
export function shouldNotify(messageType: number, level: NotificationLevel): boolean {
    switch (level) {
        case 'off':
            return false;
        case 'onError':
            return messageType === 1;
        case 'onWarning':
            return messageType === 1 || messageType === 2;
        case 'always':
            return messageType >= 1 && messageType <= 3;
    }
}
