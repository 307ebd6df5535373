// Where the bench is, on stderr: a line per step ("[3/14] arm 500 pods, static,
// --workers 2 …") and under it a bar redrawn in place. When stderr is not a
// terminal (CI logs, a pipe) the bar becomes a plain line every few seconds.

const BAR_WIDTH = 30;
const NON_TTY_LINE_PERIOD_MS = 5_000;
/** Redrawing faster than this only costs the bench CPU. */
const TTY_REDRAW_PERIOD_MS = 100;

export interface StepProgress {
  /** `done` of `total` units, e.g. 250 of 500 pods Running. */
  update(done: number, total: number, unit: string): void;
}

export class Progress implements StepProgress {
  private step = 0;
  private stepStartedMs = 0;
  private lastDrawnMs = 0;
  private barShown = false;

  constructor(
    private readonly totalSteps: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  begin(label: string): void {
    this.step++;
    this.stepStartedMs = Date.now();
    this.lastDrawnMs = 0;
    this.stream.write(`[${this.step}/${this.totalSteps}] ${label} …\n`);
  }

  update(done: number, total: number, unit: string): void {
    const nowMs = Date.now();
    const period = this.stream.isTTY ? TTY_REDRAW_PERIOD_MS : NON_TTY_LINE_PERIOD_MS;
    if (nowMs - this.lastDrawnMs < period && done < total) return;
    this.lastDrawnMs = nowMs;
    const elapsed = `${((nowMs - this.stepStartedMs) / 1000).toFixed(1)} s`;
    if (!this.stream.isTTY) {
      this.stream.write(`      ${done}/${total} ${unit}, ${elapsed}\n`);
      return;
    }
    const filled = total > 0 ? Math.round((Math.min(done, total) / total) * BAR_WIDTH) : 0;
    this.stream.write(`\r      [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total} ${unit}, ${elapsed}\x1b[K`);
    this.barShown = true;
  }

  /** Replaces the bar with one line of outcome. */
  end(summary: string): void {
    if (this.barShown) this.stream.write('\r\x1b[K');
    this.barShown = false;
    this.stream.write(`      ${summary} (${((Date.now() - this.stepStartedMs) / 1000).toFixed(1)} s)\n`);
  }
}
