// shardlet's CPU per pod start split by thread, from its /stats/threads (each thread
// measures itself: the OS names every Node thread "node"), and what the main thread's
// share means: the main thread routes every pod, so with unlimited cores it is the
// ceiling, 1000 / (main-thread ms per pod) pods/s.
import type { ThreadCpuReport } from '../src/shared/thread-cpu.js';

export interface ThreadCpuPerPod {
  mainMs: number;
  /** Every shard thread together (0 with --workers 0: the main thread did their work). */
  shardsMs: number;
  plegMs: number;
  /** The rest of the process: V8's GC and compiler helpers, libuv's pool, pino. */
  otherMs: number;
  /** 1000 / mainMs: pods/s the main thread allows when every other part has cores to spare. */
  ceilingPodsPerSecond: number;
}

export function threadCpuPerPod(before: ThreadCpuReport, after: ThreadCpuReport, pods: number): ThreadCpuPerPod {
  const msPerPod = (micros: number) => micros / 1000 / pods;
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const mainMs = msPerPod(after.mainMicros - before.mainMicros);
  // A replaced shard thread starts again from 0: its figure then only counts since the replacement.
  const shardsMs = msPerPod(Math.max(0, sum(after.shardsMicros) - sum(before.shardsMicros)));
  const plegMs = msPerPod(Math.max(0, after.plegMicros - before.plegMicros));
  const processMs = msPerPod(after.processMicros - before.processMicros);
  return { mainMs, shardsMs, plegMs, otherMs: Math.max(0, processMs - mainMs - shardsMs - plegMs), ceilingPodsPerSecond: 1000 / mainMs };
}

/** One line of the table's breakdown block. */
export function threadCpuLine(perPod: ThreadCpuPerPod | undefined): string {
  if (!perPod) return 'not reported by this shardlet';
  const { mainMs, shardsMs, plegMs, otherMs, ceilingPodsPerSecond } = perPod;
  return `main ${mainMs.toFixed(2)}  shards ${shardsMs.toFixed(2)}  pleg ${plegMs.toFixed(2)}  other ${otherMs.toFixed(2)} ms/pod; main-thread ceiling ${ceilingPodsPerSecond.toFixed(0)} pods/s`;
}

/** A window's CPU by thread kind, % of one core. */
export function threadCpuPercent(before: ThreadCpuReport, after: ThreadCpuReport, windowSeconds: number): { main: number; shards: number; pleg: number } {
  const percent = (micros: number) => (Math.max(0, micros) / 1e6 / windowSeconds) * 100;
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  return {
    main: percent(after.mainMicros - before.mainMicros),
    shards: percent(sum(after.shardsMicros) - sum(before.shardsMicros)),
    pleg: percent(after.plegMicros - before.plegMicros),
  };
}
