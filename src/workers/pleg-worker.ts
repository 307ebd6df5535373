// Entry of the PLEG worker thread (run by piscina): holds the PLEG and its own CRI
// channel, so that decoding the full sandbox and container lists every second, and
// the container event stream, never run on the main thread. Every result goes up
// on parentPort in the order the PLEG applied it (PlegRelistMessage); the relist
// task itself only says it is done.
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../shared/logging.js';
import { RuntimeEventsFlag } from '../shared/pleg/runtime-events-flag.js';
import type { PlegRelistMessage, WorkerBootData } from '../shared/shard-protocol.js';
import { ownThreadCpuMicros } from '../shared/thread-cpu.js';
import { ownHeapFigures, type HeapFigures } from '../shared/thread-heap.js';
import { Pleg } from './pleg/evented-pleg.js';
import { openShardCri } from './shard-cri.js';

const boot = workerData as WorkerBootData;
const pleg = new Pleg({
  cri: openShardCri(boot.settings),
  logger: createLogger(boot.settings.logLevel, { thread: 'pleg' }),
  eventsFlag: new RuntimeEventsFlag(boot.settings.runtimeEventsLive),
  publish: (result) => parentPort?.postMessage({ kind: 'pleg-relist', result } satisfies PlegRelistMessage),
});
pleg.start();

export default async function runRelist(): Promise<void> {
  await pleg.relist();
}

/** The PLEG thread's own CPU time (piscina task by name), for the per-thread figures on /stats/threads. */
export function threadCpuMicros(): number {
  return ownThreadCpuMicros();
}

/** The PLEG thread's own heap (piscina task by name), for the per-thread figures on /stats/heap. */
export function threadHeap(): HeapFigures {
  return ownHeapFigures();
}
