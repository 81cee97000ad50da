// Which Python runs the language server, and the command lines the extension runs with it.
// No `vscode` import: the Python extension is reached through a function handed in, so the
// order of the choices is tested under plain Node.
//
// The order follows Microsoft's Python tool extensions (black-formatter, pylint, isort):
// 1. `tapelsp.interpreter` when it is set: an explicit choice for this tool wins;
// 2. else the environment selected in the Python extension (`ms-python.python`), through its
//    API (`environments.getActiveEnvironmentPath` + `resolveEnvironment`);
// 3. else `python3` on PATH (`python` on Windows).
//
// What that interpreter runs depends on `tapelsp.importStrategy`, as in those extensions:
// - `useBundled` (the default): the tapelsp bundled in the extension (`bundled/libs`: tapelsp and
//   its pure-Python dependencies, and libcst's native modules in a platform's .vsix), first on
//   PYTHONPATH, so any Python >= 3.10 runs it with nothing installed there;
// - `fromEnvironment`: the tapelsp installed in the interpreter; when it is missing, the offer
//   is to install the wheel bundled in the extension (tapelsp is not on PyPI).

export type InterpreterSource = 'setting' | 'python-extension' | 'path';

export interface Interpreter {
    /** An absolute path, or a bare command looked up on PATH. */
    command: string;
    source: InterpreterSource;
}

export interface InterpreterInputs {
    /** `tapelsp.interpreter`, trimmed; empty when unset. */
    setting: string;
    /**
     * The Python extension's active interpreter for the workspace: undefined when the
     * extension is not installed or has no usable environment. May reject; that counts as
     * "no answer" and the next choice is taken.
     */
    pythonExtension?: () => Promise<string | undefined>;
    /** For `${workspaceFolder}`, `${userHome}` and `~` in the setting. */
    workspaceFolder?: string;
    userHome: string;
    platform: string;
}

export async function resolveInterpreter(inputs: InterpreterInputs): Promise<Interpreter> {
    if (inputs.setting) {
        return { command: expandVariables(inputs.setting, inputs), source: 'setting' };
    }
    if (inputs.pythonExtension) {
        let fromExtension: string | undefined;
        try {
            fromExtension = await inputs.pythonExtension();
        } catch {
            fromExtension = undefined;
        }
        if (fromExtension && fromExtension.trim()) {
            return { command: fromExtension.trim(), source: 'python-extension' };
        }
    }
    return { command: inputs.platform === 'win32' ? 'python' : 'python3', source: 'path' };
}

/** `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~`, as VS Code users write them. */
export function expandVariables(
    value: string,
    vars: { workspaceFolder?: string; userHome: string; env?: Record<string, string | undefined> },
): string {
    let out = value;
    if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
        out = vars.userHome + out.slice(1);
    }
    return out.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name, envName) => {
        if (name === 'userHome') return vars.userHome;
        if (name === 'workspaceFolder') return vars.workspaceFolder ?? whole;
        return (vars.env ?? process.env)[envName] ?? '';
    });
}

export interface CommandLine {
    command: string;
    args: string[];
    /** Variables to set for it, over the extension host's environment. */
    env?: Record<string, string>;
}

/** What the extension carries in `bundled/` (written by client/vscode/bundle.py). */
export interface Bundle {
    /** Absolute path of `bundled/libs`. */
    libs: string;
    /** Absolute path of the tapelsp wheel, for the `fromEnvironment` install offer. */
    wheel?: string;
    target: string;
    tapelsp: string;
    /** libcst's version and the Pythons it has native modules for; undefined in the universal .vsix. */
    libcst?: { version: string; pythons: string[] };
}

/** The bundle described by `bundled/manifest.json` (its text), or undefined when unreadable. */
export function readBundle(manifestText: string | undefined, bundledDir: string, join: (...parts: string[]) => string): Bundle | undefined {
    if (manifestText === undefined) return undefined;
    try {
        const manifest = JSON.parse(manifestText) as {
            target?: unknown; tapelsp?: unknown; wheel?: unknown; native?: Record<string, { version?: unknown; pythons?: unknown }>;
        };
        if (typeof manifest.target !== 'string' || typeof manifest.tapelsp !== 'string') return undefined;
        const libcst = manifest.native?.libcst;
        return {
            libs: join(bundledDir, 'libs'),
            wheel: typeof manifest.wheel === 'string' ? join(bundledDir, ...manifest.wheel.split('/')) : undefined,
            target: manifest.target,
            tapelsp: manifest.tapelsp,
            libcst: libcst && typeof libcst.version === 'string' && Array.isArray(libcst.pythons)
                ? { version: libcst.version, pythons: libcst.pythons.map(String) } : undefined,
        };
    } catch {
        return undefined;
    }
}

/** `bundled/libs` first on PYTHONPATH, before whatever the environment had there. */
export function bundledEnv(bundle: Bundle, existing: string | undefined, platform: string): Record<string, string> {
    const separator = platform === 'win32' ? ';' : ':';
    return { PYTHONPATH: existing ? `${bundle.libs}${separator}${existing}` : bundle.libs };
}

/**
 * The language server over stdio: `python -m tapelsp` (no `--check`), with the bundled tapelsp
 * first on PYTHONPATH when a bundle is given (its worker processes inherit it).
 */
export function serverCommand(interpreter: Interpreter, bundle?: Bundle, existingPath?: string, platform = 'linux'): CommandLine {
    return {
        command: interpreter.command,
        args: ['-m', 'tapelsp'],
        ...(bundle ? { env: bundledEnv(bundle, existingPath, platform) } : {}),
    };
}

/**
 * What the extension offers when tapelsp is missing from the interpreter (`fromEnvironment`):
 * pip of that same interpreter installs the wheel bundled in the extension (its dependencies
 * come from PyPI). Undefined without a bundled wheel: tapelsp is not on PyPI.
 */
export function installCommand(interpreter: Interpreter, bundle?: Bundle): CommandLine | undefined {
    if (!bundle?.wheel) return undefined;
    return { command: interpreter.command, args: ['-m', 'pip', 'install', bundle.wheel] };
}

/**
 * Asks the interpreter, without starting the server, whether it can run `python -m tapelsp`
 * as a language server, from where, and whether libcst (which builds the fixes) loads there:
 * prints one JSON line. Importing `tapelsp` never imports TensorFlow.
 */
export const CHECK_SCRIPT = [
    'import json, sys',
    'out = {"python": sys.executable, "pythonVersion": list(sys.version_info[:3])}',
    'try:',
    '    import tapelsp',
    '    out["tapelsp"] = getattr(tapelsp, "__version__", "?")',
    '    out["location"] = tapelsp.__file__',
    '    import importlib.util',
    '    out["server"] = importlib.util.find_spec("tapelsp.lsp") is not None',
    'except Exception as error:',
    '    out["tapelsp"] = None',
    '    out["error"] = f"{type(error).__name__}: {error}"',
    'try:',
    '    import libcst',
    '    out["libcst"] = getattr(libcst, "__version__", None) or "?"',
    'except Exception as error:',
    '    out["libcst"] = None',
    '    out["libcstError"] = f"{type(error).__name__}: {error}"',
    'print(json.dumps(out))',
].join('\n');

export function checkCommand(interpreter: Interpreter, bundle?: Bundle, existingPath?: string, platform = 'linux'): CommandLine {
    return {
        command: interpreter.command,
        args: ['-c', CHECK_SCRIPT],
        ...(bundle ? { env: bundledEnv(bundle, existingPath, platform) } : {}),
    };
}

export type CheckResult =
    | {
        kind: 'ready'; python: string; version: string; location?: string; pythonVersion: string;
        /** Why fixes cannot be built there (libcst does not load), or undefined when they can. */
        noFixes?: string;
    }
    | { kind: 'missing'; python: string; detail: string }
    | { kind: 'no-server'; python: string; version: string }
    | { kind: 'too-old-python'; python: string; pythonVersion: string }
    | { kind: 'broken'; detail: string };

/** Reads what `checkCommand` produced (or the error that kept it from running). */
export function readCheck(
    run: { spawnError?: string; exitCode: number | null; stdout: string; stderr: string },
    interpreter: Interpreter,
): CheckResult {
    if (run.spawnError) {
        return { kind: 'broken', detail: `cannot run ${interpreter.command}: ${run.spawnError}` };
    }
    const line = run.stdout.trim().split(/\r?\n/).pop() ?? '';
    let parsed: {
        python?: string; pythonVersion?: number[]; tapelsp?: string | null; server?: boolean; error?: string;
        location?: string; libcst?: string | null; libcstError?: string;
    };
    try {
        parsed = JSON.parse(line);
    } catch {
        const why = (run.stderr.trim() || run.stdout.trim() || `exit status ${run.exitCode}`).split(/\r?\n/).slice(-3).join(' ');
        return { kind: 'broken', detail: `${interpreter.command} did not answer as a Python interpreter: ${why}` };
    }
    const python = parsed.python || interpreter.command;
    const pyVersion = parsed.pythonVersion ?? [];
    if (pyVersion.length >= 2 && (pyVersion[0] < 3 || (pyVersion[0] === 3 && pyVersion[1] < 10))) {
        return { kind: 'too-old-python', python, pythonVersion: pyVersion.join('.') };
    }
    if (parsed.tapelsp === null || parsed.tapelsp === undefined) {
        return { kind: 'missing', python, detail: parsed.error ?? 'No module named tapelsp' };
    }
    if (!parsed.server) {
        return { kind: 'no-server', python, version: parsed.tapelsp };
    }
    const ready: CheckResult = { kind: 'ready', python, version: parsed.tapelsp, pythonVersion: pyVersion.join('.') };
    if (parsed.location) ready.location = parsed.location;
    if (parsed.libcst === null) ready.noFixes = parsed.libcstError ?? 'libcst is not installed';
    return ready;
}

/** The message for an interpreter that runs tapelsp but cannot build its fixes (no libcst). */
export function noFixesMessage(check: { python: string; pythonVersion: string; noFixes?: string },
    bundle: Bundle | undefined): string | undefined {
    if (check.noFixes === undefined) return undefined;
    const minor = check.pythonVersion.split('.').slice(0, 2).join('.');
    const why = bundle && !bundle.libcst
        ? 'the universal .vsix does not carry libcst, and the interpreter has none'
        : bundle?.libcst && !bundle.libcst.pythons.includes(minor)
            ? `the libcst bundled for ${bundle.target} has native modules for Python ${bundle.libcst.pythons.join(', ')}, not ${minor}`
            : 'libcst does not load in the interpreter';
    return `tapelsp finds problems, but its quick fixes need libcst: ${why} (${check.noFixes}). ` +
        `Install it with \`${check.python} -m pip install libcst\` and restart the server` +
        (bundle && !bundle.libcst ? ', or install the .vsix built for your platform.' : '.');
}

/**
 * The quick fix tapelsp's server offers, disabled, for a finding whose fix cannot be built for
 * want of libcst (its title `Fix CODE: needs libcst (...)`, its reason saying what to install).
 * VS Code does not list disabled quick fixes on Ctrl+., so the extension shows it enabled, running
 * `tapelsp.installLibcst` with the reason.
 */
export function isLibcstOffer(action: { title: string; disabled?: { reason: string } }): boolean {
    return action.disabled !== undefined && /^Fix \S+: needs libcst\b/.test(action.title) && /libcst/.test(action.disabled.reason);
}

/** pip of the server's interpreter installs libcst (from PyPI), for the fixes. */
export function libcstInstallCommand(interpreter: Interpreter): CommandLine {
    return { command: interpreter.command, args: ['-m', 'pip', 'install', 'libcst'] };
}

/**
 * The Python extension's API, as much of it as tapelsp uses (typed here rather than taken
 * from `@vscode/python-extension`, which would add a dependency for three members).
 */
export interface PythonEnvironmentsApi {
    getActiveEnvironmentPath(resource?: unknown): { id: string; path: string };
    resolveEnvironment(environment: { id: string; path: string } | string):
        Promise<{ executable: { uri?: { fsPath: string } } } | undefined>;
    onDidChangeActiveEnvironmentPath(listener: (event: unknown) => unknown): { dispose(): unknown };
}

/** The interpreter the Python extension has selected, resolved to its executable. */
export async function activeInterpreterPath(api: PythonEnvironmentsApi, resource?: unknown): Promise<string | undefined> {
    const active = api.getActiveEnvironmentPath(resource);
    const resolved = await api.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath ?? undefined;
}
