import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
    DidChangeConfigurationNotification,
    LanguageClient,
    LanguageClientOptions,
    RevealOutputChannelOn,
    ShowMessageNotification,
    State,
    type Executable,
} from 'vscode-languageclient/node';

import {
    activeInterpreterPath,
    checkCommand,
    installCommand,
    isLibcstOffer,
    libcstInstallCommand,
    noFixesMessage,
    readBundle,
    readCheck,
    resolveInterpreter,
    serverCommand,
    type Bundle,
    type CheckResult,
    type CommandLine,
    type Interpreter,
    type PythonEnvironmentsApi,
} from './interpreter';
import { markRuntime } from './runtime';
import { DOCUMENT_SELECTOR, notebookCells } from './selectors';
import { changeAction, readSettings, shouldNotify, toServerSettings, type Settings } from './settings';
import { Status } from './status';
import { TraceChannel } from './traceChannel';

const PYTHON_EXTENSION = 'ms-python.python';

export function currentSettings(scope?: vscode.ConfigurationScope): { settings: Settings; problems: string[] } {
    const config = vscode.workspace.getConfiguration('tapelsp', scope);
    return readSettings((key) => config.get(key));
}

/** `bundled/` of the installed extension, undefined when it has none (a build without it). */
export function loadBundle(extensionPath: string): Bundle | undefined {
    const dir = path.join(extensionPath, 'bundled');
    let text: string | undefined;
    try {
        text = readFileSync(path.join(dir, 'manifest.json'), 'utf8');
    } catch {
        text = undefined;
    }
    return readBundle(text, dir, path.join);
}

/**
 * Owns the language client: finds the interpreter, checks that it runs tapelsp (the bundled
 * one, or its own with `tapelsp.importStrategy: fromEnvironment`), starts `python -m tapelsp`,
 * restarts it when the interpreter, the import strategy or `tapelsp.enable` changes, and
 * forwards every other settings change to the running server.
 */
export class ServerManager implements vscode.Disposable {
    readonly status = new Status();
    readonly bundle: Bundle | undefined;
    private client: LanguageClient | undefined;
    private interpreter: Interpreter | undefined;
    private readonly trace: TraceChannel;
    private readonly disposables: vscode.Disposable[] = [];
    private pythonListener: vscode.Disposable | undefined;
    /** Restarts run one after another; each waits for the one before. */
    private queue: Promise<void> = Promise.resolve();
    private stopping = false;

    constructor(readonly output: vscode.LogOutputChannel, extensionPath: string) {
        this.bundle = loadBundle(extensionPath);
        this.trace = new TraceChannel(output);
        this.disposables.push(
            this.trace,
            vscode.workspace.onDidChangeConfiguration((event) => this.configurationChanged(event)),
            // Trust is granted once and never revoked without a reload: tell the server.
            vscode.workspace.onDidGrantWorkspaceTrust(() => this.sendSettings('the workspace is now trusted')),
            vscode.extensions.onDidChange(() => this.watchPythonExtension()),
        );
    }

    get languageClient(): LanguageClient | undefined {
        return this.client;
    }

    /** Stops the running server (if any) and starts one as the settings say. */
    restart(reason: string): Promise<void> {
        this.queue = this.queue.then(() => this.doRestart(reason)).catch((error) => {
            this.output.error(`restart failed: ${describe(error)}`);
        });
        return this.queue;
    }

    private async doRestart(reason: string): Promise<void> {
        this.output.info(`(re)starting the language server: ${reason}`);
        await this.stop();
        const { settings, problems } = currentSettings();
        for (const problem of problems) this.output.warn(problem);
        if (!settings.enable) {
            this.status.disabled();
            this.output.info('tapelsp.enable is false: the language server is not started');
            return;
        }
        await this.watchPythonExtension();
        const interpreter = await this.resolve(settings);
        this.interpreter = interpreter;
        const label = `${interpreter.command} (${sourceLabel(interpreter)})`;
        this.status.starting(`Interpreter: ${label}`);
        this.output.info(`interpreter: ${label}`);

        if (settings.importStrategy === 'useBundled' && !this.bundle) {
            this.output.warn('this build of the extension has no bundled tapelsp: using the one installed in the interpreter');
        }
        const bundle = settings.importStrategy === 'useBundled' ? this.bundle : undefined;
        const check = await this.check(interpreter, bundle);
        if (check.kind !== 'ready') {
            this.reportCheck(check, interpreter, settings, bundle);
            return;
        }
        const where = bundle ? `bundled (${bundle.target})` : `in ${check.python}`;
        this.output.info(`tapelsp ${check.version} ${where}, run by ${check.python} (Python ${check.pythonVersion})`);
        let detail = `Interpreter: ${check.python} (${sourceLabel(interpreter)}), tapelsp ${check.version} ${bundle ? 'bundled' : 'installed there'}`;
        const noFixes = noFixesMessage(check, bundle);
        if (noFixes) {
            this.output.warn(noFixes);
            detail += '\nQuick fixes need libcst (see the logs)';
        }
        await this.startClient(interpreter, settings, detail, bundle);
    }

    private async resolve(settings: Settings): Promise<Interpreter> {
        const folder = vscode.workspace.workspaceFolders?.[0];
        const python = vscode.extensions.getExtension(PYTHON_EXTENSION);
        return resolveInterpreter({
            setting: settings.interpreter,
            pythonExtension: python ? async () => {
                const api = await pythonApi();
                if (!api) return undefined;
                return activeInterpreterPath(api, folder?.uri);
            } : undefined,
            workspaceFolder: folder?.uri.fsPath,
            userHome: os.homedir(),
            platform: process.platform,
        });
    }

    private async check(interpreter: Interpreter, bundle: Bundle | undefined): Promise<CheckResult> {
        const run = await runProcess(checkCommand(interpreter, bundle, process.env.PYTHONPATH, process.platform), 30_000, this.cwd());
        return readCheck(run, interpreter);
    }

    private reportCheck(check: Exclude<CheckResult, { kind: 'ready' }>, interpreter: Interpreter, settings: Settings,
        bundle: Bundle | undefined): void {
        switch (check.kind) {
            case 'missing':
            case 'no-server': {
                if (bundle) {
                    // The bundled copy did not load: a broken install of the extension, not
                    // something pip in the interpreter would mend.
                    const what = `the tapelsp bundled with the extension does not load in ${check.python}` +
                        (check.kind === 'missing' ? ` (${check.detail})` : '');
                    this.status.failed(what);
                    this.output.error(what);
                    void this.notifyError(`${what}. Reinstall the extension, or set tapelsp.importStrategy to fromEnvironment.`, settings);
                    return;
                }
                const what = check.kind === 'missing'
                    ? `tapelsp is not installed in ${check.python}`
                    : `tapelsp ${check.version} in ${check.python} has no language server (it is too old)`;
                this.status.failed(what);
                this.output.error(`${what}${check.kind === 'missing' ? ` (${check.detail})` : ''}`);
                void this.offerInstall(interpreter, what);
                return;
            }
            case 'too-old-python': {
                const what = `${check.python} is Python ${check.pythonVersion}; tapelsp needs Python 3.10 or newer`;
                this.status.failed(what);
                this.output.error(what);
                void this.notifyError(what, settings);
                return;
            }
            case 'broken': {
                this.status.failed(check.detail);
                this.output.error(check.detail);
                void this.notifyError(`${check.detail}. Set tapelsp.interpreter or select an interpreter in the Python extension.`, settings);
                return;
            }
        }
    }

    /**
     * Always shown (whatever tapelsp.showNotifications says): without it nothing works. Only with
     * `tapelsp.importStrategy: fromEnvironment`; the install is the wheel bundled in the extension.
     */
    private async offerInstall(interpreter: Interpreter, what: string): Promise<void> {
        const install = 'Install tapelsp';
        const bundled = 'Use Bundled tapelsp';
        const choose = 'Choose Interpreter';
        const line = installCommand(interpreter, this.bundle);
        const answer = line
            ? await vscode.window.showWarningMessage(
                `${what}. Install it there from the wheel bundled with the extension ` +
                `(python -m pip install ${path.basename(line.args[line.args.length - 1])}), or run the bundled tapelsp?`,
                install, bundled, choose)
            : await vscode.window.showWarningMessage(
                `${what}. tapelsp is not on PyPI: install it from its repository (pip install .), or choose another interpreter.`,
                choose);
        if (answer === install && line) {
            await this.install(interpreter, line);
        } else if (answer === bundled) {
            await useBundled();
        } else if (answer === choose) {
            await chooseInterpreter();
        }
    }

    /**
     * `tapelsp.installLibcst`, the quick fix of a finding whose fix needs libcst: says why, and
     * offers to install libcst (from PyPI) into the interpreter that runs the server.
     */
    async offerLibcst(reason: unknown): Promise<void> {
        const interpreter = this.interpreter;
        const text = typeof reason === 'string' ? reason : 'tapelsp\'s fixes need libcst.';
        this.output.warn(text);
        const install = 'Install libcst';
        const logs = 'Show Logs';
        const answer = await vscode.window.showWarningMessage(`tapelsp: ${text}`, ...(interpreter ? [install] : []), logs);
        if (answer === install && interpreter) await this.install(interpreter, libcstInstallCommand(interpreter), 'libcst');
        else if (answer === logs) this.output.show();
    }

    private async install(interpreter: Interpreter, line: CommandLine, what = 'tapelsp'): Promise<void> {
        this.output.info(`running: ${line.command} ${line.args.join(' ')}`);
        const run = await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: `tapelsp: installing ${what} into ${interpreter.command}` },
            () => runProcess(line, 10 * 60_000, this.cwd()),
        );
        for (const text of [run.stdout, run.stderr]) if (text.trim()) this.output.appendLine(text.trimEnd());
        if (run.spawnError || run.exitCode !== 0) {
            this.output.error(`pip failed (${run.spawnError ?? `exit status ${run.exitCode}`})`);
            const logs = 'Show Logs';
            const answer = await vscode.window.showErrorMessage(
                `tapelsp: pip could not install ${what} into ${interpreter.command}. The logs have pip's output.`, logs);
            if (answer === logs) this.output.show();
            return;
        }
        await this.restart(`${what} was installed`);
    }

    private async notifyError(message: string, settings: Settings): Promise<void> {
        if (!shouldNotify(1, settings.showNotifications)) return;
        const logs = 'Show Logs';
        const open = 'Open Settings';
        const answer = await vscode.window.showErrorMessage(`tapelsp: ${message}`, logs, open);
        if (answer === logs) this.output.show();
        if (answer === open) await vscode.commands.executeCommand('workbench.action.openSettings', 'tapelsp.interpreter');
    }

    private clientOptions(): LanguageClientOptions {
        const status = this.status;
        return {
            documentSelector: DOCUMENT_SELECTOR,
            outputChannel: this.output,
            traceOutputChannel: this.trace,
            revealOutputChannelOn: RevealOutputChannelOn.Never,
            initializationOptions: () => toServerSettings(currentSettings().settings, vscode.workspace.isTrusted),
            notebookDocumentOptions: {
                filterCells: (notebook, cells) => notebookCells(notebook.notebookType, cells),
            },
            middleware: {
                async provideDiagnostics(document, previousResultId, token, next) {
                    // A pull waits for the server's analysis of the current version: that wait
                    // is what the status bar shows as "analysing".
                    const end = status.begin('analysis');
                    try {
                        const report = await next(document, previousResultId, token);
                        if (report && 'items' in report) report.items.forEach(markRuntime);
                        return report;
                    } finally {
                        end();
                    }
                },
                async provideCodeActions(document, range, context, token, next) {
                    const actions = await next(document, range, context, token);
                    for (const action of actions ?? []) {
                        if (action instanceof vscode.CodeAction && action.disabled && isLibcstOffer({ title: action.title, disabled: action.disabled })) {
                            action.command = { title: action.title, command: 'tapelsp.installLibcst', arguments: [action.disabled.reason] };
                            action.disabled = undefined;
                        }
                    }
                    return actions;
                },
                handleDiagnostics(uri, diagnostics, next) {
                    diagnostics.forEach(markRuntime);
                    next(uri, diagnostics);
                },
                workspace: {
                    async configuration(params, token, next) {
                        const answer = await next(params, token);
                        if (!Array.isArray(answer)) return answer;
                        return params.items.map((item, index) => {
                            if (item.section !== 'tapelsp') return answer[index];
                            const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
                            return toServerSettings(currentSettings(scope).settings, vscode.workspace.isTrusted);
                        });
                    },
                },
            },
        };
    }

    private async startClient(interpreter: Interpreter, settings: Settings, detail: string, bundle: Bundle | undefined): Promise<void> {
        const line: CommandLine = serverCommand(interpreter, bundle, process.env.PYTHONPATH, process.platform);
        const executable: Executable = {
            command: line.command,
            args: line.args,
            options: { cwd: this.cwd(), env: { ...process.env, ...line.env, PYTHONUNBUFFERED: '1' } },
        };
        const client = new LanguageClient('tapelsp', 'tapelsp', { run: executable, debug: executable }, this.clientOptions());
        this.client = client;
        // The server's window/showMessage, filtered by tapelsp.showNotifications; every message
        // is logged either way. (Registered before start, it replaces the client's default.)
        client.onNotification(ShowMessageNotification.type, (message) => {
            const level = currentSettings().settings.showNotifications;
            const text = message.message.startsWith('tapelsp') ? message.message : `tapelsp: ${message.message}`;
            this.output.appendLine(`[server message] ${message.message}`);
            if (!shouldNotify(message.type, level)) return;
            if (message.type === 1) void vscode.window.showErrorMessage(text);
            else if (message.type === 2) void vscode.window.showWarningMessage(text);
            else void vscode.window.showInformationMessage(text);
        });
        client.onDidChangeState((event) => {
            if (event.newState === State.Running) {
                this.status.running(detail);
            } else if (event.newState === State.Stopped && !this.stopping && this.client === client) {
                this.status.failed('The tapelsp language server stopped.');
            }
        });
        this.output.info(`starting: ${line.env ? `PYTHONPATH=${line.env.PYTHONPATH} ` : ''}${line.command} ${line.args.join(' ')}`);
        try {
            await client.start();
        } catch (error) {
            this.status.failed(`The tapelsp language server did not start: ${describe(error)}`);
            this.output.error(`the language server did not start: ${describe(error)}`);
            void this.notifyError(`the language server did not start (${describe(error)})`, settings);
        }
    }

    private async stop(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        if (!client) return;
        this.stopping = true;
        try {
            if (client.state !== State.Stopped) await client.stop(5000);
        } catch (error) {
            this.output.warn(`stopping the language server: ${describe(error)}`);
        } finally {
            try {
                await client.dispose(1000);
            } catch {
                // already stopped
            }
            this.stopping = false;
        }
    }

    private configurationChanged(event: vscode.ConfigurationChangeEvent): void {
        const action = changeAction((section) => event.affectsConfiguration(section));
        if (action === 'restart') {
            void this.restart('tapelsp.enable, tapelsp.interpreter or tapelsp.importStrategy changed');
        } else if (action === 'notify') {
            this.sendSettings('settings changed');
        }
    }

    /** Sends the server settings (and the workspace's trust) to the running server. */
    private sendSettings(why: string): void {
        const client = this.client;
        if (client && client.state === State.Running) {
            const settings = toServerSettings(currentSettings().settings, vscode.workspace.isTrusted);
            this.output.info(`${why}: ${JSON.stringify(settings)}`);
            void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { tapelsp: settings } });
        }
    }

    /** Follows the interpreter selected in the Python extension, when that is what runs tapelsp. */
    private async watchPythonExtension(): Promise<void> {
        if (this.pythonListener) return;
        const api = await pythonApi();
        if (!api) return;
        this.pythonListener = api.onDidChangeActiveEnvironmentPath(() => {
            if (this.interpreter?.source !== 'setting') void this.restart('the Python extension selected another interpreter');
        });
        this.disposables.push(this.pythonListener);
    }

    private cwd(): string | undefined {
        return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    }

    async dispose(): Promise<void> {
        await this.queue;
        await this.stop();
        for (const disposable of this.disposables.splice(0)) disposable.dispose();
    }
}

async function pythonApi(): Promise<PythonEnvironmentsApi | undefined> {
    const extension = vscode.extensions.getExtension(PYTHON_EXTENSION);
    if (!extension) return undefined;
    try {
        const exports = extension.isActive ? extension.exports : await extension.activate();
        const environments = (exports as { environments?: PythonEnvironmentsApi } | undefined)?.environments;
        return environments && typeof environments.getActiveEnvironmentPath === 'function' ? environments : undefined;
    } catch {
        return undefined;
    }
}

/** Sets tapelsp.importStrategy to useBundled where it is set to something else (else for the user). */
async function useBundled(): Promise<void> {
    const config = vscode.workspace.getConfiguration('tapelsp');
    const where = config.inspect('importStrategy');
    const target = where?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder
        : where?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await config.update('importStrategy', 'useBundled', target);
}

async function chooseInterpreter(): Promise<void> {
    if (vscode.extensions.getExtension(PYTHON_EXTENSION)) {
        await vscode.commands.executeCommand('python.setInterpreter');
    } else {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'tapelsp.interpreter');
    }
}

function sourceLabel(interpreter: Interpreter): string {
    switch (interpreter.source) {
        case 'setting':
            return 'from tapelsp.interpreter';
        case 'python-extension':
            return 'selected in the Python extension';
        case 'path':
            return 'from PATH';
    }
}

export function describe(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

interface ProcessRun {
    spawnError?: string;
    exitCode: number | null;
    stdout: string;
    stderr: string;
}

function runProcess(line: CommandLine, timeout: number, cwd: string | undefined): Promise<ProcessRun> {
    return new Promise((resolve) => {
        execFile(line.command, line.args, { timeout, cwd, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...line.env, PYTHONUNBUFFERED: '1' } },
            (error, stdout, stderr) => {
                const code = error && typeof (error as NodeJS.ErrnoException).code === 'string'
                    ? (error as NodeJS.ErrnoException).code : undefined;
                if (code === 'ENOENT' || code === 'EACCES') {
                    resolve({ spawnError: code === 'ENOENT' ? 'no such file' : 'permission denied', exitCode: null, stdout: '', stderr: '' });
                    return;
                }
                const exitCode = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null) : 0;
                resolve({ exitCode, stdout: String(stdout), stderr: String(stderr) });
            });
    });
}
