// A debouncer with an injectable clock, so that jest can drive it with fake timers.
// No JupyterLab imports.

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const globalTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>)
};

export class Debouncer {
  private handle: unknown = null;

  constructor(
    private readonly callback: () => void,
    readonly delayMs: number,
    private readonly timers: Timers = globalTimers
  ) {}

  /** Runs the callback `delayMs` after the last call of schedule(). */
  schedule(): void {
    this.cancel();
    this.handle = this.timers.setTimeout(() => {
      this.handle = null;
      this.callback();
    }, this.delayMs);
  }

  /** Runs the callback now if one is scheduled. */
  flush(): void {
    if (this.handle === null) return;
    this.cancel();
    this.callback();
  }

  cancel(): void {
    if (this.handle !== null) {
      this.timers.clearTimeout(this.handle);
      this.handle = null;
    }
  }

  get pending(): boolean {
    return this.handle !== null;
  }
}
