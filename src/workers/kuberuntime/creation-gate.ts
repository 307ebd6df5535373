// A shard's side of the runtime contention guard: the sandbox and container
// creations of its syncs each wait for a node-wide permit (creation-permits.ts)
// before their CRI calls, and give it back when the calls end, whatever the way.
// Within the shard the waiting creations queue here, container creations before
// sandbox creations and in arrival order within a kind, and only the head of the
// queue waits on the shared memory: one Atomics.waitAsync per thread, however many
// pods wait.
import { CreationPermits, type CreationKind } from '../../shared/runtime-creation/creation-permits.js';
import type { ShardSettings } from '../../shared/shard-protocol.js';

/** Runs a creation's CRI calls holding a permit (or straight away, with the guard off). */
export interface CreationGate {
  run<T>(kind: CreationKind, create: () => Promise<T>): Promise<T>;
}

/** --runtime-creation-limit=off: the calls go to the runtime as the syncs make them. */
export const UNGUARDED_CREATIONS: CreationGate = { run: (_kind, create) => create() };

/**
 * How long the head waiter sleeps at most before it looks again: a missed wake-up
 * (none is expected) costs this much, never a hang.
 */
export const PERMIT_RECHECK_MS = 1_000;

/**
 * A creation whose calls have run this long gives its permit back while they go
 * on (their latency, this long, still counts): one sandbox stuck in a CNI plugin
 * until the 2-minute CRI deadline must not hold up every other pod on the node for
 * that long. It is ≈ 100× a RunPodSandbox at no load; a guarded runtime answers far
 * sooner, an unguarded one burst of 100 took 63 s.
 */
export const STALLED_CREATION_MS = 10_000;

interface Waiter {
  kind: CreationKind;
  granted: () => void;
}

export class SharedCreationGate implements CreationGate {
  private readonly waiters: Waiter[] = [];
  private pumping = false;

  constructor(
    private readonly permits: CreationPermits,
    private readonly shard: number,
    private readonly stalledAfterMs = STALLED_CREATION_MS,
  ) {}

  async run<T>(kind: CreationKind, create: () => Promise<T>): Promise<T> {
    await this.acquire(kind);
    const startedAt = performance.now();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.permits.release(kind, this.shard, (performance.now() - startedAt) / 1000);
    };
    const stalled = setTimeout(release, this.stalledAfterMs);
    stalled.unref();
    try {
      return await create();
    } finally {
      clearTimeout(stalled);
      release();
    }
  }

  private acquire(kind: CreationKind): Promise<void> {
    if (this.waiters.length === 0 && this.permits.tryAcquire(kind, this.shard)) return Promise.resolve();
    return new Promise((granted) => {
      const waiter: Waiter = { kind, granted };
      // Containers first: a pod that has its sandbox goes Running before another pod's sandbox is made.
      const firstSandbox = kind === 'container' ? this.waiters.findIndex((queued) => queued.kind === 'sandbox') : -1;
      if (firstSandbox < 0) this.waiters.push(waiter);
      else this.waiters.splice(firstSandbox, 0, waiter);
      this.permits.noteWaiting(kind, this.shard, true);
      void this.pump();
    });
  }

  /** Hands permits to the queue's head as they free up, until the queue is empty. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0) {
        // Read before trying: a release between the try and the wait changes it, and the wait returns at once.
        const seq = this.permits.wakeSeq();
        const head = this.waiters[0]!;
        if (this.permits.tryAcquire(head.kind, this.shard)) {
          this.waiters.shift();
          this.permits.noteWaiting(head.kind, this.shard, false);
          head.granted();
          continue;
        }
        await this.permits.waitForWake(seq, PERMIT_RECHECK_MS);
      }
    } finally {
      this.pumping = false;
    }
  }
}

/** The gate a shard's settings ask for: shared permits when the guard is on, none when off. */
export function creationGateFor(settings: ShardSettings, shard: number): CreationGate {
  const shared = settings.runtimeCreationPermits;
  if (!shared) return UNGUARDED_CREATIONS;
  return new SharedCreationGate(new CreationPermits(shared.buffer, shared.shards), shard);
}
