// Per-thread V8 heap figures, as each thread reads them for itself: every worker
// thread has its own isolate and heap, and the process's RSS alone cannot say which
// of them grows, or whether the growth is outside every heap (native buffers, code).
// Read from /stats/heap by the churn soak.
import { getHeapStatistics } from 'node:v8';

/** One isolate's heap, in bytes. */
export interface HeapFigures {
  /** Live objects and garbage not yet collected (used_heap_size). */
  usedBytes: number;
  /** Heap pages resident in memory (total_physical_size): the heap's share of RSS. */
  residentBytes: number;
  /** Memory held outside the heap by its objects (external_memory: Buffers, ArrayBuffers). */
  externalBytes: number;
}

/** Every isolate of shardlet, plus the process's RSS they sit in. */
export interface ThreadHeapReport {
  main: HeapFigures;
  /** One per shard thread; empty with --workers 0 (the main thread holds their state). */
  shards: HeapFigures[];
  /** The PLEG thread; absent with --workers 0. */
  pleg?: HeapFigures;
  rssBytes: number;
}

/** This thread's heap now. */
export function ownHeapFigures(): HeapFigures {
  const stats = getHeapStatistics();
  return { usedBytes: stats.used_heap_size, residentBytes: stats.total_physical_size, externalBytes: stats.external_memory };
}
