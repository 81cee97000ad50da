// The findings of one notebook: debounced re-check as cells change, stale answers dropped,
// runtime verdicts of the last probe kept for the cells that did not change since.
// No JupyterLab imports: the notebook and the server are passed in as functions (jest drives it).
import { Debouncer, type Timers } from './debounce';
import type { CellSource, CheckResult, Finding, ProbeResult, RuntimeSummary } from './protocol';

export type StoreStatus = 'idle' | 'checking' | 'probing' | 'error';

export interface StoreOptions {
  cells: () => CellSource[];
  check: (cells: CellSource[]) => Promise<CheckResult>;
  probe: (cells: CellSource[]) => Promise<ProbeResult>;
  delayMs?: number;
  timers?: Timers;
}

export interface ProbeState {
  runtime: RuntimeSummary | null;
  message: string;
  /** How many findings the run confirmed. */
  confirmed: number;
}

const DEFAULT_DELAY_MS = 600;

function sameFinding(a: Finding, b: Finding): boolean {
  return (
    a.code === b.code &&
    a.cell_id === b.cell_id &&
    a.range.start.line === b.range.start.line &&
    a.range.start.character === b.range.start.character
  );
}

export class FindingsStore {
  private _findings: Finding[] = [];
  private _status: StoreStatus = 'idle';
  private _error = '';
  private _version = '';
  private _probe: ProbeState | null = null;
  /** The source of each cell the current findings were computed from. */
  private checked = new Map<string, string>();
  /** The probe's findings and the sources they were computed from. */
  private probed: { findings: Finding[]; sources: Map<string, string> } | null = null;
  private request = 0;
  /** The cells of the last request. */
  private requested: CellSource[] = [];
  private listeners = new Set<() => void>();
  private debouncer: Debouncer;
  private disposed = false;

  constructor(private readonly options: StoreOptions) {
    this.debouncer = new Debouncer(() => void this.checkNow(), options.delayMs ?? DEFAULT_DELAY_MS, options.timers);
  }

  get findings(): readonly Finding[] {
    return this._findings;
  }
  get status(): StoreStatus {
    return this._status;
  }
  get error(): string {
    return this._error;
  }
  get version(): string {
    return this._version;
  }
  get probe(): ProbeState | null {
    return this._probe;
  }
  get pending(): boolean {
    return this.debouncer.pending;
  }

  findingsForCell(cellId: string): Finding[] {
    return this._findings.filter((f) => f.cell_id === cellId);
  }

  /** The source of the cell the findings were computed from (undefined: not checked). */
  checkedSource(cellId: string): string | undefined {
    return this.checked.get(cellId);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Something in the notebook changed: when a cell's source (or the list of cells) differs from
   * what was last sent, check again once the typing stops. Outputs and execution counts
   * change too when cells run; they need no check.
   */
  contentChanged(): void {
    if (this.disposed) return;
    const cells = this.options.cells();
    const same =
      cells.length === this.requested.length &&
      cells.every((c, i) => c.id === this.requested[i].id && c.source === this.requested[i].source && c.cell_type === this.requested[i].cell_type);
    if (!same) this.debouncer.schedule();
  }

  /** Check now (and drop a scheduled check). Resolves when this check's answer is in. */
  async checkNow(): Promise<void> {
    await this.ask('checking', (cells) => this.options.check(cells), (result, cells) => {
      this._findings = this.withRuntime(result.findings, cells);
    });
  }

  /** Ask the kernel's runtime (attach mode) and show its verdicts. */
  async probeNow(): Promise<void> {
    await this.ask('probing', (cells) => this.options.probe(cells), (result, cells) => {
      this._findings = result.findings;
      this.probed = { findings: result.findings, sources: new Map(cells.map((c) => [c.id, c.source])) };
      this._probe = {
        runtime: result.runtime,
        message: result.message,
        confirmed: result.findings.filter((f) => f.runtime?.status === 'confirmed').length
      };
    });
  }

  /**
   * One request to the server for the current cells (a scheduled check is dropped): its
   * answer is taken by `take` unless a newer request (or dispose) came in meanwhile.
   */
  private async ask<R extends CheckResult>(
    status: StoreStatus,
    send: (cells: CellSource[]) => Promise<R>,
    take: (result: R, cells: CellSource[]) => void
  ): Promise<void> {
    if (this.disposed) return;
    this.debouncer.cancel();
    const id = ++this.request;
    const cells = this.options.cells();
    this.requested = cells;
    this.setStatus(status);
    try {
      const result = await send(cells);
      if (id !== this.request || this.disposed) return; // a newer request (or dispose) won
      this.accept(result, cells);
      take(result, cells);
      this._error = '';
      this._status = 'idle';
    } catch (error) {
      if (id !== this.request || this.disposed) return;
      this._status = 'error';
      this._error = error instanceof Error ? error.message : String(error);
    }
    this.emit();
  }

  dispose(): void {
    this.disposed = true;
    this.debouncer.cancel();
    this.listeners.clear();
  }

  private accept(result: CheckResult, cells: CellSource[]): void {
    this._version = result.version;
    this.checked = new Map(cells.map((c) => [c.id, c.source]));
  }

  /**
   * Static findings with the verdicts of the last probe for the cells whose source is still
   * the probed one (and the probe's runtime-only findings there).
   */
  private withRuntime(findings: Finding[], cells: CellSource[]): Finding[] {
    const probed = this.probed;
    if (!probed) return findings;
    const unchanged = new Set(cells.filter((c) => probed.sources.get(c.id) === c.source).map((c) => c.id));
    const merged = findings.map((finding) => {
      if (finding.runtime || !unchanged.has(finding.cell_id)) return finding;
      const before = probed.findings.find((p) => p.runtime && sameFinding(p, finding));
      return before ? { ...finding, runtime: before.runtime } : finding;
    });
    for (const p of probed.findings) {
      if (p.runtime?.status === 'runtime-only' && unchanged.has(p.cell_id) && !merged.some((f) => sameFinding(f, p))) {
        const index = cells.findIndex((c) => c.id === p.cell_id);
        merged.push({ ...p, cell_index: index });
      }
    }
    return merged;
  }

  private setStatus(status: StoreStatus): void {
    this._status = status;
    this.emit();
  }

  private emit(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        console.error('tapelsp: a findings listener failed', error);
      }
    }
  }
}
