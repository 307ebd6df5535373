// Per-thread CPU time, as each thread measures it for itself (process.threadCpuUsage):
// the OS gives every Node thread the same name, so /proc cannot tell a shard from a
// GC helper. Read from /stats/threads by the bench.

/** CPU time each of shardlet's threads spent since it started, in microseconds (process.threadCpuUsage). */
export interface ThreadCpuReport {
  mainMicros: number;
  /** One per shard thread; empty with --workers 0 (the main thread does their work). */
  shardsMicros: number[];
  /** The PLEG thread; 0 with --workers 0. */
  plegMicros: number;
  /** The whole process (every thread, GC and libuv helpers included). */
  processMicros: number;
}

/** This thread's CPU time so far, in microseconds. */
export function ownThreadCpuMicros(): number {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
}
