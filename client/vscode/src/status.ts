// What the status bar item says. Pure: the extension feeds events in and renders `view()`.
//
// States, most important first: error (the server could not start or stopped), probe
// running, analysing (a diagnostics request is waiting for the server's analysis), idle.
// `starting` and `disabled` are shown while the server starts and when `tapelsp.enable`
// is false.

export type Phase = 'disabled' | 'starting' | 'idle' | 'analysing' | 'probe' | 'error';

export interface StatusView {
    text: string;
    tooltip: string;
    /** The command a click runs. */
    command: string;
    /** A ThemeColor id for the background, when the state needs attention. */
    background?: string;
}

export class Status {
    private pending = 0;
    private probes = 0;
    private failure: string | undefined;
    private started = false;
    private enabled = true;
    private detail = '';
    private readonly listeners: Array<() => void> = [];

    onChange(listener: () => void): void {
        this.listeners.push(listener);
    }

    private changed(): void {
        for (const listener of this.listeners) listener();
    }

    /** The server is being (re)started; `detail` names the interpreter. */
    starting(detail: string): void {
        this.enabled = true;
        this.started = false;
        this.failure = undefined;
        this.pending = 0;
        this.detail = detail;
        this.changed();
    }

    running(detail: string): void {
        this.started = true;
        this.failure = undefined;
        this.detail = detail;
        this.changed();
    }

    failed(message: string): void {
        this.failure = message;
        this.pending = 0;
        this.changed();
    }

    disabled(): void {
        this.enabled = false;
        this.failure = undefined;
        this.pending = 0;
        this.changed();
    }

    /** A unit of analysis began; call the returned function exactly when it ends. */
    begin(kind: 'analysis' | 'probe'): () => void {
        if (kind === 'probe') this.probes++;
        else this.pending++;
        this.changed();
        let ended = false;
        return () => {
            if (ended) return;
            ended = true;
            if (kind === 'probe') this.probes = Math.max(0, this.probes - 1);
            else this.pending = Math.max(0, this.pending - 1);
            this.changed();
        };
    }

    phase(): Phase {
        if (!this.enabled) return 'disabled';
        if (this.failure !== undefined) return 'error';
        if (this.probes > 0) return 'probe';
        if (!this.started) return 'starting';
        if (this.pending > 0) return 'analysing';
        return 'idle';
    }

    view(): StatusView {
        const about = this.detail ? `\n${this.detail}` : '';
        switch (this.phase()) {
            case 'disabled':
                return { text: '$(circle-slash) tapelsp', tooltip: 'tapelsp is disabled (tapelsp.enable is false)', command: 'tapelsp.showLogs' };
            case 'error':
                return {
                    text: '$(error) tapelsp',
                    tooltip: `${this.failure}${about}\nClick to see the logs.`,
                    command: 'tapelsp.showLogs',
                    background: 'statusBarItem.errorBackground',
                };
            case 'probe':
                return { text: '$(beaker~spin) tapelsp: probing', tooltip: `tapelsp: a live probe is running${about}`, command: 'tapelsp.showLogs' };
            case 'starting':
                return { text: '$(loading~spin) tapelsp', tooltip: `tapelsp: starting the language server${about}`, command: 'tapelsp.showLogs' };
            case 'analysing':
                return { text: '$(sync~spin) tapelsp', tooltip: `tapelsp: analysing${about}`, command: 'tapelsp.showLogs' };
            case 'idle':
                return { text: '$(check) tapelsp', tooltip: `tapelsp: ready${about}`, command: 'tapelsp.showLogs' };
        }
    }
}
