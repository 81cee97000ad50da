// Which Python runs the language server, and the command lines the extension runs with it.
// No `vscode` import: the Python extension is reached through a function handed in, so the
// order of the choices is tested under plain Node.
//
// The order follows Microsoft's Python tool extensions (black-formatter, pylint, isort):
// 1. `tapelsp.interpreter` when it is set: an explicit choice for this tool wins;
// 2. else the environment selected in the Python extension (`ms-python.python`), through its
//    API (`environments.getActiveEnvironmentPath` + `resolveEnvironment`);
// 3. else `python3` on PATH (`python` on Windows).

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
}

/** The language server over stdio: `python -m tapelsp` (no `--check`). */
export function serverCommand(interpreter: Interpreter): CommandLine {
    return { command: interpreter.command, args: ['-m', 'tapelsp'] };
}

/** What the extension offers when tapelsp is missing: install it into that same interpreter. */
export function installCommand(interpreter: Interpreter): CommandLine {
    return { command: interpreter.command, args: ['-m', 'pip', 'install', 'tapelsp'] };
}

/**
 * Asks the interpreter, without starting the server, whether it can run `python -m tapelsp`
 * as a language server: prints one JSON line. Importing `tapelsp` never imports TensorFlow.
 */
export const CHECK_SCRIPT = [
    'import json, sys',
    'out = {"python": sys.executable, "pythonVersion": list(sys.version_info[:3])}',
    'try:',
    '    import tapelsp',
    '    out["tapelsp"] = getattr(tapelsp, "__version__", "?")',
    '    import importlib.util',
    '    out["server"] = importlib.util.find_spec("tapelsp.lsp") is not None',
    'except ImportError as error:',
    '    out["tapelsp"] = None',
    '    out["error"] = str(error)',
    'print(json.dumps(out))',
].join('\n');

export function checkCommand(interpreter: Interpreter): CommandLine {
    return { command: interpreter.command, args: ['-c', CHECK_SCRIPT] };
}

export type CheckResult =
    | { kind: 'ready'; python: string; version: string }
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
    let parsed: { python?: string; pythonVersion?: number[]; tapelsp?: string | null; server?: boolean; error?: string };
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
    return { kind: 'ready', python, version: parsed.tapelsp };
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
