// Node-wide image pull coordination (the main thread's half of the image
// manager). Upstream's serializeImagePulls / maxParallelImagePulls are per kubelet;
// since each shard has its own CRI channel, the limit and the de-duplication of
// concurrent pulls of one image must be held here, across every shard.
import type { Logger } from 'pino';
import { ErrorCodes, ShardletError, toWire } from '../../shared/errors.js';
import type { PullCoordinatorApi, PullGrant, PullOutcome } from '../../shared/shard-protocol.js';

export interface PullCoordinatorOptions {
  serializeImagePulls: boolean;
  /** KubeletConfiguration.maxParallelImagePulls; undefined means no limit, as upstream's nil. */
  maxParallelImagePulls?: number;
  logger: Logger;
}

interface InflightPull {
  ticket: string;
  image: string;
  shardIndex: number;
  followers: Array<(outcome: PullOutcome) => void>;
  holdsSlot: boolean;
  outcome?: PullOutcome;
}

export class PullCoordinator implements PullCoordinatorApi {
  private readonly limit: number;
  private readonly inflightByImage = new Map<string, InflightPull>();
  private readonly inflightByTicket = new Map<string, InflightPull>();
  private readonly waitingForSlot: Array<() => void> = [];
  private activePulls = 0;
  private nextTicket = 1;
  /** Pulls started and pulls that joined another's, for the bench. */
  readonly counters = { pulls: 0, deduplicated: 0 };

  constructor(private readonly options: PullCoordinatorOptions) {
    this.limit = options.serializeImagePulls ? 1 : (options.maxParallelImagePulls ?? Number.POSITIVE_INFINITY);
  }

  /** A shard asks to pull an image: it leads the pull, or waits for the one already under way. */
  async acquire(imageKey: string, shardIndex: number): Promise<PullGrant> {
    const existing = this.inflightByImage.get(imageKey);
    if (existing) {
      this.counters.deduplicated++;
      const outcome = await new Promise<PullOutcome>((resolve) => existing.followers.push(resolve));
      return { role: 'follower', outcome };
    }
    const pull: InflightPull = { ticket: String(this.nextTicket++), image: imageKey, shardIndex, followers: [], holdsSlot: false };
    this.inflightByImage.set(imageKey, pull);
    this.inflightByTicket.set(pull.ticket, pull);
    await this.takeSlot();
    pull.holdsSlot = true;
    if (pull.outcome) {
      // Ended (its shard was lost) while it waited for a slot.
      this.freeSlot();
      return { role: 'follower', outcome: pull.outcome };
    }
    this.counters.pulls++;
    return { role: 'leader', ticket: pull.ticket };
  }

  /** The leader reports its outcome; the followers get it and the slot frees. */
  async release(ticket: string, outcome: PullOutcome): Promise<void> {
    const pull = this.inflightByTicket.get(ticket);
    if (!pull) return;
    this.finish(pull, outcome);
  }

  /** A shard died: its pulls end in error so that nobody waits forever on them. */
  releaseShard(shardIndex: number): void {
    for (const pull of [...this.inflightByTicket.values()]) {
      if (pull.shardIndex !== shardIndex) continue;
      const error = new ShardletError(ErrorCodes.SHARD_LOST, `shard ${shardIndex} stopped while pulling "${pull.image}"`);
      this.finish(pull, { ok: false, error: toWire(error) });
    }
  }

  private finish(pull: InflightPull, outcome: PullOutcome): void {
    pull.outcome = outcome;
    this.inflightByTicket.delete(pull.ticket);
    this.inflightByImage.delete(pull.image);
    for (const follower of pull.followers) follower(outcome);
    if (pull.holdsSlot) this.freeSlot();
  }

  private freeSlot(): void {
    this.activePulls--;
    this.waitingForSlot.shift()?.();
  }

  private takeSlot(): Promise<void> {
    if (this.activePulls < this.limit) {
      this.activePulls++;
      return Promise.resolve();
    }
    // The slot passes directly from the finishing pull to the next waiter.
    return new Promise((resolve) =>
      this.waitingForSlot.push(() => {
        this.activePulls++;
        resolve();
      }),
    );
  }
}
