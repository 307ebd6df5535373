// Fixed-bucket histograms kept in a SharedArrayBuffer, so that every thread can
// observe into the same series with atomic adds and the main thread can read them
// at scrape time without asking any thread. Bounds follow Prometheus' `le`
// semantics: an observation lands in the first bucket whose upper bound it does not
// exceed; the +Inf bucket is the row's count.

/** Prometheus client_golang's DefBuckets, which upstream's kubelet uses for most durations. */
export const DEF_BUCKETS_SECONDS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `count` bounds starting at `start`, each `factor` times the one before (client_golang's ExponentialBuckets). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  if (count < 1 || start <= 0 || factor <= 1) throw new RangeError(`exponentialBuckets(${start}, ${factor}, ${count}): need count ≥ 1, start > 0, factor > 1`);
  const bounds: number[] = [];
  let bound = start;
  // Repeated multiplication, not start * factor ** i: the same float64 bounds as upstream prints.
  for (let i = 0; i < count; i++) {
    bounds.push(bound);
    bound *= factor;
  }
  return bounds;
}

/** Index of the bucket `value` falls in; `bounds.length` when it exceeds every bound (only +Inf holds it). */
export function bucketIndex(bounds: readonly number[], value: number): number {
  let index = 0;
  while (index < bounds.length && value > bounds[index]) index++;
  return index;
}

export interface HistogramSnapshot {
  count: number;
  /** Sum of the observed values, in the unit observed (seconds). */
  sum: number;
  /** Cumulative count per bound, in the order of the bounds (the +Inf bucket is `count`). */
  cumulative: number[];
}

/** Sums are kept as integer nanounits: a BigInt64 slot cannot hold a fraction. */
const SUM_SCALE = 1e9;
/** Per row: count, sum, then one slot per bound (observations in that bucket alone, not cumulative). */
const HEAD_SLOTS = 2;

export class SharedHistograms {
  /** Bytes needed for `rows` histograms over `bounds`. */
  static byteLength(rows: number, bounds: readonly number[]): number {
    return rows * (HEAD_SLOTS + bounds.length) * BigInt64Array.BYTES_PER_ELEMENT;
  }

  private readonly slots: BigInt64Array;
  private readonly rowSlots: number;

  /** A view of `rows` histograms at `byteOffset` of `buffer` (every thread passes the same arguments). */
  constructor(
    readonly bounds: readonly number[],
    readonly rows: number,
    buffer: SharedArrayBuffer = new SharedArrayBuffer(SharedHistograms.byteLength(rows, bounds)),
    byteOffset = 0,
  ) {
    this.rowSlots = HEAD_SLOTS + bounds.length;
    this.slots = new BigInt64Array(buffer, byteOffset, rows * this.rowSlots);
  }

  /**
   * Adds one observation to `row`. The count goes first and a reader reads it last,
   * so a scrape racing an observation never sees a bucket above the +Inf count.
   */
  observe(row: number, value: number): void {
    const base = row * this.rowSlots;
    Atomics.add(this.slots, base, 1n);
    Atomics.add(this.slots, base + 1, BigInt(Math.round(Math.max(value, 0) * SUM_SCALE)));
    const bucket = bucketIndex(this.bounds, value);
    if (bucket < this.bounds.length) Atomics.add(this.slots, base + HEAD_SLOTS + bucket, 1n);
  }

  read(row: number): HistogramSnapshot {
    const base = row * this.rowSlots;
    const cumulative: number[] = [];
    let running = 0;
    for (let bucket = 0; bucket < this.bounds.length; bucket++) {
      running += Number(Atomics.load(this.slots, base + HEAD_SLOTS + bucket));
      cumulative.push(running);
    }
    const sum = Number(Atomics.load(this.slots, base + 1)) / SUM_SCALE;
    const count = Number(Atomics.load(this.slots, base));
    return { count, sum, cumulative };
  }
}
