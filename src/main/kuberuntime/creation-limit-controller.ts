// The main thread's half of the runtime contention guard: it makes the node-wide
// creation permits every shard shares, and with --runtime-creation-limit=adaptive
// feeds the creations that finished, a window at a time, to the adaptive limit and
// publishes the limit it returns. It also takes back the permits of a shard thread
// that died, which can never release them itself.
import type { Logger } from 'pino';
import { AdaptiveLimit, DEFAULT_ADAPTIVE_LIMIT_OPTIONS, type AdaptiveLimitOptions, type LatencyWindow } from '../../shared/runtime-creation/adaptive-limit.js';
import { formatRuntimeCreationLimit, type RuntimeCreationLimit } from '../../shared/runtime-creation/creation-limit-setting.js';
import { CREATION_KINDS, CreationPermits } from '../../shared/runtime-creation/creation-permits.js';

/**
 * How often the finished creations are collected: well under one RunPodSandbox
 * (≈ 90 ms unloaded), so the limit can move once per round of calls (TCP Vegas
 * moves its window once per round trip).
 */
export const CREATION_LIMIT_TICK_MS = 25;
/**
 * Creations a window needs before the limit moves on it: fewer say little about
 * the runtime's latency. A limit below it moves after one round of its own size,
 * so that slow start from 2 takes one round per doubling.
 */
export const MIN_WINDOW_CREATIONS = 4;

export interface CreationLimitControllerOptions {
  setting: RuntimeCreationLimit;
  /** Shards that take permits (1 with --workers 0). */
  shards: number;
  logger: Logger;
  /** Tests: the adaptive limit's bounds and start. */
  adaptive?: AdaptiveLimitOptions;
  tickMs?: number;
}

/** What /metrics shows of the guard. */
export interface CreationLimitFigures {
  limit: number;
  inFlight: number;
}

export class CreationLimitController {
  /** Absent with the guard off. */
  readonly permits?: CreationPermits;
  private readonly adaptive?: AdaptiveLimit;
  private timer?: NodeJS.Timeout;
  private pending: LatencyWindow = emptyWindow();

  constructor(private readonly options: CreationLimitControllerOptions) {
    const { setting } = options;
    if (setting.mode === 'off') return;
    if (setting.mode === 'adaptive') this.adaptive = new AdaptiveLimit(options.adaptive ?? DEFAULT_ADAPTIVE_LIMIT_OPTIONS);
    const initial = setting.mode === 'fixed' ? setting.limit : this.adaptive!.limit;
    this.permits = CreationPermits.create(Math.max(options.shards, 1), initial);
  }

  /** What the shards' settings carry (ShardSettings.runtimeCreationPermits); undefined with the guard off. */
  get shared(): { buffer: SharedArrayBuffer; shards: number } | undefined {
    return this.permits ? { buffer: this.permits.buffer, shards: this.permits.shards } : undefined;
  }

  start(): void {
    const { logger, setting } = this.options;
    logger.info({ runtimeCreationLimit: formatRuntimeCreationLimit(setting), limit: this.permits?.limit }, 'Runtime contention guard set');
    if (!this.adaptive || this.timer) return;
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? CREATION_LIMIT_TICK_MS);
    this.timer.unref();
  }

  /** Collects the creations finished since the last tick; once the window holds enough, moves the limit on it. */
  tick(): void {
    if (!this.adaptive || !this.permits) return;
    const taken = this.permits.takeWindow();
    for (const kind of CREATION_KINDS) {
      const pending = (this.pending.byKind[kind] ??= { count: 0, totalSeconds: 0 });
      pending.count += taken.byKind[kind].count;
      pending.totalSeconds += taken.byKind[kind].totalSeconds;
    }
    this.pending.saturated ||= taken.saturated;
    const finished = Object.values(this.pending.byKind).reduce((sum, figures) => sum + figures.count, 0);
    if (finished < Math.min(MIN_WINDOW_CREATIONS, this.adaptive.limit)) return;
    const window = this.pending;
    this.pending = emptyWindow();
    const before = this.adaptive.limit;
    const change = this.adaptive.update(window);
    if (change === 'held') return;
    this.permits.setLimit(this.adaptive.limit);
    this.options.logger.debug(
      { limit: this.adaptive.limit, before, latencyRatio: this.adaptive.lastRatio, inFlight: this.permits.inFlight, waiting: this.permits.waiting },
      change === 'grew' ? 'Runtime creation limit raised: latency holds' : 'Runtime creation limit cut: runtime latency climbs',
    );
  }

  /** A shard thread died: the permits it held come back (piscina's workerDestroy, before its replacement runs). */
  reclaimShard(shard: number): void {
    const held = this.permits?.reclaimShard(shard) ?? 0;
    if (held > 0) this.options.logger.warn({ shard, permits: held }, 'Took back the runtime creation permits of a lost shard thread');
  }

  figures(): CreationLimitFigures | undefined {
    return this.permits ? { limit: this.permits.limit, inFlight: this.permits.inFlight } : undefined;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function emptyWindow(): LatencyWindow {
  return { byKind: {}, saturated: false };
}
