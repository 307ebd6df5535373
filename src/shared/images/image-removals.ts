// How many image removals the kubelet has begun, shared by every thread through one
// SharedArrayBuffer (as RuntimeEventsFlag is): the image GC counts each RemoveImage
// before it asks, and a shard that knows an image is present from an earlier
// ImageStatus or its own pull trusts that only while the count is what it was then.
// A single atomic cell: a removal costs one add, a look one load.

export class ImageRemovals {
  readonly buffer: SharedArrayBuffer;
  private readonly cell: Int32Array;

  /** Wraps a buffer another thread made, or makes a new one (no removal yet). */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) {
    this.buffer = buffer;
    this.cell = new Int32Array(buffer, 0, 1);
  }

  /** Removals begun so far; changes whenever the kubelet may have removed an image. */
  count(): number {
    return Atomics.load(this.cell, 0);
  }

  /** Called before each RemoveImage: the image may be gone from then on, whatever the call answers. */
  removing(): void {
    Atomics.add(this.cell, 0, 1);
  }
}
