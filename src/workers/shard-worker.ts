// Entry of a shard worker thread (run by piscina). It only wires: a Shard with its
// own CRI channel, the cache of what it was sent of each pod, and a comlink proxy to
// the main thread's pull coordinator over a port it hands up at start.
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import * as Comlink from 'comlink';
import { nodeEndpoint } from '../shared/comlink-node.js';
import { createLogger } from '../shared/logging.js';
import { pullPortMessage, type ProbeStats, type PullCoordinatorApi, type ShardSyncReply, type ShardTask, type WorkerBootData } from '../shared/shard-protocol.js';
import { ownThreadCpuMicros } from '../shared/thread-cpu.js';
import { ownHeapFigures, type HeapFigures } from '../shared/thread-heap.js';
import { Shard } from './shard.js';
import { ShardPodCache } from './shard-pod-cache.js';

const boot = workerData as WorkerBootData;
const logger = createLogger(boot.settings.logLevel, { thread: `shard-${boot.index}` });
const { port1, port2 } = new MessageChannel();
parentPort?.postMessage(pullPortMessage(port2), [port2]);
const pulls = Comlink.wrap<PullCoordinatorApi>(nodeEndpoint(port1));
// Probe result changes and pod events go up on the thread's own port, in the order the shard sends them;
// the main thread tells them from the pull port by `kind`.
const shard = new Shard(boot.index, boot.settings, pulls, logger, (message) => parentPort?.postMessage(message));
const sentPods = new ShardPodCache();

export default async function runShardTask(task: ShardTask): Promise<ShardSyncReply | ProbeStats | undefined> {
  if (task.op === 'probe-stats') return shard.probeStats();
  if (task.op === 'exit') {
    if (!boot.faultInjection) throw new Error('fault injection is not enabled for this shard');
    logger.warn('Shard thread exiting on request (fault injection)');
    logger.flush();
    // Ends the thread without an answer: the caller sees the task fail as a lost shard's would.
    process.exit(1);
  }
  return sentPods.run(task.request, (request) => shard.sync(request));
}

/** The shard thread's own CPU time (piscina task by name), for the per-thread figures on /stats/threads. */
export function threadCpuMicros(): number {
  return ownThreadCpuMicros();
}

/** The shard thread's own heap (piscina task by name), for the per-thread figures on /stats/heap. */
export function threadHeap(): HeapFigures {
  return ownHeapFigures();
}
