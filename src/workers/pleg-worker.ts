// Entry of the PLEG worker thread (run by piscina): holds the relister and its own
// CRI channel, so that decoding the full sandbox and container lists every second
// never runs on the main thread.
import { workerData } from 'node:worker_threads';
import type { RelistResult, WorkerBootData } from '../shared/shard-protocol.js';
import { ownThreadCpuMicros } from '../shared/thread-cpu.js';
import { Relister } from './pleg/relist.js';
import { openShardCri } from './shard-cri.js';

const boot = workerData as WorkerBootData;
const relister = new Relister(openShardCri(boot.settings));

export default function runRelist(): Promise<RelistResult> {
  return relister.relist();
}

/** The PLEG thread's own CPU time (piscina task by name), for the per-thread figures on /stats/threads. */
export function threadCpuMicros(): number {
  return ownThreadCpuMicros();
}
