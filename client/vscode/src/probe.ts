// The `tapelsp.probe` command's decisions, kept free of `vscode` for the unit tests.
//
// The live probe runs the saved file or notebook in a Jupyter kernel of the server's
// interpreter, under the user's TensorFlow, to confirm or refute findings. A server that
// advertises `capabilities.experimental.tapelspProbe === true` answers the request
// `tapelsp/probe` with `{textDocument: {uri}, timeout}` (seconds); the command sends it under
// a cancellable progress notification (cancelling stops the probe and its kernel), and the
// findings come back through the usual diagnostics with `data.runtime` (see runtime.ts).
// The server refuses too (probe disabled, untrusted workspace, unsaved changes): the client
// checks first only to say so without a round trip.

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
            message: 'tapelsp: the tapelsp installed in the server\'s interpreter has no live probe (update it), so nothing was run. '
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

/** What the server answers to `tapelsp/probe` (see server/tapelsp/lsp/probing.py). */
export interface ProbeAnswer {
    summary?: string;
    confirmed?: number;
    refuted?: unknown[];
    runtimeOnly?: number;
    published?: boolean;
}

/** One line for the notification shown when a probe ends. */
export function describeAnswer(name: string, answer: unknown): string {
    const a = (typeof answer === 'object' && answer !== null ? answer : {}) as ProbeAnswer;
    const refuted = Array.isArray(a.refuted) ? a.refuted.length : 0;
    const counts = `${a.confirmed ?? 0} confirmed, ${refuted} refuted, ${a.runtimeOnly ?? 0} runtime-only`;
    const stale = a.published === false ? ' The file changed while it ran, so its findings stay static.' : '';
    return `tapelsp: probed ${name}: ${counts}${a.summary ? ` (${a.summary})` : ''}.${stale}`;
}
