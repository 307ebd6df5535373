// The one exponential backoff, as client-go's wait.Backoff (Duration, Factor, Jitter,
// Cap) and grpc-js's backoff-timeout: each delay is the previous one times the
// multiplier, capped, with a random fraction added so that many clients of one
// server do not retry in step. Pure state: the caller owns the timer, so the same
// helper serves a retry loop (await sleep(backoff.next())) or a setTimeout. The
// delay formula and the jitter are also exported on their own, for a backoff that
// must be derived rather than kept (CrashLoopBackOff) and for a one-off requeue.

/**
 * Upstream kubelet's backOffPeriod: the first wait of its container crash and image
 * pull backoffs (flowcontrol.Backoff, no jitter), and a pod worker's wait after a
 * failed sync.
 */
export const KUBELET_BACKOFF_PERIOD_MS = 10_000;
/** Upstream's MaxContainerBackOff: the cap of the crash and image pull backoffs. */
export const MAX_CONTAINER_BACKOFF_MS = 300_000;

/** Defaults for an API-server retry loop (SupervisedListWatch's 1 s doubling to 30 s). */
export const DEFAULT_INITIAL_BACKOFF_MS = 1_000;
export const DEFAULT_BACKOFF_MULTIPLIER = 2;
export const DEFAULT_MAX_BACKOFF_MS = 30_000;
/** Up to this fraction of a delay is added at random (client-go's Jitter). */
export const DEFAULT_BACKOFF_JITTER = 0.2;

export interface BackoffOptions {
  initialMs?: number;
  multiplier?: number;
  /** Cap of the delay before jitter. */
  maxMs?: number;
  /** 0 for none; 0.2 adds up to 20 % of each delay. */
  jitter?: number;
  /** Uniform in [0, 1); Math.random unless a test pins it. */
  random?: () => number;
}

/** The un-jittered delay after `failures` earlier ones: initial · multiplier^failures, capped. */
export function exponentialDelayMs(failures: number, options: Required<Pick<BackoffOptions, 'initialMs' | 'multiplier' | 'maxMs'>>): number {
  // Past the cap the exponent no longer matters; bounding it keeps the power finite.
  const exponent = Math.min(Math.max(failures, 0), 64);
  return Math.min(options.initialMs * options.multiplier ** exponent, options.maxMs);
}

/** As client-go's wait.Jitter: the duration plus up to `maxFactor` of it, at random. */
export function jitterMs(durationMs: number, maxFactor: number, random: () => number = Math.random): number {
  return Math.round(durationMs * (1 + Math.max(maxFactor, 0) * random()));
}

export class Backoff {
  private readonly initialMs: number;
  private readonly multiplier: number;
  private readonly maxMs: number;
  private readonly jitter: number;
  private readonly random: () => number;
  private failures = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? DEFAULT_INITIAL_BACKOFF_MS;
    this.multiplier = options.multiplier ?? DEFAULT_BACKOFF_MULTIPLIER;
    this.maxMs = options.maxMs ?? DEFAULT_MAX_BACKOFF_MS;
    this.jitter = options.jitter ?? DEFAULT_BACKOFF_JITTER;
    this.random = options.random ?? Math.random;
  }

  /** The delay before the next attempt; each call makes the one after it longer. */
  next(): number {
    const baseMs = exponentialDelayMs(this.failures, { initialMs: this.initialMs, multiplier: this.multiplier, maxMs: this.maxMs });
    this.failures++;
    return jitterMs(baseMs, this.jitter, this.random);
  }

  /** After a success: the next failure waits the initial delay again. */
  reset(): void {
    this.failures = 0;
  }

  /** How many delays were handed out since the last reset. */
  get attempts(): number {
    return this.failures;
  }

  /** True while a failure streak is under way (next() called since the last reset). */
  get backingOff(): boolean {
    return this.failures > 0;
  }
}
