import * as vscode from 'vscode';
import { State } from 'vscode-languageclient/node';

import { describeAnswer, planProbe, PROBE_REQUEST } from './probe';
import { currentSettings, describe, ServerManager } from './server';

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    const output = vscode.window.createOutputChannel('tapelsp', { log: true });
    context.subscriptions.push(output);
    const servers = new ServerManager(output, context.extensionPath);
    manager = servers;

    const item = vscode.window.createStatusBarItem('tapelsp.status', vscode.StatusBarAlignment.Right, 100);
    item.name = 'tapelsp';
    const render = (): void => {
        const view = servers.status.view();
        item.text = view.text;
        item.tooltip = view.tooltip;
        item.command = view.command;
        item.backgroundColor = view.background ? new vscode.ThemeColor(view.background) : undefined;
    };
    servers.status.onChange(render);
    render();
    item.show();
    context.subscriptions.push(item);

    context.subscriptions.push(
        vscode.commands.registerCommand('tapelsp.restart', () => servers.restart('tapelsp.restart command')),
        vscode.commands.registerCommand('tapelsp.showLogs', () => output.show()),
        vscode.commands.registerCommand('tapelsp.probe', () => probe(servers)),
        vscode.commands.registerCommand('tapelsp.installLibcst', (reason: unknown) => servers.offerLibcst(reason)),
    );

    await servers.restart('activation');
}

export async function deactivate(): Promise<void> {
    const servers = manager;
    manager = undefined;
    if (servers) await servers.dispose();
}

async function probe(servers: ServerManager): Promise<void> {
    const client = servers.languageClient;
    const editor = vscode.window.activeTextEditor;
    const notebook = vscode.window.activeNotebookEditor;
    const target = notebook?.notebook.uri ?? (editor?.document.languageId === 'python' ? editor.document.uri : undefined);
    const settings = currentSettings().settings;
    const plan = planProbe({
        workspaceTrusted: vscode.workspace.isTrusted,
        serverRunning: client?.state === State.Running,
        experimental: client?.initializeResult?.capabilities.experimental,
        probeEnabled: settings.probe.enable,
        hasTarget: target !== undefined,
    });
    servers.output.info(`tapelsp.probe: ${plan.kind === 'run' ? `probing ${target?.toString()}` : plan.message}`);
    if (plan.kind === 'refuse') {
        const open = plan.openSetting ? 'Open Setting' : undefined;
        const show = plan.severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
        const answer = await (open ? show(plan.message, open) : show(plan.message));
        if (answer === open && plan.openSetting) {
            await vscode.commands.executeCommand('workbench.action.openSettings', plan.openSetting);
        }
        return;
    }
    if (!client || !target) return;
    const end = servers.status.begin('probe');
    try {
        await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: 'tapelsp: probing with TensorFlow', cancellable: true },
            async (progress, token) => {
                progress.report({ message: `${vscode.workspace.asRelativePath(target)} (cancel stops it and its kernel)` });
                const answer = await client.sendRequest(PROBE_REQUEST, { textDocument: { uri: target.toString() }, timeout: settings.probe.timeout }, token);
                if (token.isCancellationRequested) return;
                const message = describeAnswer(vscode.workspace.asRelativePath(target), answer);
                servers.output.info(message);
                void vscode.window.showInformationMessage(message);
            },
        );
    } catch (error) {
        servers.output.warn(`probe: ${describe(error)}`);
        // A refusal or a failed probe (RequestFailed) was told by the server's own message, and
        // cancelling (RequestCancelled) is no error; anything else is.
        const code = (error as { code?: unknown }).code;
        if (code !== -32803 && code !== -32800 && !(error instanceof vscode.CancellationError)) {
            void vscode.window.showErrorMessage(`tapelsp: the probe failed: ${describe(error)}`);
        }
    } finally {
        end();
    }
}
