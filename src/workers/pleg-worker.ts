// Entry of the PLEG worker thread (run by piscina): holds the relister and its own
// CRI channel, so that decoding the full sandbox and container lists every second
// never runs on the main thread.
import { workerData } from 'node:worker_threads';
import { Relister, type RelistResult } from './pleg/relist.js';
import { openShardCri } from './shard-cri.js';
import type { WorkerBootData } from './worker-data.js';

const boot = workerData as WorkerBootData;
const relister = new Relister(openShardCri(boot.settings));

export default function runRelist(): Promise<RelistResult> {
  return relister.relist();
}
