// How findings confirmed at runtime are told apart from static ones.
//
// The contract with the server (and the live probe behind it): a diagnostic whose `data`
// carries a `runtime` object was seen at runtime,
//
//     "data": {"code": "TAPE001", ..., "runtime": {"status": "confirmed", "evidence": "tape.gradient returned None (train.py:12)"}}
//
// - `status: "confirmed"`: a static finding that the probe reproduced;
// - `status: "runtime-only"`: a finding that only the probe saw;
// - no `runtime` key (today's static findings), or any other status: static, shown as sent.
//
// A runtime finding gets the source `tapelsp (runtime)` instead of `tapelsp` (the Problems
// panel and the hover show the source next to the code), and its evidence appended to the
// message unless the server's message already tells it (tapelsp's server ends a confirmed
// finding's message with `[confirmed at runtime: ...]`). Refuted findings are the server's
// business: it drops them.

export const STATIC_SOURCE = 'tapelsp';
export const RUNTIME_SOURCE = 'tapelsp (runtime)';

export interface RuntimeEvidence {
    status: 'confirmed' | 'runtime-only';
    evidence?: string;
}

export function runtimeEvidence(data: unknown): RuntimeEvidence | undefined {
    if (typeof data !== 'object' || data === null) return undefined;
    const runtime = (data as { runtime?: unknown }).runtime;
    if (typeof runtime !== 'object' || runtime === null) return undefined;
    const { status, evidence } = runtime as { status?: unknown; evidence?: unknown };
    if (status !== 'confirmed' && status !== 'runtime-only') return undefined;
    return typeof evidence === 'string' && evidence.trim() ? { status, evidence: evidence.trim() } : { status };
}

/** The shape both vscode.Diagnostic and a plain test object have. */
export interface DiagnosticLike {
    source?: string;
    message: string;
    data?: unknown;
}

/** Marks a runtime finding in place; static findings are left untouched. Idempotent. */
export function markRuntime<T extends DiagnosticLike>(diagnostic: T): T {
    const runtime = runtimeEvidence(diagnostic.data);
    if (runtime === undefined || diagnostic.source === RUNTIME_SOURCE) return diagnostic;
    diagnostic.source = RUNTIME_SOURCE;
    if (/at runtime/i.test(diagnostic.message)) return diagnostic;
    const what = runtime.status === 'confirmed' ? 'Confirmed at runtime' : 'Seen at runtime';
    diagnostic.message = `${diagnostic.message}\n${what}${runtime.evidence ? `: ${runtime.evidence}` : '.'}`;
    return diagnostic;
}
