// The node-wide count of sandbox and container creations in flight, as a semaphore
// in one SharedArrayBuffer that the main thread makes and hands to every shard (as
// the CRI call counters): a shard takes a permit with a compare-and-swap, gives it
// back with an atomic subtract and wakes the waiting threads through Atomics.notify,
// so the limit holds across every shard's CRI channel without a message. Each shard
// also counts the permits it holds, so that the main thread can take back those of a
// shard thread that died (reclaimShard). The finished creations' latencies are summed
// here too, for the main thread's adaptive limit (creation-limit-controller.ts).
import type { KindFigures } from './adaptive-limit.js';

/** What a permit is for: RunPodSandbox, or CreateContainer with its StartContainer. */
export type CreationKind = 'sandbox' | 'container';
export const CREATION_KINDS: readonly CreationKind[] = ['sandbox', 'container'];

/** Int32 cells of the header. */
const LIMIT = 0;
const IN_FLIGHT = 1;
/** Bumped at every release and every raise of the limit: what waiting threads wait on. */
const WAKE_SEQ = 2;
/** Set when a creation had to wait since the controller last looked. */
const SATURATED = 3;
/** Container creations waiting for a permit, node-wide: a sandbox creation lets them go first. */
const CONTAINERS_WAITING = 4;
/** Creations of any kind waiting for a permit, node-wide: demand at the limit. */
const WAITING = 5;
const HEADER_CELLS = 8;
/** Per shard: permits held, creations waiting, container creations waiting. */
const SHARD_CELLS = 3;
const HELD = 0;
const SHARD_WAITING = 1;
const SHARD_CONTAINERS_WAITING = 2;
/** Per kind, in the BigInt64 part: creations finished, their summed call time in nanoseconds. */
const KIND_SLOTS = 2;
const NANOS_PER_SECOND = 1e9;

/** A view of the shared permit state; every thread makes one over the same buffer. */
export class CreationPermits {
  /** Bytes for `shards` shards' counts. */
  static byteLength(shards: number): number {
    const int32Bytes = (HEADER_CELLS + shards * SHARD_CELLS) * Int32Array.BYTES_PER_ELEMENT;
    const aligned = Math.ceil(int32Bytes / BigInt64Array.BYTES_PER_ELEMENT) * BigInt64Array.BYTES_PER_ELEMENT;
    return aligned + CREATION_KINDS.length * KIND_SLOTS * BigInt64Array.BYTES_PER_ELEMENT;
  }

  /** A fresh state for `shards` shards with `limit` permits (the main thread), or a view of `buffer`. */
  static create(shards: number, limit: number): CreationPermits {
    const permits = new CreationPermits(new SharedArrayBuffer(CreationPermits.byteLength(shards)), shards);
    permits.setLimit(limit);
    return permits;
  }

  private readonly cells: Int32Array;
  private readonly latencies: BigInt64Array;

  constructor(
    readonly buffer: SharedArrayBuffer,
    readonly shards: number,
  ) {
    const int32Cells = HEADER_CELLS + shards * SHARD_CELLS;
    this.cells = new Int32Array(buffer, 0, int32Cells);
    const latencyOffset = buffer.byteLength - CREATION_KINDS.length * KIND_SLOTS * BigInt64Array.BYTES_PER_ELEMENT;
    this.latencies = new BigInt64Array(buffer, latencyOffset, CREATION_KINDS.length * KIND_SLOTS);
  }

  get limit(): number {
    return Atomics.load(this.cells, LIMIT);
  }

  get inFlight(): number {
    return Atomics.load(this.cells, IN_FLIGHT);
  }

  /** Creations waiting for a permit now, node-wide. */
  get waiting(): number {
    return Atomics.load(this.cells, WAITING);
  }

  /** Permits shard `shard` holds now. */
  heldBy(shard: number): number {
    return Atomics.load(this.cells, this.shardCell(shard, HELD));
  }

  /** Sets the limit; a raise wakes the waiting threads, a cut lets the creations in flight finish. */
  setLimit(limit: number): void {
    const previous = Atomics.exchange(this.cells, LIMIT, limit);
    if (limit > previous) this.wake();
  }

  /**
   * Takes a permit for `shard` if one is free; a sandbox creation leaves it to a
   * waiting container creation (the pod that has its sandbox goes Running first).
   */
  tryAcquire(kind: CreationKind, shard: number): boolean {
    for (;;) {
      const inFlight = Atomics.load(this.cells, IN_FLIGHT);
      if (inFlight >= Atomics.load(this.cells, LIMIT)) return false;
      if (kind === 'sandbox' && Atomics.load(this.cells, CONTAINERS_WAITING) > 0) return false;
      if (Atomics.compareExchange(this.cells, IN_FLIGHT, inFlight, inFlight + 1) === inFlight) {
        Atomics.add(this.cells, this.shardCell(shard, HELD), 1);
        return true;
      }
    }
  }

  /** Gives a permit back, with how long its creation's calls took. */
  release(kind: CreationKind, shard: number, callSeconds: number): void {
    const kindBase = CREATION_KINDS.indexOf(kind) * KIND_SLOTS;
    Atomics.add(this.latencies, kindBase, 1n);
    Atomics.add(this.latencies, kindBase + 1, BigInt(Math.round(Math.max(callSeconds, 0) * NANOS_PER_SECOND)));
    // Only a permit this shard still holds is given back: one reclaimShard took already is not given twice.
    if (decrementIfPositive(this.cells, this.shardCell(shard, HELD))) Atomics.sub(this.cells, IN_FLIGHT, 1);
    this.wake();
  }

  /** A creation of `shard` starts or stops waiting for a permit (marks demand; containers go first). */
  noteWaiting(kind: CreationKind, shard: number, waiting: boolean): void {
    if (waiting) Atomics.store(this.cells, SATURATED, 1);
    const delta = waiting ? 1 : -1;
    Atomics.add(this.cells, this.shardCell(shard, SHARD_WAITING), delta);
    Atomics.add(this.cells, WAITING, delta);
    if (kind !== 'container') return;
    Atomics.add(this.cells, this.shardCell(shard, SHARD_CONTAINERS_WAITING), delta);
    Atomics.add(this.cells, CONTAINERS_WAITING, delta);
    // A sandbox creation held back for containers may go once none waits.
    if (!waiting) this.wake();
  }

  /**
   * Takes back every permit and waiting mark of `shard`, whose thread is gone (its
   * creations will never release): what it held returns to the other shards.
   */
  reclaimShard(shard: number): number {
    const held = Atomics.exchange(this.cells, this.shardCell(shard, HELD), 0);
    if (held > 0) Atomics.sub(this.cells, IN_FLIGHT, held);
    const waiting = Atomics.exchange(this.cells, this.shardCell(shard, SHARD_WAITING), 0);
    if (waiting !== 0) Atomics.sub(this.cells, WAITING, waiting);
    const containersWaiting = Atomics.exchange(this.cells, this.shardCell(shard, SHARD_CONTAINERS_WAITING), 0);
    if (containersWaiting !== 0) Atomics.sub(this.cells, CONTAINERS_WAITING, containersWaiting);
    this.wake();
    return held;
  }

  /** The wake sequence number, to wait on (waitForWake) after a failed tryAcquire. */
  wakeSeq(): number {
    return Atomics.load(this.cells, WAKE_SEQ);
  }

  /** Resolves once something was released or the limit raised since `seq` was read, or after `timeoutMs`. */
  async waitForWake(seq: number, timeoutMs: number): Promise<void> {
    const waited = Atomics.waitAsync(this.cells, WAKE_SEQ, seq, timeoutMs);
    if (waited.async) await waited.value;
  }

  /** The creations finished since the last call, per kind, and whether any waited (the controller's window). */
  takeWindow(): { byKind: Record<CreationKind, KindFigures>; saturated: boolean } {
    const byKind = {} as Record<CreationKind, KindFigures>;
    CREATION_KINDS.forEach((kind, index) => {
      const count = Number(Atomics.exchange(this.latencies, index * KIND_SLOTS, 0n));
      const nanos = Number(Atomics.exchange(this.latencies, index * KIND_SLOTS + 1, 0n));
      byKind[kind] = { count, totalSeconds: nanos / NANOS_PER_SECOND };
    });
    const saturated = Atomics.exchange(this.cells, SATURATED, 0) === 1 || Atomics.load(this.cells, WAITING) > 0;
    return { byKind, saturated };
  }

  private wake(): void {
    Atomics.add(this.cells, WAKE_SEQ, 1);
    Atomics.notify(this.cells, WAKE_SEQ);
  }

  private shardCell(shard: number, cell: number): number {
    if (!Number.isInteger(shard) || shard < 0 || shard >= this.shards) throw new RangeError(`creation permits: no shard ${shard} of ${this.shards}`);
    return HEADER_CELLS + shard * SHARD_CELLS + cell;
  }
}

/** Subtracts one from a cell that is above zero; false when it was zero already. */
function decrementIfPositive(cells: Int32Array, index: number): boolean {
  for (;;) {
    const value = Atomics.load(cells, index);
    if (value <= 0) return false;
    if (Atomics.compareExchange(cells, index, value, value - 1) === value) return true;
  }
}
