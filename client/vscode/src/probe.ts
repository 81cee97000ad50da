// The `tapelsp.probe` command's decisions, kept free of `vscode` for the unit tests.
//
// The live probe (running the user's code under their TensorFlow to confirm or refute
// findings) is a later piece of work. The hook is here: when a server advertises
// `capabilities.experimental.tapelspProbe === true`, the command sends the request
// `tapelsp/probe` with `{textDocument: {uri}, timeout}` (seconds) under a cancellable
// progress notification, and the findings come back through the usual diagnostics with
// `data.runtime` (see runtime.ts). No server advertises it yet, so the command says so.

export const PROBE_REQUEST = 'tapelsp/probe';
export const PROBE_CAPABILITY = 'tapelspProbe';

export type ProbePlan =
    | { kind: 'run' }
    | { kind: 'refuse'; severity: 'info' | 'warning'; message: string; openSetting?: string };

export interface ProbeInputs {
    workspaceTrusted: boolean;
    serverRunning: boolean;
    /** `initializeResult.capabilities.experimental` of the running server. */
    experimental: unknown;
    probeEnabled: boolean;
    /** A Python file or notebook is active. */
    hasTarget: boolean;
}

export function serverCanProbe(experimental: unknown): boolean {
    return typeof experimental === 'object' && experimental !== null
        && (experimental as Record<string, unknown>)[PROBE_CAPABILITY] === true;
}

export function planProbe(inputs: ProbeInputs): ProbePlan {
    if (!inputs.workspaceTrusted) {
        return { kind: 'refuse', severity: 'warning', message: 'tapelsp never runs code from an untrusted workspace: trust the workspace to probe it.' };
    }
    if (!inputs.serverRunning) {
        return { kind: 'refuse', severity: 'warning', message: 'The tapelsp language server is not running (see tapelsp: Show Logs).' };
    }
    if (!serverCanProbe(inputs.experimental)) {
        return {
            kind: 'refuse',
            severity: 'info',
            message: 'tapelsp: the live probe is not available yet, so nothing was run. '
                + 'The findings shown come from static analysis; none was confirmed or refuted at runtime.',
        };
    }
    if (!inputs.probeEnabled) {
        return {
            kind: 'refuse',
            severity: 'info',
            message: 'Probing runs your code under your TensorFlow and is off: enable tapelsp.probe.enable to allow it.',
            openSetting: 'tapelsp.probe.enable',
        };
    }
    if (!inputs.hasTarget) {
        return { kind: 'refuse', severity: 'info', message: 'Open a Python file or a notebook to probe it.' };
    }
    return { kind: 'run' };
}
