// A start's CPU split at the moment shardlet first saw a pod: what it spent from its
// launch until then (module loading, thread start, registration: a fixed cost that
// does not grow with the pods) apart from what it spent after, divided by the pods.
// Spreading the fixed cost over the pods made the per-pod figure fall as the pod
// count grew and hid a per-pod cost that grew with it.
import type { ThreadCpuReport } from '../src/shared/thread-cpu.js';
import { threadCpuPerPod, type ThreadCpuPerPod } from './thread-cpu.js';

/** shardlet's CPU so far, all threads (/proc) and by thread (/stats/threads, when this build reports it). */
export interface CpuSnapshot {
  processSeconds: number;
  threads?: ThreadCpuReport;
}

/** CPU seconds by thread kind; other is the process's figure minus the three (GC, compiler, libuv's pool). */
export interface ThreadSeconds {
  main: number;
  shards: number;
  pleg: number;
  other: number;
}

export interface StartupCost {
  /** All threads, from launch until the first pod was seen. */
  cpuSeconds: number;
  byThread?: ThreadSeconds;
}

export interface StartCostSplit {
  startup: StartupCost;
  /** All threads, from the first pod seen until every pod Running. */
  cpuSeconds: number;
  cpuMsPerPod: number;
  threadCpuPerPod?: ThreadCpuPerPod;
}

/** `atFirstSeen` counts from launch (every counter starts at 0 with its thread); `atAllRunning` is the end of the start. */
export function splitStartCost(atFirstSeen: CpuSnapshot, atAllRunning: CpuSnapshot, pods: number): StartCostSplit {
  const cpuSeconds = Math.max(0, atAllRunning.processSeconds - atFirstSeen.processSeconds);
  const threadsBefore = atFirstSeen.threads;
  const threadsAfter = atAllRunning.threads;
  return {
    startup: { cpuSeconds: atFirstSeen.processSeconds, ...(threadsBefore ? { byThread: threadSeconds(threadsBefore) } : {}) },
    cpuSeconds,
    cpuMsPerPod: (cpuSeconds * 1000) / pods,
    threadCpuPerPod: threadsBefore && threadsAfter ? threadCpuPerPod(threadsBefore, threadsAfter, pods) : undefined,
  };
}

function threadSeconds(report: ThreadCpuReport): ThreadSeconds {
  const seconds = (micros: number) => micros / 1e6;
  const shardsMicros = report.shardsMicros.reduce((total, micros) => total + micros, 0);
  const known = report.mainMicros + shardsMicros + report.plegMicros;
  return {
    main: seconds(report.mainMicros),
    shards: seconds(shardsMicros),
    pleg: seconds(report.plegMicros),
    other: seconds(Math.max(0, report.processMicros - known)),
  };
}

/** One line: "1.23 s: main 0.40  shards 0.50  pleg 0.10  other 0.23 s". */
export function startupLine(startup: StartupCost): string {
  const total = `${startup.cpuSeconds.toFixed(2)} s`;
  if (!startup.byThread) return `${total} (no thread figures from this shardlet)`;
  const { main, shards, pleg, other } = startup.byThread;
  return `${total}: main ${main.toFixed(2)}  shards ${shards.toFixed(2)}  pleg ${pleg.toFixed(2)}  other ${other.toFixed(2)} s`;
}
