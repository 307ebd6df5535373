// The adaptive limit on sandbox and container creations in flight (the runtime
// contention guard): a latency-driven AIMD limiter in the manner of TCP Vegas and
// Netflix concurrency-limits' Gradient2. A real runtime on a small node slows every
// creation down when it is handed many at once (RunPodSandbox averaged 63 s with 100
// at once on containerd 2.1 on 2 cores, and 10 at once finished sooner), so the
// limit grows while the creations' latency stays near the runtime's no-load
// latency and there is demand for more, and is cut in proportion when it climbs.
// Pure logic: the main thread feeds it one window of finished creations at a time
// (creation-limit-controller.ts) and publishes the limit it returns.

/**
 * Never fewer creations at once: on this machine kind the runtime keeps ≈ 1.2 heavy
 * operations busy (250 pods × 153 ms of calls in ≈ 33 s, DESIGN.md), so 2 keeps it
 * busy even while one call stalls (a slow CNI ADD), at ≈ 1.6× the no-load latency.
 */
export const MIN_CREATION_LIMIT = 2;
/**
 * Never more: ≈ 0.6 heavy operations per core on 64 cores is ≈ 37 (the arm sim
 * profile models 32), so 64 leaves room above the largest nodes' knee while still
 * refusing the 250–500 at once that a density burst would hand the runtime.
 */
export const MAX_CREATION_LIMIT = 64;
/**
 * Recent latency up to this many times the baseline still counts as holding. At 2 on
 * this machine kind the limit settles between 2 and 3 (1.6× and 2.5× the no-load
 * latency), where the runtime is already as busy as it gets; jitter (±20 %) and a
 * few noisy samples stay well inside it.
 */
export const LATENCY_TOLERANCE = 2;
/** The deepest single cut (TCP's halving): a latency far above tolerance cuts by half, not more. */
export const MAX_CUT_FACTOR = 0.5;
/**
 * How fast the baseline follows the latency while the limit is at its minimum (the
 * least contention the guard can give): a runtime that became slower for good (more
 * pods on the node, a slower CNI) is accepted as it is within tens of windows.
 */
export const BASELINE_FOLLOW_AT_MIN = 0.1;

/** The creations of one kind (sandbox, container) that finished in a window. */
export interface KindFigures {
  count: number;
  /** Their summed call time, permit waits left out. */
  totalSeconds: number;
}

/** What the limiter is fed: the creations that finished since the last window, per kind. */
export interface LatencyWindow {
  byKind: Record<string, KindFigures>;
  /** Some creation had to wait for a permit in the window: there is demand at the limit. */
  saturated: boolean;
}

export interface AdaptiveLimitOptions {
  min: number;
  max: number;
  /** The limit before any window; the baseline is learnt at it, so it should be low. */
  initial: number;
  tolerance: number;
}

export const DEFAULT_ADAPTIVE_LIMIT_OPTIONS: Readonly<AdaptiveLimitOptions> = {
  min: MIN_CREATION_LIMIT,
  max: MAX_CREATION_LIMIT,
  // The baseline can only be learnt at low contention: a burst measured at 10 at once would take 8× the
  // no-load latency for normal. Slow start doubles from here within a few windows.
  initial: MIN_CREATION_LIMIT,
  tolerance: LATENCY_TOLERANCE,
};

/** What one window did to the limit, for the log and the tests. */
export type LimitChange = 'grew' | 'cut' | 'held';

export class AdaptiveLimit {
  private current: number;
  /** No-load latency per kind: the lowest window mean seen, following the latency while at the minimum. */
  private readonly baselineSeconds = new Map<string, number>();
  /** Until the first cut the limit doubles per window (TCP's slow start), then grows by one. */
  private slowStart = true;
  /** Creations that must finish after a cut before the next: those admitted under the old limit still report its latency. */
  private cutCooldown = 0;
  /** The latency ratio of the last window fed (for the log). */
  lastRatio: number | undefined;

  constructor(private readonly options: AdaptiveLimitOptions = DEFAULT_ADAPTIVE_LIMIT_OPTIONS) {
    if (!(options.min >= 1 && options.max >= options.min)) throw new RangeError(`creation limit bounds ${options.min}…${options.max}: need 1 ≤ min ≤ max`);
    this.current = clamp(Math.round(options.initial), options.min, options.max);
  }

  get limit(): number {
    return this.current;
  }

  /** The latency of the window over its baseline (1 = no-load); undefined with no creation in it. */
  latencyRatio(window: LatencyWindow): number | undefined {
    let observed = 0;
    let expected = 0;
    for (const [kind, figures] of Object.entries(window.byKind)) {
      if (figures.count <= 0) continue;
      const baseline = this.baselineSeconds.get(kind) ?? figures.totalSeconds / figures.count;
      observed += figures.totalSeconds;
      expected += baseline * figures.count;
    }
    if (expected <= 0) return observed > 0 ? Number.POSITIVE_INFINITY : undefined;
    return observed / expected;
  }

  /** Feeds one window; returns what it did to the limit. */
  update(window: LatencyWindow): LimitChange {
    const ratio = this.latencyRatio(window);
    this.lastRatio = ratio;
    if (ratio === undefined) return 'held';
    const finished = Object.values(window.byKind).reduce((sum, figures) => sum + Math.max(figures.count, 0), 0);
    this.cutCooldown = Math.max(this.cutCooldown - finished, 0);
    const atMin = this.current === this.options.min;
    this.learnBaselines(window, atMin);
    if (ratio > this.options.tolerance) return this.cut(ratio);
    if (!window.saturated) return 'held';
    const grown = clamp(this.slowStart ? this.current * 2 : this.current + 1, this.options.min, this.options.max);
    if (grown === this.current) return 'held';
    this.current = grown;
    return 'grew';
  }

  /** Cuts in proportion to how far the latency is over tolerance (Gradient2's gradient), at most by MAX_CUT_FACTOR. */
  private cut(ratio: number): LimitChange {
    if (this.cutCooldown > 0) return 'held';
    this.slowStart = false;
    const factor = Math.max(MAX_CUT_FACTOR, this.options.tolerance / ratio);
    const cut = clamp(Math.floor(this.current * factor), this.options.min, this.options.max);
    if (cut === this.current) return 'held';
    this.cutCooldown = this.current;
    this.current = cut;
    return 'cut';
  }

  private learnBaselines(window: LatencyWindow, atMin: boolean): void {
    for (const [kind, figures] of Object.entries(window.byKind)) {
      if (figures.count <= 0) continue;
      const mean = figures.totalSeconds / figures.count;
      const baseline = this.baselineSeconds.get(kind);
      if (baseline === undefined || mean < baseline) this.baselineSeconds.set(kind, mean);
      else if (atMin) this.baselineSeconds.set(kind, baseline + (mean - baseline) * BASELINE_FOLLOW_AT_MIN);
    }
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
