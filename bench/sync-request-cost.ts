// What one pod sync request costs to cross to a shard thread: its size as the
// structured clone encodes it, and the time to encode it (the main thread's share)
// and decode it (the shard's), for the bench's pod as shardlet holds it after the
// static source's defaults, with the status a real sync computed for it. Compared:
// the whole request (what every sync sent before ShardSyncRequest, and what a first
// sync still sends) and the request of a later sync of the unchanged pod.
//
//   npm run build && node dist/bench/sync-request-cost.js [--iterations 20000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { pino } from 'pino';
import { PullCoordinator } from '../src/main/images/pull-coordinator.js';
import { ShardRequests } from '../src/main/shards/shard-requests.js';
import { applyStaticPodDefaults } from '../src/shared/manifest/static-pod.js';
import type { ShardTask, SyncPodRequest } from '../src/shared/shard-protocol.js';
import { FILE_SOURCE, type Pod } from '../src/shared/types.js';
import { startSimRuntime } from '../src/simruntime/server.js';
import { inProcessShardSettings } from '../src/tools/in-process-shard-settings.js';
import { Shard } from '../src/workers/shard.js';
import { BENCH_NODE_NAME, benchPod, podManifest } from './bench-pods.js';

const IMAGE = 'registry.local/bench:1.0';
const { values } = parseArgs({ options: { iterations: { type: 'string', default: '20000' } } });
const iterations = Number(values.iterations);

/** Size, and µs to encode and to decode, of one message. */
function cost(task: ShardTask): { bytes: number; encodeUs: number; decodeUs: number } {
  const bytes = serialize(task);
  let started = performance.now();
  for (let i = 0; i < iterations; i++) serialize(task);
  const encodeUs = ((performance.now() - started) * 1000) / iterations;
  started = performance.now();
  for (let i = 0; i < iterations; i++) deserialize(bytes);
  const decodeUs = ((performance.now() - started) * 1000) / iterations;
  return { bytes: bytes.length, encodeUs, decodeUs };
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'shardlet-request-cost-'));
  const logger = pino({ level: 'silent' });
  const sim = await startSimRuntime({ socketPath: join(workDir, 'sim.sock'), latency: { scale: 0 }, preloadImages: [IMAGE] });
  const settings = inProcessShardSettings(sim.endpoint, workDir, { nodeName: BENCH_NODE_NAME });
  const shard = new Shard(0, settings, new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 5, logger }), logger);
  try {
    // The bench's pod with an init container, as the file source hands it on.
    const origin = { source: FILE_SOURCE, location: '/etc/kubernetes/manifests/bench-0000.json', nodeName: BENCH_NODE_NAME } as const;
    const pod: Pod = applyStaticPodDefaults(podManifest(benchPod(0, [IMAGE])), origin);
    let status = (await shard.sync({ kind: 'sync', pod })).status;
    status = (await shard.sync({ kind: 'sync', pod, previousStatus: status })).status;
    const request: SyncPodRequest = { kind: 'sync', pod, previousStatus: status };
    const whole: ShardTask = { op: 'sync', request: { uid: pod.metadata!.uid!, kind: 'sync', seq: 1, pod, previousStatus: status } };
    const requests = new ShardRequests();
    requests.encode(request);
    requests.settled(requests.encode(request), { ...(await shard.sync(request)), status });
    const later: ShardTask = { op: 'sync', request: requests.encode(request) };
    const result = await shard.sync(request);
    const rows = [
      ['whole request (every sync before; a first sync now)', cost(whole)],
      ['later sync of the unchanged pod', cost(later)],
      ['(the other way: a later sync\'s result)', cost(result as unknown as ShardTask)],
    ] as const;
    console.log(`one sync request to a shard thread (${iterations} iterations each, v8 serializer as postMessage uses it)`);
    for (const [name, figures] of rows) {
      console.log(`  ${name.padEnd(54)} ${String(figures.bytes).padStart(6)} bytes  encode ${figures.encodeUs.toFixed(2)} µs  decode ${figures.decodeUs.toFixed(2)} µs`);
    }
  } finally {
    await shard.close();
    await sim.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
