import * as vscode from 'vscode';

/**
 * The channel vscode-languageclient writes the LSP trace to.
 *
 * The client traces only when its trace channel's log level is Trace. With the tapelsp
 * log channel itself that would hide the trace until the user found "Set Log Level";
 * instead the trace level here follows `tapelsp.trace.server` (off / messages / verbose,
 * default messages) and the lines go into the same "tapelsp" output channel as the
 * server's own log, so one channel holds everything.
 */
export class TraceChannel implements vscode.LogOutputChannel {
    private readonly levelChanged = new vscode.EventEmitter<vscode.LogLevel>();
    readonly onDidChangeLogLevel = this.levelChanged.event;
    private readonly listener: vscode.Disposable;

    constructor(private readonly target: vscode.LogOutputChannel) {
        this.listener = vscode.workspace.onDidChangeConfiguration((event) => {
            if (event.affectsConfiguration('tapelsp.trace.server')) this.levelChanged.fire(this.logLevel);
        });
    }

    get name(): string {
        return this.target.name;
    }

    get logLevel(): vscode.LogLevel {
        const setting = vscode.workspace.getConfiguration('tapelsp').get<string>('trace.server', 'messages');
        return setting === 'off' ? vscode.LogLevel.Off : vscode.LogLevel.Trace;
    }

    trace(message: string, ...args: unknown[]): void {
        this.target.appendLine(args.length ? `${message} ${args.map(String).join(' ')}` : message);
    }
    debug(message: string, ...args: unknown[]): void {
        this.target.debug(message, ...args);
    }
    info(message: string, ...args: unknown[]): void {
        this.target.info(message, ...args);
    }
    warn(message: string, ...args: unknown[]): void {
        this.target.warn(message, ...args);
    }
    error(error: string | Error, ...args: unknown[]): void {
        this.target.error(error, ...args);
    }
    append(value: string): void {
        this.target.append(value);
    }
    appendLine(value: string): void {
        this.target.appendLine(value);
    }
    replace(value: string): void {
        this.target.replace(value);
    }
    clear(): void {
        this.target.clear();
    }
    show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
        if (typeof columnOrPreserveFocus === 'boolean') this.target.show(columnOrPreserveFocus);
        else this.target.show(preserveFocus);
    }
    hide(): void {
        this.target.hide();
    }
    dispose(): void {
        // The target belongs to the extension; only this wrapper's own listeners go.
        this.listener.dispose();
        this.levelChanged.dispose();
    }
}
