// The shard pool with real worker threads against the simulated runtime: each pod's
// sync runs on the shard its UID hashes to, the shards' pulls meet in the main
// thread's coordinator (over the port each thread hands up at start), the PLEG relist
// and the per-pod relists of container events run on its own thread, and a shard
// thread that dies is replaced and reported.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { PullCoordinator } from '../../../src/main/images/pull-coordinator.js';
import { ShardPool } from '../../../src/main/shards/shard-pool.js';
import type { Pod } from '../../../src/shared/types.js';
import type { RelistResult } from '../../../src/shared/shard-protocol.js';
import { inProcessShardSettings } from '../../../src/tools/in-process-shard-settings.js';
import { startHarness, type SimHarness } from '../../simruntime/harness.js';
import { waitUntil } from '../../helpers/kubelet-process.js';

const IMAGE = 'registry.local/shared:1.0';
const logger = pino({ level: 'silent' });
let harness: SimHarness;
let pool: ShardPool;
let workDir: string;
const replaced: number[] = [];
const relists: RelistResult[] = [];

before(async () => {
  // Each pull takes a while, so pulls of the same image from both shards overlap.
  harness = await startHarness({ scale: 1, jitter: 0, imageSizesBytes: { [IMAGE]: 50_000_000 } });
  workDir = mkdtempSync(join(tmpdir(), 'shardlet-shard-pool-'));
  pool = new ShardPool({
    workers: 2,
    settings: inProcessShardSettings(harness.sim.endpoint, workDir),
    pulls: new PullCoordinator({ serializeImagePulls: false, maxParallelImagePulls: 5, logger }),
    logger,
    onShardReplaced: (index) => replaced.push(index),
    onRelist: (result) => relists.push(result),
    faultInjection: true,
  });
});

after(async () => {
  await pool.close();
  await harness.close();
  rmSync(workDir, { recursive: true, force: true });
});

const pod = (uid: string): Pod => ({
  metadata: { uid, name: uid, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: IMAGE, imagePullPolicy: 'IfNotPresent' }], terminationGracePeriodSeconds: 0 },
});

/** Pod UIDs that land on shard 0 and on shard 1. */
function uidsOnEachShard(): [string, string] {
  const byShard: string[] = [];
  for (let i = 0; byShard.filter(Boolean).length < 2; i++) byShard[pool.shardOf(`pod-${i}`)] ??= `pod-${i}`;
  return [byShard[0]!, byShard[1]!];
}

test('pods on both shards run, their pull of one image is made once, and the relist sees them', async () => {
  const uids = uidsOnEachShard();
  const results = await Promise.all(uids.map((uid) => pool.sync({ kind: 'sync', pod: pod(uid) })));
  for (const result of results) assert.equal(result.status.phase, 'Running', JSON.stringify(result.errors));
  assert.equal(harness.sim.stats().calls.PullImage, 1, 'the second shard followed the first one\'s pull');
  const relist = await pool.relist();
  assert.deepEqual(relist.runtimePods?.map((ref) => ref.uid).sort(), [...uids].sort());
  assert.equal(relists.at(-1), relist, 'the full relist went to onRelist before relist() resolved');
});

test('a container exit reaches the main thread as a per-pod relist from the PLEG thread, and the full relist does not repeat it', async () => {
  const [uid] = uidsOnEachShard();
  const { containers } = await harness.client.listContainers({ filter: { label_selector: { 'io.kubernetes.pod.uid': uid } } });
  await harness.client.stopContainer({ container_id: containers[0].id, timeout: 0 });
  const died = () => relists.some((result) => result.podUid === uid && result.events.some((event) => event.type === 'ContainerDied'));
  await waitUntil(async () => died(), 30_000, `the per-pod relist of ${uid}`);
  const full = await pool.relist();
  assert.deepEqual(full.events.filter((event) => event.podUid === uid), []);
});

test('a shard thread that dies is replaced and reported, and its replacement syncs', async () => {
  const [onShard0] = uidsOnEachShard();
  await pool.crashShard(0);
  await waitUntil(async () => replaced.includes(0), 30_000, 'the replacement of shard 0');
  const result = await pool.sync({ kind: 'sync', pod: pod(onShard0) });
  assert.equal(result.status.phase, 'Running');
  assert.equal(harness.sim.stats().calls.RunPodSandbox, 2, 'the resync found the sandbox and made none');
});

test('each worker thread reports its own CPU time', async () => {
  const cpu = await pool.threadCpuMicros();
  assert.equal(cpu.shardsMicros.length, 2);
  for (const micros of cpu.shardsMicros) assert.ok(micros > 0, `a shard thread that synced used CPU: ${micros}`);
  assert.ok(cpu.plegMicros > 0, 'the PLEG thread that relisted used CPU');
});

test('each worker thread reports its own heap', async () => {
  const heaps = await pool.threadHeaps();
  assert.equal(heaps.shards.length, 2);
  for (const heap of [...heaps.shards, heaps.pleg!]) {
    assert.ok(heap.usedBytes > 0 && heap.residentBytes > 0, `an isolate's heap: ${JSON.stringify(heap)}`);
  }
});

test('later syncs of a pod send only what changed; a replaced thread is sent the whole pod again and syncs it', async () => {
  const [, onShard1] = uidsOnEachShard();
  const spec = pod(onShard1);
  const counts = () => pool.stats()[1].requests!;
  const before = { ...counts() };
  const first = await pool.sync({ kind: 'sync', pod: spec });
  const second = await pool.sync({ kind: 'sync', pod: spec, previousStatus: first.status });
  assert.equal(second.status.phase, 'Running');
  assert.equal(counts().full, before.full + 1);
  assert.equal(counts().partial, before.partial + 1, 'the second sync named the pod and the status it had been sent');
  const sandboxes = harness.sim.stats().calls.RunPodSandbox;
  await pool.crashShard(1);
  await waitUntil(async () => replaced.includes(1), 30_000, 'the replacement of shard 1');
  const afterLoss = await pool.sync({ kind: 'sync', pod: spec, previousStatus: second.status });
  assert.equal(afterLoss.status.phase, 'Running');
  assert.equal(counts().partial, before.partial + 1, 'nothing named to a thread that holds nothing');
  assert.equal(counts().full + counts().resentFull, before.full + before.resentFull + 2, 'the replacement got the whole pod');
  assert.equal(harness.sim.stats().calls.RunPodSandbox, sandboxes, 'and found the pod running from its spec');
});
