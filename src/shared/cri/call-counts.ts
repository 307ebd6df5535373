// How many CRI calls shardlet made, per method, over all its threads, how many
// failed and how long they took (upstream's kubelet_runtime_operations_total,
// _errors_total and _duration_seconds). The counters and duration histograms live in
// one SharedArrayBuffer that the main thread hands to every shard and PLEG thread, so
// recording is a few atomic adds and reading the node-wide figures at a scrape needs
// no messages.
import { exponentialBuckets, SharedHistograms, type HistogramSnapshot } from '../metrics/shared-histogram.js';

/** Every unary method of runtime.v1 the client can call, in a fixed order (the counter index). */
export const CRI_METHODS = [
  'Version',
  'Status',
  'UpdateRuntimeConfig',
  'ReopenContainerLog',
  'RunPodSandbox',
  'StopPodSandbox',
  'RemovePodSandbox',
  'PodSandboxStatus',
  'ListPodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
  'ListContainers',
  'ContainerStatus',
  'UpdateContainerResources',
  'ExecSync',
  'GetContainerEvents',
  'ListImages',
  'ImageStatus',
  'PullImage',
  'RemoveImage',
  'ImageFsInfo',
  'ContainerStats',
  'ListContainerStats',
  'PodSandboxStats',
  'ListPodSandboxStats',
] as const;

export type CriMethod = (typeof CRI_METHODS)[number];

const INDEX_OF = new Map<CriMethod, number>(CRI_METHODS.map((name, index) => [name, index]));

/** upstream's RuntimeOperationsDuration buckets: ExponentialBuckets(0.005, 2.5, 14), 5 ms to about 12 minutes. */
export const RUNTIME_OPERATION_BUCKETS_SECONDS = exponentialBuckets(0.005, 2.5, 14);

/** Per method: calls, then errors. */
const COUNTER_SLOTS = 2;
const COUNTERS_BYTES = CRI_METHODS.length * COUNTER_SLOTS * BigInt64Array.BYTES_PER_ELEMENT;

/** One method's figures at a read. */
export interface CriMethodFigures {
  method: CriMethod;
  calls: number;
  errors: number;
  durationSeconds: HistogramSnapshot;
}

export class CriCallCounts {
  private readonly counters: BigInt64Array;
  private readonly durations: SharedHistograms;

  /** A fresh set of counters, or a view of counters another thread made (pass its `buffer`). */
  constructor(
    readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(
      COUNTERS_BYTES + SharedHistograms.byteLength(CRI_METHODS.length, RUNTIME_OPERATION_BUCKETS_SECONDS),
    ),
  ) {
    this.counters = new BigInt64Array(buffer, 0, CRI_METHODS.length * COUNTER_SLOTS);
    this.durations = new SharedHistograms(RUNTIME_OPERATION_BUCKETS_SECONDS, CRI_METHODS.length, buffer, COUNTERS_BYTES);
  }

  /**
   * Records one finished call; the type makes a method missing from CRI_METHODS a
   * compile error, not a lost count. Counted when it ends, as upstream's
   * instrumented runtime service does.
   */
  record(method: CriMethod, durationSeconds: number, failed: boolean): void {
    const index = INDEX_OF.get(method)!;
    Atomics.add(this.counters, index * COUNTER_SLOTS, 1n);
    if (failed) Atomics.add(this.counters, index * COUNTER_SLOTS + 1, 1n);
    this.durations.observe(index, durationSeconds);
  }

  /** Calls so far per method; methods never called are left out. */
  snapshot(): Partial<Record<CriMethod, number>> {
    const calls: Partial<Record<CriMethod, number>> = {};
    CRI_METHODS.forEach((name, index) => {
      const count = Number(Atomics.load(this.counters, index * COUNTER_SLOTS));
      if (count > 0) calls[name] = count;
    });
    return calls;
  }

  /** Calls, errors and durations of every method called so far (the /metrics collectors). */
  figures(): CriMethodFigures[] {
    const figures: CriMethodFigures[] = [];
    CRI_METHODS.forEach((method, index) => {
      const durationSeconds = this.durations.read(index);
      if (durationSeconds.count === 0) return;
      const errors = Number(Atomics.load(this.counters, index * COUNTER_SLOTS + 1));
      const calls = Number(Atomics.load(this.counters, index * COUNTER_SLOTS));
      figures.push({ method, calls, errors, durationSeconds });
    });
    return figures;
  }
}
