// Whether the runtime's container events reach the PLEG right now, shared by every
// thread through one SharedArrayBuffer (as the CRI call counters are): the PLEG
// sets it while its GetContainerEvents stream is up, and a shard reads it when it
// decides whether a pod whose init container still runs needs another look soon
// (the exit event wakes the pod when events flow; only a runtime without them,
// containerd 1.6, needs the poll). Reads and writes are single atomic stores.

const LIVE = 1;
const NOT_LIVE = 0;

export class RuntimeEventsFlag {
  readonly buffer: SharedArrayBuffer;
  private readonly cell: Int32Array;

  /** Wraps a buffer another thread made, or makes a new one (not live). */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) {
    this.buffer = buffer;
    this.cell = new Int32Array(buffer, 0, 1);
  }

  /** True while the PLEG receives the runtime's container events. */
  live(): boolean {
    return Atomics.load(this.cell, 0) === LIVE;
  }

  set(live: boolean): void {
    Atomics.store(this.cell, 0, live ? LIVE : NOT_LIVE);
  }
}

